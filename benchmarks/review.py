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
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time

import chasetheace as cta
from chasetheace.solver import cache
from chasetheace.solver.advice import review

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
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
