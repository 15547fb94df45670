"""Small helpers for engine tests: stacked games and readable assertions."""

from __future__ import annotations

from typing import Any

import chasetheace as cta


def stacked(cards: str, *, players: int | None = None, dealer: int | None = None,
            **options: Any) -> cta.Game:
    """A game whose pack starts with ``cards`` (space separated, top first).

    The dealer defaults to the last seat, so seat 0 is eldest and the deal goes 0, 1, ..., dealer.
    The dealer takes the top card of the stock unless options say otherwise.
    """
    deck = cards.split()
    n = players if players is not None else len(deck)
    options.setdefault("dealer_exchange", "top")
    rules = cta.Rules().replace(**options)
    return cta.Game(rules, players=n, stack=deck, dealer=n - 1 if dealer is None else dealer)


def kinds(events: list[cta.Event]) -> list[str]:
    """The types of some events, in order."""
    return [e.type for e in events]


def hand_events(game: cta.Game, hand: int) -> list[cta.Event]:
    """The events of one hand, from its HandStarted up to the next one."""
    out: list[cta.Event] = []
    current = 0
    for e in game.events:
        if e.type == "hand_started":
            current = e.hand  # type: ignore[attr-defined]
        if current == hand:
            out.append(e)
    return out


def of(game: cta.Game, kind: str, hand: int = 1) -> list[Any]:
    """The events of a type in a hand."""
    return [e for e in hand_events(game, hand) if e.type == kind]
