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

__all__ = ["HEADING", "PLAYERS", "PRESETS", "Table", "big_tables_section", "keep_thresholds", "prose",
           "rows_text", "tables_of", "write_big_section", "main"]

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
]
"""How the brackets from 6 players are measured (`chasetheace.solver.methods.bound`)."""

SUMMARY_TEXT = [
    "**Why the sampled method stays far, and a summary that learns faster** (measured 27 November",
    "2026; from 10 players it is now what `prepare` ships, see below). The bound's best response and the",
    "sampled method tell situations apart by the same key: the position, the card held, the card",
    "given away (to the seat before, in its swap) and the whole public history in order. From the",
    "10th position on, most such histories are met once or never in the shipped budget (12 players:",
    "266,341 situations met in 168,000 training hands), so the strategy there rests on one or two",
    "samples, or on the fallback (the position's usual choice for the card). The best response's gain",
    "grows with the position accordingly (12 players, the sampled best response per position: 0.0002",
    "at the eldest to 0.045 at the last three). `SummarySolver`",
    "(`chasetheace.solver.methods.sampled`) runs the same mini-batch external-sampling MCCFR on a",
    "summary of the history: how many seats kept, swapped, were blocked, showed the blocker (and, with",
    "`announce_low`, swapped with an announcement), not in which order. A seat's card is final once",
    "its turn is over, so the earlier seats matter to a later one through the cards they hold (a",
    "keeper one it chose to keep, a swapper its neighbour's unseen card, a blocked seat the card it",
    "wanted rid of), which the counts keep; each summary is met far more often (12 players: 34,758).",
    "Its strategy is played in the full game through the summary of each situation",
    "(`SummarySolver.keep_at`), and bracketed by the same bound on the same hands as the shipped one.",
    "`python benchmarks/sampled_summary.py --players 10 12 --hands 20000 --times 4` and `--players 20",
    "--hands 20000 --times 2` (standard rules, the summary trained 4 times the shipped",
    "budget at 10 and 12 players, twice at 20, training seed 0, bound seed 0; 2 shared cores at load",
    "21 to 38, so 20,000 hands rather than 200,000; the training's CPU seconds):",
    "",
    "| players | strategy | training batches of 2,000 hands | training CPU s | lower estimate |"
    " upper bound (95 %, proved) |",
    "|---|---|---|---|---|---|",
    "| 10 | shipped (full history) | 120 | (as shipped) | 0.0223 ± 0.0010 | 0.207 |",
    "| 10 | summary | 480 | 72 | 0.0003 ± 0.0009 | 0.121 |",
    "| 12 | shipped (full history) | 84 | (as shipped) | 0.0424 ± 0.0014 | 0.329 |",
    "| 12 | summary | 84 | 18 | 0.0182 ± 0.0010 | 0.200 |",
    "| 12 | summary | 336 | 88 | 0.0037 ± 0.0009 | 0.163 |",
    "| 20 | shipped (full history) | 30 | (as shipped) | 0.1003 ± 0.0019 | 0.563 |",
    "| 20 | summary | 60 | 53 | 0.0250 ± 0.0011 | 0.375 |",
    "",
    "With 200,000 hands (`--players 10 12 --hands 200000 --times 4`, load 1 to 14) the estimates are",
    "higher, as more situations are met often enough to choose a deviation in (the estimate from",
    "20,000 hands understates the distance, the summary's most):",
    "",
    "| players | strategy | training batches | training CPU s | lower estimate | upper bound (95 %,"
    " proved) | bound CPU s |",
    "|---|---|---|---|---|---|---|",
    "| 10 | shipped (full history) | 120 | (as shipped) | 0.0584 ± 0.0004 | 0.131 | 28 |",
    "| 10 | summary | 480 | 64 | 0.0117 ± 0.0002 | 0.046 | 27 |",
    "| 12 | shipped (full history) | 84 | (as shipped) | 0.1162 ± 0.0006 | 0.236 | 45 |",
    "| 12 | summary | 336 | 65 | 0.0168 ± 0.0002 | 0.072 | 42 |",
    "| 20 | shipped (full history) | 30 | (as shipped) | 0.207 | 0.459 | 233 |",
    "| 20 | summary | 60 | 45 | 0.0518 ± 0.0005 | 0.250 | 286 |",
    "",
    "The shipped figures at 12 players are the ones measured the day before by `benchmarks/solver.py`",
    "(the same strategy, hands and seed); those at 20 players are that day's (not measured again here;",
    "`--players 20 --hands 200000 --times 2` runs both, 4.3 GB at its peak).",
    "",
    "At the shipped budget the summary more than halves the lower estimate (12 players, 20,000",
    "hands: 0.042 to 0.018), and more batches keep bringing it down (0.0037 after 336); with 2 to 4",
    "times the shipped batches (45 to 88 CPU seconds of training) it is 4 times lower at 20 players,",
    "5 at 10 and 7 at 12 (200,000 hands). The upper bound falls by a third to 70 %, but most of it is",
    "the sampled best response's fit to noise in situations met once (20 players: 102,283 summaries",
    "met in training against 500,493 histories), which only more hands in the bound reduce. The goal",
    "of 1e-3 lives per hand is far from met (10 players: 0.012 from 200,000 hands), and what the",
    "summary loses (the order of the earlier turns) is not measured apart from what more training"
    " would still gain. Telling a",
    "keep or swap after a swap apart from one after anything else (`pairs=True`), with common random",
    "numbers for the two forks in training as in the bound (`common=True`), gave the same estimate at",
    "12 players and 84 batches (0.0182 ± 0.0011, upper 0.221) for twice the training CPU (35 s).",
]
"""What the summary learner (from 10 players) changes, measured beside the sampled method."""

NINE_TEXT = [
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
    "200000, seed=0)`).",
]
"""The 9-player tables, solved without card removal."""

AGREE_TEXT = [
    "Every CFR solve on a tree held whole (the exact tree to 6 players, `iid` from 6 to 9) ends with",
    "the agree step (`chasetheace.solver.solutions.solving.agree`): where the strategy mostly plays the",
    "action its own figures call worse by more than 0.001 lives, it plays the better one, each change",
    "kept only if the NashConv of the tree solved does not rise (for `iid` the model's without card",
    "removal, exact on its tree: the true game's is measured apart). The exact tree in parts (from 7",
    "players: the tables `prepare` solves in the true game at 8 and 9) ends with a cheaper form of it,",
    "`solving.agree_in_parts`: there each NashConv is a pass over the parts (minutes at 8 players,",
    "where the step above would take one per position and later position, 45 a round at 9 players), so",
    "every situation that disagrees plays the better action at once, and one exact pass (a best",
    "response in the true game) keeps the change if the NashConv does not rise (`solving.AGREE_PASSES`",
    "= 1 try). The summary learner's tables do not end with it: their figures are estimates from 20,000",
    "sampled hands and no NashConv of theirs can be computed, so nothing would tell a change that helps",
    "from one that follows the noise (at 10 players under `standard`, 277 situations disagree, all by",
    "more than 0.01 lives). The `cuckoo`, `chase-the-ace` and `cassell-1882` tables of 6 to 8 players",
    "and the 9-player tables had been solved before the step; on 27 November 2026 those of 6 to 8 and",
    "the 9-player `chase-the-ace` and `cassell-1882` tables were solved again with it (`nice python -m",
    "chasetheace.solver.guide.prepare --again --preset cuckoo --preset chase-the-ace --preset",
    "cassell-1882 --players 6 7 8`, one table at a time: 3.3 to 89.7 CPU seconds a table at 6 to 8",
    "players, 1.65 GB at its peak under `cuckoo` at 8; at 9, 46 and 38 CPU seconds, 0.54 GB; 2 shared",
    "cores at a load average of 6.7 to 16.9). The situations that disagree in the shipped files (by",
    "more than 0.001 lives / by more than 0.01; `python benchmarks/agree.py --preset cuckoo` counts",
    "them), before and after, at 6, 7 and 8 players: `cuckoo` 28/19, 160/151, 866/772 to 0/0, 30/0,",
    "90/40; `chase-the-ace` 3/3, 1/1, 24/20 to none; `cassell-1882` 12/3, 88/71, 268/165 to 0/0, 17/0,",
    "268/165 (at 8 players no change kept: each raised the NashConv); at 9 players `chase-the-ace`",
    "696/670 to 56/23, `cassell-1882` 706/580 to 44/0. The NashConv without card removal fell from",
    "9.13e-5 to 6.49e-5 (`cuckoo`, 8 players), from 9.83e-5 to 6.85e-5 (`chase-the-ace`, 9) and from",
    "9.34e-5 to 7.60e-5 (`cassell-1882`, 9); in the true game (card removal), by an exact best response",
    "in parts, `cuckoo` at 8 players went from 8.80e-4 to 8.42e-4 lives a hand (449 and 403 CPU seconds",
    "on two workers, load average 5.6 to 12.0). The 9-player `standard` and `cuckoo` tables",
    "(6,989/6,255 and 5,723/5,413 situations that disagreed) were solved again with it later that day",
    "(`nice python -m chasetheace.solver.guide.prepare --again --preset standard --preset cuckoo",
    "--players 9`: 582 CPU seconds for the two, 5.3 GB at its peak, load average 4 to 7); the",
    "situations that still disagree there were not counted (`python benchmarks/agree.py --players 9`).",
]
"""The agree step: where it applies, and what it changed in the shipped tables."""

TRUE_TEXT = [
    "**The shipped 8- and 9-player tables in the true game.** `python benchmarks/true_nashconv.py",
    "--preset P --players N` measures a shipped file as a player gets it (read as the solution cache",
    "reads it, in float32; the strategy the bot plays, `Solution.played_keep`) by an exact best",
    "response in the true game, in parts, on one worker by default (`--checkpoint DIR` keeps every",
    "finished part, so a run stopped and started again computes only the parts missing; `--log FILE`),",
    "and prints the NashConv, its CPU seconds and peak memory. At 8 players `standard` and `cuckoo`",
    "were measured so before they shipped (the same strategies in double precision,",
    "`benchmarks/agree.py --exact`): 7.98e-4 and 8.42e-4 lives a hand, within the goal of 1e-3;",
    "`chase-the-ace` at 8 is not measured. At 9 players `standard` is 1.37e-3 lives a hand from an",
    "equilibrium in the true game (1.3736e-3; the file's own NashConv without card removal is 6.9e-5):",
    "**above the goal of 1e-3**; the gain is mostly at the 5th position (6.1e-4) and the last four",
    "(5.7e-5 to 3.0e-4). Measured on 27 November 2026 by `nice -n 10 python benchmarks/true_nashconv.py",
    "--preset standard --players 9 --checkpoint DIR`, run from 16:05 to 17:00 UTC, stopped, and started",
    "again from its checkpoint from 17:01 to 17:22 beside other jobs (load average 2 to 8): 1,972 CPU",
    "seconds for the 364 parts (858 and 1,114), 5.6 GB at its peak (the driver; a worker 1.9 GB at",
    "most). `chase-the-ace` at 9 players is 9.94e-4 (9.9350e-4; its own figure 6.8e-5), within the goal",
    "by a hair (974 CPU seconds from 17:24 to 17:42 UTC at nice 19 beside other jobs, load 1.5 to 2.1;",
    "0.5 GB, a worker 1.7 GB). `cuckoo` at 9 players and `chase-the-ace` at 8 are not measured yet.",
    "**The 9-player `standard` table now ships solved in the true game**: `prepare` starts from that",
    "`iid` strategy and runs 2 iterations of discounted CFR on the exact tree in parts, then an exact",
    "best response (`prepare.TRUE_PLAYERS`, `TRUE_ITERATIONS`; `nice python -m",
    "chasetheace.solver.guide.prepare --again --preset standard --players 9 --workers 2`,",
    "checkpointed): NashConv **3.11e-4** lives a hand in the true game, exact, within the goal; 5,070",
    "CPU seconds (4,751 user, 319 system) and 75 minutes of wall clock on 27 November 2026 from 18:49",
    "UTC beside other jobs (load 1 to 11), 6.5 GB at its peak; the file is 1.17 MB, and hints quote its",
    "figure as exact. The 8-player `standard` table ships so too: 8.4e-4 after one iteration,",
    "**3.95e-4** after two (`solve(Rules(), 8, method=\"dcfr\", iterations=2, check_every=1, workers=2)`,",
    "a check after each iteration, the same strategy as `prepare` makes with one check; 1,149 CPU",
    "seconds from 18:49 to 19:40 UTC beside other jobs, 2.6 GB; the file 0.45 MB). `chase-the-ace` at 8",
    "players, first measured so: 2.81e-4, exact (`nice python -m chasetheace.solver.guide.prepare",
    "--again --preset chase-the-ace --players 8 --workers 2`, 468 CPU seconds and 8.4 minutes from",
    "20:38 UTC beside the test suite, 0.5 GB). **Each now ends with the agree step in parts**",
    "(`prepare` runs it after the solve, from the solve's checkpoint; its pass checkpointed too, under",
    "`-agree`): every situation where the strategy mostly plays the action its own figures call worse",
    "by more than 0.001 lives played by the better one, and kept, as the exact NashConv fell each time.",
    "Run from 23:48 UTC on 27 November 2026 to 00:38 on the 28th (two workers each; beside the test",
    "suite and another solve until 00:29, load average 4 to 7; the 8-player `standard` one from the",
    "checkpoint of the solve above, its trace cut to the one check `prepare` makes), the NashConv and",
    "the situations that disagree (by more than 0.001 lives / by more than 0.01 / their summed reach:",
    "`python benchmarks/agree.py --preset P --players N` counts a shipped file), before and after:",
    "`chase-the-ace` at 8, **2.81e-4 to 3.85e-5**, 26/14/0.036 to 16/1/0.0001 (189 CPU seconds, 10.6",
    "minutes, 0.4 GB); `standard` at 8, **3.95e-4 to 2.80e-4**, 423/199/0.030 to 170/148/0.0031 (329",
    "CPU seconds, 10 minutes, 2.1 GB); `standard` at 9, **3.11e-4 to 2.46e-4**, 671/312/0.0058 to",
    "154/99/0.0005 (2,050 CPU seconds, 32 minutes, 6.4 GB). A second try, changing the situations that",
    "disagree under the new figures, is left (at 7 players it raised the NashConv: 1.81e-4 to 1.83e-4,",
    "after a first try from 2.36e-4). `cuckoo` at 9 players ships so since 28 November 2026: from its",
    "`iid` strategy, 2 iterations of discounted CFR in parts, **7.69e-04**, then the agree step,",
    "**5.78e-04** lives a hand, exact (1060 situations disagreed by more than 0.001 lives, 258 after;",
    "`nice python -m chasetheace.solver.guide.prepare --again --preset cuckoo --players 9 --workers 2`,",
    "stopped twice and resumed from its checkpoint, from 23:16 UTC on 27 November to 01:46 on the 28th,",
    "beside the test suite and the other solves much of the time: about 8,000 CPU seconds in all, 6.6",
    "GB at its peak). The other tables of `prepare.TRUE_GAME` (`cuckoo` and `cassell-1882` at 8,",
    "`chase-the-ace` and `cassell-1882` at 9) still ship their `iid` strategy (`prepare.TRUE_AGAIN`;",
    "measured in the true game: `cuckoo` at 8 8.42e-4, `chase-the-ace` at 9 9.94e-4, above).",
]
"""The shipped 8- and 9-player tables measured in the true game (benchmarks/true_nashconv.py)."""

BIG_TEXT = [
    "From 10 players the shipped tables are the summary learner's, under every preset (method",
    "`summary`: 24,000 / players² mini-batches of 2,000 hands, seed 0, twice the sampled method's",
    "budget: 240 at 10 players, 167 at 12, 60 at 20; files of 0.03 to 0.25 MB against 0.11 to 0.82 MB).",
    "Measured on 27 November 2026 by the bound above on the shipped files (`bound_nash_conv(Hand(rules,",
    "n), solution.played_keep, hands, seed=0)`, as `python benchmarks/solver.py --preset standard",
    "--players 10 12 --hands 200000 --shipped` runs it; 2 shared cores at a load average of 11 to 17),",
    "with 200,000 hands: `standard` 10 players 0.0170 ± 0.0002 to ≤ 0.054 lives a hand (the sampled",
    "strategy it replaces: 0.058 to ≤ 0.131), 12 players 0.0248 ± 0.0003 to ≤ 0.086 (0.116 to ≤ 0.236);",
    "`chase-the-ace` 10 players 0.0128 ± 0.0002 to ≤ 0.030, 12 players 0.0183 ± 0.0002 to ≤ 0.040. The",
    "bound is within 3 times the estimate for `chase-the-ace` (2.4 and 2.2 times), not quite for",
    "`standard` (3.2 and 3.5). The bracket took 22.5 and 47.8 CPU seconds under `standard`, 15.3 and",
    "18.7 under `chase-the-ace`. These trained-only tables did not meet the goal of 1e-3 lives a hand",
    "(the refinement below does, at 10 and 11 players): the lower estimates are",
    "13 to 25 times it and grow with the table (the rows below, where the upper bound is mostly the",
    "bound's own width, situations met once). What is left: more training (it kept helping: 480",
    "mini-batches at 10 players gave 0.0117 to ≤ 0.046), and telling apart what the summary merges.",
    "`cuckoo` from 14 players and `cassell-1882` from 16 shipped the sampled method's tables until they",
    "were retrained so, on 27 November 2026: `nice python -m chasetheace.solver.guide.prepare --preset",
    "cuckoo --preset cassell-1882 --players 14 15 16 17 18 19 20` took 228 CPU seconds for the 12",
    "tables (11 minutes at a load average of 1 to 11, 0.21 GB at its peak; files of 0.06 to 0.25 MB",
    "against 0.37 to 0.82 MB). Measured on the shipped files by the bound as it was before the change",
    "above (the per-hand sum of max(q, 1 - q) |d|) with 200,000 hands, seed 0 (`python",
    "benchmarks/solver.py --preset cuckoo --players 14 --hands 200000 --shipped`, and `--preset",
    "cassell-1882 --players 16`; 2 shared cores at a load average of 13.7): `cuckoo` 14 players 0.0327",
    "± 0.0004 to ≤ 0.1271 lives a hand (the bound 3.9 times the estimate; 70.2 CPU seconds, 0.96 GB at",
    "its peak), `cassell-1882` 16 players 0.0321 ± 0.0004 to ≤ 0.0779 (2.4 times; 51.2 CPU seconds,",
    "0.39 GB): 32 times the goal.",
]
"""The tables from 10 players: the summary learner's, how near an equilibrium, and what is left."""

REFINE_TEXT = [
    "**Refinement: the first big tables within 1e-3.** After its training the summary learner now",
    "refines its strategy (`SummarySolver.refine`; `prepare` runs it from 10 players): a pass deals",
    "fresh hands, samples every decision's keep-minus-swap difference as the bound does, and moves each",
    "summary whose mean difference is at least one standard error from 0 all the way to the action that",
    "difference calls better; 4 passes of 2,000,000 hands (seed 0, by hands, never by the clock:",
    "`choice.REFINE_PASSES`, `REFINE_HANDS`). Measured on 27 November 2026 on the shipped files (`python",
    "benchmarks/solver.py --preset P --players 10 --hands H --shipped --resamples 20`, 2 shared cores at",
    "a load average of 1 to 3), the bracket (lower estimate to 95 % upper bound, proved) at 10 players:",
    "`standard` 0.0003 ± 0.0000 to ≤ 0.0056 from 2,000,000 hands and 0.0007 ± 0.0000 to ≤ 0.0025 from",
    "8,000,000 (238 CPU seconds, 3.9 GB); `chase-the-ace` 0.0003 ± 0.0000 to ≤ 0.0017 from 2,000,000 (56",
    "CPU seconds, 1.2 GB); `cuckoo` 0.0002 ± 0.0000 to ≤ 0.0055 from 2,000,000 and 0.0006 ± 0.0000 to ≤",
    "0.0024 from 8,000,000 (263 CPU seconds, 3.9 GB). **These meet the goal of 1e-3 (lower estimate) and",
    "5e-3 (upper bound).** The refinement and training took 230, 238 and 167 seconds a table (`prepare`,",
    "load 2 to 5). The schedule before (6 passes of 200,000 hands, moving half way where sure to two",
    "standard errors) left `standard` at 10 players at 0.0047 to ≤ 0.0121 (2,000,000 hands): the passes",
    "only fixed what 200,000 hands show. The 11-player tables of the three presets are shipped refined",
    "so too, and are within the goal as well, from 8,000,000 hands: `standard` 0.0008 ± 0.0000 to ≤",
    "0.0037 (288 CPU seconds, 4.3 GB), `chase-the-ace` 0.0002 ± 0.0000 to ≤ 0.0006, `cuckoo` 0.0007 ±",
    "0.0000 to ≤ 0.0037 (load 1.4 to 4.4). The 12- and 13-player tables of the three presets were",
    "refined so too later that day (`nice python -m chasetheace.solver.guide.prepare --again --preset",
    "standard --preset chase-the-ace --preset cuckoo --players 12 13`, 217 to 462 seconds a table beside",
    "other jobs). From 8,000,000 hands (load 1.0 to 4.7, 287 to 406 CPU seconds and 4.6 to 5.6 GB a",
    "bracket): `chase-the-ace` 0.0002 ± 0.0000 to ≤ 0.0007 at 12 players and 0.0003 ± 0.0000 to ≤ 0.0008",
    "at 13, within the goal; `standard` 0.0009 ± 0.0000 to ≤ 0.0053 and 0.0009 ± 0.0000 to ≤ 0.0071,",
    "`cuckoo` 0.0008 ± 0.0000 to ≤ 0.0052 and 0.0008 ± 0.0000 to ≤ 0.0071: the estimates within the",
    "goal, the bounds not. From 16,000,000 hands `standard` at 12 players is 0.0011 ± 0.0000 to ≤ 0.0040",
    "(571 CPU seconds, 9.2 GB, load 4.9) and `cuckoo` 0.0010 ± 0.0000 to ≤ 0.0039 (630 CPU seconds, 9.2",
    "GB, load 6.2): the bound tightens with the hands, but the estimate rises with them (more situations",
    "are met often enough to find a gain in), to the goal's edge and past it, so the current schedule is",
    "not enough for `standard` and `cuckoo` from 12 players: with 6 passes of 4,000,000 hands instead",
    "(`solve(rules, 12, method=\"summary\", seed=0, refine=6, refine_hands=4000000)`, 710 CPU seconds of",
    "training and refinement beside other jobs) `standard` at 12 players is 0.0008 ± 0.0000 to ≤ 0.0036",
    "from 16,000,000 hands (559 CPU seconds, 9.2 GB), within the goal; that table is not shipped yet.",
    "The 14- and 15-player tables of the three presets are shipped refined by the current schedule as",
    "well (`--players 14 15`, 374 to 1,462 seconds a table beside other jobs; not bracketed from",
    "millions of hands yet). From 16 players (and `cassell-1882` from 10) the shipped files are refined",
    "by the earlier schedule (`prepare.REFINE_AGAIN` names them), `standard` from 200,000 hands 0.0360 ±",
    "0.0005 to ≤ 0.148 at 20 players (before any refinement 0.128 to ≤ 0.235): not yet within the goal.",
    "The bound itself got cheaper the same day (the forks of a batch played in one sweep, the strategy",
    "read from the summary's arrays): 2,000,000 hands at 20 players take 360 CPU seconds and 2.0 GB (548",
    "CPU seconds and 8.1 GB for 200,000 hands before).",
]
"""The summary learner's refinement, and the brackets of the tables it made."""


def rows_text(hands: int) -> list[str]:
    """What the rows below are: how each table was solved and bracketed (``hands``: the bracket's)."""
    return [
        f"`python -m chasetheace.solver.guide.docs_big --hands {hands}` writes the rows below from the",
        "shipped files (read, not solved), each bracketed from 6 players by the bound above with",
        f"{hands:,} hands, seed 0: fewer hands than the figures above, so the lower estimates are lower",
        "and the upper bounds wider (situations met a few times).",
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


def prose(hands: int = HANDS) -> list[str]:
    """The section's words, up to its first table (``hands``: the bracket's): what
    ``docs/strategy.md`` says before the tables (``tests/test_solver_docs_big.py`` holds them to it)."""
    return [
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
        "", *METHOD_TEXT, "", *SUMMARY_TEXT, "", *NINE_TEXT, "", *AGREE_TEXT, "", *TRUE_TEXT, "",
        *BIG_TEXT, "",
        *REFINE_TEXT, "", *rows_text(hands), "",
    ]


def big_tables_section(out_dir: str, presets: Sequence[str], players: Sequence[int] = PLAYERS,
                       hands: int = HANDS, plots: bool = True,
                       progress: Callable[[str], None] | None = None) -> list[str]:
    """The section's lines (and its plots, written to ``out_dir``)."""
    start = time.perf_counter()
    lines = prose(hands)
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
