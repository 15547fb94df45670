"""The summary learner (``chasetheace.solver.methods.sampled.SummarySolver``): the shipped strategy
against the learner trained longer or otherwise, all bracketed by the same sampled hands; a
learning curve; and where a strategy's distance from an equilibrium lies.

    python benchmarks/sampled_summary.py --players 10 12 --hands 200000 --times 16 --weighting 2
    python benchmarks/sampled_summary.py --players 10 --curve 60 240 960 3840 --skip-shipped
    python benchmarks/sampled_summary.py --players 10 --breakdown --skip-shipped
    python benchmarks/sampled_summary.py --players 10 12 --hands 200000 --refine 3

For each table size (standard rules, or ``--preset``): the shipped strategy (the solution cache's
file) and the summary learner trained ``--batches`` mini-batches of 2,000 hands (by default
``--times`` times ``summary_batches(players)``, the shipped budget) with the seed ``--seed`` and
the average strategy weighing batch ``i`` by ``i ** --weighting`` (1: the shipped learner's linear
average), each measured by ``chasetheace.solver.methods.bound.bound_nash_conv`` from the same
``--hands`` hands (seed 0): the 95 % upper bound (proved, one-sided) and the cross-fitted lower
estimate with its standard error, in lives per hand. ``--curve B1 B2 ...``: the learner trained on
to each of these batch counts in turn, bracketed at each. The CPU seconds of the training and of
the bound, and the load average (1 min) before each line, are printed beside them: compare CPU
seconds on a busy machine.

``--refine K``: then ``K`` passes of ``SummarySolver.refine`` (each ``--refine-hands`` fresh hands,
moving each summary the fraction ``--refine-step`` of the way, by default all of it, to the action
they call better where its sampled difference is a standard error from 0), bracketed after each;
the CPU column adds the passes to the training.

``--breakdown``: for the shipped strategy and the learner's last, the cross-fitted lower estimate (the
deviation valued on each tenth of the hands chosen on the other nine tenths, as the bound does)
split by seat, by own card, by the card given, by the direction of the deviation (to swap, to keep),
by how many swaps, blocked swaps and shown blockers came before, and by the last turn before; how
concentrated it is (the best 100 / 1,000 / 10,000 situations); and the same estimate with the
deviation chosen per summary (``summary_key``: what the learner tells apart) rather than per
situation of the true game. Where the per-summary figure is as large as the per-situation one, a
best response needs nothing the summary merges: the distance is the learner's, not its key's.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Hashable, Sequence

import numpy as np

from chasetheace.rules import rules_from_args
from chasetheace.solver.methods.bound import FOLDS, SELECT, Samples, bracket, sample_differences, situations
from chasetheace.solver.methods.sampled import SummarySolver, summary_key
from chasetheace.solver.model.hand import Hand, InfoKey
from chasetheace.solver.solutions import cache
from chasetheace.solver.solutions.choice import summary_batches

HEADER = (f"{'players':>7} {'learner':>8} {'batches':>7} {'weight':>6} {'situations':>10} {'train CPU':>9} "
          f"{'upper':>8} {'estimate':>17} {'bound s':>7} {'load':>5} {'UTC':>8}")


def sample(hand: Hand, keep: Callable[[InfoKey], float], hands: int) -> tuple[Samples, list[InfoKey]]:
    """The bound's samples (seed 0) and the situation of each information set number in them."""
    got = sample_differences(hand, keep, hands, seed=0)
    return got, situations(hand, got)


def line(n: int, what: str, batches: int, weighting: float, train_cpu: float, hand: Hand,
         keep: Callable[[InfoKey], float], hands: int, situations: int, load: float,
         breakdown: bool) -> None:
    cpu = time.process_time()
    got, keys = sample(hand, keep, hands)
    b = bracket(got, seed=0)
    print(f"{n:>7} {what:>8} {batches:>7} {weighting:>6g} {situations:>10,} {train_cpu:>9.1f} "
          f"{b.upper:>8.4f} {b.estimate:>8.4f} ± {b.estimate_error:.4f} {time.process_time() - cpu:>7.1f} "
          f"{load:>5.2f} {time.strftime('%H:%M:%S', time.gmtime()):>8}", flush=True)
    if breakdown:
        show_breakdown(got, keys)


def crossfit(got: Samples, groups: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Per decision sampled, what the cross-fitted deviation saves there (as ``bracket`` computes its
    estimate: the sum over all decisions divided by the hands is the lower estimate), the deviation
    chosen per group (``groups[i]``: the group of information set ``i``; ``q`` per group)."""
    where, ids, d = got.hand, groups[got.ids], got.d.astype(float)
    m = len(q)
    count, total = np.bincount(ids, minlength=m), np.bincount(ids, d, minlength=m)
    total_d2 = np.bincount(ids, d ** 2, minlength=m)
    fold = where % FOLDS
    out = np.zeros(len(d))
    for f in range(FOLDS):
        mine = fold == f
        k = count - np.bincount(ids[mine], minlength=m)
        s1 = total - np.bincount(ids[mine], d[mine], minlength=m)
        s2 = total_d2 - np.bincount(ids[mine], d[mine] ** 2, minlength=m)
        var = (s2 + 1.0) / (k + 1.0) - (s1 / np.maximum(k, 1)) ** 2
        sure = (s1 ** 2 > SELECT ** 2 * np.maximum(var, 0.0) * k) & (k > 0)
        c = np.where(sure & (s1 > 0), q, np.where(sure & (s1 < 0), q - 1, 0.0))
        out[mine] = c[ids[mine]] * d[mine]
    return out


def split(title: str, labels: Sequence[Hashable], saved: np.ndarray, hands: int) -> None:
    """One line per label: its share of the estimate, and how many decisions a hand it covers."""
    names = sorted(set(labels), key=str)
    at = {name: i for i, name in enumerate(names)}
    index = np.array([at[x] for x in labels], dtype=np.int64)
    share = np.bincount(index, saved, minlength=len(names)) / hands
    often = np.bincount(index, minlength=len(names)) / hands
    print(f"  by {title}: " + ", ".join(f"{x} {s:+.4f} ({c:.2f}/hand)"
                                       for x, s, c in zip(names, share, often)))


def show_breakdown(got: Samples, keys: list[InfoKey]) -> None:
    """The split of the lower estimate described in the module docstring."""
    hands = got.hands
    ids = np.arange(len(keys))
    saved = crossfit(got, ids, got.q[:len(keys)])
    print(f"  lower estimate {saved.sum() / hands:.4f}, deviation chosen per situation of the true game "
          f"({len(keys):,} met)")
    summaries: dict[InfoKey, int] = {}
    group = np.array([summaries.setdefault(summary_key(k), len(summaries)) for k in keys], dtype=np.int64)
    q = np.zeros(len(summaries))
    q[group] = got.q[:len(keys)]  # the strategy plays one probability per summary (the learner's)
    merged = crossfit(got, group, q)
    print(f"  lower estimate {merged.sum() / hands:.4f}, deviation chosen per summary "
          f"({len(summaries):,} met)")
    row = got.ids

    def per(f: Callable[[InfoKey], Hashable]) -> list[Hashable]:
        table = [f(k) for k in keys]
        return [table[i] for i in row.tolist()]

    split("seat", per(lambda k: k[0]), saved, hands)
    split("own card (rank index)", per(lambda k: k[2]), saved, hands)
    split("card given (-1: none)", per(lambda k: k[3]), saved, hands)
    to = ["keep" if s < 0 else "swap" if s > 0 else "none"
          for s in np.sign(saved * np.sign(got.d)).tolist()]  # saved = c * d: c's sign is the direction
    split("deviation", to, saved, hands)
    swaps = ("s", "sA", "s2")
    split("swaps before", per(lambda k: sum(t in swaps for t in k[1])), saved, hands)
    split("blocked swaps before", per(lambda k: k[1].count("b")), saved, hands)
    split("blockers shown before", per(lambda k: k[1].count("K")), saved, hands)
    last = per(lambda k: next((t for t in reversed(k[1]) if not t.startswith("J")), "-"))
    split("last turn before", last, saved, hands)
    per_situation = np.sort(np.bincount(row, saved, minlength=len(keys)))[::-1].cumsum() / hands
    print("  the best situations: " + ", ".join(
        f"{top:,} {per_situation[min(top, len(keys)) - 1]:.4f}" for top in (100, 1000, 10_000)))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[10, 12])
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--batches", type=int, default=None, help="the summary learner's mini-batches")
    parser.add_argument("--times", type=int, default=1, help="... else this many times the shipped budget")
    parser.add_argument("--curve", type=int, nargs="+", default=None, help="batch counts: a learning curve")
    parser.add_argument("--weighting", type=float, default=1.0, help="the average weighs batch i by i**this")
    parser.add_argument("--refine", type=int, default=0, help="then this many refinement passes")
    parser.add_argument("--refine-hands", type=int, default=200_000, help="hands a refinement pass")
    parser.add_argument("--refine-step", type=float, default=1.0,
                        help="how far a pass moves a summary it is sure of (0.5 until 27 Nov 2026)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--preset", default="standard")
    parser.add_argument("--skip-shipped", action="store_true")
    parser.add_argument("--breakdown", action="store_true")
    args = parser.parse_args()
    rules = rules_from_args(args.preset, [])
    print(f"preset {args.preset}; bracket from {args.hands:,} sampled hands (upper: 95 % one-sided, proved)")
    print(HEADER)
    for n in args.players:
        hand = Hand(rules, n)
        if not args.skip_shipped:
            load = os.getloadavg()[0]
            sol = cache.solution_for(rules, n)
            line(n, sol.method, sol.iterations or 0, 1.0, float("nan"), hand, sol.played_keep, args.hands,
                 len(sol.infosets), load, args.breakdown)
        if args.times == 0 and args.batches is None and args.curve is None:
            continue
        points = args.curve or [args.batches or args.times * summary_batches(n)]
        solver = SummarySolver(hand, seed=args.seed, weighting=args.weighting)
        cpu = 0.0
        for i, batches in enumerate(points):
            load = os.getloadavg()[0]
            start = time.process_time()
            solver.train(batches)
            cpu += time.process_time() - start
            line(n, "summary", batches, args.weighting, cpu, hand, solver.keep_at, args.hands,
                 len(solver.keys), load, args.breakdown and i == len(points) - 1 and not args.refine)
        for k in range(args.refine):
            load = os.getloadavg()[0]
            start = time.process_time()
            solver.refine(args.refine_hands, step=args.refine_step)
            cpu += time.process_time() - start
            line(n, f"refine {k + 1}", points[-1], args.weighting, cpu, hand, solver.keep_at, args.hands,
                 len(solver.keys), load, args.breakdown and k == args.refine - 1)


if __name__ == "__main__":
    main()
