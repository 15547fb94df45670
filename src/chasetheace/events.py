"""The history of a game: one frozen record per thing that happened.

Each event knows how to write itself out in full (:meth:`Event.to_dict`, for game records) and
how a given seat sees it (:meth:`Event.view`, for observations): the view holds only what
RULES.md A4 lets that seat know.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .cards import Card

__all__ = [
    "Event", "Shuffle", "Pick", "DealerDraw", "DealerChosen", "HandStarted", "Dealt", "KingJerk",
    "Keep", "Swap", "Blocked", "ShowBlocker", "DealerExchange", "DealerDrewBlocker",
    "DealerSameRank", "Showdown", "LivesLost", "FinalTie", "CutDraw", "Eliminated", "Collected",
    "GameOver", "EVENT_TYPES", "event_from_dict",
]

Seat = int | None  # None: a spectator, who sees what every player sees


def _c(card: Card | None) -> str | None:
    return None if card is None else str(card)


def _pairs(pairs: tuple[tuple[int, Card], ...]) -> list[list[Any]]:
    return [[s, str(c)] for s, c in pairs]


@dataclass(frozen=True, slots=True)
class Event:
    """Base class of every event; ``type`` names the kind in records and observations."""

    type: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        """The whole event, hidden cards included (for game records, never for players)."""
        out: dict[str, Any] = {"type": self.type}
        names: tuple[str, ...] = self.__slots__
        for name in names:
            out[name] = _jsonable(getattr(self, name))
        return out

    def view(self, seat: Seat) -> dict[str, Any]:
        """What ``seat`` sees of this event. By default an event is wholly public.

        Views are shared between observations: treat them as read-only.
        """
        return self.to_dict()


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
    cards: tuple[Card, ...]

    def view(self, seat: Seat) -> dict[str, Any]:
        return {"type": self.type, "count": len(self.cards)}


@dataclass(frozen=True, slots=True)
class Pick(Event):
    """A public chance choice of ``value`` in ``0..bound-1`` (a random seat, a cut point)."""

    type: ClassVar[str] = "pick"
    bound: int
    value: int


@dataclass(frozen=True, slots=True)
class DealerDraw(Event):
    """Players drew cards face up to choose the first dealer (``high-card``, ``first-jack``)."""

    type: ClassVar[str] = "dealer_draw"
    draws: tuple[tuple[int, Card], ...]


@dataclass(frozen=True, slots=True)
class DealerChosen(Event):
    """The first dealer of the game."""

    type: ClassVar[str] = "dealer_chosen"
    dealer: int
    method: str


@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    """A hand began: its number, dealer, and the turn order (eldest first, dealer last)."""

    type: ClassVar[str] = "hand_started"
    hand: int
    dealer: int
    order: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Dealt(Event):
    """One card to each living player from the top of the stock, in turn order."""

    type: ClassVar[str] = "dealt"
    cards: tuple[tuple[int, Card], ...]

    def view(self, seat: Seat) -> dict[str, Any]:
        own = [[s, str(c)] for s, c in self.cards if s == seat]
        return {"type": self.type, "count": len(self.cards), "cards": own}


@dataclass(frozen=True, slots=True)
class KingJerk(Event):
    """Kings Jerk: ``seat`` showed ``card`` and took a chip from the kitty if ``took``."""

    type: ClassVar[str] = "king_jerk"
    seat: int
    card: Card
    took: bool


@dataclass(frozen=True, slots=True)
class Keep(Event):
    """``seat`` kept its card ("Stand!")."""

    type: ClassVar[str] = "keep"
    seat: int


@dataclass(frozen=True, slots=True)
class Swap(Event):
    """``seat`` exchanged with its left neighbour ("Change!").

    ``given`` went from seat to neighbour, ``received`` from neighbour to seat; only those two
    see them. ``announced`` is the rank the neighbour had to announce (announce_low), or None.
    """

    type: ClassVar[str] = "swap"
    seat: int
    neighbour: int
    given: Card
    received: Card
    announced: int | None = None

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
    seat: int
    neighbour: int
    card: Card


@dataclass(frozen=True, slots=True)
class ShowBlocker(Event):
    """``seat`` holds the blocker and shows it on its turn ("King!")."""

    type: ClassVar[str] = "show_blocker"
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class DealerExchange(Event):
    """The dealer exchanged with the stock at ``position`` (0 = top).

    Everyone sees that it happened and where; only the dealer sees ``given`` and ``drawn``.
    """

    type: ClassVar[str] = "dealer_exchange"
    seat: int
    position: int
    given: Card
    drawn: Card

    def view(self, seat: Seat) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "seat": self.seat, "position": self.position}
        if seat == self.seat:
            out["given"], out["drawn"] = str(self.given), str(self.drawn)
        return out


@dataclass(frozen=True, slots=True)
class DealerDrewBlocker(Event):
    """The dealer drew the blocker ``card`` and showed it; ``rule`` is dealer_draws_blocker."""

    type: ClassVar[str] = "dealer_drew_blocker"
    seat: int
    card: Card
    rule: str


@dataclass(frozen=True, slots=True)
class DealerSameRank(Event):
    """The dealer drew the rank it gave up; both cards are shown. ``rule`` is dealer_same_rank."""

    type: ClassVar[str] = "dealer_same_rank"
    seat: int
    given: Card
    drawn: Card
    rule: str


@dataclass(frozen=True, slots=True)
class Showdown(Event):
    """Every living player showed a card; ``losers`` hold the lowest (by ties and pairing)."""

    type: ClassVar[str] = "showdown"
    cards: tuple[tuple[int, Card], ...]
    losers: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class LivesLost(Event):
    """Each ``(seat, chips)`` paid that many chips into the kitty."""

    type: ClassVar[str] = "lives_lost"
    payments: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class FinalTie(Event):
    """Every player still in lost their last life at once; ``rule`` is final_tie."""

    type: ClassVar[str] = "final_tie"
    seats: tuple[int, ...]
    rule: str


@dataclass(frozen=True, slots=True)
class CutDraw(Event):
    """final_tie = cut: the tied players cut cards for the pot (again among ties)."""

    type: ClassVar[str] = "cut_draw"
    draws: tuple[tuple[int, Card], ...]


@dataclass(frozen=True, slots=True)
class Eliminated(Event):
    """These seats are out of the game."""

    type: ClassVar[str] = "eliminated"
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Collected(Event):
    """between_hands = to-bottom: ``cards`` went under the stock in this order.

    ``knowers`` holds, for each card, a bit mask of the seats that knew it at the time (all bits
    for a card shown at the showdown); a seat's view shows only the cards it knew.
    """

    type: ClassVar[str] = "collected"
    cards: tuple[Card, ...]
    knowers: tuple[int, ...]

    def view(self, seat: Seat) -> dict[str, Any]:
        shown = [str(c) if (seat is not None and k >> seat & 1) or k == -1 else None
                 for c, k in zip(self.cards, self.knowers)]
        return {"type": self.type, "cards": shown}


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    """The game ended: ``winners`` (one, several for a split pot, none) and ``payouts``."""

    type: ClassVar[str] = "game_over"
    winners: tuple[int, ...]
    payouts: tuple[tuple[int, int], ...]


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls for cls in (
        Shuffle, Pick, DealerDraw, DealerChosen, HandStarted, Dealt, KingJerk, Keep, Swap, Blocked,
        ShowBlocker, DealerExchange, DealerDrewBlocker, DealerSameRank, Showdown, LivesLost,
        FinalTie, CutDraw, Eliminated, Collected, GameOver)
}


def event_from_dict(data: Mapping[str, Any]) -> Event:
    """Read an event written by :meth:`Event.to_dict`; ValueError says what is wrong."""
    if not isinstance(data, Mapping):
        raise ValueError(f"an event must be an object, not {type(data).__name__}")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in EVENT_TYPES:
        raise ValueError(f"unknown event type {kind!r}")
    cls = EVENT_TYPES[kind]
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
        values[name] = _read_field(kind, name, str(f.type), data[name])
    return cls(**values)


def _read_field(kind: str, name: str, annotation: str, v: Any) -> Any:
    where = f"{kind} event, field {name!r}"
    try:
        if annotation == "Card":
            return Card.parse(v)
        if annotation == "tuple[Card, ...]":
            return tuple(Card.parse(x) for x in _list(v))
        if annotation == "tuple[tuple[int, Card], ...]":
            return tuple((_int(p[0]), Card.parse(p[1])) for p in (_pair(x) for x in _list(v)))
        if annotation == "tuple[tuple[int, int], ...]":
            return tuple((_int(p[0]), _int(p[1])) for p in (_pair(x) for x in _list(v)))
        if annotation == "tuple[int, ...]":
            return tuple(_int(x) for x in _list(v))
        if annotation == "int":
            return _int(v)
        if annotation == "int | None":
            return None if v is None else _int(v)
        if annotation == "bool":
            if not isinstance(v, bool):
                raise ValueError(f"expected true or false, got {v!r}")
            return v
        if annotation == "str":
            if not isinstance(v, str):
                raise ValueError(f"expected a string, got {v!r}")
            return v
    except (ValueError, TypeError, IndexError) as exc:
        raise ValueError(f"{where}: {exc}") from None
    raise AssertionError(f"unhandled field type {annotation}")  # pragma: no cover


def _list(v: Any) -> list[Any]:
    if not isinstance(v, list):
        raise ValueError(f"expected a list, got {v!r}")
    return v


def _pair(v: Any) -> list[Any]:
    if not isinstance(v, list) or len(v) != 2:
        raise ValueError(f"expected a pair, got {v!r}")
    return v


def _int(v: Any) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise ValueError(f"expected an integer, got {v!r}")
    return v
