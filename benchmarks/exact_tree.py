"""One part of the exact tree (true card removal), evaluated today's way and the sharper way.

    python benchmarks/exact_tree.py                        # 7 and 8 players, both evaluations; 9 the new one
    python benchmarks/exact_tree.py --players 9 --old      # 9 players today's way too (about 20 GB)
    python benchmarks/exact_tree.py --pair 0 12            # another part (default: 5 7, among the largest)

Each run is a process of its own evaluating one strategy (every situation keeps with a probability
drawn from a fixed seed) on the part where the eldest and the 2nd hold the pair, as
``chasetheace.solver.methods.parts.evaluate_part`` does in every pass: building the part's tree,
then one forward and one backward pass in double precision. It prints the nodes built, the CPU
seconds of the build and of the passes (the figure to compare on a shared machine; numba is loaded
and its loops compiled before the clock starts), the peak resident memory of the process, and the
lives lost summed over the positions: the two evaluations must agree on it (they agree on every
figure, see tests/test_solver_sharper.py). ``closed_dealer`` is today's (the nodes up to the
dealer's right neighbour, the last two positions in closed form); ``closed_three`` the sharper one
(the nodes up to the position before, the last three from its groups: chasetheace.solver.model.tail).
The pairs were the parts of a pass when this was measured (91 of them: x 91 over-estimated a pass a little);
the passes are now cut by the weakest cards (``parts_of``: each node of the last positions built once),
measured by ``benchmarks/part_cost.py``. This benchmark still compares the two evaluations on one pair.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time


def one(players: int, pair: tuple[int, int], evaluation: str) -> dict[str, object]:
    """Build and evaluate one part in this process; its figures."""
    import numpy as np

    import chasetheace as cta
    from chasetheace.solver.methods.cfr import Engine
    from chasetheace.solver.model import kernels
    from chasetheace.solver.model.hand import Hand
    from chasetheace.solver.model.tree import Tree

    kernels.loops()
    hand = Hand(cta.Rules(), players)
    three = evaluation == "closed_three"
    warm = Tree(Hand(cta.Rules(), 5), pair=(5, 7), closed_dealer=True, closed_three=three)
    half = np.full((len(warm.infosets), 2), 0.5)
    Engine(warm, compiled=True).evaluate(half, table=True)  # compiles the loops
    start = time.process_time()
    tree = Tree(hand, pair=pair, closed_dealer=True, closed_three=evaluation == "closed_three")
    built = time.process_time()
    engine = Engine(tree, compiled=True)
    rng = np.random.default_rng(0)
    table: dict[object, float] = {}
    keep = np.array([table.setdefault(key, float(rng.random())) for key in sorted(tree.infosets)])
    order = {key: i for i, key in enumerate(sorted(tree.infosets))}
    mine = keep[[order[key] for key in tree.infosets]]
    passes = engine.evaluate(np.c_[mine, 1 - mine], table=True)
    engine.info_reach(passes)
    done = time.process_time()
    return dict(players=players, pair=list(pair), evaluation=evaluation, nodes=tree.node_count,
                build=built - start, passes=done - built,
                peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                lives=float(passes.lives.sum()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, nargs="+", default=[7, 8, 9])
    parser.add_argument("--pair", type=int, nargs=2, default=[5, 7])
    parser.add_argument("--old", action="store_true",
                        help="today's evaluation at 9 players too (about 20 GB)")
    parser.add_argument("--one", nargs=4, metavar=("PLAYERS", "A", "B", "EVALUATION"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        n, a, b, evaluation = args.one
        print(json.dumps(one(int(n), (int(a), int(b)), evaluation)))
        return
    print(f"load average {os.getloadavg()[0]:.2f}; one part, pair {tuple(args.pair)}, standard rules")
    print(f"{'players':>7} {'evaluation':>13} {'nodes':>11} {'build s':>8} {'passes s':>8} {'total s':>8} "
          f"{'peak MB':>8} {'x 91 CPU h':>10}  lives")
    for players in args.players:
        for evaluation in ("closed_dealer", "closed_three"):
            if evaluation == "closed_dealer" and players >= 9 and not args.old:
                print(f"{players:>7} {evaluation:>13}  (skipped: about 20 GB; --old runs it)")
                continue
            cmd = [sys.executable, __file__, "--one", str(players), *map(str, args.pair), evaluation]
            out = subprocess.run(cmd,
                                 capture_output=True, text=True, check=False)
            if out.returncode:
                print(f"{players:>7} {evaluation:>13}  failed: {out.stderr.strip().splitlines()[-1:]}")
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            total = float(r["build"]) + float(r["passes"])
            print(f"{players:>7} {evaluation:>13} {r['nodes']:>11,} {r['build']:>8.1f} {r['passes']:>8.1f} "
                  f"{total:>8.1f} {r['peak_mb']:>8.0f} {total * 91 / 3600:>10.2f}  {r['lives']:.15f}")


if __name__ == "__main__":
    main()
