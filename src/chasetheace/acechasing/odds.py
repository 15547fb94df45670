"""The chance that this round's matador is knocked out, with the exchanges still to come.

The matador is knocked out when no other player shows a card at the resolution (RULES.md part
B): with its **final** card ``M`` of rank 2 or more, when every other card of the round ranks
``M`` or more; with ``M`` an ace, when no other card is of its suit. The matador takes no turn in
the exchanges and ends with whatever its right neighbour passes on, so its final card is not the
card it was dealt: :func:`knockout_chance` counts the exchanges still to come.

It is **exact** (a sum of counts of deals, no sampling) under two stated assumptions:

- the cards the observing seat has not seen are a uniformly random draw from the cards it has
  not seen: what the others bet, answered or exchanged before is not read as evidence about
  their cards;
- every player still to exchange (the seat to act included) keeps a card of rank ``threshold``
  or more and swaps a lower one, as the ``odds`` bot does (default 7). A low card handed on
  travels to the matador, so the matador's final card is the first card below the threshold
  that the players still to act hold, in turn order, or its own card when they all keep.
  ``threshold=1`` (keep everything) gives the chance as if nobody exchanged again.

For each card ``c`` and each place it may hold, the deals in which ``c`` reaches the matador and
every other card of the round is safe against it are counted with falling factorials (the
players before ``c``'s holder must hold cards that are high and safe, the rest cards that are
safe), over the ``N (N - 1) ... (N - u + 1)`` equally likely deals of the ``u`` unknown places
from the ``N`` unseen cards.

>>> obs = {"order": [1, 2, 3, 0], "matador": 0, "cards": [None, "Qd", None, None]}
>>> round(knockout_chance(obs, threshold=1), 4)    # as if nobody exchanged
0.3188
>>> round(knockout_chance(obs), 4)                 # the others keep 7 or more, swap lower
0.6179
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..cards import Card, pack

__all__ = ["knockout_chance", "knockout_fraction", "DEFAULT_THRESHOLD", "check_threshold"]

DEFAULT_THRESHOLD = 7
"""The exchange rule of the default bot (``odds``): keep rank 7 or more, swap lower."""
PACK = tuple(pack(52))


def check_threshold(threshold: Any, low: int = 1, high: int = 14) -> int:
    """``threshold`` if it is a whole number from ``low`` to ``high``, else ValueError."""
    if isinstance(threshold, bool) or not isinstance(threshold, int) or not low <= threshold <= high:
        raise ValueError(f"bad threshold {threshold!r}: a rank from {low} to {high}")
    return threshold


def knockout_chance(observation: Mapping[str, Any], threshold: int = DEFAULT_THRESHOLD) -> float:
    """The chance that this round's matador is knocked out, from what the observing seat knows.

    ``observation`` is :meth:`AceChasingGame.observation` of any seat during a round (only
    ``order``, ``matador``, ``cards``, and ``phase`` and ``to_act`` when present, are read; with
    no ``phase`` it is the betting). The players still to exchange keep rank ``threshold`` or
    more and swap lower (1: nobody exchanges again; 14: everyone swaps). See the module docstring
    for what it assumes.
    """
    return float(knockout_fraction(observation, threshold))


def knockout_fraction(observation: Mapping[str, Any], threshold: int = DEFAULT_THRESHOLD) -> Fraction:
    """:func:`knockout_chance` as an exact fraction."""
    check_threshold(threshold)
    order, m = list(observation["order"]), observation["matador"]
    if len(order) < 2 or order[-1] != m:
        raise ValueError("no round in play in this observation: the matador must be last in order")
    start = 0
    if observation.get("phase", "betting") == "exchanges":
        to_act = observation.get("to_act")
        start = order.index(to_act) if to_act in order[:-1] else len(order) - 1
    cards = observation["cards"]
    slots = tuple(None if cards[s] is None else Card.parse(cards[s]) for s in order)
    return _knockout(slots, start, threshold)


@functools.lru_cache(maxsize=8192)
def _knockout(slots: tuple[Card | None, ...], start: int, threshold: int) -> Fraction:
    """The matador (the last of ``slots``, each place's card or None) is knocked out, the places
    from ``start`` on still to exchange by ``threshold``."""
    n = len(slots)
    seen = {c for c in slots if c is not None}
    pool = [c for c in PACK if c not in seen]
    known = [(k, c) for k, c in enumerate(slots) if c is not None]
    unknown_at = [k for k, c in enumerate(slots) if c is None]
    total = 0
    for c in PACK:
        placed = c in seen
        safe = high = 0  # the unseen cards (c aside) safe against c, and of them the high ones
        for x in pool:
            if x is not c and _safe(x, c):
                safe += 1
                high += x.rank >= threshold
        # c reaches the matador from place j: the first low card from start on, or the matador's own
        places = list(range(start, n - 1)) if c.rank < threshold else []
        places.append(n - 1)
        for j in places:
            if placed and slots[j] is not c:
                continue
            if not placed and slots[j] is not None:
                continue
            ok = True
            for k, card in known:
                if k == j:
                    continue
                if not _safe(card, c) or (start <= k < j and card.rank < threshold):
                    ok = False
                    break
            if not ok:
                continue
            must_be_high = sum(1 for k in unknown_at if start <= k < j)
            rest = len(unknown_at) - must_be_high - (0 if placed else 1)
            total += _falling(high, must_be_high) * _falling(safe - must_be_high, rest)
    return Fraction(total, _falling(len(pool), len(unknown_at)))


def _safe(card: Card, top: Card) -> bool:
    """Whether ``card`` stays hidden when it and the matador's final ``top`` alone decide."""
    return card.suit != top.suit if top.rank == 1 else card.rank >= top.rank


def _falling(n: int, k: int) -> int:
    """``n (n - 1) ... (n - k + 1)``: the ways to fill ``k`` places from ``n`` cards (0 if too few)."""
    if k > n or n < 0:
        return 0
    out = 1
    for i in range(k):
        out *= n - i
    return out

