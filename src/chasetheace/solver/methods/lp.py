"""Two players, exactly one loser per hand: the exact equilibrium by the sequence-form LP.

The payoff matrices are built exactly (fractions) from the brute-force enumeration of every deal.
The LP (scipy's HiGHS) finds an equilibrium in floating point; the supports it shows are then
solved exactly in fractions from the indifference equations, and the result is checked: exact
NashConv 0 makes the value an exact fraction.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ...rules import Rules
from ..model import brute
from ..model.hand import Deck, Hand, InfoKey

__all__ = ["ZeroSumSolution", "solve_zero_sum", "is_zero_sum"]


@dataclass
class ZeroSumSolution:
    """An equilibrium of a two-player constant-sum hand."""

    infosets: list[InfoKey]
    keep: list[Fraction | float]    # probability of keeping at each information set
    value: Fraction | float         # expected lives the eldest loses (the dealer loses 1 - value)
    exact: bool                     # True when the equilibrium was verified in exact arithmetic
    nash_conv: Fraction | float


class _Game:
    """Sequence-form matrices: index 0 is each player's empty sequence."""

    def __init__(self, hand: Hand) -> None:
        self.hand = hand
        self.info: list[list[InfoKey]] = [[], []]
        self.index: dict[InfoKey, int] = {}
        self.a: list[dict[tuple[int, int], Fraction]] = [{}, {}]
        self.zero_sum = True
        brute.evaluate(hand, lambda key: Fraction(1, 2), exact=True, leaf=self._leaf)

    def _seq(self, key: InfoKey, action: int) -> int:
        i = self.index.get(key)
        if i is None:
            i = self.index[key] = len(self.info[key[0]])
            self.info[key[0]].append(key)
        return 1 + 2 * i + action

    def _leaf(self, path: tuple[tuple[InfoKey, int], ...], chance: Any, lives: list[Any]) -> None:
        if sum(lives) != 1:
            self.zero_sum = False
        seq = [0, 0]
        for key, action in path:
            seq[key[0]] = self._seq(key, action)
        for p in (0, 1):
            cell = (seq[0], seq[1])
            self.a[p][cell] = self.a[p].get(cell, Fraction(0)) + chance * lives[p]

    def size(self, p: int) -> int:
        return 1 + 2 * len(self.info[p])

    def dense(self, p: int) -> Any:
        import numpy as np

        m = np.zeros((self.size(0), self.size(1)))
        for (i, j), v in self.a[p].items():
            m[i, j] = float(v)
        return m

    def constraints(self, p: int) -> Any:
        import numpy as np

        f = np.zeros((1 + len(self.info[p]), self.size(p)))
        f[0, 0] = 1.0
        for k in range(len(self.info[p])):
            f[1 + k, 0] = -1.0
            f[1 + k, 1 + 2 * k] = f[1 + k, 2 + 2 * k] = 1.0
        return f

    def cfv(self, p: int, plan: list[list[Fraction]]) -> list[list[Fraction]]:
        """Counterfactual lives of player ``p`` at each of its information sets for keep and swap."""
        other = plan[1 - p]
        out = [[Fraction(0), Fraction(0)] for _ in self.info[p]]
        for (i, j), v in self.a[p].items():
            mine, theirs = (i, j) if p == 0 else (j, i)
            if mine:
                out[(mine - 1) // 2][(mine - 1) % 2] += v * other[theirs]
        return out


def is_zero_sum(hand: Hand) -> bool:
    """Whether every deal and play of this two-player hand has exactly one life lost in all (found
    by enumerating every deal once per rules: ``solve(method="auto")`` asks it several times per
    solve, and a review or hint for the same rules again)."""
    return hand.players == 2 and _zero_sum(hand.rules, hand.deck)


@functools.lru_cache(maxsize=64)
def _zero_sum(rules: Rules, deck: Deck) -> bool:
    return _Game(Hand(rules, 2, deck)).zero_sum


def _plan(keep: list[Fraction]) -> list[Fraction]:
    out = [Fraction(1)]
    for p in keep:
        out += [p, 1 - p]
    return out


def solve_zero_sum(hand: Hand) -> ZeroSumSolution:
    """The equilibrium of a two-player hand in which exactly one life is lost (ValueError otherwise)."""
    import numpy as np
    from scipy.optimize import linprog

    game = _Game(hand)
    if hand.players != 2 or not game.zero_sum:
        raise ValueError("the LP solves two-player hands with exactly one life lost (e.g. the le-her preset)")
    a = game.dense(0)
    f0, f1 = game.constraints(0), game.constraints(1)
    n0, n1 = game.size(0), game.size(1)
    e0, e1 = np.eye(len(f0))[0], np.eye(len(f1))[0]
    # the eldest: min f1.v  s.t.  A^T r0 - F1^T v <= 0,  F0 r0 = e0,  r0 >= 0
    res0 = linprog(np.r_[np.zeros(n0), e1], A_ub=np.c_[a.T, -f1.T], b_ub=np.zeros(n1),
                   A_eq=np.c_[f0, np.zeros((len(f0), len(f1)))], b_eq=e0,
                   bounds=[(0, None)] * n0 + [(None, None)] * len(f1), method="highs")
    # the dealer: max f0.u  s.t.  F0^T u - A r1 <= 0,  F1 r1 = e1,  r1 >= 0
    res1 = linprog(np.r_[np.zeros(n1), -e0], A_ub=np.c_[-a, f0.T], b_ub=np.zeros(n0),
                   A_eq=np.c_[f1, np.zeros((len(f1), len(f0)))], b_eq=e1,
                   bounds=[(0, None)] * n1 + [(None, None)] * len(f0), method="highs")
    if res0.status != 0 or res1.status != 0:  # pragma: no cover - the LP is always feasible
        raise RuntimeError(f"the LP failed: {res0.message}; {res1.message}")
    floats = [[float(res0.x[1 + 2 * k]) for k in range(len(game.info[0]))],
              [float(res1.x[1 + 2 * k]) for k in range(len(game.info[1]))]]
    exact = _exact(game, floats)
    keys = game.info[0] + game.info[1]
    if exact is not None:
        keep, value = exact
        return ZeroSumSolution(keys, [*keep[0], *keep[1]], value, True, Fraction(0))
    value_f = float(res0.fun)
    return ZeroSumSolution(keys, [*floats[0], *floats[1]], value_f, False,
                           float(_nash_conv(game, [[Fraction(x) for x in k] for k in floats])))


def _nash_conv(game: _Game, keep: list[list[Fraction]]) -> Fraction:
    plans = [_plan(keep[0]), _plan(keep[1])]
    total = Fraction(0)
    for p in (0, 1):
        for k, (v_keep, v_swap) in enumerate(game.cfv(p, plans)):
            q = keep[p][k]
            total += q * v_keep + (1 - q) * v_swap - min(v_keep, v_swap)
    return total


def _exact(game: _Game, floats: list[list[float]]) -> tuple[list[list[Fraction]], Fraction] | None:
    """Solve the indifference equations on the LP's supports exactly; None if that fails."""
    eps = 1e-7
    keep = [[Fraction(round(p)) for p in fl] for fl in floats]
    mixed = [[k for k, p in enumerate(fl) if eps < p < 1 - eps] for fl in floats]
    for p in (0, 1):
        q = 1 - p  # player q's mixing makes player p indifferent
        if len(mixed[p]) != len(mixed[q]):
            return None
        if not mixed[q]:
            continue
        rows = []
        for k in mixed[p]:
            coeffs = []
            base = _diff(game, p, keep, k, q, mixed[q], None)
            for m in mixed[q]:
                coeffs.append(_diff(game, p, keep, k, q, mixed[q], m) - base)
            rows.append((coeffs, -base))
        solution = _solve(rows)
        if solution is None or not all(0 <= x <= 1 for x in solution):
            return None
        for m, x in zip(mixed[q], solution):
            keep[q][m] = x
    if _nash_conv(game, keep) != 0:
        return None
    plans = [_plan(keep[0]), _plan(keep[1])]
    value = sum((v * plans[0][i] * plans[1][j] for (i, j), v in game.a[0].items()), Fraction(0))
    return keep, value


def _diff(game: _Game, p: int, keep: list[list[Fraction]], k: int, q: int, mixed: list[int],
          unit: int | None) -> Fraction:
    """Player p's keep-minus-swap value at its set k when q keeps with 0 at its ``mixed`` sets,
    except with 1 at ``unit`` (the value is affine in q's mixing, so these give the equations)."""
    trial = [row[:] for row in keep]
    for m in mixed:
        trial[q][m] = Fraction(1 if m == unit else 0)
    v = game.cfv(p, [_plan(trial[0]), _plan(trial[1])])[k]
    return v[0] - v[1]


def _solve(rows: list[tuple[list[Fraction], Fraction]]) -> list[Fraction] | None:
    """Gaussian elimination in fractions; None if singular."""
    n = len(rows)
    m = [[*coeffs, rhs] for coeffs, rhs in rows]
    for c in range(n):
        pivot = next((r for r in range(c, n) if m[r][c] != 0), None)
        if pivot is None:
            return None
        m[c], m[pivot] = m[pivot], m[c]
        for r in range(n):
            if r != c and m[r][c] != 0:
                factor = m[r][c] / m[c][c]
                m[r] = [x - factor * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]
