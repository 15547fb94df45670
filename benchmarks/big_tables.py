"""Big tables at the table: the first hint, a whole game's review, and the solutions' size on disk.

    python benchmarks/big_tables.py --players 12          # all three, from an empty cache
    python benchmarks/big_tables.py --players 12 --only hint
    python benchmarks/big_tables.py --players 8 --only size

Each part runs in a child process with an empty temporary cache folder (``CHASE_THE_ACE_CACHE``),
so its time includes the solving a new user waits for, and its peak memory (the child's maximum
resident set) is its own:

- ``hint``: the first hint at an ``--players`` table (a fresh game, seed ``--seed``): solving that
  table size and answering; then the mean time of the next hints (the solution in memory);
- ``review``: a whole game of ``--players`` seats played by ``threshold:8`` bots (seed ``--seed``)
  reviewed from the empty cache (every table size the game passes through is solved, two at a time
  in worker processes: ``worker_peak_gb`` is the largest worker's peak memory), then again
  warm, from the cache on disk in a new process; it counts the decisions judged from similar
  situations (the sampled method never met them) and the ones not judged (should be 0);
  ``BIG_TABLES_WORKERS=1`` solves them one after another, as before;
- ``size``: the cached (or shipped) solution of ``--players`` seats, in the compact binary form and
  as JSON (``Solution.save``): bytes, and seconds to read each.

The named presets' tables ship solved with the package (docs/review.md, "Shipped solutions"): at
those sizes the first hint reads them (``benchmarks/first_hint.py`` times every one).
``--rule ties=eldest-loses`` (any rule off the shipped ones) measures a table solved on first use
instead.

Goals (issue 19): at 12 players the first hint within 30 s and later ones within 0.1 s; the review
within 120 s and 2 GB from an empty cache, 2 s warm; the binary form a tenth of the JSON or less,
read within 1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

from chasetheace.rules import Rules, rules_from_args


def _child(part: str, players: int, seed: int, folder: str, record: str,
           rule: list[str]) -> dict[str, object]:
    """Run ``part`` in a child process with the cache ``folder``; its figures and peak memory."""
    env = {**os.environ, "CHASE_THE_ACE_CACHE": folder}
    start = time.perf_counter()
    out = subprocess.run([sys.executable, __file__, "--child", part, "--players", str(players),
                          "--seed", str(seed), "--record", record, *(f"--rule={r}" for r in rule)],
                         env=env, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    figures: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    figures["process_seconds"] = wall
    return figures


def _play(rules: Rules, players: int, seed: int) -> dict[str, object]:
    import random

    import chasetheace as cta

    game = cta.Game(rules, players=players, seed=seed)
    bots = [cta.make_bot("threshold:8", game.rules, players) for _ in range(players)]
    rng = random.Random(seed)
    while game.to_act is not None:
        seat = game.to_act
        game.act(bots[seat].choose(game.observation(seat), game.legal_actions(), rng))
    record: dict[str, object] = json.loads(json.dumps(game.record()))
    return record


def child(part: str, rules: Rules, players: int, seed: int, record: str) -> None:
    """Run one part and print its figures as one JSON line, with this process's peak memory."""
    cpu = time.process_time()
    figures = _part(part, rules, players, seed, record)
    # CPU seconds of this process and of its worker processes: what the work costs whatever else
    # runs on the machine (on two free cores a review takes about the larger of half of it and its
    # longest single solve)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    figures["cpu_seconds"] = time.process_time() - cpu + kids.ru_utime + kids.ru_stime
    figures["peak_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # kilobytes on Linux
    # the review solves the missing table sizes in worker processes (at most two at once): the
    # largest of them, so that the two together took at most peak_gb + 2 * worker_peak_gb
    figures["worker_peak_gb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1e6
    print(json.dumps(figures))


def _part(part: str, rules: Rules, players: int, seed: int, record: str) -> dict[str, object]:
    import random

    import chasetheace as cta
    from chasetheace.solver.solutions.cache import cache_path, prepared_path, solution_for
    from chasetheace.solver.uses.advice import hint_for, review

    if part == "hint":
        game = cta.Game(rules, players=players, seed=seed)
        start = time.perf_counter()
        hint_for(game.observation(game.to_act))
        first = time.perf_counter() - start
        rng = random.Random(seed)
        times: list[float] = []
        while len(times) < 50:  # the next hints at this table size (fewer seats would solve again)
            game.act(rng.choice(["keep", "swap"]))
            if game.to_act is None or len(game.observation(game.to_act)["order"]) != players:
                break
            start = time.perf_counter()
            hint_for(game.observation(game.to_act))
            times.append(time.perf_counter() - start)
        return {"first_hint_seconds": first, "later_hint_seconds": sum(times) / len(times),
                "later_hints": len(times)}
    if part == "review":
        from chasetheace.solver.solutions import cache

        cache.AHEAD_WORKERS = int(os.environ.get("BIG_TABLES_WORKERS", cache.AHEAD_WORKERS))
        with open(record, encoding="utf-8") as f:
            data = json.load(f)
        start = time.perf_counter()
        result = review(data)
        return {"review_seconds": time.perf_counter() - start, "decisions": len(result.decisions),
                "generalised": result.generalised, "unjudged": result.unjudged,
                "table_sizes": len(result.solutions)}
    from chasetheace.solver import Solution

    if part == "size":
        sol = solution_for(rules, players)
        binary = str(cache_path(rules, players))
        if not os.path.isfile(binary):  # a table shipped with the package
            binary = str(prepared_path(rules, players))
        text = os.path.join(os.environ["CHASE_THE_ACE_CACHE"], "export.json")
        sol.save(text)
        timings: dict[str, float] = {}
        for name, path in (("npz", binary), ("json", text)):
            start = time.perf_counter()
            Solution.load(path)
            timings[name] = time.perf_counter() - start
        return {"situations": len(sol.infosets), "npz_mb": os.path.getsize(binary) / 1e6,
                "json_mb": os.path.getsize(text) / 1e6, "npz_load_seconds": timings["npz"],
                "json_load_seconds": timings["json"], "method": sol.method}
    raise ValueError(f"no part {part!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--only", choices=("hint", "review", "size"))
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                        help="change a standard rule (off the shipped tables: solved on first use)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--record", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    rules = rules_from_args("standard", args.rule)
    if args.child:
        child(args.child, rules, args.players, args.seed, args.record)
        return
    with tempfile.TemporaryDirectory() as tmp:
        record = os.path.join(tmp, "game.json")
        with open(record, "w", encoding="utf-8") as f:
            json.dump(_play(rules, args.players, args.seed), f)
        for part in ("hint", "review", "size"):
            if args.only not in (None, part):
                continue
            folder = tempfile.mkdtemp(dir=tmp)
            got = _child(part, args.players, args.seed, folder, record, args.rule)
            print(f"{part} at {args.players} players (empty cache): "
                  + ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}"
                              for k, v in got.items()),
                  flush=True)
            if part == "review":
                warm = _child(part, args.players, args.seed, folder, record, args.rule)
                print(f"review at {args.players} players (warm, new process): review_seconds "
                      f"{warm['review_seconds']:.3g}, process_seconds {warm['process_seconds']:.3g}, "
                      f"peak_gb {warm['peak_gb']:.3g}", flush=True)


if __name__ == "__main__":
    main()
