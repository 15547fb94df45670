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
  (one-sided, the normal approximation to the mean of ``N`` independent hands). ``SE(Z_pi*)`` is
  unknown because ``pi*`` is, but ``|Z_pi| <= m = sum_t max(q, 1 - q) * |d_t|`` for every ``pi``,
  so ``sqrt(mean(m^2) / N)`` bounds it: the **upper bound** (``upper``) is
  ``G + z * sqrt(mean(m^2) / N)``, 95 % one-sided by default (``z = 1.645``), no correction for the
  many information sets needed.
- **A tighter heuristic** (``heuristic_upper``, not a proved bound) adds ``z`` standard deviations of
  ``G`` itself over Poisson-bootstrap resamples of the hands instead: the spread of a maximised
  statistic, which need not bound ``SE(Z_pi*)``. It is reported under its own name, never as the
  95 % bound.
- **The lower estimate** is cross-fitted: the hands are split in two halves, the deviation is chosen
  on one (per information set, the action its samples call better where they call it clearly: at
  least ``least`` samples, 10, and a mean difference at least ``select`` standard errors from 0, one;
  elsewhere no deviation: near an equilibrium, deviations chosen on the noise of a few samples cost
  lives, and made the estimate fall well below 0) and valued on the other, and the roles swapped;
  a deviation fixed before its hands are seen is valued without bias, so the estimate's expectation
  is at most the true NashConv. Its standard error comes from the per-hand values on the held-out
  halves.

Checked against the exact NashConv (an exact best response on the exact tree,
:mod:`.measure`) at 3 to 6 players in ``tests/test_solver_bound.py``.
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

__all__ = ["Bound", "bound_nash_conv"]

Array = Any


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
        self.q = np.zeros(0)

    def ids(self, t: int, state: HandBatch, rows: Array) -> tuple[Array, Array]:
        """The information sets of seat ``t`` in ``rows`` and the strategy's keep probability there."""
        ids = self.infoset_ids(t, state, rows, grow=True)
        if len(self.keys) > len(self.q):
            new = [self.policy(self.info_key(i)) for i in range(len(self.q), len(self.keys))]
            self.q = np.concatenate([self.q, np.array(new, dtype=float)])
        return ids, self.q[ids]

    def play_out(self, t: int, state: HandBatch, u: Array) -> Array:
        """Seats ``t``.. play the strategy to the end with the random numbers ``u`` (row, seat)."""
        for s in range(t, self.n):
            rows = self.deciding(s, state)
            if len(rows):
                _, p = self.ids(s, state, rows)
                self.act(s, state, rows, u[rows, s] < p)
        return self.showdown(state)[0]


def bound_nash_conv(hand: Hand, keep: Callable[[InfoKey], float], hands: int = 20_000, *, seed: int = 0,
                    confidence: float = 0.95, batch: int = 2000, resamples: int = 200,
                    select: float = 1.0, least: int = 10,
                    progress: Callable[[str], None] | None = None) -> Bound:
    """Bracket the NashConv of the strategy ``keep`` (the probability of keeping at any information
    set of ``hand``) from ``hands`` sampled hands, seeded by ``seed``: see the module docstring."""
    if not 0.5 <= confidence < 1:
        raise ValueError(f"bad confidence {confidence!r}: a number in [0.5, 1)")
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
            rec_hand.append(rows + played)
            rec_id.append(ids)
            rec_d.append(lost[0] - lost[1])
            sampler.act(t, state, rows, u[rows, t] < p)
        played += b
        if progress is not None:
            progress(f"bounding NashConv: {played:,} of {hands:,} hands, {time.perf_counter() - start:.0f} s")
    where = np.concatenate(rec_hand)
    ids = np.concatenate(rec_id)
    d = np.concatenate(rec_d)
    m = len(sampler.keys)
    q = sampler.q[:m]
    position = np.array([key[0] for key in sampler.keys], dtype=np.int64)

    # the sampled best response, per information set the action its samples call better
    total = np.bincount(ids, d, minlength=m)
    saved = np.maximum(q * total, (q - 1) * total) / hands
    gains = np.bincount(position, saved, minlength=n)
    best = float(saved.sum())
    z = statistics.NormalDist().inv_cdf(confidence)
    # its spread over samples of hands: the Poisson bootstrap (each hand drawn a Poisson(1) number of times)
    again = []
    for _ in range(resamples):
        weight = sampler.rng.poisson(1.0, hands).astype(float)[where]
        t_i = np.bincount(ids, weight * d, minlength=m)
        again.append(float(np.maximum(q * t_i, (q - 1) * t_i).sum()) / hands)
    heuristic = z * float(np.std(again, ddof=1))
    # |Z_pi| <= sum_t max(q, 1 - q) |d_t| per hand, whatever the deviation pi
    per_hand = np.bincount(where, np.maximum(q, 1 - q)[ids] * np.abs(d), minlength=hands)
    uniform = z * float(np.sqrt(np.mean(per_hand ** 2) / hands))

    # cross-fitted: choose on one half of the hands, value on the other
    half = where % 2
    values = []
    for pick in (0, 1):
        mine = half == pick
        count = np.bincount(ids[mine], minlength=m)
        chosen = np.bincount(ids[mine], d[mine], minlength=m)
        square = np.bincount(ids[mine], d[mine] ** 2, minlength=m)
        # |mean| > select * se, the variance taken with one more sample d^2 = 1 (a few equal samples
        # have no spread, which would make any mean look sure)
        var = (square + 1.0) / (count + 1.0) - (chosen / np.maximum(count, 1)) ** 2
        sure = (chosen ** 2 > select ** 2 * np.maximum(var, 0.0) * count) & (count >= least)
        c = np.where(sure & (chosen > 0), q, np.where(sure & (chosen < 0), q - 1, 0.0))
        other = half != pick
        z_hand = np.bincount(where[other], c[ids[other]] * d[other], minlength=hands)
        values.append(z_hand[np.arange(hands) % 2 != pick])
    means = [float(v.mean()) for v in values]
    error = 0.5 * float(np.sqrt(sum(v.var(ddof=1) / len(v) for v in values)))
    return Bound(players=n, hands=hands, confidence=confidence, upper=best + uniform,
                 heuristic_upper=best + heuristic, margin=uniform,
                 estimate=sum(means) / 2, estimate_error=error, sampled_best=best,
                 gains=[float(g) for g in gains], situations=len(np.unique(ids)),
                 seconds=time.perf_counter() - start)
