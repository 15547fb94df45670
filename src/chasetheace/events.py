"""The history of a game: one frozen record per thing that happened.

Each event knows how to write itself out in full (:meth:`Event.to_dict`, for game records) and
how a given seat sees it (:meth:`Event.view`, for observations): the view holds only what
RULES.md A4 lets that seat know.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias, cast, get_args

from .cards import Card

__all__ = [
    "Event", "Shuffle", "Pick", "DealerDraw", "DealerChosen", "HandStarted", "Dealt", "KingJerk",
    "Keep", "Swap", "Blocked", "ShowBlocker", "DealerExchange", "DealerDrewBlocker",
    "DealerSameRank", "Showdown", "LivesLost", "FinalTie", "CutDraw", "Eliminated", "Collected",
    "GameOver", "GameEvent", "EVENT_TYPES", "event_from_dict", "read_as",
    "ShuffleSeen", "DealtSeen", "SwapSeen", "DealerExchangeSeen", "CollectedSeen", "SeenEvent", "VIEW_TYPES",
    "View", "public_view", "read_any_view", "read_view",
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


def OPTIONAL_CARD(v: Any) -> Card | None:
    """A card, or null for a card not seen."""
    return None if v is None else CARD(v)


def OPTIONAL_CARDS(v: Any) -> tuple[Card | None, ...]:
    """A list of cards, null for each card not seen."""
    return tuple(OPTIONAL_CARD(x) for x in _list(v))


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
        write = _WRITERS.get(type(self))
        if write is None:
            write = _WRITERS[type(self)] = _writer(type(self))
        return write(self)

    def view(self, seat: Seat) -> dict[str, Any]:
        """What ``seat`` sees of this event. By default an event is wholly public.

        Views are shared between observations: treat them as read-only.
        """
        return self.to_dict()

    def seen(self, seat: Seat) -> Event:
        """What ``seat`` sees of this event, typed: :meth:`view` as :func:`read_view` reads it
        back. By default an event is wholly public: the event itself."""
        return self

    def insiders(self) -> Collection[int] | None:
        """The seats that may see more of this event than a spectator does; every other seat's
        view is the spectator's (so an event log works it out once for them all). None: any seat
        may, the default for an event that hides something and does not say who sees it."""
        return None

    def revealed(self) -> Event:
        """This event as a view that shows everything (a replay of a whole record): the same
        class as :func:`read_view` gives for this event's views. By default, the event itself."""
        return self


def _jsonable(v: Any) -> Any:
    t = type(v)
    if t is tuple:
        return [str(x) if type(x) is Card else _jsonable(x) if type(x) is tuple else x for x in v]
    if t is Card:
        return str(v)
    return v


# how a field is written out, by the reader that reads it back ({0}: the field's value)
_WRITE_AS: dict[Reader, str] = {
    INT: "{0}", OPTIONAL_INT: "{0}", BOOL: "{0}", STR: "{0}", CARD: "{0}.text",
    OPTIONAL_CARD: "None if {0} is None else {0}.text", CARDS: "[c.text for c in {0}]",
    OPTIONAL_CARDS: "[None if c is None else c.text for c in {0}]", INTS: "list({0})",
    SEAT_CARDS: "[[s, c.text] for s, c in {0}]", INT_PAIRS: "[[a, b] for a, b in {0}]",
}
_WRITERS: dict[type, Callable[[Any], dict[str, Any]]] = {}


def _writer(cls: type) -> Callable[[Any], dict[str, Any]]:
    """The function that writes out an event of ``cls`` (:meth:`Event.to_dict`), made once per
    class as one expression from its fields' readers, as ``dataclasses`` makes ``__init__``:
    writing events out is on the observations' hot path (measured: 1.6 times as fast as a loop
    over the fields, the median of three runs). A field read by another reader is written by
    the generic rule."""
    items = ", ".join(f"{name!r}: {value}" for name, value in _writes(cls))
    write: Callable[[Any], dict[str, Any]] = eval(  # the code is made of the class's own field names
        f"lambda e: {{{items}}}", {"_jsonable": _jsonable})
    return write


def _writes(cls: type) -> list[tuple[str, str]]:
    """Each key of an event of ``cls`` written out, with the expression of its value (of ``e``)."""
    items = [("type", "e.type")]
    for f in dataclasses.fields(cls):
        how = _WRITE_AS.get(f.metadata.get("read"), "_jsonable({0})")  # type: ignore[arg-type]
        items.append((f.name, how.format(f"e.{f.name}")))
    return items


_PUBLIC_VIEWS: dict[type, Callable[[Any], View]] = {}


def public_view(event: Event) -> View:
    """The view every seat shares of a wholly public ``event`` (one whose class keeps
    :meth:`Event.view`): its :meth:`Event.to_dict` as a :class:`View`. Written straight into the
    View by a function made once per class, as :meth:`Event.to_dict`'s: no dict built and copied,
    no call in between (views are most of an observation's cost; measured: 3 times as fast for a
    ``Keep``)."""
    write = _PUBLIC_VIEWS.get(type(event))
    if write is None:
        lines = ["def write(e):", "    v = View()"]
        lines += [f"    v[{name!r}] = {value}" for name, value in _writes(type(event))]
        lines += ["    v._event = e", "    v._seat = None", "    return v"]
        space: dict[str, Any] = {"_jsonable": _jsonable, "View": View}
        exec("\n".join(lines), space)  # the code is made of the class's own field names
        write = _PUBLIC_VIEWS[type(event)] = space["write"]
    return write(event)


@dataclass(frozen=True, slots=True)
class Shuffle(Event):
    """The pack was shuffled; ``cards`` is the new order, top first (hidden from every player)."""

    type: ClassVar[str] = "shuffle"
    cards: tuple[Card, ...] = read_as(CARDS)

    def view(self, seat: Seat) -> dict[str, Any]:
        return {"type": self.type, "count": len(self.cards)}

    def seen(self, seat: Seat) -> Event:
        return ShuffleSeen(len(self.cards))

    def insiders(self) -> Collection[int]:
        return ()

    def revealed(self) -> Event:
        return ShuffleSeen(len(self.cards))


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
        if seat is None:
            return {"type": self.type, "count": len(self.cards), "cards": []}
        for s, c in self.cards:  # (a loop, not a comprehension: on every observation's path)
            if s == seat:
                return {"type": self.type, "count": len(self.cards), "cards": [[s, c.text]]}
        return {"type": self.type, "count": len(self.cards), "cards": []}

    def seen(self, seat: Seat) -> Event:
        return DealtSeen(len(self.cards), tuple((s, c) for s, c in self.cards if s == seat))

    def insiders(self) -> Collection[int]:
        return [s for s, _ in self.cards]

    def revealed(self) -> Event:
        return DealtSeen(len(self.cards), self.cards)


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
            out["given"], out["received"] = self.given.text, self.received.text
        return out

    def seen(self, seat: Seat) -> Event:
        if seat is not None and seat in (self.seat, self.neighbour):
            return self.revealed()
        return SwapSeen(self.seat, self.neighbour, self.announced)

    def insiders(self) -> Collection[int]:
        return (self.seat, self.neighbour)

    def revealed(self) -> Event:
        return SwapSeen(self.seat, self.neighbour, self.announced, self.given, self.received)


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
            out["given"], out["drawn"] = self.given.text, self.drawn.text
        return out

    def seen(self, seat: Seat) -> Event:
        if seat == self.seat:
            return self.revealed()
        return DealerExchangeSeen(self.seat, self.position)

    def insiders(self) -> Collection[int]:
        return (self.seat,)

    def revealed(self) -> Event:
        return DealerExchangeSeen(self.seat, self.position, self.given, self.drawn)


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
        shown = [c.text if (seat is not None and k >> seat & 1) or k == -1 else None
                 for c, k in zip(self.cards, self.knowers)]
        return {"type": self.type, "cards": shown}

    def seen(self, seat: Seat) -> Event:
        return CollectedSeen(tuple(c if (seat is not None and k >> seat & 1) or k == -1 else None
                                   for c, k in zip(self.cards, self.knowers)))

    def insiders(self) -> Collection[int]:
        known = 0
        for k in self.knowers:
            if k != -1:  # a card shown to all tells no seat more than a spectator
                known |= k
        return tuple(s for s in range(known.bit_length()) if known >> s & 1)

    def revealed(self) -> Event:
        return CollectedSeen(self.cards)


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    """The game ended: ``winners`` (one, several for a split pot, none) and ``payouts``."""

    type: ClassVar[str] = "game_over"
    winners: tuple[int, ...] = read_as(INTS)
    payouts: tuple[tuple[int, int], ...] = read_as(INT_PAIRS)


GameEvent: TypeAlias = (
    Shuffle | Pick | DealerDraw | DealerChosen | HandStarted | Dealt | KingJerk | Keep | Swap | Blocked
    | ShowBlocker | DealerExchange | DealerDrewBlocker | DealerSameRank | Showdown | LivesLost | FinalTie
    | CutDraw | Eliminated | Collected | GameOver)
"""Every event of Chase the Ace, a closed union: a ``match`` over it ends in ``assert_never``, so
adding an event here makes mypy name every consumer that must handle it."""

EVENT_TYPES: dict[str, type[Event]] = {cls.type: cls for cls in get_args(GameEvent)}


# --- what a seat sees of the events that hide something: read back from views -------------------

@dataclass(frozen=True, slots=True)
class ShuffleSeen(Event):
    """A shuffle as a player sees it: how many cards, never their order."""

    type: ClassVar[str] = "shuffle"
    count: int = read_as(INT)


@dataclass(frozen=True, slots=True)
class DealtSeen(Event):
    """A deal as a seat sees it: how many cards went out, and the cards it may see (its own)."""

    type: ClassVar[str] = "dealt"
    count: int = read_as(INT)
    cards: tuple[tuple[int, Card], ...] = read_as(SEAT_CARDS)


@dataclass(frozen=True, slots=True)
class SwapSeen(Event):
    """A swap as a seat sees it: ``given`` and ``received`` only for the two who swapped."""

    type: ClassVar[str] = "swap"
    seat: int = read_as(INT)
    neighbour: int = read_as(INT)
    announced: int | None = read_as(OPTIONAL_INT, default=None)
    given: Card | None = read_as(OPTIONAL_CARD, default=None)
    received: Card | None = read_as(OPTIONAL_CARD, default=None)


@dataclass(frozen=True, slots=True)
class DealerExchangeSeen(Event):
    """The dealer's exchange with the stock as a seat sees it: the cards only for the dealer."""

    type: ClassVar[str] = "dealer_exchange"
    seat: int = read_as(INT)
    position: int = read_as(INT)
    given: Card | None = read_as(OPTIONAL_CARD, default=None)
    drawn: Card | None = read_as(OPTIONAL_CARD, default=None)


@dataclass(frozen=True, slots=True)
class CollectedSeen(Event):
    """Cards put under the stock as a seat sees them: None for each card it did not know."""

    type: ClassVar[str] = "collected"
    cards: tuple[Card | None, ...] = read_as(OPTIONAL_CARDS)


SeenEvent: TypeAlias = (
    ShuffleSeen | Pick | DealerDraw | DealerChosen | HandStarted | DealtSeen | KingJerk | Keep | SwapSeen
    | Blocked | ShowBlocker | DealerExchangeSeen | DealerDrewBlocker | DealerSameRank | Showdown | LivesLost
    | FinalTie | CutDraw | Eliminated | CollectedSeen | GameOver)
"""Every event of Chase the Ace as a seat sees it (what :func:`read_view` gives), a closed union:
each of :data:`GameEvent` as its ``...Seen`` class where the view hides something, else itself."""

VIEW_TYPES: dict[str, type[Event]] = {cls.type: cls for cls in get_args(SeenEvent)}
"""The classes that a seat's views (``Event.view``) read back as: the event's own class where the
view is the whole event, else its ``...Seen`` class."""


class View(dict[str, Any]):
    """One event as a seat sees it: the dict of an observation's history (JSON, as before), with
    its typed form (:meth:`Event.seen`) at hand, so a consumer reads it with :func:`read_view` at
    no cost. The typed form is worked out the first time it is asked for (most consumers of an
    observation never read its history)."""

    __slots__ = ("_event", "_seat", "_seen")

    _event: Event
    _seat: Seat
    _seen: Event

    @classmethod
    def of(cls, data: Mapping[str, Any], event: Event, seat: Seat = None) -> View:
        """``event``'s view ``data`` for ``seat`` (None: a spectator, or every seat alike)."""
        view = cls(data)
        view._event = event
        view._seat = seat
        return view

    @property
    def seen(self) -> Event:
        """The event as the view's seat sees it, typed (``event.seen(seat)``)."""
        try:
            return self._seen
        except AttributeError:
            seen = self._seen = self._event.seen(self._seat)
            return seen


def read_view(view: Mapping[str, Any]) -> SeenEvent:
    """A typed event from one dict of an observation's history of Chase the Ace (``Event.view``),
    or from a whole event of a record (``Event.to_dict``, read as :meth:`Event.revealed`);
    ValueError says what is wrong. Consumers match on the classes it gives, never on the dict's
    strings, and end the match in ``assert_never``.

    >>> read_view({"type": "swap", "seat": 0, "neighbour": 1, "announced": None})
    SwapSeen(seat=0, neighbour=1, announced=None, given=None, received=None)
    """
    if type(view) is View:  # written by an event log: its typed form is already there (the hot path)
        return view.seen  # type: ignore[return-value]  # a Chase the Ace log writes SeenEvent only
    return cast(SeenEvent, read_any_view(view, VIEW_TYPES, EVENT_TYPES))


def read_any_view(view: Mapping[str, Any], types: Mapping[str, type[Event]],
                  full: Mapping[str, type[Event]]) -> Event:
    """:func:`read_view` for any game: ``types`` maps the type names of its views to their
    classes, ``full`` those of its whole events."""
    if type(view) is View:  # written by an event log: its typed form is already there
        return view.seen
    try:
        return event_from_dict(view, types)
    except ValueError:
        if not isinstance(view, Mapping) or view.get("type") not in full:
            raise
        return event_from_dict(view, full).revealed()


_Schema = tuple[frozenset[str], tuple[tuple[str, Reader, bool], ...]]
_SCHEMAS: dict[type, _Schema] = {}


def _schema(cls: type[Event]) -> _Schema:
    """The keys a class's dict may hold, and each field's name, reader and whether it may be left
    out (worked out once per class: reading events is on the bots' hot path)."""
    found = _SCHEMAS.get(cls)
    if found is None:
        fields = dataclasses.fields(cls)
        found = _SCHEMAS[cls] = (
            frozenset(f.name for f in fields) | {"type"},
            tuple((f.name, f.metadata["read"], f.default is not dataclasses.MISSING) for f in fields))
    return found


def event_from_dict(data: Mapping[str, Any], types: Mapping[str, type[Event]] = EVENT_TYPES) -> Event:
    """Read an event written by :meth:`Event.to_dict`; ValueError says what is wrong.

    ``types`` maps the ``type`` names a game knows to their event classes.
    """
    if not isinstance(data, Mapping):
        raise ValueError(f"an event must be an object, not {type(data).__name__}")
    event_type = data.get("type")
    if not isinstance(event_type, str) or event_type not in types:
        raise ValueError(f"unknown event type {event_type!r}")
    cls = types[event_type]
    allowed, fields = _schema(cls)
    if not allowed.issuperset(data):
        extra = set(data) - allowed
        raise ValueError(f"{event_type} event has unknown fields: {', '.join(sorted(map(str, extra)))}")
    values: dict[str, Any] = {}
    for name, read, optional in fields:
        if name not in data:
            if optional:
                continue
            raise ValueError(f"{event_type} event lacks the field {name!r}")
        try:
            values[name] = read(data[name])
        except (ValueError, TypeError, IndexError) as exc:
            raise ValueError(f"{event_type} event, field {name!r}: {exc}") from None
    return cls(**values)
