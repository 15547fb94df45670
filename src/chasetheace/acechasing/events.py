"""The events of Ace Chasing (RULES.md part B) and how a record's event list is read back.

Part B shares the engine's events for what works the same way (:class:`~chasetheace.events.Shuffle`,
:class:`~chasetheace.events.Dealt`, :class:`~chasetheace.events.Keep`,
:class:`~chasetheace.events.Swap`, :class:`~chasetheace.events.Eliminated`,
:class:`~chasetheace.events.GameOver`) and adds its own for rounds, bets and the resolution.
Every one of them is public except the shuffle's order, the deal and the cards of a swap,
whose views (from the engine) show them only to the seats that saw them.

>>> BetAccepted(seat=2, amount=5).to_dict()
{'type': 'bet_accepted', 'seat': 2, 'amount': 5}
>>> read_event({'type': 'shown', 'step': 1, 'cards': [[0, 'Ac']]})
Shown(step=1, cards=((0, Card('Ac')),))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias, cast, get_args

from ..cards import Card
from ..events import (
    BOOL,
    INT,
    INT_PAIRS,
    INTS,
    SEAT_CARDS,
    Dealt,
    DealtSeen,
    Eliminated,
    Event,
    GameOver,
    Keep,
    Shuffle,
    ShuffleSeen,
    Swap,
    SwapSeen,
    event_from_dict,
    read_any_view,
    read_as,
)
from ..record import load_events

__all__ = [
    "RoundStarted", "Offered", "BetAccepted", "BetDeclined", "BettingClosed", "Shown", "Settled",
    "AceChasingEvent", "AceChasingSeen", "ACE_CHASING_EVENTS", "ACE_CHASING_VIEWS", "read_event",
    "read_events", "read_view",
]


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    """A round began: its number, the matador, and the deal order (matador's left first, matador last)."""

    type: ClassVar[str] = "round_started"
    round: int = read_as(INT)
    matador: int = read_as(INT)
    order: tuple[int, ...] = read_as(INTS)


@dataclass(frozen=True, slots=True)
class Offered(Event):
    """Bettor ``seat`` made its ``number``-th offer (1..3) of ``amount``; 0 means no bet / withdraw."""

    type: ClassVar[str] = "offered"
    seat: int = read_as(INT)
    amount: int = read_as(INT)
    number: int = read_as(INT)


@dataclass(frozen=True, slots=True)
class BetAccepted(Event):
    """The matador accepted ``seat``'s offer of ``amount``: the bet stands."""

    type: ClassVar[str] = "bet_accepted"
    seat: int = read_as(INT)
    amount: int = read_as(INT)


@dataclass(frozen=True, slots=True)
class BetDeclined(Event):
    """The matador declined ``seat``'s offer of ``amount``."""

    type: ClassVar[str] = "bet_declined"
    seat: int = read_as(INT)
    amount: int = read_as(INT)


@dataclass(frozen=True, slots=True)
class BettingClosed(Event):
    """Every bettor has had its say; ``bets`` are the standing bets, ``(seat, amount)``."""

    type: ClassVar[str] = "betting_closed"
    bets: tuple[tuple[int, int], ...] = read_as(INT_PAIRS)


@dataclass(frozen=True, slots=True)
class Shown(Event):
    """Resolution step ``step`` (1 to 3 of part B): these cards were laid face up."""

    type: ClassVar[str] = "shown"
    step: int = read_as(INT)
    cards: tuple[tuple[int, Card], ...] = read_as(SEAT_CARDS)


@dataclass(frozen=True, slots=True)
class Settled(Event):
    """The round's bets were paid: ``survived`` says whether the matador survived.

    ``payments`` holds each ``(seat, change)`` of money, the matador's included; they sum to 0.
    """

    type: ClassVar[str] = "settled"
    matador: int = read_as(INT)
    survived: bool = read_as(BOOL)
    payments: tuple[tuple[int, int], ...] = read_as(INT_PAIRS)


AceChasingEvent: TypeAlias = (
    Shuffle | RoundStarted | Dealt | Offered | BetAccepted | BetDeclined | BettingClosed | Keep | Swap
    | Shown | Settled | Eliminated | GameOver)
"""Every event of Ace Chasing, a closed union (a ``match`` over it ends in ``assert_never``)."""

ACE_CHASING_EVENTS: dict[str, type[Event]] = {cls.type: cls for cls in get_args(AceChasingEvent)}

AceChasingSeen: TypeAlias = (
    ShuffleSeen | RoundStarted | DealtSeen | Offered | BetAccepted | BetDeclined | BettingClosed | Keep
    | SwapSeen | Shown | Settled | Eliminated | GameOver)
"""Every event of Ace Chasing as a seat sees it (what :func:`read_view` gives), a closed union."""

ACE_CHASING_VIEWS: dict[str, type[Event]] = {cls.type: cls for cls in get_args(AceChasingSeen)}
"""The classes a seat's views of an Ace Chasing game read back as."""


def read_view(view: Any) -> AceChasingSeen:
    """One dict of a seat's history of an Ace Chasing game (or of a whole record) as a typed
    event (:func:`chasetheace.events.read_view`); ValueError says what is wrong."""
    return cast(AceChasingSeen, read_any_view(view, ACE_CHASING_VIEWS, ACE_CHASING_EVENTS))


def read_event(data: Any) -> Event:
    """Read one Ace Chasing event written by ``to_dict()``; ValueError says what is wrong."""
    return event_from_dict(data, ACE_CHASING_EVENTS)


def read_events(items: Any) -> list[Event]:
    """Read a record's list of events; RecordError names the first bad one."""
    return load_events(items, ACE_CHASING_EVENTS)
