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
- **The upper bound** (``upper``) bounds the unknown ``SE(Z_pi*)``: ``|Z_pi*| <= m = sum_t a(I_t)
  |d_t|`` per hand with ``a(I) >= |c_pi*(I)|``. Without knowing ``pi*``, ``a = max(q, 1 - q)``
  holds everywhere; where the samples show the sign of ``mu_I`` for sure, ``c_pi*(I)`` is known:
  ``q`` where ``mu_I > 0``, ``q - 1`` where ``mu_I < 0``, and ``a(I)`` is its size (near an
  equilibrium, much smaller: a strategy that mostly plays the better action). "For sure": every
  information set met at least :data:`SURE_LEAST` times is tested with the empirical Bernstein
  bound (Audibert, Munos and Szepesvari 2009, "Exploration-exploitation tradeoff using variance
  estimates in multi-armed bandits", Theorem 1: ``|mean - mu| <= sqrt(2 V x / k) + 3 R x / k``
  with probability ``1 - 3 exp(-x)``, ``k`` samples of range ``R = 2 * spread``, ``V`` their
  variance), each at ``alpha / 2`` divided by ``seats * N / SURE_LEAST``, the most information
  sets that can be met that often; by the union bound, every sign called is right with probability
  at least ``1 - alpha / 2``. On that event ``|Z_pi*| <= m`` in every hand, and ``upper = G +
  z' * sqrt(mean(m^2) / N)`` with ``z'`` the normal quantile at ``1 - alpha / 2``: both events hold
  with probability at least ``1 - alpha`` (95 % one-sided by default), no correction for the many
  information sets needed in the sum. Where few signs are sure (few hands for the situations),
  the split of ``alpha`` costs a little: at 20 players and 20,000 hands the margin was 0.104 where
  ``max(q, 1 - q)`` everywhere with the whole ``alpha`` gives 0.094; at 9 players and 200,000
  hands it was 0.0094 against 0.0160, at 6 players (the ``iid`` strategy) and 50,000 hands 0.0163
  against 0.0230.
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
  on each fold is chosen on the other folds (per information set, the action their samples call
  better where their mean difference is at least :data:`SELECT` standard errors from 0; elsewhere
  no deviation); a deviation fixed before its hands are seen is valued without bias, and no fixed
  deviation saves more than the best response, so the estimate's expectation is at most the true
  NashConv (near an equilibrium it can fall a little below 0: a deviation chosen on noise costs).
  Its standard error is that of the per-hand values. Ten folds choose on nine tenths of the hands
  and, unlike two halves with at least 10 samples a situation, let situations met a few times
  count: at 9 players and 200,000 hands the estimate rose from 0.021 to 0.043.

Checked against the exact NashConv (an exact best response on the exact tree, :mod:`.measure`) at
3 to 5 players in ``tests/test_solver_bound.py``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model.hand import Hand, InfoKey
from .sampled import HandBatch, SampledSolver

__all__ = ["FOLDS", "SELECT", "SURE_LEAST", "Bound", "Samples", "bound_nash_conv", "bracket",
           "sample_differences", "sure_signs"]

Array = Any

FOLDS = 10
"""The lower estimate's folds: the deviation valued on each tenth of the hands is chosen on the rest."""
SELECT = 1.0
"""... and deviates where the rest's mean difference is at least this many standard errors from 0."""


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
                   seconds=time.perf_counter() - start)


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


def check_confidence(confidence: float) -> None:
    if not 0.5 <= confidence < 1:
        raise ValueError(f"bad confidence {confidence!r}: a number in [0.5, 1)")


def bracket(got: Samples, *, confidence: float = 0.95, resamples: int = 200, folds: int = FOLDS,
            select: float = SELECT, seed: int = 0) -> Bound:
    """The figures of :class:`Bound` from the samples ``got`` (``seed``: of the bootstrap)."""
    check_confidence(confidence)
    if not isinstance(folds, int) or not 2 <= folds <= got.hands:
        raise ValueError(f"bad folds {folds!r}: an integer from 2 to the number of hands")
    start = time.perf_counter()
    hands, n = got.hands, got.players
    where, ids, q, position = got.hand, got.ids, got.q, got.position
    d = got.d.astype(float)
    m = len(q)
    rng = np.random.default_rng([seed, 1])

    # the sampled best response, per information set the action its samples call better
    total = np.bincount(ids, d, minlength=m)
    saved = np.maximum(q * total, (q - 1) * total) / hands
    gains = np.bincount(position, saved, minlength=n)
    best = float(saved.sum())
    z = statistics.NormalDist().inv_cdf(confidence)
    # its spread over samples of hands: the Poisson bootstrap (each hand drawn a Poisson(1) number of times)
    again = []
    for _ in range(resamples):
        weight = rng.poisson(1.0, hands).astype(float)[where]
        t_i = np.bincount(ids, weight * d, minlength=m)
        again.append(float(np.maximum(q * t_i, (q - 1) * t_i).sum()) / hands)
    heuristic = z * float(np.std(again, ddof=1))
    # |Z_pi*| <= sum_t a(I_t) |d_t| per hand, a = max(q, 1 - q) or, where the sign of mu is sure, |c*|
    total_d2 = np.bincount(ids, d ** 2, minlength=m)
    count = np.bincount(ids, minlength=m)
    a = np.maximum(q, 1 - q)
    up, down = sure_signs(count, total, total_d2, got.spread, (1 - confidence) / 2, n * hands)
    a[up], a[down] = q[up], 1 - q[down]
    per_hand = np.bincount(where, a[ids] * np.abs(d), minlength=hands)
    z_half = statistics.NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    uniform = z_half * float(np.sqrt(np.mean(per_hand ** 2) / hands))

    # cross-fitted: the deviation valued on each fold of hands is chosen on the other folds
    fold = where % folds
    values = np.zeros(hands)
    for f in range(folds):
        mine = fold == f
        k = count - np.bincount(ids[mine], minlength=m)
        s1 = total - np.bincount(ids[mine], d[mine], minlength=m)
        s2 = total_d2 - np.bincount(ids[mine], d[mine] ** 2, minlength=m)
        # |mean| > select * se, the variance taken with one more sample d^2 = 1 (a few equal samples
        # have no spread, which would make any mean look sure)
        var = (s2 + 1.0) / (k + 1.0) - (s1 / np.maximum(k, 1)) ** 2
        sure = (s1 ** 2 > select ** 2 * np.maximum(var, 0.0) * k) & (k > 0)
        c = np.where(sure & (s1 > 0), q, np.where(sure & (s1 < 0), q - 1, 0.0))
        values += np.bincount(where[mine], c[ids[mine]] * d[mine], minlength=hands)
    return Bound(players=n, hands=hands, confidence=confidence, upper=best + uniform,
                 heuristic_upper=best + heuristic, margin=uniform,
                 estimate=float(values.mean()), estimate_error=float(values.std(ddof=1) / np.sqrt(hands)),
                 sampled_best=best,
                 gains=[float(g) for g in gains], situations=len(np.unique(ids)),
                 seconds=got.seconds + time.perf_counter() - start)
