"""What the adapter tests share: a seat's knowledge worked out from the omniscient record."""

from __future__ import annotations

import re
from collections.abc import Iterable

from chasetheace.events import (
    Blocked,
    Collected,
    CutDraw,
    DealerDraw,
    DealerDrewBlocker,
    DealerExchange,
    DealerSameRank,
    Dealt,
    Event,
    KingJerk,
    ShowBlocker,
    Showdown,
    Swap,
)

CARD = re.compile(r"\b[A2-9TJQK][cdhs]\b")


def known_cards(events: Iterable[Event], seat: int | None) -> set[str]:
    """Every card RULES.md A4 lets ``seat`` know, from the full events (not from an observation)."""
    known: set[str] = set()
    for ev in events:
        if isinstance(ev, Dealt):
            known |= {str(c) for s, c in ev.cards if s == seat}
        elif isinstance(ev, (KingJerk, ShowBlocker, Blocked, DealerDrewBlocker)):
            known.add(str(ev.card))
        elif isinstance(ev, DealerSameRank):
            known |= {str(ev.given), str(ev.drawn)}
        elif isinstance(ev, (Showdown, CutDraw, DealerDraw)):
            known |= {str(c) for _, c in (ev.cards if isinstance(ev, Showdown) else ev.draws)}
        elif isinstance(ev, Swap) and seat in (ev.seat, ev.neighbour):
            known |= {str(ev.given), str(ev.received)}
        elif isinstance(ev, DealerExchange) and ev.seat == seat:
            known |= {str(ev.given), str(ev.drawn)}
        elif isinstance(ev, Collected):
            known |= {str(c) for c, k in zip(ev.cards, ev.knowers)
                      if k == -1 or (seat is not None and k >> seat & 1)}
    return known


def cards_named(text: str) -> set[str]:
    """The cards written in a string."""
    return set(CARD.findall(text))
