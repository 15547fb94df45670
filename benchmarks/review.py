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

With ``--table N`` it times instead a whole game of ``N`` seats played to its end by ``threshold:8``
bots (seed ``--seed``) and reviewed from an empty cache in a fresh child process (its cache folder
``CHASE_THE_ACE_CACHE`` a new temporary one), every table size the game passes through solved by
the review itself, ``--workers`` at a time (``AHEAD_WORKERS``; 1: one after another in the child),
under the standard rules with the ``--rule`` changes (a rule off the shipped tables makes it solve):

    python benchmarks/review.py --table 12 --rule ties=eldest-loses --workers 1
    python benchmarks/review.py --table 12 --rule ties=eldest-loses --workers 1 --profile review.prof

It prints the child's CPU seconds (its own and its worker processes', user and system), its wall
clock (starting Python, solving, reviewing), the peak memory, the load average before and after,
and a digest of the review's JSON (``Review.to_dict()``): equal digests, equal verdicts and figures
(how a change that should only make the review cheaper is checked). ``--profile FILE`` writes the
child's cProfile statistics (one run; ``--workers 1`` so that the solving is in it).

Goal (issue 35): a 12-player review under rules that do not ship within 120 s at one worker.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import subprocess
import sys
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
    parser.add_argument("--table", type=int, metavar="N",
                        help="instead: a whole game of N seats reviewed from an empty cache (CPU and wall s)")
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                        help="with --table: change a standard rule (off the shipped tables: solved first)")
    parser.add_argument("--workers", type=int, default=None,
                        help="with --table: table sizes solved at once (default: cache.AHEAD_WORKERS)")
    parser.add_argument("--profile", metavar="FILE", help="with --table: the child's cProfile statistics")
    parser.add_argument("--child", metavar="RECORD", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _table_child(args.child, args.workers, args.profile)
        return
    if args.table is not None:
        whole_game(args.table, args.rule, args.seed, args.workers, args.profile)
        return
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


def _table_record(players: int, rule: list[str], seed: int) -> dict[str, object]:
    """A whole game of ``players`` seats by ``threshold:8`` bots under the standard rules changed by
    ``rule``, played to its end."""
    from chasetheace.rules import rules_from_args

    rules = rules_from_args("standard", rule)
    game = cta.Game(rules, players=players, seed=seed)
    bots = [cta.make_bot("threshold:8", rules, players) for _ in range(players)]
    rng = random.Random(seed)
    while game.to_act is not None:
        seat = game.to_act
        game.act(bots[seat].choose(game.observation(seat), game.legal_actions(), rng))
    record: dict[str, object] = json.loads(json.dumps(game.record()))
    return record


def _table_child(record_path: str, workers: int | None, profile: str | None) -> None:
    """In the child: review the record from the (empty) cache folder; its figures as one JSON line."""
    if workers is not None:
        cache.AHEAD_WORKERS = workers
    with open(record_path, encoding="utf-8") as f:
        record = json.load(f)
    start = time.perf_counter()
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        result = profiler.runcall(review, record)
        profiler.dump_stats(profile)
    else:
        result = review(record)
    seconds = time.perf_counter() - start
    digest = hashlib.sha256(json.dumps(result.to_dict(), sort_keys=True).encode()).hexdigest()[:16]
    print(json.dumps({"review_seconds": seconds, "decisions": len(result.decisions),
                      "mistakes": sum(d.mistake for d in result.decisions), "generalised": result.generalised,
                      "unjudged": result.unjudged,
                      "methods": {n: info["method"] for n, info in sorted(result.solutions.items())},
                      "digest": digest}))


def whole_game(players: int, rule: list[str], seed: int, workers: int | None, profile: str | None) -> None:
    """Time the review of a whole game of ``players`` seats from an empty cache, in a child process."""
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "game.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(_table_record(players, rule, seed), f)
        env = {**os.environ, cache.CACHE_ENV: os.path.join(folder, "cache")}
        command = [sys.executable, __file__, "--child", path,
                   *(["--workers", str(workers)] if workers else []),
                   *(["--profile", os.path.abspath(profile)] if profile else [])]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        out = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    now = os.getloadavg()
    print(f"review of a whole {players}-player game by threshold:8 bots, seed {seed}, rules: standard"
          f"{''.join(f' {r}' for r in rule)}, empty cache, workers {workers or cache.AHEAD_WORKERS}"
          f"{' (profiled)' if profile else ''}")
    print(f"  {got['decisions']} decisions ({got['mistakes']} mistakes, {got['generalised']} judged from "
          f"similar situations, {got['unjudged']} unjudged); solutions: "
          + ", ".join(f"{n} {m}" for n, m in got["methods"].items()))
    print(f"  CPU {cpu:.1f} s (the child and its workers), wall {wall:.1f} s "
          f"(review {got['review_seconds']:.1f} s), peak {after.ru_maxrss / 1e6:.2f} GB")
    print(f"  load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, after {now[0]:.2f} {now[1]:.2f} "
          f"{now[2]:.2f}; {os.cpu_count()} cores; review digest {got['digest']}")


if __name__ == "__main__":
    main()
