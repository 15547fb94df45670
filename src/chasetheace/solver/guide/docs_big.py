"""The big tables' section of ``docs/strategy.md``: every table size from 2 to 20 players, per preset.

    python -m chasetheace.solver.guide.docs_big [--out docs] [--presets standard cuckoo chase-the-ace]
                                          [--players 2..20] [--hands 200000]

rewrites only that section of an existing ``docs/strategy.md`` (from its heading to the whole
game's heading), so the other sections need not be solved again; ``python -m
chasetheace.solver.guide.docs`` writes the whole file, this section included. Each table size is
solved as a player at the table gets it, through the solution cache
(:func:`~chasetheace.solver.solutions.cache.solution_for`: read from disk when solved before, or
shipped with the package), so a second run solves nothing. From 6 players each strategy's NashConv
is bracketed by :func:`~chasetheace.solver.methods.bound.bound_nash_conv` (seeded, ``--hands``
hands); up to 5 it is exact.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...rules import Rules, preset_info
from ...seats import position_name
from ..model.hand import Deck, deck_of
from ..model.words import rank_name
from ..solutions.solution import Solution

__all__ = ["HEADING", "PLAYERS", "PRESETS", "Table", "big_tables_section", "keep_thresholds", "tables_of",
           "write_big_section", "main"]

PRESETS = ("standard", "cuckoo", "chase-the-ace")
"""Standard rules and two popular presets whose rules change decisions (a blocking king that
the dealer may not draw; no blocker at all)."""
HEADING = "## Big tables: 2 to 20 players"
NEXT = "## The whole game: lives, and winning the game"
"""The heading after this section (:data:`~.docs_game.HEADING`)."""
PLAYERS = range(2, 21)
HANDS = 200_000
"""Sampled hands for the NashConv bracket of each table from 6 players."""


@dataclass(frozen=True)
class Table:
    """One table size under one preset, as the guide reports it."""

    players: int
    method: str
    losses: list[float]                     # P(lose) per position, eldest first
    thresholds: list[int | None]            # per position: the weakest card it keeps (None: never keeps)
    exact: float | None                     # NashConv by an exact best response, where measured
    upper: float | None                     # the sampled bracket (from 6 players)
    estimate: float | None
    estimate_error: float | None


def keep_thresholds(sol: Solution) -> list[int | None]:
    """Per position, the weakest card from which on it keeps more often than not (averaged over the
    situations it meets with that card, weighted by how often they arise); None if it keeps nothing.
    Cards a position never decides on (the blocker is shown) are skipped."""
    out: list[int | None] = []
    for row in sol.keep_by_card():
        threshold = None
        for card in range(len(row) - 1, -1, -1):
            if math.isnan(row[card]):
                continue
            if row[card] < 0.5:
                break
            threshold = card
        out.append(threshold)
    return out


def tables_of(rules: Rules, players: Sequence[int], hands: int = HANDS, seed: int = 0,
              progress: Callable[[str], None] | None = None) -> list[Table]:
    """Solve (or read from the cache) each table size and measure it: see the module docstring."""
    from ..methods.bound import bound_nash_conv
    from ..model.hand import Hand
    from ..solutions.cache import AHEAD_IID_PLAYERS, solution_for

    out = []
    for n in players:
        if progress is not None:
            progress(f"{n} players")
        sol = solution_for(rules, n, iid_players=AHEAD_IID_PLAYERS)  # as shipped (guide.prepare)
        exact = sol.nash_conv if sol.measured == "exact" else None
        upper = estimate = error = None
        if n >= 6:
            got = bound_nash_conv(Hand(rules, n), sol.played_keep, hands, seed=seed)
            upper, estimate, error = got.upper, got.estimate, got.estimate_error
        out.append(Table(n, sol.method, list(sol.loss_probabilities), keep_thresholds(sol), exact,
                         upper, estimate, error))
    return out


METHOD_TEXT = [
    "How close to an equilibrium, from 6 players. An exact best response in the true game is out of",
    "reach from 9 players (and takes minutes to hours at 7 and 8), so each strategy's NashConv is",
    "bracketed from sampled hands (`chasetheace.solver.methods.bound`). Hands are dealt at random",
    "(exact card removal, a seeded generator) and played with the strategy; at every decision the",
    "hand is forked, keep and swap, and both forks are played to the end with the same random",
    "numbers for the later seats, which gives the deciding seat a sample `d` of its keep-minus-swap",
    "lives lost in that situation. Since each seat acts once a hand, a best response chooses per",
    "situation, and NashConv is the largest mean saving over deviations (an action per situation for",
    "every seat). The **sampled best response** takes in each situation the action its samples call",
    "better: it fits the noise, so its expectation is at least the true NashConv, and it is at least",
    "what the true best response saves on the same hands (an unbiased mean). The **upper bound** adds",
    "a standard error that holds for the true best response's saving whichever it is: per hand, a",
    "bound on that saving, |the sum over the seats deciding in a sure situation of c d, plus over the",
    "others of (q - 1/2) d| plus half the sum over the others of |d| (q the strategy's keep",
    "probability; c the best response's own deviation where the situation was met at least 100 times",
    "and the sign of its mean difference is sure, by an empirical Bernstein bound, Audibert, Munos and",
    "Szepesvari 2009, for all such situations at once with 97.5 % confidence; elsewhere the deviation",
    "is q - 1/2 plus or minus 1/2, whichever sign). Until 27 November 2026 the per-hand bound was the",
    "sum of max(q, 1 - q) |d|, never smaller. The true NashConv lies below it with 95 % confidence,",
    "one-sided (2.5 % for the signs, 2.5 % for the normal approximation to the mean of the hands; the",
    "proof is in the module's docstring). Adding 1.645 standard deviations of the sampled best",
    "response over bootstrap resamples instead gives a tighter figure, but a heuristic (the spread of a",
    "maximised statistic): `Bound.heuristic_upper`, never reported as the bound. The **lower",
    "estimate** is cross-fitted over ten folds of the hands: the deviation valued on each fold is",
    "chosen on the other nine, which values a fixed deviation without bias, so its expectation is at",
    "most the true NashConv (near an equilibrium it can fall a little below 0: a deviation chosen on",
    "noise costs). In each situation whose mean difference there is at least two standard errors from",
    "0, the deviation takes the action it calls better; where the situation's own samples do not",
    "tell (most, from 10 players, are met a few times), the action that its class calls better, at",
    "the finest of three classes that tells: the same position, card and card given, with the same",
    "counts of each token in the history (keeps and swaps after a swap told apart), with the same",
    "counts, with any history; unless its own mean points the other way; elsewhere none. Until 27",
    "November 2026 there were no classes and the threshold was one standard error; on the shipped",
    "10-player strategy (200,000 hands) the estimate rose from 0.0170 to 0.0229, at 12 players from",
    "0.0248 to 0.0359. Both are checked against the exact NashConv at 3 to 6 players",
    "(`tests/test_solver_bound.py`; with 10,000 hands the bound lay above it in 210 runs of 210: 10 seeds",
    "by 7 strategies, thresholds, mixed and solved, at 3, 4 and 5 players). What limits the bound is",
    "the sampled best response's fit to noise in situations met a few times: one met once with",
    "d = 1 adds max(q, 1 - q) / N, and that sample is all the hands say of it, so only more hands",
    "tighten it (at 9 players, 0.052 of the sampled best response's 0.117 came from situations met",
    "once in 20,000 hands, 0.013 of 0.086 in 200,000); `python benchmarks/solver.py --players 9 12",
    "15 20 --hands 200000` prints the bracket and the ratio of the bound to the estimate. Measured",
    "so on 26 November 2026 (standard rules, the strategies as the solution cache solves them, 2",
    "shared cores at load 6 to 13), the bound was within 3 times the estimate at every size: 9",
    "players 0.043 to ≤ 0.095 (2.2 times; 19 CPU seconds for the bracket), 12 players 0.116 to",
    "≤ 0.236 (2.0; 52 s), 15 players 0.175 to ≤ 0.340 (1.9; 162 s), 20 players 0.207 to ≤ 0.459",
    "(2.2; 233 s, 4.1 GB at its peak). The strategies from 9 players are far from an equilibrium:",
    "these brackets are of them, not of the method's reach.",
    "",
    "The 9-player tables are now solved without card removal too (`iid`, where the rules allow it),",
    "not by the sampled method: measured on 27 November 2026 by the bound above with 200,000 hands",
    "(seed 0), beside the sampled strategies they replace in the same runs (2 shared cores at a load",
    "of 2 to 39): `standard` -0.001 ± 0.000 to ≤ 0.021 lives a hand (the sampled strategy: 0.043 to",
    "≤ 0.095), `cuckoo` -0.000 ± 0.000 to ≤ 0.021 (0.042 to ≤ 0.093), `chase-the-ace` 0.000 ± 0.000 to",
    "≤ 0.012 (0.021 to ≤ 0.037), `cassell-1882` 0.001 ± 0.000 to ≤ 0.014 (0.025 to ≤ 0.042). Their",
    "lower estimates are 0 within their error: what lies above is the bound's own width (situations met",
    "a few times), not a distance measured. `iid` took 342 CPU seconds and 4.9 GB at its peak under the",
    "standard rules (551,052 situations, 110 iterations), 316 s and 4.9 GB under `cuckoo`, 36 s and 0.6",
    "GB without a blocker (`python -m chasetheace.solver.guide.prepare --players 9`; the 9-player rows below",
    "are of the shipped files, their bracket by `bound_nash_conv(Hand(rules, 9), solution.played_keep,",
    "200000, seed=0)`). From 10 players the tables are the summary learner's (method `summary`),",
    "where `prepare.SAMPLED_LEFT` does not name them as the sampled method's still.",
]


def _name(deck: Deck, card: int | None) -> str:
    return "never" if card is None else rank_name(deck, card)


def _eldest(t: Table) -> int:
    return 0


def _dealer(t: Table) -> int:
    return t.players - 1


def summary(tables: Sequence[Table], deck: Deck) -> list[str]:
    """What the tables show, in words: the safest and the worst seats, and how the thresholds move."""
    if not tables:
        return []
    safest = [t for t in tables if min(range(t.players), key=lambda i: t.losses[i]) == 0]
    gaps = [t.players - 1 - max(range(t.players), key=lambda i: t.losses[i]) for t in tables]
    first, last = tables[0], tables[-1]
    worst = max(range(last.players), key=lambda i: last.losses[i])
    out = [f"- The eldest is the safest seat at {len(safest)} of the {len(tables)} table sizes; the seat "
           f"that loses most is the dealer or one of the {max(gaps)} seats before it (at "
           f"{last.players} players the {position_name(worst, last.players)}, "
           f"{last.losses[worst] * last.players:.1f} times a fair share; the eldest "
           f"{last.losses[0] * last.players:.1f}).",
           "- Keep thresholds as the table grows: "
           + "; ".join(f"{label} keeps from {_name(deck, first.thresholds[at(first)])} at "
                       f"{first.players} players, from {_name(deck, last.thresholds[at(last)])} at "
                       f"{last.players}"
                       for label, at in (("the eldest", _eldest), ("the dealer", _dealer)))
           + "."]
    return out


def _nash_text(t: Table) -> str:
    if t.exact is not None:
        return f"{t.exact:.1e} (exact)"
    if t.upper is None or t.estimate is None or t.estimate_error is None:
        return "-"
    return f"{t.estimate:.3f} ± {t.estimate_error:.3f} to ≤ {t.upper:.3f}"


def big_tables_section(out_dir: str, presets: Sequence[str], players: Sequence[int] = PLAYERS,
                       hands: int = HANDS, plots: bool = True,
                       progress: Callable[[str], None] | None = None) -> list[str]:
    """The section's lines (and its plots, written to ``out_dir``)."""
    start = time.perf_counter()
    lines = [
        HEADING, "",
        "Every table size from 2 to 20, as a player at the table gets it: solved by the solution cache",
        "as the shipped tables are (`python -m chasetheace.solver.guide.prepare`; docs/review.md)",
        "(the exact tree up to 5 players; from 6 to 9 without card removal where the rules allow it,",
        "else the sampled method; from 10 players the summary learner, `SummarySolver` below, for",
        "24,000 / players² mini-batches of 2,000 hands, seed 0: never for a time, so the same files on any",
        "machine; its state is checkpointed every 10 mini-batches under the solution cache, and `prepare`",
        "stopped and run again resumes there, to the same strategies and figures:",
        "`nice python -m chasetheace.solver.guide.prepare --players 10 11 12 13 14 15 16 17 18 19 20`).",
        "The summary learner's situations are keyed by the summary of the public history (how many seats",
        "kept, swapped, were blocked...; not in which order), and a hint, a review or the solved bot",
        "looks each situation of the game up by its summary. Where the sampled method never met a",
        "situation, its strategy keeps",
        "the card if that position keeps it more often than not over the situations it did meet, and",
        "the figures of a hint come from the most similar situations met (same position, card, card",
        "given away, last public action, number of swaps, then fewer of these).",
        "'Keeps from' is the weakest card from which on a position keeps more often than not, over",
        "the situations it meets (weighted by how often they arise).",
        "", *METHOD_TEXT, "",
    ]
    for preset in presets:
        info = preset_info(preset)
        say = None if progress is None else (lambda text, p=preset: progress(
            f"{p}: {text} ({time.perf_counter() - start:.0f} s so far)"))
        tables = tables_of(info.rules, players, hands, progress=say)
        deck = deck_of(info.rules)
        lines += [f"### `{preset}`, 2 to 20 players", ""]
        lines += ["| players | method | eldest loses | dealer loses | worst seat | safest seat | "
                  "keeps from (eldest, middle, dealer) | NashConv (estimate to bound) |",
                  "|---|---|---|---|---|---|---|---|"]
        for t in tables:
            n = t.players
            worst = max(range(n), key=lambda i: t.losses[i])
            best = min(range(n), key=lambda i: t.losses[i])
            keeps = ", ".join(_name(deck, t.thresholds[i]) for i in (0, n // 2, n - 1))
            lines.append(f"| {n} | {t.method} | {t.losses[0]:.3f} | {t.losses[-1]:.3f} | "
                         f"{position_name(worst, n)} ({t.losses[worst]:.3f}) | "
                         f"{position_name(best, n)} ({t.losses[best]:.3f}) | {keeps} | {_nash_text(t)} |")
        lines += ["", *summary(tables, deck)]
        lines += ["", "Each position's keep threshold, eldest first (the last is the dealer's: keep or "
                  "cut the stock):", ""]
        for t in tables:
            lines.append(f"- {t.players}: " + " ".join(_name(deck, c) for c in t.thresholds))
        lines.append("")
        if plots:
            from ..uses.plot import plot_thresholds

            image = f"big-tables-{preset}.png"
            plot_thresholds([(t.players, t.thresholds, t.losses) for t in tables], deck,
                            f"{preset}: who keeps what, and who loses, by table size",
                            os.path.join(out_dir, image))
            lines += [f"![{preset}, 2 to 20 players: keep thresholds and losses by position]({image})", ""]
    lines += [f"_This section solved and measured in {time.perf_counter() - start:.0f} s "
              f"({hands:,} sampled hands per bracket)._", ""]
    return lines


def write_big_section(out_dir: str = "docs", **options: object) -> str:
    """Put the big tables' section into ``out_dir/strategy.md`` (it must exist): in place of the old
    one, or before the whole game's section."""
    path = os.path.join(out_dir, "strategy.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    end = text.find(NEXT)
    if end < 0:
        raise ValueError(f"{path} has no whole-game section to put the big tables before ({NEXT!r})")
    start = text.find(HEADING)
    start = end if start < 0 else start
    lines = big_tables_section(out_dir, **options)  # type: ignore[arg-type]
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:start] + "\n".join(lines) + "\n" + text[end:])
    return path


def _counts(tokens: Sequence[str]) -> list[int]:
    out: list[int] = []
    for token in tokens:
        low, dots, high = token.partition("..")
        out.extend(range(int(low), int(high) + 1) if dots else [int(token)])
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """The command line."""
    parser = argparse.ArgumentParser(description="Rewrite the big tables' section of docs/strategy.md.")
    parser.add_argument("--out", default="docs")
    parser.add_argument("--presets", nargs="*", default=list(PRESETS))
    parser.add_argument("--players", nargs="*", default=["2..20"],
                        help="numbers or ranges such as 2..20")
    parser.add_argument("--hands", type=int, default=HANDS)
    parser.add_argument("--no-plots", action="store_true")
    args = parser.parse_args(argv)
    try:
        players = _counts(args.players)
        for preset in args.presets:
            preset_info(preset)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    start = time.perf_counter()

    def say(text: str) -> None:
        print(f"{time.perf_counter() - start:6.0f} s  {text}", file=sys.stderr, flush=True)

    print(write_big_section(args.out, presets=args.presets, players=players, hands=args.hands,
                            plots=not args.no_plots, progress=say))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
