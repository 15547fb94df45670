"""Where the solved bot and the hint disagree: situations whose strategy mostly plays the action its
own figures call worse, in a solution shipped with the package, before and after
``solving.agree`` (the step every CFR solve now ends with).

    python benchmarks/agree.py                       # standard rules, 6 to 8 players
    python benchmarks/agree.py --players 6 7 --preset cuckoo
    python benchmarks/agree.py --players 8 --exact   # also NashConv in the true game, before and after
                                                     # (an exact best response in parts: minutes)
    python benchmarks/agree.py --players 8 9         # a table solved in the true game: its file counted

A table that ships solved in the true game (method ``dcfr``, 8 and 9 players, ``prepare.TRUE_NOW``)
ended with ``solving.agree_in_parts`` as ``prepare`` solved it: its file is only counted.

For each shipped ``iid`` solution (solved without card removal, its figures those of that model) it
counts the situations where the strategy mostly plays (keep probability above or below one half)
the action whose expected lives lost are higher by more than the hints' ``MISTAKE`` (``dis``) and by
more than 0.01 lives (``dis>0.01``), and the reach of those (the chance a hand meets one); then it
rebuilds the model's tree, applies ``agree`` to the shipped strategy, recomputes the figures as a
solve does (``solving._tables``) and counts again. ``nash_conv model`` is the NashConv in the model;
with ``--exact``, ``nash_conv true`` is the exact NashConv in the true game (card removal) of the
strategy before and after (``methods.measure.measure``, ``--workers`` processes).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from chasetheace.rules import Rules
from chasetheace.solver.methods.cfr import Engine
from chasetheace.solver.methods.measure import measure
from chasetheace.solver.model.hand import Hand
from chasetheace.solver.model.tree import Tree
from chasetheace.solver.solutions.cache import prepared_path
from chasetheace.solver.solutions.solution import Solution
from chasetheace.solver.solutions.solving import _tables
from chasetheace.solver.uses.advice import MISTAKE


def disagreements(sol: Solution) -> tuple[int, int, float]:
    """(situations where the strategy mostly plays the action its figures call worse by more than
    MISTAKE, those by more than 0.01 lives, their summed reach)."""
    keep = np.array(sol.keep, dtype=np.float64)
    values = np.array(sol.values, dtype=np.float64).reshape(-1, 2)
    reach = np.array(sol.reach, dtype=np.float64)
    with_figures = np.array([sol.has_figures(i) for i in range(len(keep))], dtype=bool)
    diff = values[:, 0] - values[:, 1]  # keep's lives lost minus swap's
    wrong = with_figures & (((diff > MISTAKE) & (keep > 0.5)) | ((diff < -MISTAKE) & (keep < 0.5)))
    return int(wrong.sum()), int((wrong & (np.abs(diff) > 0.01)).sum()), float(reach[wrong].sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, nargs="*", default=[6, 7, 8])
    parser.add_argument("--preset", default="standard")
    parser.add_argument("--exact", action="store_true", help="measure NashConv in the true game too")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rules = Rules.preset(args.preset)
    for n in args.players:
        path = prepared_path(rules, n)
        shipped = Solution.load(str(path))
        if shipped.method != "iid":  # solved in the true game (8-9 players) or by a learner:
            # its file is counted as shipped (the true game's tables end with agree_in_parts)
            print(f"{args.preset}, {n} players ({path.name}, {len(shipped.infosets):,} situations, method "
                  f"{shipped.method}, NashConv {shipped.nash_conv:.3e} {shipped.measured}): shipped file "
                  f"dis/dis>0.01/reach {disagreements(shipped)}", flush=True)
            continue
        start = time.process_time()
        hand = Hand(rules, n)
        engine = Engine(Tree(hand, card_removal=False), 1)
        keys = engine.tree.infosets
        at = [shipped.index_of(k) for k in keys]
        if any(i is None for i in at):
            raise SystemExit(f"{path.name}: a situation of the model is missing")
        keep = np.array([shipped.keep[i] for i in at], dtype=np.float64)  # type: ignore[index]
        sigma = np.c_[keep, 1 - keep]
        before = _tables(hand, engine, sigma, "iid", 0.0, refine=False, measured="abstract")
        after = _tables(hand, engine, sigma, "iid", 0.0, measured="abstract")
        cpu = time.process_time() - start
        moved = int(np.sum((np.array(after.keep) > 0.5) != (keep > 0.5)))
        print(f"{args.preset}, {n} players ({path.name}, {len(keys):,} situations): "
              f"shipped file dis/dis>0.01/reach {disagreements(shipped)}; "
              f"recomputed {disagreements(before)}; after agree {disagreements(after)}; "
              f"{moved} situations change their mostly-played action; "
              f"nash_conv model {before.nash_conv:.3e} -> {after.nash_conv:.3e}; {cpu:.0f} CPU s", flush=True)
        if args.exact:
            for label, sol in (("before", before), ("after", after)):
                t = time.perf_counter()
                table = dict(zip(sol.infosets, sol.keep))
                got = measure(hand, table.__getitem__, workers=args.workers, keys=list(keys))
                gains = [f"{g:.2e}" for g in got.gains]
                print(f"  nash_conv true {label}: {got.nash_conv:.4e} (gains {gains}), "
                      f"{time.perf_counter() - t:.0f} s wall", flush=True)


if __name__ == "__main__":
    main()
