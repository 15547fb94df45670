"""How far a strategy is from an equilibrium where no exact best response is within reach (from 9
players): an upper bound on its NashConv that holds with a stated confidence, and a lower estimate
beside it, both from sampled hands.

Each seat acts at most once in a hand, so a seat's best response picks, at each of its information
sets ``I``, the better action, and NashConv is ``sum_I P(I) * g(mu_I)`` with ``mu_I`` the expected
lives lost after keeping minus after swapping (given ``I``, everyone else playing the strategy) and
``g(mu) = max(q * mu, -(1 - q) * mu)`` (``q`` the strategy's keep probability at ``I``: what
swapping, or keeping, always saves over the mix). Equivalently NashConv is ``max_pi E[Z_pi]``
over the deviations ``pi`` (an action per information set, for every seat at once), where ``Z_pi``
is what the deviation saves in one hand: ``sum_t c_pi(I_t) * d_t`` over the seats ``t`` that decide,
``d_t`` the sampled keep-minus-swap difference at the seat's information set ``I_t`` and ``c`` is
``q`` (deviate to swap) or ``q - 1`` (to keep).

Sampling: ``N`` hands dealt at random (a seeded numpy Generator, exact card removal), played with
the strategy; at each decision the hand is forked, keep and swap, and both forks are played to the
end with the *same* random numbers for the later seats (common random numbers: each fork is a fair
sample, their difference ``d_t`` has much less variance than two independent ones).

- **The sampled best response** ``G = max_pi mean(Z_pi)`` takes per information set the action the
  samples call better; it is biased upwards (it fits the noise). Since it is at least
  ``mean(Z_pi*)`` for the true best response ``pi*``, a fixed deviation whose mean is unbiased,
  ``NashConv <= mean(Z_pi*) + z * SE(Z_pi*) <= G + z * SE(Z_pi*)`` with probability ``1 - alpha``
  (one-sided, the normal approximation to the mean of ``N`` independent hands).
- **The upper bound** (``upper``) bounds the unknown ``SE(Z_pi*)`` by a per-hand bound ``m``
  on ``|Z_pi*|`` that holds whatever ``pi*`` is. Where the samples show the sign of ``mu_I`` for
  sure, ``c_pi*(I)`` is known: ``q`` where ``mu_I > 0``, ``q - 1`` where ``mu_I < 0``. Elsewhere
  it is ``q - 1/2 + s/2`` with an unknown ``s = +1`` or ``-1``, so per hand ``|Z_pi*| <= m =
  |sum over sure t of c_pi*(I_t) d_t + sum over the others of (q - 1/2) d_t| + 1/2 sum over the
  others of |d_t|`` (the triangle inequality; the earlier ``sum_t max(q, 1 - q) |d_t|``, with
  ``|c| <= max(q, 1 - q) = |q - 1/2| + 1/2``, is never smaller, and is kept as ``tight=False``
  to compare). "For sure": every information set met at least :data:`SURE_LEAST` times is
  tested with the empirical Bernstein bound (Audibert, Munos and Szepesvari 2009,
  "Exploration-exploitation tradeoff using variance estimates in multi-armed bandits", Theorem 1:
  ``|mean - mu| <= sqrt(2 V x / k) + 3 R x / k`` with probability ``1 - 3 exp(-x)``, ``k``
  samples of range ``R = 2 * spread``, ``V`` their variance), each at ``alpha_s`` divided by
  ``seats * N / SURE_LEAST``, the most information sets that can be met that often; by the union
  bound, every sign called is right with probability at least ``1 - alpha_s``. On that event
  ``|Z_pi*| <= m`` in every hand, so ``Var(Z_pi*) <= E[Z_pi*^2] <= E[m^2]``, and ``upper = G +
  z' * sqrt(mean(m^2) / N)`` with ``z'`` the normal quantile at ``1 - (alpha - alpha_s)``: both
  events hold with probability at least ``1 - alpha`` (95 % one-sided by default; the normal
  approximation to the mean of ``N`` independent hands, as above), no correction for the many
  information sets needed in the sum. Any split fixed before the samples are seen is valid;
  ``alpha_s = alpha *`` :data:`SIGN_SHARE` (0.1; it was 1/2 until 27 November 2026): the signs
  need little (the Bernstein radius grows with ``log(1 / alpha_s)``), the normal quantile falls
  from 1.96 to 1.70. On the shipped strategies, 200,000 hands (seed 0), the margin was 0.0112
  before, 0.0108 with the tighter ``m`` at ``alpha / 2``, 0.00965 with both at 10 players
  (standard rules); 0.0052, 0.00484 and 0.00427 at 6 players. Where few signs are sure
  (few hands for the situations), the split of ``alpha`` costs a little: at 20 players and 20,000
  hands the margin was 0.104 where ``max(q, 1 - q)`` everywhere with the whole ``alpha`` gives
  0.094 (both measured with ``alpha_s = alpha / 2``).
- **A second bound on** ``E[Z_pi*^2]`` (``truncate``, 27 November 2026). On an information set whose
  sign is not sure, write ``c_pi*(I) = c_0 + b_I (c_1 - c_0)`` with ``c_0`` the coefficient of
  the action the strategy plays more (``q - 1`` where ``q >= 1/2``, else ``q``), ``c_1`` the
  other, ``c_1 - c_0 = +1`` or ``-1``, and ``b_I = 1`` exactly where deviating to ``c_1`` saves,
  that is where ``mu_I (c_1 - c_0) > 0``. Per hand ``Z_pi* = A + U`` with ``A`` the sum over
  the sure seats of ``c_pi* d`` and over the others of ``c_0 d`` (known coefficients), and ``U =
  sum over the unsure seats of b e``, ``e = (c_1 - c_0) d``. With ``W`` the sum over the unsure
  seats of ``|e|`` and ``V = sum b |e| <= W``: ``U^2 <= V^2 <= V W``, and for any level ``w``,
  ``E[V W] <= w E[V] + E[W^2; W > w]``. Where ``b_I = 1`` the mean of ``e`` is positive, so
  ``E[|e|; I] < 2 E[e+; I]``, hence ``E[V] <= 2 E[P]`` with ``P`` the sum over the unsure seats
  of ``e+``. By Minkowski, ``E[Z_pi*^2] <= (sqrt(E[A^2]) + sqrt(2 w E[P] + E[W^2; W > w]))^2``:
  only the seats where the samples say deviating pays count at full weight. ``A``, ``P`` and
  ``W`` are fixed functions of a hand (given the sure signs), and their means are taken from the
  samples as ``E[m^2]`` is (the normal approximation to the mean of ``N`` hands, studentized);
  the margin takes the least of ``E[m^2]`` and this bound at each ``w`` of
  :data:`TRUNCATIONS` (fixed before the samples: every one bounds the same ``E[Z_pi*^2]``).
  Near an equilibrium deviating seldom pays and ``E[P]`` is small: at 12 players (standard rules,
  the shipped table, 1,000,000 hands, seed 0; ``E[W] = 1.55``, ``E[W^2] = 6.6``, ``E[P] = 0.108``
  a hand) the margin fell from 0.00425 to 0.00239, the bound from 0.01568 to 0.01382 (``G``
  0.01143); at 4,000,000 hands from 0.00156 to 0.00098, the bound from 0.00749 to 0.00691 (``G``
  0.00593: now 86 % of the bound, nearly all of it from situations met fewer than 32 times,
  and none from those whose sign is sure: the strategy plays those right).
- **What limits the bound** is ``G``'s fit to noise in information sets met a few times: one met
  once, with ``d = 1``, adds ``max(q, 1 - q) / N`` to ``G``, and that one sample is all the hands
  say of it (it may be a situation where keeping always loses): no valid bound can count it for
  less. At 9 players and 20,000 hands, situations met once made 0.052 of ``G`` = 0.117; with
  200,000 hands, 0.013 of 0.086. Only more samples of those situations tighten it. Dealing the
  later seats' cards and the stock again ``K`` times at each decision (they are independent of
  everything played so far, given the earlier seats' cards) and averaging ``d`` was measured: at
  9 players with ``K = 8`` the mean ``|d|`` fell only from 0.454 to 0.402 (the earlier seats' cards,
  which stay, decide most of it) and the bound from 0.168 to 0.135 at 7.4 times the CPU, while 10
  times the hands gave 0.102: more hands it is.
- **A heuristic figure** (``heuristic_upper``, not a proved bound) adds ``z`` standard deviations of
  ``G`` itself over Poisson-bootstrap resamples of the hands instead: the spread of a maximised
  statistic, which need not bound ``SE(Z_pi*)``. It is reported under its own name, never as the
  95 % bound.
- **The lower estimate** is cross-fitted over :data:`FOLDS` folds of the hands: the deviation valued
  on each fold is chosen on the other folds; a deviation fixed before its hands are seen is valued
  without bias, and no fixed deviation saves more than the best response, so the estimate's
  expectation is at most the true NashConv (near an equilibrium it can fall a little below 0: a
  deviation chosen on noise costs). Its standard error is that of the per-hand values. The choice,
  per information set, from the other folds' samples: the action whose mean difference is at least
  :data:`SELECT` standard errors from 0; where the set's own samples do not tell (most are met a
  few times), the action its *class* calls better in the same way, at the finest of three
  coarser and coarser classes that tells (:func:`pools`: the same position, card and card given,
  with the same counts of each token in the history, keeps and swaps after a swap told apart;
  with the same counts; with any history), unless the set's own mean points the other way; else
  no deviation. Any rule that reads only the other folds keeps the estimate's expectation below
  the NashConv, so pooling costs no validity; it deviates in the many situations met too rarely to
  tell alone (``pool=False`` gives the estimate without it, to compare). At 10 players (standard
  rules, the shipped strategy, 200,000 hands) the estimate rose from 0.0170 to 0.0229; at 6
  players near an equilibrium (exact NashConv 0.00045, 200,000 hands) it stayed about 0 (0.00007 ±
  0.00017, against 0.00004 ± 0.00014 at one standard error unpooled).
  A mend (27 November 2026, :data:`PSEUDO`): the test's variance is taken with two more samples, at
  ``+spread`` and ``-spread``, so that a few equal samples (a situation met twice, ``d = 1`` both
  times: variance 0) no longer make a sure sign (``pseudo=0`` gives the estimate before). At 12
  players (standard rules, the shipped table, seed 0) the estimate went from -0.00055 ± 0.00009 to
  0.00009 ± 0.00009 at 1,000,000 hands, from 0.00066 ± 0.00004 to 0.00078 ± 0.00004 at 4,000,000.
  ``orient=True`` pools what deviating saves (``d`` where the strategy mostly keeps, ``-d`` where it
  mostly swaps) rather than ``d``: it helped at 1,000,000 hands (0.00017) and cost at 4,000,000
  (0.00056), so it is not the default.
- **What more hands buy** (standard rules, the shipped 10-player strategy, seed 0; the slack is
  ``upper - estimate``): 20,000 hands, slack 0.124; 200,000, 0.037; 2,000,000, 0.0114 (``upper``
  0.0348: ``G`` 0.0326 and margin 0.0022; the unpooled estimate 0.0234): about ``N ** -0.5``.
  Both ``G``'s fit to noise and the margin fall as ``1 / sqrt(N)``, so for this strategy (some
  0.02 to 0.03 from an equilibrium) a slack of 0.004 would take about ``(0.0114 / 0.004) ** 2 *
  2e6``, some 16 million hands: 41 microseconds of CPU a hand sampling here, some 11 minutes,
  and the samples take 12 bytes a decision (:func:`bracket` reads them a slice at a time; the
  samples themselves are held: 1.8 GB at 16 million hands). Near an equilibrium it takes fewer:
  the ``iid`` strategy shipped for 9 players (standard rules), 2,000,000 hands, seed 0: estimate
  0.0007 ± 0.0001, upper 0.0049 (``G`` 0.0033, margin 0.0015; 0.0051 by the method before),
  85 CPU seconds sampling and 14 bracketing (2 shared cores, load 11, 27 November 2026), which
  is goal 1's bracket (an estimate <= 0.001, a bound <= 0.005). Sampling in batches of 20,000
  hands instead of the default 2,000 took 28 % less CPU at 10 players (9.8 s against 13.6 for
  200,000 hands, load 10 to 18; other figures for the same seed).
- **What it costs at big tables.** A batch is played seat by seat once: at each seat the hands
  deciding there are copied twice (keep, swap) and the copies made at earlier seats play that seat
  beside them, with their hand's random numbers, to one showdown for all (the same rows, the same
  random numbers and the same arithmetic as playing each fork out alone, so the same differences
  bit for bit). Only the situations of the decisions are numbered, at the end (by position, history
  code, rest: the copies' own situations are asked of the strategy and forgotten, 30 to 300 a hand
  at 20 players), and a summary solution's ``played_keep`` is read from its arrays, many situations
  at once, rather than asked one situation at a time. Before (27 November 2026), the standard
  20-player table at 200,000 hands took 388 CPU s and 7.07 GB, nearly all of it spelling out and
  asking the strategy about the 11.9 million situations numbered (3.7 million decisions, 1.0
  million situations among them; the rest met only in the copies); measured again beside this
  method at load 3 to 5 (27 November 2026, seed 0, 200 resamples): 548 CPU s (473 sampling) and
  8.06 GB before, 43 CPU s (20 sampling, 23 bracketing) and 0.46 GB now; 2,000,000 hands (36.9
  million decisions, 5.7 million situations) 360 CPU s (162 sampling, 197 bracketing, 200
  resamples) and 2.03 GB at load 2 to 3: estimate 0.1363 ± 0.0003, upper 0.1897 (the shipped,
  unrefined table: far from an equilibrium, the bracket 0.05 wide). The
  figures are those of before except for sums over the information sets, now in another order
  (the last bit or two: 2e-16 relative at 20 players, 4,000 hands).

Checked against the exact NashConv (an exact best response on the exact tree, :mod:`.measure`) at
3 to 6 players in ``tests/test_solver_bound.py`` (7 and 8 players take minutes a measure in parts:
``benchmarks/solver.py --players 7 8``).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model.hand import Hand, InfoKey
from .sampled import TOKENS, HandBatch, SampledSolver

_NAMES = {code: name for name, code in TOKENS.items()}

__all__ = ["CHUNK", "FOLDS", "PSEUDO", "SELECT", "SIGN_SHARE", "SURE_LEAST", "TRUNCATIONS", "Bound",
           "Samples", "bound_nash_conv", "bracket", "pools", "sample_differences", "situations", "sure_signs"]

Array = Any

FOLDS = 10
"""The lower estimate's folds: the deviation valued on each tenth of the hands is chosen on the rest."""
PSEUDO = 2
"""The lower estimate's test of a sign adds this many samples at ``+spread`` and ``-spread`` (half
each) to the variance: see :func:`_sure_sign`."""
SELECT = 2.0
"""... and deviates where the rest's mean difference is at least this many standard errors from 0
(at one, near an equilibrium the estimate fell further below 0 with pooling: 20,000 hands at 6
players, -0.0037 against -0.0030 at two)."""


@dataclass(frozen=True)
class Bound:
    """A strategy's NashConv bracketed by sampling (lives per hand): see the module docstring."""

    players: int
    hands: int
    confidence: float       # the upper bound holds with this chance (one-sided)
    upper: float            # NashConv <= upper with that confidence (proved: the module docstring)
    estimate: float         # cross-fitted: its expectation is at most the true NashConv
    estimate_error: float   # the standard error of ``estimate``
    sampled_best: float     # the sampled best response's saving (biased upwards)
    margin: float           # upper - sampled_best
    heuristic_upper: float  # sampled_best + z bootstrap standard deviations: tighter, not proved
    gains: list[float]      # per position: the sampled best response's saving
    situations: int         # information sets met
    seconds: float


class _AskEach:
    """A strategy given as a function of the situation (a solver key): asked once per situation met,
    its answers remembered (up to :attr:`LIMIT` of them, then forgotten and asked again: the same
    situation, the same answer, so this changes the time taken and nothing else)."""

    LIMIT = 1 << 21

    def __init__(self, hand: Hand, keep: Callable[[InfoKey], float]) -> None:
        self.keep, self.n, self.jerk = keep, hand.players, hand.jerk
        self.memo: list[dict[tuple[int, int], float]] = [{} for _ in range(self.n)]
        self.histories: dict[tuple[int, int], tuple[str, ...]] = {}  # spelled out once per (history, jerk)
        self.size = 0

    def info_key(self, t: int, h: int, rest: int) -> InfoKey:
        """Position ``t``'s situation with history code ``h`` and ``rest`` (jerk pattern, card, given:
        see :func:`_codes`) as a solver key, as :meth:`.SampledSolver.info_key` spells it."""
        jerk = rest >> 12
        history = self.histories.get((h, jerk))
        if history is None:
            tokens = []
            code = h
            while code:
                tokens.append(_NAMES[code % 8])
                code //= 8
            if self.jerk:
                tokens.append("J" + "".join("1" if jerk >> j & 1 else "0" for j in range(self.n)))
            history = self.histories[h, jerk] = tuple(reversed(tokens))
        return t, history, rest >> 6 & 63, (rest & 63) - 1

    def __call__(self, t: int, hist: Array, rest: Array) -> Array:
        """The keep probability in each of position ``t``'s situations ``(hist, rest)``."""
        if not len(hist):
            return np.zeros(0)
        order = np.lexsort((rest, hist))
        hs, rs = hist[order], rest[order]
        first = np.ones(len(order), dtype=bool)
        first[1:] = (hs[1:] != hs[:-1]) | (rs[1:] != rs[:-1])
        if self.size > self.LIMIT:
            self.memo = [{} for _ in range(self.n)]
            self.histories.clear()
            self.size = 0
        memo = self.memo[t]
        got = []
        for h, r in zip(hs[first].tolist(), rs[first].tolist()):
            p = memo.get((h, r))
            if p is None:
                p = memo[h, r] = float(self.keep(self.info_key(t, h, r)))
                self.size += 1
            got.append(p)
        out = np.empty(len(order))
        out[order] = np.array(got)[np.cumsum(first) - 1]
        return out


def _summary_counts_table() -> Array:
    """The counts of :func:`.summary_code` (without pairs) of every run of 5 tokens (15 bits): the
    counts of a history are the sum over its runs (no count passes 31, so none carries)."""
    c = np.arange(1 << 15, dtype=np.int64)
    out = np.zeros_like(c)
    for j in range(5):
        kind = c >> 3 * j & 7
        out += (kind > 0).astype(np.int64) << np.where(kind > 0, 5 * (kind - 1), 0)
    return out


class _SummaryKeep:
    """The strategy of a solution of the summary learner (``Solution.played_keep``), for many
    situations at once: a situation's summary (its history's counts of each token, the jerk pattern,
    card, given) looked up in sorted arrays per position, and where the solution has none, what
    ``played_keep`` plays there (1 if the position keeps that card more often than not, else 0)."""

    def __init__(self, hand: Hand, codes: list[Array], keep: list[Array], fallback: Array) -> None:
        self.rest_bits = 12 + (hand.players if hand.jerk else 0)
        self.codes, self.keep, self.fallback = codes, keep, fallback
        self.runs = _summary_counts_table()

    @classmethod
    def of(cls, hand: Hand, keep: Callable[[InfoKey], float]) -> _SummaryKeep | None:
        """The arrays for ``keep`` if it is the ``played_keep`` of a summary solution whose
        situations are all summaries (canonical keys) of this table, else None (asked one by one)."""
        from .sampled import summary_key

        # ``Solution.played_keep`` itself, bound to a solution, told by its name and module: the
        # solutions room sits above this one, so it is not imported here (tests/test_architecture.py)
        sol: Any = getattr(keep, "__self__", None)
        func = getattr(keep, "__func__", None)
        if (sol is None or func is None or getattr(func, "__qualname__", None) != "Solution.played_keep"
                or getattr(func, "__module__", None) != "chasetheace.solver.solutions.solution"
                or getattr(type(sol), "played_keep", None) is not func
                or sol.method != "summary" or sol.players != hand.players):
            return None
        n, k = hand.players, hand.rank_count
        rest_bits = 12 + (n if hand.jerk else 0)
        per: list[list[tuple[int, float]]] = [[] for _ in range(n)]
        for i, key in enumerate(sol.infosets):
            t, tokens, x, p = key
            if summary_key(key) != key or not (0 <= t < n and 0 <= x < k and -1 <= p < k):
                return None
            code, jerk, shown = 0, 0, False
            for token in tokens:
                if token.startswith("J"):
                    if not hand.jerk or len(token) != n + 1 or shown:
                        return None
                    jerk, shown = sum(1 << j for j, c in enumerate(token[1:]) if c == "1"), True
                elif token in TOKENS:
                    code += 1 << 5 * (TOKENS[token] - 1)
                else:
                    return None
            if hand.jerk != shown or len(tokens) - shown >= 32:
                return None
            per[t].append((code << rest_bits | ((jerk * 64 + x) * 64 + p + 1), sol._keep_at(i)))
        codes, values = [], []
        for rows in per:
            c = np.array([r[0] for r in rows], dtype=np.int64)
            v = np.array([r[1] for r in rows], dtype=np.float64)
            order = np.argsort(c, kind="stable")
            c, v = c[order], v[order]
            if (c[1:] == c[:-1]).any():  # two entries for one summary: played_keep takes the last
                return None
            codes.append(c)
            values.append(v)
        by_card = np.array(sol.keep_by_card(), dtype=np.float64).reshape(n, k)
        fallback = np.where((by_card == by_card) & (by_card >= 0.5), 1.0, 0.0)
        return cls(hand, codes, values, fallback)

    def __call__(self, t: int, hist: Array, rest: Array) -> Array:
        runs, mask = self.runs, (1 << 15) - 1
        counts = (runs[hist & mask] + runs[hist >> 15 & mask] + runs[hist >> 30 & mask]
                  + runs[hist >> 45 & mask] + runs[hist >> 60])
        code = counts << self.rest_bits | rest
        table, values = self.codes[t], self.keep[t]
        out = self.fallback[t, rest >> 6 & 63]
        if len(table):
            at = np.minimum(np.searchsorted(table, code), len(table) - 1)
            found = table[at] == code
            out[found] = values[at[found]]
        return out


def _codes(t: int, state: HandBatch, rows: Array) -> tuple[Array, Array]:
    """Position ``t``'s situations in ``rows``: the history code, and the rest (the jerk pattern, the
    card held and the card given, ``(jerk * 64 + card) * 64 + given + 1``, as
    :meth:`.SampledSolver.infoset_ids` codes them)."""
    return state.hist[rows], (state.jerk[rows] * 64 + state.cards[rows, t]) * 64 + state.given[rows] + 1


@dataclass(frozen=True)
class Samples:
    """The keep-minus-swap differences sampled from ``hands`` hands: one row per decision met."""

    players: int
    hands: int
    hand: Array      # the hand of each decision (0 .. hands - 1)
    ids: Array       # its information set (numbered by position, then history code, then the rest)
    d: Array         # lives lost after keeping minus after swapping, for the seat deciding
    q: Array         # per information set: the strategy's keep probability
    position: Array  # per information set: the seat deciding
    spread: float    # the most lives a seat loses in a hand: every ``d`` lies in [-spread, spread]
    seconds: float
    classes: tuple[Array, ...] = ()  # per information set: its class at each coarser level (:func:`pools`)
    history: Array | None = None     # per information set: its history code (3 bits a token)
    rest: Array | None = None        # ... and its jerk pattern, card and card given (:func:`situations`)


def situations(hand: Hand, got: Samples) -> list[InfoKey]:
    """The information set of each number in ``got`` as a solver key (position, tokens, card, given)."""
    if got.history is None or got.rest is None:
        raise ValueError("these samples do not say their situations")
    spell = _AskEach(hand, lambda key: 0.0)
    return [spell.info_key(t, h, r) for t, h, r in zip(got.position.tolist(), got.history.tolist(),
                                                        got.rest.tolist())]


def sample_differences(hand: Hand, keep: Callable[[InfoKey], float], hands: int, *, seed: int = 0,
                       batch: int = 2000, progress: Callable[[str], None] | None = None) -> Samples:
    """Deal ``hands`` hands (seeded by ``seed``) and play them with the strategy ``keep``, forking
    each decision keep / swap with common random numbers: see the module docstring.

    A batch of hands is played seat by seat once: at each seat the hands deciding there are copied
    twice (the forks, keep and swap), and the forks made at earlier seats play that seat with the
    strategy beside them, the random numbers of their hand; every fork's lives are counted at one
    showdown. The strategy is asked per situation met (the ``played_keep`` of a summary solution is
    read from its arrays, many situations at once); each decision is kept as its hand, its
    situation's two codes and the difference, and the situations are numbered at the end."""
    if not isinstance(hands, int) or hands < 4:
        raise ValueError(f"bad hands {hands!r}: an integer >= 4")
    start = time.perf_counter()
    sim = SampledSolver(hand, seed)
    strategy: Callable[[int, Array, Array], Array] = _SummaryKeep.of(hand, keep) or _AskEach(hand, keep)
    n = hand.players
    rec: dict[str, list[Array]] = {"hand": [], "t": [], "hist": [], "rest": [], "d": []}
    played = 0
    while played < hands:
        b = min(batch, hands - played)
        state = sim.deal(b)
        u = sim.rng.random((b, n))
        # room for every fork of the batch (at most one decision a seat): the first ``used`` rows
        room = state.take(np.zeros(2 * b * n, dtype=np.int64))
        owner = np.zeros(2 * b * n, dtype=np.int64)  # a fork's hand in the batch
        seat = np.zeros(2 * b * n, dtype=np.int64)   # ... and the seat that forked it
        used = 0
        pairs = []
        for t in range(n):
            if used:  # the forks made at earlier seats play seat t with the strategy
                forks = _rows(room, used)
                live = sim.deciding(t, forks)
                if len(live):
                    sim.act(t, forks, live, u[owner[live], t] < strategy(t, *_codes(t, forks, live)))
            rows = sim.deciding(t, state)
            if not len(rows):
                continue
            hist, rest = _codes(t, state, rows)
            p = strategy(t, hist, rest)
            r = len(rows)
            both = np.concatenate([rows, rows])
            for name in _FIELDS:
                getattr(room, name)[used:used + 2 * r] = getattr(state, name)[both]
            owner[used:used + 2 * r], seat[used:used + 2 * r] = both, t
            sim.act(t, _rows(room, used + 2 * r), np.arange(used, used + 2 * r),
                    np.arange(2 * r) < r)  # keep, then swap
            pairs.append(np.arange(used, used + r))
            used += 2 * r
            # compact: a decision costs 25 bytes until numbered, then 12
            rec["hand"].append((rows + played).astype(np.int32))
            rec["t"].append(np.full(r, t, dtype=np.int8))
            rec["hist"].append(hist)
            rec["rest"].append(rest)
            sim.act(t, state, rows, u[rows, t] < p)
        if used:
            lives = sim.showdown(_rows(room, used))[0]
            lost = lives[np.arange(used), seat[:used]]
            for at in pairs:  # keep minus swap
                rec["d"].append((lost[at] - lost[at + len(at)]).astype(np.float32))
        played += b
        if progress is not None:
            progress(f"bounding NashConv: {played:,} of {hands:,} hands, {time.perf_counter() - start:.0f} s")
    got = {}
    for name in list(rec):  # one field at a time, its parts freed as it is joined
        parts = rec.pop(name)
        got[name] = np.concatenate(parts) if parts else np.zeros(0)
        del parts
    ids, position, history, rest = _number(got.pop("t"), got.pop("hist"), got.pop("rest"), n)
    q = np.zeros(len(position))
    for t in range(n):  # the strategy per situation: asked again (the same answer as in play)
        mine = slice(*np.searchsorted(position, [t, t + 1]))
        q[mine] = strategy(t, history[mine], rest[mine])
    return Samples(players=n, hands=hands, hand=got["hand"].astype(np.int32, copy=False), ids=ids,
                   d=got["d"].astype(np.float32, copy=False), q=q, position=position,
                   spread=max(1.0, float(sim.lives_of.max())), seconds=time.perf_counter() - start,
                   classes=_pools(position, history, rest), history=history, rest=rest)


_FIELDS = ("cards", "stock", "jerk", "hist", "given", "done", "stopped", "special")


def _rows(batch: HandBatch, used: int) -> HandBatch:
    """The first ``used`` hands of ``batch`` (views: playing them plays ``batch``)."""
    out = HandBatch.__new__(HandBatch)
    for name in _FIELDS:
        setattr(out, name, getattr(batch, name)[:used])
    return out


def _number(t: Array, hist: Array, rest: Array, n: int) -> tuple[Array, Array, Array, Array]:
    """Number the situations of the decisions (position ``t``, history code ``hist``, ``rest``) in
    the order of position, history, rest: per decision its number (int32), and per number its
    position, history code and rest."""
    ids = np.zeros(len(t), dtype=np.int32)
    position, history, rests = [], [], []
    m = 0
    for s in range(n):
        at = np.flatnonzero(t == s)
        if not len(at):
            continue
        h, r = hist[at], rest[at]
        order = np.lexsort((r, h))
        h, r = h[order], r[order]
        first = np.ones(len(order), dtype=bool)
        first[1:] = (h[1:] != h[:-1]) | (r[1:] != r[:-1])
        ids[at[order]] = np.cumsum(first, dtype=np.int64) - 1 + m
        position.append(np.full(int(first.sum()), s, dtype=np.int64))
        history.append(h[first])
        rests.append(r[first])
        m += len(position[-1])
    if m >= 2 ** 31:
        raise ValueError(f"{m:,} situations: more than the samples number (int32)")
    def joined(parts: list[Array]) -> Array:
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    return ids, joined(position), joined(history), joined(rests)


def pools(keys: list[tuple[int, int, int, int, int]] | Array) -> tuple[Array, ...]:
    """Coarser and coarser classes of the information sets ``keys`` (position, history code, jerk
    pattern, card, card given), each an array of class numbers: the history told by its tokens'
    counts, keeps and swaps after a swap apart; by the counts alone; not at all."""
    k = np.array(keys, dtype=np.int64).reshape(-1, 5)
    if not len(k):
        return ()
    return _pools(k[:, 0], k[:, 1], (k[:, 2] * 64 + k[:, 3]) * 64 + k[:, 4] + 1)


def _pools(position: Array, history: Array, rest: Array, size: int = 1 << 20) -> tuple[Array, ...]:
    """:func:`pools` of the situations (``position``, ``history``, ``rest``), ``size`` at a time."""
    from .sampled import summary_code

    m = len(position)
    if not m:
        return ()
    out = []
    for pairs in (True, False, None):
        if pairs is None:
            level = np.zeros(m, dtype=np.int64)
        else:
            level = np.concatenate([summary_code(history[at:at + size], pairs) for at in range(0, m, size)])
        level |= position << 40  # counts: 8 kinds of 5 bits
        order = np.lexsort((rest, level))
        a, b = level[order], rest[order]
        first = np.ones(m, dtype=bool)
        first[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
        cls = np.empty(m, dtype=np.int32)
        cls[order] = np.cumsum(first, dtype=np.int64) - 1
        out.append(cls)
    return tuple(out)


def bound_nash_conv(hand: Hand, keep: Callable[[InfoKey], float], hands: int = 20_000, *, seed: int = 0,
                    confidence: float = 0.95, batch: int = 2000, resamples: int = 200,
                    folds: int = FOLDS, select: float = SELECT,
                    progress: Callable[[str], None] | None = None) -> Bound:
    """Bracket the NashConv of the strategy ``keep`` (the probability of keeping at any information
    set of ``hand``) from ``hands`` sampled hands, seeded by ``seed``: see the module docstring."""
    check_confidence(confidence)
    got = sample_differences(hand, keep, hands, seed=seed, batch=batch, progress=progress)
    return bracket(got, confidence=confidence, resamples=resamples, folds=folds, select=select, seed=seed)


SURE_LEAST = 100
"""The fewest samples of an information set for :func:`sure_signs` to call the sign of its mean."""


def sure_signs(count: Array, total: Array, squares: Array, spread: float, alpha: float,
               decisions: int) -> tuple[Array, Array]:
    """The information sets whose mean difference is surely above 0, and surely below, all at once
    with probability at least ``1 - alpha``: from ``count`` samples in [-spread, spread] summing to
    ``total`` (their squares to ``squares``), each tested with the empirical Bernstein bound of
    Audibert, Munos and Szepesvari (2009) at ``alpha / (decisions / SURE_LEAST)``: at most that many
    information sets have :data:`SURE_LEAST` samples among ``decisions`` (the seats times the hands)."""
    k = np.maximum(count, 1)
    mean = total / k
    var = np.maximum(squares / k - mean ** 2, 0.0)
    log = np.log(3 * max(decisions / SURE_LEAST, 1.0) / alpha)
    eps = np.sqrt(2 * var * log / k) + 3 * 2 * spread * log / k
    tested = count >= SURE_LEAST
    return tested & (mean > eps), tested & (mean < -eps)


def _sure_sign(k: Array, s1: Array, s2: Array, select: float, spread: float = 1.0,
               pseudo: int = PSEUDO) -> Array:
    """+1 / -1 where ``k`` samples summing to ``s1`` (squares ``s2``) have a mean at least ``select``
    standard errors above / below 0, else 0. The variance is taken with ``pseudo`` more samples, half
    at ``+spread`` and half at ``-spread`` (they widen it and pull the mean to 0), so that a few equal
    samples (no spread of their own) never look sure: with ``pseudo=0`` the rule before 27 November
    2026, one more ``d^2 = 1`` in the squares alone, under which two samples of ``+1`` made a sure
    sign (their variance 0) and, at 12 players, a million hands, the estimate fell to -0.0006."""
    if pseudo == 0:
        var = (s2 + 1.0) / (k + 1.0) - (s1 / np.maximum(k, 1)) ** 2
        kk = k
    else:
        kk = k + pseudo
        var = (s2 + pseudo * spread ** 2) / kk - (s1 / kk) ** 2
    sure = (s1 ** 2 > select ** 2 * np.maximum(var, 0.0) * kk) & (k > 0)
    return np.where(sure, np.sign(s1), 0.0)


def check_confidence(confidence: float) -> None:
    if not 0.5 <= confidence < 1:
        raise ValueError(f"bad confidence {confidence!r}: a number in [0.5, 1)")


SIGN_SHARE = 0.1
"""The share of ``alpha = 1 - confidence`` spent on the signs called sure (the rest on the normal
quantile of the mean): fixed before the samples, as any split may be (the union bound)."""

TRUNCATIONS = (1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0)
"""The levels ``w`` of the truncated second-moment bound of the margin (fixed before the samples):
see the module docstring."""

CHUNK = 1 << 24
"""Decisions handled at a time by :func:`bracket`: its memory beyond the samples is a few arrays
of this length, one of the hands and a few of the information sets, however many hands."""


def _chunks(got: Samples, size: int = CHUNK) -> Iterator[tuple[Array, Array, Array]]:
    """The decisions of ``got`` a slice at a time: (hand, information set, difference as float)."""
    for at in range(0, len(got.d), size):
        yield got.hand[at:at + size], got.ids[at:at + size], got.d[at:at + size].astype(float)


def bracket(got: Samples, *, confidence: float = 0.95, resamples: int = 200, folds: int = FOLDS,
            select: float = SELECT, seed: int = 0, pool: bool = True, tight: bool = True,
            sign_share: float = SIGN_SHARE, chunk: int = CHUNK, pseudo: int = PSEUDO,
            orient: bool = False, truncate: bool = True) -> Bound:
    """The figures of :class:`Bound` from the samples ``got`` (``seed``: of the bootstrap), reading
    ``chunk`` decisions at a time. ``pool=False, tight=False, select=1.0, sign_share=0.5, pseudo=0``
    give the figures of the method before pooling and the tighter margin (see the module docstring),
    ``pseudo=0`` the lower estimate before 27 November 2026 and ``truncate=False`` the
    margin before (``E[m^2]`` alone), to compare."""
    check_confidence(confidence)
    if not isinstance(folds, int) or not 2 <= folds <= got.hands:
        raise ValueError(f"bad folds {folds!r}: an integer from 2 to the number of hands")
    start = time.perf_counter()
    hands, n = got.hands, got.players
    q, position = got.q, got.position
    m = len(q)
    rng = np.random.default_rng([seed, 1])

    def each() -> Iterator[tuple[Array, Array, Array]]:
        return _chunks(got, chunk)

    def per_set(values: Callable[[Array, Array, Array], Array | None]) -> Array:
        """Per information set, the sum of ``values(hand, ids, d)`` over the decisions (None: 1 each)."""
        out = np.zeros(m)
        for w, i, x in each():
            out += np.bincount(i, values(w, i, x), minlength=m)
        return out

    # the sampled best response, per information set the action its samples call better (one pass:
    # a slice's sums added to the running ones give the same floats as one sum over all, in order)
    total, total_d2, count = np.zeros(m), np.zeros(m), np.zeros(m)
    for _, i, x in each():
        total += np.bincount(i, x, minlength=m)
        total_d2 += np.bincount(i, x * x, minlength=m)
        count += np.bincount(i, minlength=m)
    saved = np.maximum(q * total, (q - 1) * total) / hands
    gains = np.bincount(position, saved, minlength=n)
    best = float(saved.sum())
    z = statistics.NormalDist().inv_cdf(confidence)
    # its spread over samples of hands: the Poisson bootstrap (each hand drawn a Poisson(1) number of times)
    again = []
    for _ in range(resamples):
        weight = rng.poisson(1.0, hands).astype(float)
        t_i = per_set(lambda w, i, x: weight[w] * x)  # noqa: B023 (used at once, in this iteration)
        again.append(float(np.maximum(q * t_i, (q - 1) * t_i).sum()) / hands)
    heuristic = z * float(np.std(again, ddof=1))
    # |Z_pi*| <= |sum over sure t of c*(I_t) d_t + sum over the others of (q - 1/2) d_t| + sum over
    # the others of |d_t| / 2 per hand (tight), or sum_t max(q, 1 - q) |d_t| with |c*| where sure
    if not 0 < sign_share < 1:
        raise ValueError(f"bad sign_share {sign_share!r}: a number strictly between 0 and 1")
    share = sign_share  # of alpha = 1 - confidence, for the signs; the rest for the mean
    up, down = sure_signs(count, total, total_d2, got.spread, (1 - confidence) * share, n * hands)
    sure = up | down
    if tight:
        c_sure, half = np.where(up, q, np.where(down, q - 1, q - 0.5)), np.where(sure, 0.0, 0.5)
    else:
        c_sure, half = np.zeros(m), np.maximum(q, 1 - q)
        half[up], half[down] = q[up], 1 - q[down]
    signed, plain = np.zeros(hands), np.zeros(hands)
    for w, i, x in each():
        signed += np.bincount(w, c_sure[i] * x, minlength=hands)
        plain += np.bincount(w, half[i] * np.abs(x), minlength=hands)
    per_hand = np.abs(signed) + plain
    second = float(np.mean(per_hand ** 2))  # E[Z_pi*^2] <= E[m^2]
    if tight and truncate:  # ... and <= (sqrt(E[A^2]) + sqrt(2 w E[P] + E[W^2; W > w]))^2 for every w
        away = np.where(q >= 0.5, 1.0, -1.0)  # the sign of c_1 - c_0: +1 where deviating is swapping
        c_known = np.where(up, q, np.where(down, q - 1, np.where(q >= 0.5, q - 1, q)))  # c*, or c_0
        known, pos, wide = np.zeros(hands), np.zeros(hands), np.zeros(hands)
        for w, i, x in each():
            known += np.bincount(w, c_known[i] * x, minlength=hands)
            e = np.where(sure[i], 0.0, away[i] * x)
            pos += np.bincount(w, np.maximum(e, 0.0), minlength=hands)
            wide += np.bincount(w, np.abs(e), minlength=hands)
        root_a, mean_p = float(np.sqrt(np.mean(known ** 2))), float(pos.mean())
        for cut in TRUNCATIONS:
            tail = float(np.mean(np.where(wide > cut, wide ** 2, 0.0)))
            second = min(second, (root_a + float(np.sqrt(2 * cut * mean_p + tail))) ** 2)
    z_half = statistics.NormalDist().inv_cdf(1 - (1 - confidence) * (1 - share))
    uniform = z_half * float(np.sqrt(second / hands))

    # cross-fitted: the deviation valued on each fold of hands is chosen on the other folds
    values = np.zeros(hands)
    away = np.where(q >= 0.5, 1.0, -1.0)  # +1 where deviating means swapping (d > 0: swapping saves)
    for f in range(folds):
        # the fold's own sums (its decisions only: adding the others' zeros changed no float)
        k, s1, s2 = np.zeros(m), np.zeros(m), np.zeros(m)
        for w, i, x in each():
            mine = np.flatnonzero(w % folds == f)
            i_f, x_f = i[mine], x[mine]
            k += np.bincount(i_f, minlength=m)
            s1 += np.bincount(i_f, x_f, minlength=m)
            s2 += np.bincount(i_f, x_f * x_f, minlength=m)
        k, s1, s2 = count - k, total - s1, total_d2 - s2
        sign = _sure_sign(k, s1, s2, select, got.spread, pseudo)
        if pool:  # where a set's own samples do not tell, its class's at the finest level that does
            for cls in got.classes:
                # oriented: what playing the action the strategy plays less saves, pooled over the
                # class (else sets the strategy already plays right, keeping where others swap,
                # pull the class's sign their way)
                ck, c1, c2 = (np.bincount(cls, v) for v in (k, s1 * away if orient else s1, s2))
                wide = _sure_sign(ck, c1, c2, select, got.spread, pseudo)[cls]
                if orient:
                    wide = wide * away
                sign = np.where((sign == 0) & (wide * s1 >= 0), wide, sign)  # not against its own mean
        c = np.where(sign > 0, q, np.where(sign < 0, q - 1, 0.0))
        for w, i, x in each():
            mine = w % folds == f
            values += np.bincount(w[mine], c[i[mine]] * x[mine], minlength=hands)
    return Bound(players=n, hands=hands, confidence=confidence, upper=best + uniform,
                 heuristic_upper=best + heuristic, margin=uniform,
                 estimate=float(values.mean()), estimate_error=float(values.std(ddof=1) / np.sqrt(hands)),
                 sampled_best=best,
                 gains=[float(g) for g in gains], situations=int((count > 0).sum()),
                 seconds=got.seconds + time.perf_counter() - start)
