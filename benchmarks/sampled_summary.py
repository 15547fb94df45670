"""The sampled method on the full history against the same method on a summary of it
(``chasetheace.solver.methods.sampled.SummarySolver``), both bracketed by the same sampled hands.

    python benchmarks/sampled_summary.py --players 10 12 20 --hands 200000
    python benchmarks/sampled_summary.py --players 12 --batches 336 --hands 20000

For each table size (standard rules, or ``--preset``): the shipped strategy (the solution cache's,
the sampled method on the full history for ``sampled_batches(players)`` mini-batches of 2,000
hands) and the summary learner trained ``--batches`` mini-batches (by default as many as the
shipped one, ``--times`` times more with ``--times``) with the seed ``--seed``, each measured by
``chasetheace.solver.methods.bound.bound_nash_conv`` from the same ``--hands`` hands (seed 0): the
95 % upper bound (proved, one-sided) and the cross-fitted lower estimate with its standard error,
in lives per hand. The CPU seconds of the training and of the bound, and the load average (1 min)
before each line, are printed beside them: compare CPU seconds on a busy machine.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

from chasetheace.rules import rules_from_args
from chasetheace.solver.methods.bound import bound_nash_conv
from chasetheace.solver.methods.sampled import SummarySolver
from chasetheace.solver.model.hand import Hand, InfoKey
from chasetheace.solver.solutions import cache
from chasetheace.solver.solutions.choice import sampled_batches


def line(n: int, what: str, batches: int, train_cpu: float, hand: Hand, keep: Callable[[InfoKey], float],
         hands: int, situations: int, load: float) -> None:
    cpu = time.process_time()
    got = bound_nash_conv(hand, keep, hands, seed=0)
    print(f"{n:>7} {what:>8} {batches:>7} {situations:>10,} {train_cpu:>9.1f} {got.upper:>8.4f} "
          f"{got.estimate:>8.4f} ± {got.estimate_error:.4f} {time.process_time() - cpu:>7.1f} {load:>5.2f}",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[10, 12, 20])
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--batches", type=int, default=None, help="the summary learner's mini-batches")
    parser.add_argument("--times", type=int, default=1, help="... else this many times the shipped budget")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--preset", default="standard")
    parser.add_argument("--skip-shipped", action="store_true")
    args = parser.parse_args()
    rules = rules_from_args(args.preset, [])
    print(f"preset {args.preset}; bracket from {args.hands:,} sampled hands (upper: 95 % one-sided, proved)")
    print(f"{'players':>7} {'learner':>8} {'batches':>7} {'situations':>10} {'train CPU':>9} {'upper':>8} "
          f"{'estimate':>17} {'bound s':>7} {'load':>5}")
    for n in args.players:
        hand = Hand(rules, n)
        if not args.skip_shipped:
            load = os.getloadavg()[0]
            sol = cache.solution_for(rules, n)
            line(n, sol.method, sol.iterations or 0, float("nan"), hand, sol.played_keep, args.hands,
                 len(sol.infosets), load)
        batches = args.batches or args.times * sampled_batches(n)
        load = os.getloadavg()[0]
        cpu = time.process_time()
        solver = SummarySolver(hand, seed=args.seed)
        solver.train(batches)
        line(n, "summary", batches, time.process_time() - cpu, hand, solver.keep_at, args.hands,
             len(solver.keys), load)


if __name__ == "__main__":
    main()
