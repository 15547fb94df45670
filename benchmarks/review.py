"""Review speed: seconds to review a 5-player game of 20 hands, with a cold and a warm cache.

    python benchmarks/review.py            # standard rules, counting bots, seed 1
    python benchmarks/review.py --seed 3

The game is played by ``counting`` bots at 5 seats with 20 lives each (so all 20 hands are
5-player hands) and cut at the start of hand 21; its record is then reviewed three times, each
in a fresh temporary cache folder or the same one:

- cold: an empty cache folder: the review solves the 5-player hand first (and saves it);
- warm (disk): the solution is on disk but not in memory, as in a new process;
- warm (memory): the solution is in memory too, as in a server or a second review.

Goal: a warm review in under 1 second.

It then times the review of Ace Chasing games of 8 players (``--ace-players``), played to the end
by the default ``odds`` bots and by ``random`` bots (those keep and swap more): the bets judged
by the odds and every keep/swap decision by its exact knockout chances (no solver, no cache).

    python benchmarks/review.py --ace-only  # only the Ace Chasing figures (no solving)
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time

import chasetheace as cta
from chasetheace.solver.solutions import cache
from chasetheace.solver.uses.advice import review

HANDS = 20
PLAYERS = 5


def game_record(seed: int) -> dict[str, object]:
    """A 5-player game by counting bots, cut when hand 21 starts."""
    rules = cta.Rules().replace(lives=HANDS)
    game = cta.Game(rules, players=PLAYERS, seed=seed)
    bots = [cta.make_bot("counting", rules, PLAYERS) for _ in range(PLAYERS)]
    rng = random.Random(seed)
    while game.to_act is not None and game.hand <= HANDS:
        seat = game.to_act
        game.act(bots[seat].choose(game.observation(seat), game.legal_actions(), rng))
    record: dict[str, object] = json.loads(json.dumps(game.record()))
    return record


def timed(record: dict[str, object], folder: str) -> tuple[float, int, set[int]]:
    start = time.perf_counter()
    result = review(record, folder=folder)
    return time.perf_counter() - start, len(result.decisions), set(result.solutions)


def ace_chasing(players: int, bot: str, seed: int, repeat: int = 5) -> None:
    """Time the review of one Ace Chasing game (the best of ``repeat`` runs) and print it."""
    from chasetheace.acechasing.exchange import _first
    from chasetheace.acechasing.odds import _knockout
    from chasetheace.acechasing.review import review_ace_chasing

    game = cta.AceChasingGame(players, seed=seed)
    cta.play_ace_chasing_game(game, [cta.make_ace_chasing_bot(bot) for _ in range(players)], seed=seed)
    record = json.loads(json.dumps(game.record()))
    times = []
    for _ in range(repeat):
        _first.cache_clear()  # each run works its odds out afresh
        _knockout.cache_clear()
        start = time.perf_counter()
        result = review_ace_chasing(record)
        times.append(time.perf_counter() - start)
    exchanges = sum(d.exchange for d in result.decisions)
    print(f"review of an Ace Chasing game of {players} players by {bot} bots, seed {seed}: "
          f"{game.round} rounds, {len(result.decisions)} decisions ({exchanges} keep/swap)")
    print(f"  best of {repeat}:                     {min(times):8.3f} s "
          f"({1000 * min(times) / max(exchanges, 1):.1f} ms per keep/swap decision, all included)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ace-players", type=int, default=8)
    parser.add_argument("--ace-only", action="store_true", help="only the Ace Chasing figures")
    args = parser.parse_args()
    if not args.ace_only:
        chase_the_ace(args.seed)
    for bot in ("odds", "random"):
        ace_chasing(args.ace_players, bot, args.seed)


def chase_the_ace(seed: int) -> None:
    """Time the reviews of a 5-player game of Chase the Ace, cold and warm, and print them."""
    args = argparse.Namespace(seed=seed)
    record = game_record(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        cache._MEMORY.clear()
        cold, decisions, counts = timed(record, folder)
        cache._MEMORY.clear()
        disk, _, _ = timed(record, folder)
        memory, _, _ = timed(record, folder)
    print(f"review of a {PLAYERS}-player game of {HANDS} hands ({decisions} decisions; "
          f"solutions for {sorted(counts)} players), seed {args.seed}")
    print(f"  cold cache (solves first):      {cold:8.3f} s")
    print(f"  warm cache (on disk):           {disk:8.3f} s")
    print(f"  warm cache (in memory):         {memory:8.3f} s")


if __name__ == "__main__":
    main()
