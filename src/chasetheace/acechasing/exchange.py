"""The odds of a keep/swap decision in Ace Chasing: the chance of being knocked out either way.

At its turn in the exchanges a player (never the matador) knows its own card, the card it gave
away if its right neighbour swapped with it, and the public record. It is knocked out when it
shows a card at the resolution (RULES.md part B): with the matador's final card ``M`` of rank 2
or more, when its card ranks lower than ``M``, or when the ace of its suit is held by any other
player of the round (every such ace ranks lower than ``M``, so it is face up); with ``M`` an
ace, when its card is of ``M``'s suit.

:func:`exchange_odds` gives that chance if the player keeps and if it swaps, **exactly**, under
two stated assumptions:

- the cards the player has not seen are a uniformly random draw from the cards it has not seen
  (the same odds as :func:`~chasetheace.acechasing.bots.knockout_chance` and the ``odds`` bot:
  the others' earlier keeps and swaps are not read as evidence about their cards);
- the players still to act exchange as the default bot (``odds``) does: keep a card of rank
  ``threshold`` (7) or more, swap a lower one. Then the matador ends with the first card below
  the threshold that reaches a later player, passed on from hand to hand, or with its own card
  when every later player keeps.

A low card handed on travels to the matador, so the matador's card is the first low card in
the sequence: the card the next player holds after this decision, then the dealt cards of the
players after it, then the matador's own. Cards are drawn without replacement, so the chance
that the first ``j - 1`` of them are high and the ``j``-th is a given card is a ratio of falling
factorials; the sums over ``j`` are computed once per pack size with exact fractions, and the
player's own card (and, for a swap, each card it may receive) is enumerated: no sampling.

>>> obs = {"seat": 3, "matador": 0, "order": [1, 2, 3, 0], "phase": "exchanges", "to_act": 3,
...        "cards": [None, None, None, "As"]}
>>> odds = exchange_odds(obs)        # the last player before the matador holds the ace of spades
>>> round(odds.keep, 4), round(odds.swap, 4), odds.best
(0.9412, 0.2353, 'swap')
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..cards import Card, pack
from .odds import DEFAULT_THRESHOLD

__all__ = ["ExchangeOdds", "exchange_odds", "DEFAULT_THRESHOLD", "MISTAKE"]

MISTAKE = 0.001
"""A choice whose knockout chance exceeds the best one's by more than this is a mistake."""
PACK = tuple(pack(52))


@dataclass(frozen=True, slots=True)
class ExchangeOdds:
    """The chance that the deciding player is knocked out this round if it keeps or swaps."""

    keep: float
    swap: float
    threshold: int = DEFAULT_THRESHOLD

    @property
    def best(self) -> str:
        """``keep`` or ``swap``: the choice with the lower chance (``keep`` when they are equal)."""
        return "swap" if self.swap < self.keep else "keep"

    @property
    def call(self) -> str:
        """``keep``, ``swap``, or ``either`` when they are within :data:`MISTAKE` of each other."""
        return "either" if abs(self.keep - self.swap) <= MISTAKE else self.best

    def cost(self, action: str) -> float:
        """The knockout chance ``action`` (``keep`` or ``swap``) gives away against the best choice."""
        if action not in ("keep", "swap"):
            raise ValueError(f"bad action {action!r}: allowed keep, swap")
        chance = self.keep if action == "keep" else self.swap
        return chance - min(self.keep, self.swap)


def exchange_odds(observation: Mapping[str, Any], threshold: int = DEFAULT_THRESHOLD) -> ExchangeOdds:
    """The odds of the keep/swap decision in front of ``observation["seat"]``, from its view alone.

    ``observation`` is :meth:`AceChasingGame.observation` of the seat to act in the exchanges
    (only ``seat``, ``matador``, ``order``, ``phase``, ``to_act`` and ``cards`` are read);
    ``threshold`` (2 to 13) is the rank from which the players still to act keep their card.
    ValueError if it is not that seat's turn to keep or swap.
    """
    if isinstance(threshold, bool) or not isinstance(threshold, int) or not 2 <= threshold <= 13:
        raise ValueError(f"bad threshold {threshold!r}: a rank from 2 to 13")
    seat, order = observation["seat"], list(observation["order"])
    if observation["phase"] != "exchanges" or observation["to_act"] != seat or seat not in order[:-1]:
        raise ValueError(f"seat {seat!r} has no keep/swap decision to make in this observation")
    cards = observation["cards"]
    slots = tuple(cards[s] for s in order)  # the known cards by place: all that the odds read
    index = order.index(seat)
    if any(c is not None for c in slots[index + 1:]):
        raise ValueError("a later player's card is known before its turn: not an Ace Chasing view")
    if slots[index] is None:
        raise ValueError(f"seat {seat!r} does not know its own card in this observation")
    return _odds(slots, index, threshold)


@functools.lru_cache(maxsize=16384)
def _odds(slots: tuple[str | None, ...], index: int, threshold: int) -> ExchangeOdds:
    """:func:`exchange_odds` of the player at place ``index`` knowing the cards ``slots`` (by place)."""
    known = {k: Card.parse(c) for k, c in enumerate(slots) if c is not None}
    rest = len(slots) - index - 1  # the later players' cards, then the matador's
    mine = known[index]
    seen = frozenset(known.values())
    pool = tuple(c for c in PACK if c not in seen)
    unknown = len(slots) - len(known)
    keep = _out(mine, None, rest, pool, unknown, seen, threshold)
    swap = sum((_out(c, mine, rest - 1, tuple(x for x in pool if x is not c), unknown - 1,
                     seen | {c}, threshold) for c in pool), Fraction(0)) / len(pool)
    return ExchangeOdds(float(keep), float(swap), threshold)


def _out(card: Card, lead: Card | None, rest: int, pool: Sequence[Card], unknown: int,
         seen: frozenset[Card], threshold: int) -> Fraction:
    """The chance that the holder of ``card`` (final) is knocked out.

    ``lead`` is the known card the next player holds (None: that player's card is unknown and
    counted in ``rest``); ``rest`` the unknown cards after it in the chain, the matador's last;
    ``pool`` the unseen cards, ``unknown`` how many unseen cards are dealt this round.
    """
    ace = Card(1, card.suit)
    n = len(pool)
    ace_dealt = Fraction(1) if ace in seen else Fraction(unknown, n) if n else Fraction(0)
    if lead is not None and (rest == 0 or lead.rank < threshold):
        return _out_given(card, lead) or ace_dealt * _needs_ace(card, lead)
    high = sum(1 for c in pool if c.rank >= threshold)
    total = Fraction(0)
    for m in pool:  # m: the matador's final card, first low card of the chain (or its own)
        alone, with_ace = _first(high, n, rest, unknown, m.rank < threshold)
        if _out_given(card, m):
            total += alone
        elif _needs_ace(card, m):
            total += alone if ace in seen else with_ace
    return total


def _out_given(card: Card, top: Card) -> Fraction:
    """1 when ``card`` is out whoever holds the aces against the matador's ``top``, else 0."""
    if top.rank == 1:
        return Fraction(int(top.suit == card.suit))
    return Fraction(int(card.rank < top.rank))


def _needs_ace(card: Card, top: Card) -> int:
    """1 when ``card`` is out only if the ace of its suit is dealt (``top`` of rank 2 or more)."""
    return int(top.rank != 1 and card.rank >= top.rank)


@functools.lru_cache(maxsize=4096)
def _first(high: int, n: int, rest: int, unknown: int, low: bool) -> tuple[Fraction, Fraction]:
    """For one given card of the ``n`` unseen (``high`` of them at or above the threshold): the
    chance that it is the matador's final card after a chain of ``rest`` unknown cards, and the
    chance of that together with a given low card (an ace) being dealt to one of the other
    ``unknown`` places.

    A low card is the matador's when it is the ``j``-th drawn and the ``j - 1`` before it are
    high (the matador's own card is the ``rest``-th); a high one only as the matador's own card.
    """
    alone, with_ace = Fraction(0), Fraction(0)
    steps = range(1, rest + 1) if low else range(rest, rest + 1)
    for j in steps:
        before_high = high - (0 if low else 1)  # the j - 1 cards before are other high cards
        p = Fraction(1)
        for k in range(j - 1):
            p *= Fraction(before_high - k, n - k)
        p /= n - (j - 1)
        alone += p
        if n - j > 0:
            with_ace += p * Fraction(unknown - j, n - j)
    return alone, with_ace
