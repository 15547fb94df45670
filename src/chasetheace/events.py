"""The history of a game: one frozen record per thing that happened.

Each event knows how to write itself out in full (:meth:`Event.to_dict`, for game records) and
how a given seat sees it (:meth:`Event.view`, for observations): the view holds only what
RULES.md A4 lets that seat know.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .cards import Card

__all__ = [
    "Event", "Shuffle", "Pick", "DealerDraw", "DealerChosen", "HandStarted", "Dealt", "KingJerk",
    "Keep", "Swap", "Blocked", "ShowBlocker", "DealerExchange", "DealerDrewBlocker",
    "DealerSameRank", "Showdown", "LivesLost", "FinalTie", "CutDraw", "Eliminated", "Collected",
    "GameOver", "EVENT_TYPES", "event_from_dict", "read_as",
]

Seat = int | None  # None: a spectator, who sees what every player sees


# --- how each field is read back from a record: dataclass field metadata ---------------------

Reader = Callable[[Any], Any]


def read_as(reader: Reader, *, default: Any = dataclasses.MISSING) -> Any:
    """Declare an event field with the function that reads it from its JSON form (records)."""
    return dataclasses.field(default=default, metadata={"read": reader})


def _list(v: Any) -> list[Any]:
    if not isinstance(v, list):
        raise ValueError(f"expected a list, got {v!r}")
    return v


def _pair(v: Any) -> list[Any]:
    if not isinstance(v, list) or len(v) != 2:
        raise ValueError(f"expected a pair, got {v!r}")
    return v


def INT(v: Any) -> int:
    """An integer (not a bool)."""
    if not isinstance(v, int) or isinstance(v, bool):
        raise ValueError(f"expected an integer, got {v!r}")
    return v


def OPTIONAL_INT(v: Any) -> int | None:
    """An integer or null."""
    return None if v is None else INT(v)


def BOOL(v: Any) -> bool:
    """true or false."""
    if not isinstance(v, bool):
        raise ValueError(f"expected true or false, got {v!r}")
    return v


def STR(v: Any) -> str:
    """A string."""
    if not isinstance(v, str):
        raise ValueError(f"expected a string, got {v!r}")
    return v


def CARD(v: Any) -> Card:
    """A card, as ``"Kd"``."""
    return Card.parse(v)


def CARDS(v: Any) -> tuple[Card, ...]:
    """A list of cards."""
    return tuple(Card.parse(x) for x in _list(v))


def INTS(v: Any) -> tuple[int, ...]:
    """A list of integers."""
    return tuple(INT(x) for x in _list(v))


def SEAT_CARDS(v: Any) -> tuple[tuple[int, Card], ...]:
    """A list of ``[seat, card]`` pairs."""
    return tuple((INT(p[0]), Card.parse(p[1])) for p in (_pair(x) for x in _list(v)))


def INT_PAIRS(v: Any) -> tuple[tuple[int, int], ...]:
    """A list of ``[seat, amount]`` pairs."""
    return tuple((INT(p[0]), INT(p[1])) for p in (_pair(x) for x in _list(v)))


@dataclass(frozen=True, slots=True)
class Event:
    """Base class of every event; ``type`` names the kind in records and observations."""

    type: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        """The whole event, hidden cards included (for game records, never for players)."""
        out: dict[str, Any] = {"type": self.type}
        for name in _field_names(type(self)):
            out[name] = _jsonable(getattr(self, name))
        return out

    def view(self, seat: Seat) -> dict[str, Any]:
        """What ``seat`` sees of this event. By default an event is wholly public.

        Views are shared between observations: treat them as read-only.
        """
        return self.to_dict()


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def _jsonable(v: Any) -> Any:
    if type(v) is tuple:
        return [_jsonable(x) for x in v]
    if type(v) is Card:
        return str(v)
    return v


@dataclass(frozen=True, slots=True)
class Shuffle(Event):
    """The pack was shuffled; ``cards`` is the new order, top first (hidden from every player)."""

    type: ClassVar[str] = "shuffle"
    cards: tuple[Card, ...] = read_as(CARDS)

    def view(self, seat: Seat) -> dict[str, Any]:
        return {"type": self.type, "count": len(self.cards)}


@dataclass(frozen=True, slots=True)
class Pick(Event):
    """A public chance choice of ``value`` in ``0..bound-1`` (a random seat, a cut point)."""

    type: ClassVar[str] = "pick"
    bound: int = read_as(INT)
    value: int = read_as(INT)


@dataclass(frozen=True, slots=True)
class DealerDraw(Event):
    """Players drew cards face up to choose the first dealer (``high-card``, ``first-jack``)."""

    type: ClassVar[str] = "dealer_draw"
    draws: tuple[tuple[int, Card], ...] = read_as(SEAT_CARDS)


@dataclass(frozen=True, slots=True)
class DealerChosen(Event):
    """The first dealer of the game."""

    type: ClassVar[str] = "dealer_chosen"
    dealer: int = read_as(INT)
    method: str = read_as(STR)


@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    """A hand began: its number, dealer, and the turn order (eldest first, dealer last)."""

    type: ClassVar[str] = "hand_started"
    hand: int = read_as(INT)
    dealer: int = read_as(INT)
    order: tuple[int, ...] = read_as(INTS)


@dataclass(frozen=True, slots=True)
class Dealt(Event):
    """One card to each living player from the top of the stock, in turn order."""

    type: ClassVar[str] = "dealt"
    cards: tuple[tuple[int, Card], ...] = read_as(SEAT_CARDS)

    def view(self, seat: Seat) -> dict[str, Any]:
        own = [[s, str(c)] for s, c in self.cards if s == seat]
        return {"type": self.type, "count": len(self.cards), "cards": own}


@dataclass(frozen=True, slots=True)
class KingJerk(Event):
    """Kings Jerk: ``seat`` showed ``card`` and took a chip from the kitty if ``took``."""

    type: ClassVar[str] = "king_jerk"
    seat: int = read_as(INT)
    card: Card = read_as(CARD)
    took: bool = read_as(BOOL)


@dataclass(frozen=True, slots=True)
class Keep(Event):
    """``seat`` kept its card ("Stand!")."""

    type: ClassVar[str] = "keep"
    seat: int = read_as(INT)


@dataclass(frozen=True, slots=True)
class Swap(Event):
    """``seat`` exchanged with its left neighbour ("Change!").

    ``given`` went from seat to neighbour, ``received`` from neighbour to seat; only those two
    see them. ``announced`` is the rank the neighbour had to announce (announce_low), or None.
    """

    type: ClassVar[str] = "swap"
    seat: int = read_as(INT)
    neighbour: int = read_as(INT)
    given: Card = read_as(CARD)
    received: Card = read_as(CARD)
    announced: int | None = read_as(OPTIONAL_INT, default=None)

    def view(self, seat: Seat) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "seat": self.seat, "neighbour": self.neighbour,
                               "announced": self.announced}
        if seat is not None and seat in (self.seat, self.neighbour):
            out["given"], out["received"] = str(self.given), str(self.received)
        return out


@dataclass(frozen=True, slots=True)
class Blocked(Event):
    """``seat`` asked to swap; ``neighbour`` showed the blocker ``card`` and the swap is void."""

    type: ClassVar[str] = "blocked"
    seat: int = read_as(INT)
    neighbour: int = read_as(INT)
    card: Card = read_as(CARD)


@dataclass(frozen=True, slots=True)
class ShowBlocker(Event):
    """``seat`` holds the blocker and shows it on its turn ("King!")."""

    type: ClassVar[str] = "show_blocker"
    seat: int = read_as(INT)
    card: Card = read_as(CARD)


@dataclass(frozen=True, slots=True)
class DealerExchange(Event):
    """The dealer exchanged with the stock at ``position`` (0 = top).

    Everyone sees that it happened and where; only the dealer sees ``given`` and ``drawn``.
    """

    type: ClassVar[str] = "dealer_exchange"
    seat: int = read_as(INT)
    position: int = read_as(INT)
    given: Card = read_as(CARD)
    drawn: Card = read_as(CARD)

    def view(self, seat: Seat) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "seat": self.seat, "position": self.position}
        if seat == self.seat:
            out["given"], out["drawn"] = str(self.given), str(self.drawn)
        return out


@dataclass(frozen=True, slots=True)
class DealerDrewBlocker(Event):
    """The dealer drew the blocker ``card`` and showed it; ``rule`` is dealer_draws_blocker."""

    type: ClassVar[str] = "dealer_drew_blocker"
    seat: int = read_as(INT)
    card: Card = read_as(CARD)
    rule: str = read_as(STR)


@dataclass(frozen=True, slots=True)
class DealerSameRank(Event):
    """The dealer drew the rank it gave up; both cards are shown. ``rule`` is dealer_same_rank."""

    type: ClassVar[str] = "dealer_same_rank"
    seat: int = read_as(INT)
    given: Card = read_as(CARD)
    drawn: Card = read_as(CARD)
    rule: str = read_as(STR)


@dataclass(frozen=True, slots=True)
class Showdown(Event):
    """Every living player showed a card; ``losers`` hold the lowest (by ties and pairing)."""

    type: ClassVar[str] = "showdown"
    cards: tuple[tuple[int, Card], ...] = read_as(SEAT_CARDS)
    losers: tuple[int, ...] = read_as(INTS)


@dataclass(frozen=True, slots=True)
class LivesLost(Event):
    """Each ``(seat, chips)`` paid that many chips into the kitty."""

    type: ClassVar[str] = "lives_lost"
    payments: tuple[tuple[int, int], ...] = read_as(INT_PAIRS)


@dataclass(frozen=True, slots=True)
class FinalTie(Event):
    """Every player still in lost their last life at once; ``rule`` is final_tie."""

    type: ClassVar[str] = "final_tie"
    seats: tuple[int, ...] = read_as(INTS)
    rule: str = read_as(STR)


@dataclass(frozen=True, slots=True)
class CutDraw(Event):
    """final_tie = cut: the tied players cut cards for the pot (again among ties)."""

    type: ClassVar[str] = "cut_draw"
    draws: tuple[tuple[int, Card], ...] = read_as(SEAT_CARDS)


@dataclass(frozen=True, slots=True)
class Eliminated(Event):
    """These seats are out of the game."""

    type: ClassVar[str] = "eliminated"
    seats: tuple[int, ...] = read_as(INTS)


@dataclass(frozen=True, slots=True)
class Collected(Event):
    """between_hands = to-bottom: ``cards`` went under the stock in this order.

    ``knowers`` holds, for each card, a bit mask of the seats that knew it at the time (all bits
    for a card shown at the showdown); a seat's view shows only the cards it knew.
    """

    type: ClassVar[str] = "collected"
    cards: tuple[Card, ...] = read_as(CARDS)
    knowers: tuple[int, ...] = read_as(INTS)

    def view(self, seat: Seat) -> dict[str, Any]:
        shown = [str(c) if (seat is not None and k >> seat & 1) or k == -1 else None
                 for c, k in zip(self.cards, self.knowers)]
        return {"type": self.type, "cards": shown}


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    """The game ended: ``winners`` (one, several for a split pot, none) and ``payouts``."""

    type: ClassVar[str] = "game_over"
    winners: tuple[int, ...] = read_as(INTS)
    payouts: tuple[tuple[int, int], ...] = read_as(INT_PAIRS)


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls for cls in (
        Shuffle, Pick, DealerDraw, DealerChosen, HandStarted, Dealt, KingJerk, Keep, Swap, Blocked,
        ShowBlocker, DealerExchange, DealerDrewBlocker, DealerSameRank, Showdown, LivesLost,
        FinalTie, CutDraw, Eliminated, Collected, GameOver)
}


def event_from_dict(data: Mapping[str, Any], types: Mapping[str, type[Event]] = EVENT_TYPES) -> Event:
    """Read an event written by :meth:`Event.to_dict`; ValueError says what is wrong.

    ``types`` maps the ``type`` names a game knows to their event classes.
    """
    if not isinstance(data, Mapping):
        raise ValueError(f"an event must be an object, not {type(data).__name__}")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in types:
        raise ValueError(f"unknown event type {kind!r}")
    cls = types[kind]
    fields = {f.name: f for f in dataclasses.fields(cls)}
    extra = set(data) - set(fields) - {"type"}
    if extra:
        raise ValueError(f"{kind} event has unknown fields: {', '.join(sorted(extra))}")
    values: dict[str, Any] = {}
    for name, f in fields.items():
        if name not in data:
            if f.default is not dataclasses.MISSING:
                continue
            raise ValueError(f"{kind} event lacks the field {name!r}")
        try:
            values[name] = f.metadata["read"](data[name])
        except (ValueError, TypeError, IndexError) as exc:
            raise ValueError(f"{kind} event, field {name!r}: {exc}") from None
    return cls(**values)
