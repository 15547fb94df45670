"""Rates with their confidence: the Wilson interval and the rows of a rate table, shared by both
games' simulators.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["Z95", "wilson", "rate_row", "counted"]

Z95 = 1.959963984540054
"""The two-sided 95% normal quantile."""


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95% by default); (0, 1) with no trials.

    >>> lo, hi = wilson(20, 100)
    >>> round(lo, 4), round(hi, 4)
    (0.1334, 0.2888)
    """
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def rate_row(head: Mapping[str, Any], k: int, n: int, *, key: str = "losses",
             total: str = "hands") -> dict[str, Any]:
    """A row of a rate table: ``head``, then ``k`` of ``n`` (named ``key`` and ``total``), the
    rate and its 95% Wilson interval.

    >>> rate_row({"seat": 0}, 1, 4)
    {'seat': 0, 'hands': 4, 'losses': 1, 'rate': 0.25, 'ci95': [0.045587, 0.699358]}
    """
    lo, hi = wilson(k, n)
    rate = k / n if n else 0.0
    return {**head, total: n, key: k, "rate": round(rate, 6), "ci95": [round(lo, 6), round(hi, 6)]}


def counted(n: int, noun: str) -> str:
    """``n`` things in words, the noun plural unless there is one.

    >>> counted(1, "game"), counted(0, "hand"), counted(24409, "hand")
    ('1 game', '0 hands', '24,409 hands')
    """
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
