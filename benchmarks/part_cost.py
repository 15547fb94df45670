"""What one part of the exact tree costs: its peak memory and seconds, per table size.

    python benchmarks/part_cost.py                      # 5 to 8 players, the part (6, 6)
    python benchmarks/part_cost.py --players 7 --pair 0 0 --pair 6 6

The exact tree from 7 players is evaluated in 91 parts (``chasetheace.solver.methods.parts``), one
per pair of strengths dealt to the eldest and the 2nd. Each part runs here in a process of its own,
as a worker of the process pool or a Ray task does: the process imports the solver, builds the
part's tree and evaluates a strategy on it (the strategy solved without card removal is not
needed for the cost: the uniform one is used). Printed per part: its nodes, the wall-clock and CPU
seconds of the evaluation (the tree's building included, the import and the compiled loops'
loading not), and the process's peak resident set (``ru_maxrss``: the interpreter, numpy and numba
included, as a worker holds them). The parts differ little in size (at 7 players 335,000 to
348,000 nodes); (0, 12) and (6, 6) are among the largest. These peaks are what
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
pair = (int(sys.argv[2]), int(sys.argv[3]))
t, c = time.perf_counter(), time.process_time()
part = evaluate_part(hand, pair, lambda key: 0.5)
wall, cpu = time.perf_counter() - t, time.process_time() - c
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
print(json.dumps(dict(nodes=part.nodes if part else 0, wall=wall, cpu=cpu, peak_mb=peak)))
"""


def main() -> None:
    import json

    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, nargs="+", default=[5, 6, 7, 8])
    parser.add_argument("--pair", type=int, nargs=2, action="append", metavar=("A", "B"),
                        help="the strengths of the eldest and the 2nd (default 6 6, one of the largest)")
    parser.add_argument("--all", action="store_true", help="every one of the 91 parts")
    args = parser.parse_args()
    pairs = [tuple(p) for p in args.pair] if args.pair else [(6, 6)]
    if args.all:
        pairs = [(a, b) for a in range(13) for b in range(a, 13)]
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"{'players':>7} {'pair':>7} {'nodes':>12} {'wall s':>8} {'CPU s':>8} {'peak MB':>8}")
    for players in args.players:
        for a, b in pairs:
            t = time.perf_counter()
            # one BLAS thread, as a worker has (chasetheace.solver.methods.parts.ONE_THREAD)
            env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
            out = subprocess.run([sys.executable, "-c", CHILD, str(players), str(a), str(b)],
                                 capture_output=True, text=True, check=True, env=env)
            got = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{players:>7} {f'{a},{b}':>7} {got['nodes']:>12,} {got['wall']:>8.1f} {got['cpu']:>8.1f} "
                  f"{got['peak_mb']:>8.0f}   (process {time.perf_counter() - t:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
