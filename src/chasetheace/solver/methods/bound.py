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
from .sampled import HandBatch, SampledSolver

__all__ = ["CHUNK", "FOLDS", "SELECT", "SIGN_SHARE", "SURE_LEAST", "Bound", "Samples", "bound_nash_conv",
           "bracket", "pools", "sample_differences", "sure_signs"]

Array = Any

FOLDS = 10
"""The lower estimate's folds: the deviation valued on each tenth of the hands is chosen on the rest."""
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


class _Policy(SampledSolver):
    """The sampled method's hand machinery, playing a fixed strategy ``keep`` (every situation)."""

    def __init__(self, hand: Hand, keep: Callable[[InfoKey], float], seed: int) -> None:
        super().__init__(hand, seed)
        self.policy = keep
        self.q = np.zeros(1024)  # the first ``known`` entries filled; room doubled as needed
        self.known = 0

    def ids(self, t: int, state: HandBatch, rows: Array) -> tuple[Array, Array]:
        """The information sets of seat ``t`` in ``rows`` and the strategy's keep probability there."""
        ids = self.infoset_ids(t, state, rows, grow=True)
        m = len(self.keys)
        if m > self.known:
            if m > len(self.q):  # doubled, not grown by the new ones: a copy per call was quadratic
                self.q = np.concatenate([self.q, np.zeros(max(m, 2 * len(self.q)) - len(self.q))])
            self.q[self.known:m] = [self.policy(self.info_key(i)) for i in range(self.known, m)]
            self.known = m
        return ids, self.q[ids]

    def play_out(self, t: int, state: HandBatch, u: Array) -> Array:
        """Seats ``t``.. play the strategy to the end with the random numbers ``u`` (row, seat)."""
        for s in range(t, self.n):
            rows = self.deciding(s, state)
            if len(rows):
                _, p = self.ids(s, state, rows)
                self.act(s, state, rows, u[rows, s] < p)
        return self.showdown(state)[0]


@dataclass(frozen=True)
class Samples:
    """The keep-minus-swap differences sampled from ``hands`` hands: one row per decision met."""

    players: int
    hands: int
    hand: Array      # the hand of each decision (0 .. hands - 1)
    ids: Array       # its information set (numbered as met)
    d: Array         # lives lost after keeping minus after swapping, for the seat deciding
    q: Array         # per information set: the strategy's keep probability
    position: Array  # per information set: the seat deciding
    spread: float    # the most lives a seat loses in a hand: every ``d`` lies in [-spread, spread]
    seconds: float
    classes: tuple[Array, ...] = ()  # per information set: its class at each coarser level (:func:`pools`)


def sample_differences(hand: Hand, keep: Callable[[InfoKey], float], hands: int, *, seed: int = 0,
                       batch: int = 2000, progress: Callable[[str], None] | None = None) -> Samples:
    """Deal ``hands`` hands (seeded by ``seed``) and play them with the strategy ``keep``, forking
    each decision keep / swap with common random numbers: see the module docstring."""
    if not isinstance(hands, int) or hands < 4:
        raise ValueError(f"bad hands {hands!r}: an integer >= 4")
    start = time.perf_counter()
    sampler = _Policy(hand, keep, seed)
    n = hand.players
    rec_hand, rec_id, rec_d = [], [], []
    played = 0
    while played < hands:
        b = min(batch, hands - played)
        state = sampler.deal(b)
        u = sampler.rng.random((b, n))
        for t in range(n):
            rows = sampler.deciding(t, state)
            if not len(rows):
                continue
            ids, p = sampler.ids(t, state, rows)
            lost = []
            for action in (True, False):
                fork = state.take(rows)
                sampler.act(t, fork, np.arange(len(rows)), np.full(len(rows), action))
                lost.append(sampler.play_out(t + 1, fork, u[rows])[:, t])
            # compact: a decision costs 12 bytes (at 20 players a million hands are 20 million decisions)
            rec_hand.append((rows + played).astype(np.int32))
            rec_id.append(ids.astype(np.int32))
            rec_d.append((lost[0] - lost[1]).astype(np.float32))
            sampler.act(t, state, rows, u[rows, t] < p)
        played += b
        if progress is not None:
            progress(f"bounding NashConv: {played:,} of {hands:,} hands, {time.perf_counter() - start:.0f} s")
    m = len(sampler.keys)
    return Samples(players=n, hands=hands, hand=np.concatenate(rec_hand), ids=np.concatenate(rec_id),
                   d=np.concatenate(rec_d), q=sampler.q[:m].copy(),
                   position=np.array([key[0] for key in sampler.keys], dtype=np.int64),
                   spread=max(1.0, float(sampler.lives_of.max())),
                   seconds=time.perf_counter() - start, classes=pools(sampler.keys))


def pools(keys: list[tuple[int, int, int, int, int]]) -> tuple[Array, ...]:
    """Coarser and coarser classes of the information sets ``keys`` (position, history code, jerk
    pattern, card, card given), each an array of class numbers: the history told by its tokens'
    counts, keeps and swaps after a swap apart; by the counts alone; not at all."""
    from .sampled import summary_code

    if not keys:
        return ()
    k = np.array(keys, dtype=np.int64).reshape(-1, 5)
    t, h, rest = k[:, 0], k[:, 1], k[:, 2:]
    out = []
    for level in (summary_code(h, True), summary_code(h, False), np.zeros_like(h)):
        out.append(np.unique(np.c_[t, level, rest], axis=0, return_inverse=True)[1].reshape(-1))
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


def _sure_sign(k: Array, s1: Array, s2: Array, select: float) -> Array:
    """+1 / -1 where ``k`` samples summing to ``s1`` (squares ``s2``) have a mean at least ``select``
    standard errors above / below 0, else 0; the variance taken with one more sample d^2 = 1 (a few
    equal samples have no spread, which would make any mean look sure)."""
    var = (s2 + 1.0) / (k + 1.0) - (s1 / np.maximum(k, 1)) ** 2
    sure = (s1 ** 2 > select ** 2 * np.maximum(var, 0.0) * k) & (k > 0)
    return np.where(sure, np.sign(s1), 0.0)


def check_confidence(confidence: float) -> None:
    if not 0.5 <= confidence < 1:
        raise ValueError(f"bad confidence {confidence!r}: a number in [0.5, 1)")


SIGN_SHARE = 0.1
"""The share of ``alpha = 1 - confidence`` spent on the signs called sure (the rest on the normal
quantile of the mean): fixed before the samples, as any split may be (the union bound)."""

CHUNK = 1 << 22
"""Decisions handled at a time by :func:`bracket`: its memory beyond the samples is a few arrays
of this length, one of the hands and a few of the information sets, however many hands."""


def _chunks(got: Samples, size: int = CHUNK) -> Iterator[tuple[Array, Array, Array]]:
    """The decisions of ``got`` a slice at a time: (hand, information set, difference as float)."""
    for at in range(0, len(got.d), size):
        yield got.hand[at:at + size], got.ids[at:at + size], got.d[at:at + size].astype(float)


def bracket(got: Samples, *, confidence: float = 0.95, resamples: int = 200, folds: int = FOLDS,
            select: float = SELECT, seed: int = 0, pool: bool = True, tight: bool = True,
            sign_share: float = SIGN_SHARE, chunk: int = CHUNK) -> Bound:
    """The figures of :class:`Bound` from the samples ``got`` (``seed``: of the bootstrap), reading
    ``chunk`` decisions at a time. ``pool=False, tight=False, select=1.0, sign_share=0.5`` give the
    figures of the method before pooling and the tighter margin (see the module docstring), to
    compare."""
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

    # the sampled best response, per information set the action its samples call better
    total = per_set(lambda w, i, x: x)
    total_d2 = per_set(lambda w, i, x: x * x)
    count = per_set(lambda w, i, x: None)
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
    z_half = statistics.NormalDist().inv_cdf(1 - (1 - confidence) * (1 - share))
    uniform = z_half * float(np.sqrt(np.mean(per_hand ** 2) / hands))

    # cross-fitted: the deviation valued on each fold of hands is chosen on the other folds
    values = np.zeros(hands)
    for f in range(folds):
        k = count - per_set(lambda w, i, x: (w % folds == f).astype(float))  # noqa: B023
        s1 = total - per_set(lambda w, i, x: np.where(w % folds == f, x, 0.0))  # noqa: B023
        s2 = total_d2 - per_set(lambda w, i, x: np.where(w % folds == f, x * x, 0.0))  # noqa: B023
        sign = _sure_sign(k, s1, s2, select)
        if pool:  # where a set's own samples do not tell, its class's at the finest level that does
            for cls in got.classes:
                ck, c1, c2 = (np.bincount(cls, v) for v in (k, s1, s2))
                wide = _sure_sign(ck, c1, c2, select)[cls]
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
