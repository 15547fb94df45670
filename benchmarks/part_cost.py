"""What one part of the exact tree costs: its peak memory and seconds, per table size.

    python benchmarks/part_cost.py                      # 5 to 9 players, the largest part
    python benchmarks/part_cost.py --players 9 --part 0 0 0 --part 2 5 9
    python benchmarks/part_cost.py --players 7 8 --pass --workers 2   # a whole pass, as a solve runs it

The exact tree is evaluated in parts (``chasetheace.solver.methods.parts``), one per tuple of the
three weakest strengths dealt to the first ``n - 2`` seats (``parts_of``). Each part runs here in
a process of its own, as a worker of the process pool or a Ray task does: the process imports the
solver, builds the part's tree and evaluates a strategy on it (the strategy solved without card
removal is not needed for the cost: the uniform one is used). Printed per part: its nodes, the
wall-clock and CPU seconds of the evaluation (the tree's building included, the import and the
compiled loops' loading not), and the process's peak resident set (``ru_maxrss``: the interpreter,
numpy and numba included, as a worker holds them). The parts differ in size: the weakest tuples leave the most
cards to the other seats; by default the first of the order the passes run them in (``part_size``:
(0, 0, 0)); (0, 1, 2) has the most nodes; ``--all`` runs every part and prints the sums. These peaks are what
:data:`chasetheace.solver.methods.cluster.PART_MEMORY_MB` declares to Ray for each part (with a
margin), so its scheduler places a part where it fits.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

CHILD = """
import json, resource, sys, time
import chasetheace as cta
from chasetheace.solver.methods.parts import evaluate_part
from chasetheace.solver.model.hand import Hand
from chasetheace.solver.model.kernels import available, loops
if available():
    loops()  # load the compiled loops first (from numba's cache): a worker does it once
hand = Hand(cta.Rules(), int(sys.argv[1]))
part_ = tuple(int(v) for v in sys.argv[2:])
t, c = time.perf_counter(), time.process_time()
part = evaluate_part(hand, part_, lambda key: 0.5)
wall, cpu = time.perf_counter() - t, time.process_time() - c
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
print(json.dumps(dict(nodes=part.nodes if part else 0, wall=wall, cpu=cpu, peak_mb=peak)))
"""


def main() -> None:
    import json

    import chasetheace as cta
    from chasetheace.solver.methods.parts import part_size, parts_of
    from chasetheace.solver.model.hand import Hand

    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, nargs="+", default=[5, 6, 7, 8, 9])
    parser.add_argument("--part", type=int, nargs="+", action="append", metavar="S",
                        help="the weakest strengths of the part, ascending (default: the largest part)")
    parser.add_argument("--all", action="store_true", help="every part, and the sums")
    parser.add_argument("--pass", dest="whole", action="store_true",
                        help="a whole pass in --workers processes of the solver's pool: the nodes built, "
                             "the wall clock, the workers' CPU seconds and their peak memory")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    if args.whole:
        for players in args.players:
            whole_pass(players, args.workers)
        return
    print(f"{'players':>7} {'part':>9} {'nodes':>12} {'wall s':>8} {'CPU s':>8} {'peak MB':>8}")
    for players in args.players:
        hand = Hand(cta.Rules(), players)
        every = sorted(parts_of(hand), key=lambda p: (-part_size(hand, p), p))
        parts = every if args.all else [tuple(p) for p in args.part] if args.part else every[:1]
        nodes = cpu = peak = 0.0
        for part in parts:
            t = time.perf_counter()
            # one BLAS thread, as a worker has (chasetheace.solver.methods.parts.ONE_THREAD)
            env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
            out = subprocess.run([sys.executable, "-c", CHILD, str(players), *map(str, part)],
                                 capture_output=True, text=True, check=True, env=env)
            got = json.loads(out.stdout.strip().splitlines()[-1])
            nodes, cpu, peak = nodes + got["nodes"], cpu + got["cpu"], max(peak, got["peak_mb"])
            name = ",".join(map(str, part))
            print(f"{players:>7} {name:>9} {got['nodes']:>12,} {got['wall']:>8.1f} {got['cpu']:>8.1f} "
                  f"{got['peak_mb']:>8.0f}   (process {time.perf_counter() - t:.0f} s)", flush=True)
        if len(parts) > 1:
            name = f"all {len(parts)}"
            print(f"{players:>7} {name:>9} {int(nodes):>12,} {'':>8} {cpu:>8.1f} {peak:>8.0f}")


def whole_pass(players: int, workers: int) -> None:
    """One pass over every part in the solver's process pool (the uniform strategy)."""
    import resource

    import numpy as np

    import chasetheace as cta
    from chasetheace.solver.methods.parts import LocalRunner, part_size, parts_of
    from chasetheace.solver.model.hand import Hand
    from chasetheace.solver.model.tree import Tree

    hand = Hand(cta.Rules(), players)
    keys = Tree(hand, card_removal=False).infosets  # every situation of the true game is among them
    parts = sorted(parts_of(hand), key=lambda p: (-part_size(hand, p), p))  # as the passes order them
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    runner = LocalRunner(workers)
    runner.start(hand, keys)
    t = time.perf_counter()
    try:
        nodes = [got[1].nodes for _, got in runner.run(parts, np.full(len(keys), 0.5)) if got is not None]
        wall = time.perf_counter() - t
    finally:
        runner.close()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the workers, once they have ended
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    print(f"{players} players, a pass over {len(parts)} parts on {workers} workers: {sum(nodes):,} nodes "
          f"(the largest part {max(nodes):,}), {wall:.0f} s, workers {cpu:.0f} CPU s (their start "
          f"included), a worker's peak {after.ru_maxrss / 1024:.0f} MB", flush=True)


if __name__ == "__main__":
    main()
