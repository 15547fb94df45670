"""One pass over every part of the exact tree, in the local process pool and on a local Ray cluster.

    python benchmarks/cluster_pass.py                 # 7 players: 454 parts each way
    python benchmarks/cluster_pass.py --players 8     # about 4 CPU minutes each way, 0.4 GB a part

Needs the ``cluster`` extra (Ray). Evaluates a random strategy (seeded) over every part twice:
in ``--workers`` local processes, then on a Ray cluster of ``--workers`` nodes of one CPU each
started here (``ray.cluster_utils.Cluster``, 80 MB of object store each), each part a Ray task
declaring its measured memory; prints the seconds of each and whether every summed figure is the
same, bit for bit.
"""

from __future__ import annotations

import argparse
import os
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=7)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    import numpy as np
    from ray.cluster_utils import Cluster

    import chasetheace as cta
    from chasetheace.solver.methods.cluster import RayRunner, part_memory
    from chasetheace.solver.methods.parts import PartsEngine
    from chasetheace.solver.model.hand import Hand
    from chasetheace.solver.model.tree import Tree

    hand = Hand(cta.Rules(), args.players)
    keys = Tree(hand, card_removal=False).infosets
    keep = np.random.default_rng(7).random(len(keys))
    sigma = np.c_[keep, 1 - keep]
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    start = time.perf_counter()
    with PartsEngine(hand, keys, workers=args.workers) as local:
        want = local.evaluate(sigma)
    print(f"local pool, {args.workers} workers: {time.perf_counter() - start:.0f} s", flush=True)
    node: dict[str, int] = dict(num_cpus=1, object_store_memory=80 * 2**20,
                                memory=part_memory(args.players) + 2**28)
    cluster = Cluster(initialize_head=True, head_node_args=node)
    for _ in range(args.workers - 1):
        cluster.add_node(**node)  # type: ignore[arg-type]
    cluster.wait_for_nodes()
    os.environ["RAY_ADDRESS"] = cluster.address  # what "auto" finds
    try:
        start = time.perf_counter()
        runner = RayRunner("auto")
        try:
            with PartsEngine(hand, keys, runner=runner) as engine:
                got = engine.evaluate(sigma)
        finally:
            runner.disconnect()
        print(f"Ray, {args.workers} nodes of one CPU: {time.perf_counter() - start:.0f} s (connecting "
              f"included), {engine.computed} parts", flush=True)
    finally:
        cluster.shutdown()  # type: ignore[no-untyped-call]
    for name in ("cfv", "cfp", "info_reach", "lives", "losses", "present"):
        a, b = getattr(want, name), getattr(got, name)
        same = np.array_equal(a, b)
        print(f"{name}: {'the same, bit for bit' if same else f'differs by up to {np.abs(a - b).max():.2e}'}")


if __name__ == "__main__":
    main()
