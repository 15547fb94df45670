"""Which method solves a hand of ``players`` seats: each method's limits, and the one table that
``solve(method="auto")`` reads (:data:`AUTO`). The limits the rest of the package quotes (the
command's help, the solution cache, hints) are derived from that table, never copied.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...rules import Rules
from ..methods.lp import is_zero_sum
from ..model.hand import Hand

__all__ = ["AUTO", "AUTO_EXACT_PLAYERS", "AUTO_IID_PLAYERS", "CFR_METHODS", "EXACT_CHECK_PLAYERS", "Choice",
           "MAX_EXACT_PLAYERS", "MAX_IID_PLAYERS", "MAX_PARTS_PLAYERS", "MAX_SAMPLED_PLAYERS",
           "MAX_TABLE_PLAYERS", "check_players", "METHODS", "QUICK_EXACT_PLAYERS", "SAMPLED_WORK",
           "REFINE_HANDS", "REFINE_PASSES", "SUMMARY_PLAYERS", "SUMMARY_WORK", "WARM_PLAYERS", "auto_choice",
           "refine_passes", "sampled_batches", "summary_batches"]

METHODS = ("auto", "lp", "dcfr", "cfr+", "pcfr+", "iid", "sampled", "summary")
"""``summary``: the sampled method on a summary of the history (:class:`~..methods.sampled.SummarySolver`):
never chosen by ``"auto"``; the shipped tables from :data:`SUMMARY_PLAYERS` players."""
CFR_METHODS = ("dcfr", "cfr+", "pcfr+")
"""The methods that run CFR on the exact tree (in one piece, or in parts)."""

# --- what each method takes ---------------------------------------------------------------------

MAX_EXACT_PLAYERS = 6
"""The most players the exact tree takes in one piece (6 players: 8 M nodes, 24 M edges, a peak
under 4 GB; 7 would need about ten times more)."""
MAX_PARTS_PLAYERS = 9
"""The most players CFR runs on the exact tree for, evaluated in parts (:mod:`..methods.parts`).
Measured with two workers, standard rules: at 7 players 5 iterations to NashConv 2.6e-5 in 11.5
minutes, at 8 players 3 iterations to 1.8e-4 in 41 minutes, both when the parts were the 91 pairs
of the eldest's and the 2nd's cards and the last three positions were built (a pass at 8 players
now takes 2 minutes instead of 14). At 9 players 5 iterations to 3.95e-5 in 90 minutes (six passes
of about 13 minutes; docs/strategy.md). Run long solves with ``checkpoint`` so that they survive
interruption, or on a cluster (``cluster``; docs/cluster.md)."""
MAX_SAMPLED_PLAYERS = 21
"""The most players for the sampled method (its history code holds 20 earlier turns of 3 bits in
an int64: :data:`chasetheace.solver.methods.sampled.MAX_PLAYERS`, which needs numpy to import).
No method solves a larger table: hints, reviews and the solved bot stop here."""
SAMPLED_WORK = 12_000
"""The sampled method's default budget: :func:`sampled_batches` trains ``SAMPLED_WORK / players**2``
mini-batches of 2,000 hands (a batch's cost grows about with the square of the players: each seat's
decision plays the rest of the hand out twice). Training by batches, never by the clock, gives the
same strategy for the same rules, players and seed on any machine at any load. This budget runs
149, 84, 47 and 30 batches at 9, 12, 16 and 20 players (chosen as a little more than 15 CPU seconds
of training bought when it was set); measured 2026-11-27 (standard rules, seed 0, CPU seconds on
the 2-core machine at a load average of 17, ``SampledSolver.train``): 84 batches at 12 players in
9.6 s, 30 at 20 in 8.7 s (0.11 and 0.29 s a batch)."""


SUMMARY_PLAYERS = 10
"""From this many players the shipped tables (:mod:`~chasetheace.solver.guide.prepare`) are the
summary learner's (method ``summary``), trained :func:`summary_batches` mini-batches."""
SUMMARY_WORK = 24_000
"""The summary learner's budget when solving ahead: :func:`summary_batches` trains
``SUMMARY_WORK / players**2`` mini-batches of 2,000 hands (twice :data:`SAMPLED_WORK`)."""


def summary_batches(players: int) -> int:
    """The mini-batches the summary learner trains when solving ahead at ``players`` seats
    (:data:`SUMMARY_WORK`), at most 6,000.

    >>> [summary_batches(n) for n in (10, 12, 16, 20)]
    [240, 167, 94, 60]
    """
    return max(1, min(6000, -(-SUMMARY_WORK // (players * players))))


REFINE_PASSES = 4
"""The passes of best-response-guided refinement
(:meth:`~chasetheace.solver.methods.sampled.SummarySolver.refine`: each summary whose sampled
difference is a standard error from 0 moved all the way to the better action) that the summary
learner runs after its training by default (:func:`refine_passes`), each of :data:`REFINE_HANDS`
fresh hands. Measured 2026-11-27 at 10 players, standard rules, after :func:`summary_batches`, with
the bracket of :mod:`~chasetheace.solver.methods.bound` from 2,000,000 hands (seed 0; lower estimate
/ 95 % upper bound, load 4-7): 0.0003 +- 0.0000 / 0.0056 after these 4 passes of 2,000,000 hands
(204 CPU s of training and passes at load 4-6); the lower estimate within 0.001, the upper bound not
yet within 0.005 (the sampled best response it is built on is 0.0038: most of it that best
response's fit to noise in situations met a few times, which more passes barely move: moved only
where sure to 2 standard errors, 4 passes gave 0.0007 / 0.0063, 6 passes 0.0006 / 0.0060). The
schedule before, 6 passes of 200,000 hands moving half way (45 CPU s), gave 0.0048 / 0.0122 from the
same 2,000,000 hands (0.0047 / 0.0121 measured by ``benchmarks/solver.py --players 10 --hands
2000000 --compare --resamples 20``, load 1.0; under the chase-the-ace preset 0.0009 / 0.0048). A
pass of 200,000 hands took 3-5 CPU s at 10 players, 10-12 at 15 and 21-22 at 20 (training 10-16, 14
and 18 CPU s; solve peak 0.11 and 0.18 GB at 15 and 20; load 1 to 3): these passes cost about 4 x
2,000,000 / 200,000 = 40 times that, some 150, 450 and 870 CPU s a table (extrapolated at 15 and 20
players)."""
REFINE_HANDS = 2_000_000
"""The hands of one refinement pass of the summary learner by default."""


def refine_passes(players: int) -> int:
    """The refinement passes (of :data:`REFINE_HANDS` hands) the summary learner runs after training
    at ``players`` seats by default: :data:`REFINE_PASSES` at every size.

    >>> [refine_passes(n) for n in (10, 15, 20)]
    [4, 4, 4]
    """
    return REFINE_PASSES


def sampled_batches(players: int) -> int:
    """The mini-batches the sampled method trains by default at ``players`` seats (:data:`SAMPLED_WORK`),
    at most 2,000.

    >>> [sampled_batches(n) for n in (9, 12, 16, 20)]
    [149, 84, 47, 30]
    """
    return max(1, min(2000, -(-SAMPLED_WORK // (players * players))))


MAX_IID_PLAYERS = 9
"""The most players for method ``iid`` (the hand without card removal: 9 players, 4 M nodes)."""
EXACT_CHECK_PLAYERS = 6
"""Up to this many players a strategy that was not solved on the exact tree (methods ``iid`` and
``sampled``) is measured on it by default: NashConv by an exact best response in the true game.
Up to 9 on request (``exact_check=True``: the tree is then evaluated in parts, see
:mod:`..methods.parts`: a pass over them takes about a minute at 7 players, 2 at 8 and 14 at 9 on
two workers); above, the
figures are those of the method (sampled estimates, or exact in the game without card removal)."""
WARM_PLAYERS = 3
"""From this many players CFR on the exact tree starts from the strategy solved without card removal,
as CFR's first iterate (measured, standard rules, to NashConv 1e-4 checked every 5 iterations: 5
iterations each at 3, 4 and 5 players, to 9.8e-6, 8.6e-6 and 2.2e-6, where from the uniform strategy
it took 30, 35 and 40 iterations to 8.5e-5, 8.9e-5 and 9.4e-5; at 6 players 5 iterations to 3.2e-5;
giving the warm strategy the weight of 10 iterations instead took 30 iterations to 9.3e-5 there)."""


# --- method="auto" --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Choice:
    """One row of :data:`AUTO`: for these player counts, where the conditions hold, this method."""

    players: range
    method: str
    note: str
    zero_sum: bool = False   # only two-player hands with exactly one life lost (the LP's hands)
    iid: bool = False        # only without pairing and kings_jerk (the hand without card removal)
    exact: bool = False      # only when the strategy is to be measured exactly (exact_check not False)

    def applies(self, hand: Hand, exact_check: bool | None) -> bool:
        """Whether this row decides for ``hand`` (and the caller's ``exact_check``)."""
        return (hand.players in self.players
                and (not self.zero_sum or is_zero_sum(hand))
                and (not self.iid or not (hand.pairing or hand.jerk))
                and (not self.exact or exact_check is not False))


AUTO: tuple[Choice, ...] = (
    Choice(range(2, 3), "lp", "the exact sequence-form LP (Le Her: exactly one life lost per hand)",
           zero_sum=True),
    Choice(range(2, 6), "dcfr", "the exact tree, any rules: seconds (5 players: 3.2 s and 0.61 GB)"),
    Choice(range(6, 7), "dcfr", "the exact tree, started from the strategy without card removal "
                                "(48 s and 3.7 GB), when the strategy is to be measured exactly",
           iid=True, exact=True),
    Choice(range(6, MAX_IID_PLAYERS + 1), "iid", "DCFR without card removal, measured exactly in the "
                                                 "true game up to 6 players", iid=True),
    Choice(range(6, MAX_SAMPLED_PLAYERS + 1), "sampled", "the sampled method: pairing or kings_jerk from 6 "
                                                         "players, and any rules above 9"),
)
"""What ``solve(method="auto")`` runs: the first row whose player counts hold ``players`` and whose
conditions the hand meets."""


def auto_choice(hand: Hand, exact_check: bool | None = None) -> Choice:
    """The row of :data:`AUTO` that ``method="auto"`` follows for ``hand``."""
    for row in AUTO:
        if row.applies(hand, exact_check):
            return row
    raise ValueError(f"no method solves {hand.players} players: the solver handles 2..{MAX_TABLE_PLAYERS} "
                     "(the sampled method's limit)")


def check_players(rules: Rules, players: int) -> None:
    """ValueError (one line) unless ``method="auto"`` solves ``players`` seats under ``rules``: what
    hints, reviews and the solved bot check before any work."""
    auto_choice(Hand(rules, players), exact_check=False)


AUTO_EXACT_PLAYERS = max(row.players[-1] for row in AUTO if row.method in ("lp", *CFR_METHODS))
"""The most players ``method="auto"`` solves on the exact tree (6: at 6 players only without
pairing and kings_jerk, and unless ``exact_check=False``)."""
QUICK_EXACT_PLAYERS = max(row.players[-1] for row in AUTO
                          if row.method in CFR_METHODS and not (row.iid or row.exact))
"""The most players ``method="auto"`` solves on the exact tree whatever the rules and ``exact_check``
(5: seconds). The solution cache measures exactly up to here, and the web table gives hints up to
here (:data:`~chasetheace.solver.uses.advice.MAX_HINT_PLAYERS`)."""
MAX_TABLE_PLAYERS = max(row.players[-1] for row in AUTO)
"""The most players ``method="auto"`` solves (21: the sampled method's limit)."""
AUTO_IID_PLAYERS = max(row.players[-1] for row in AUTO if row.method == "iid")
"""``method="auto"`` uses ``iid`` from 6 players up to this many (9), the sampled method above."""
