"""Game records, and the history machinery both games share: the typed :class:`Record` with its
JSON form, the event log with each seat's view of it, chance that is live or read back from a
record, and the one :class:`Replay` that rebuilds a game from its record.

A record is a game's set-up and its event list, written out and versioned: a frozen
:class:`Record`, read from JSON once (:meth:`Record.from_json`, one :class:`RecordError` naming
what is wrong) and written back the same (:meth:`Record.to_json`). Each game declares how it
writes its records (a :class:`RecordFormat`: its ``format`` name, version and event types) and
replays one through a :class:`Replay`, which yields ``(state, move)`` at each recorded decision in
one pass: a review, a check and a rebuild all read the record through it. This module knows
records and events, not the games, so the imports go one way, from the games down to here.

>>> import json, chasetheace as cta
>>> game = cta.Game(cta.Rules(), players=3, seed=5)
>>> _ = game.act("swap")
>>> record = Record.from_json(json.loads(json.dumps(game.record())))
>>> record.players, record.dealer, len(record.events) == len(game.events)
(('Ann', 'Bob', 'Cat'), None, True)
>>> record.to_json() == game.record()
True
>>> again = cta.Game.from_record(record)
>>> again.events == game.events and again.to_act == game.to_act
True
>>> [move for state, move in cta.Game.replaying(record)]
['swap']
>>> Record(players=("Ann", "Bob"), dealer=1)  # the repr is code that builds the record
... # doctest: +NORMALIZE_WHITESPACE
Record(format='chase-the-ace/game', version=1, rules=None, players=('Ann', 'Bob'), deck=None,
       dealer=1, carry=0, events=())
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Container, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from .cards import Card
from .errors import IllegalActionError, RecordError
from .events import EVENT_TYPES, Event, GameOver, Pick, Shuffle, View, event_from_dict, public_view
from .rules import Rules

__all__ = [
    "FORMAT", "VERSION", "FORMATS", "CHASE_THE_ACE", "Record", "RecordFormat", "Replay", "add_format",
    "EventLog", "Chance", "LiveChance", "ScriptedChance", "check_header", "load_events",
]

FORMAT = "chase-the-ace/game"
"""The ``format`` of a Chase the Ace record (Ace Chasing has its own)."""
VERSION = 1


@dataclass(frozen=True)
class RecordFormat:
    """How one game writes its records: the ``format`` name and the version it writes, the
    event types it reads, and its set-up's keys.

    ``house_rules``: the record holds the rules and the pot carried in (``rules``, ``carry``);
    ``dealer_key`` is the key of the first dealer's seat (Ace Chasing's ``matador``), which is
    ``default_dealer`` when a record leaves it out. ``what`` names a record of the game in
    errors, with its article (``"an Ace Chasing record"``).
    """

    name: str
    version: int
    what: str
    events: Mapping[str, type[Event]] = dataclasses.field(repr=False)
    house_rules: bool = True
    dealer_key: str = "dealer"
    default_dealer: int | None = None

    def read(self, data: Record | Any) -> Record:
        """``data`` (a :class:`Record` or its JSON form) as a record of this format; RecordError
        naming what is wrong (a replay then checks its events against the rules)."""
        if isinstance(data, Record):
            data.check_format(self)
            return data
        return Record.from_json(data, self)

    def seeded(self, names: Sequence[str], rules: Rules | None, carry: int,
               events: Sequence[Mapping[str, Any]]) -> Record:
        """The record of a game started from a seed (its deck not stored: the events hold every
        card), from its events' JSON form, as the web store keeps them."""
        return Record(format=self.name, version=self.version, rules=rules if self.house_rules else None,
                      players=tuple(names), dealer=self.default_dealer,
                      carry=carry if self.house_rules else 0,
                      events=tuple(load_events(list(events), self.events)))


FORMATS: dict[str, RecordFormat] = {}
"""The record formats of the games, by ``format`` name (each game adds its own:
:func:`add_format`)."""


def add_format(layout: RecordFormat) -> RecordFormat:
    """Make ``layout`` known to :meth:`Record.from_json` and :meth:`Record.to_json`."""
    FORMATS[layout.name] = layout
    return layout


CHASE_THE_ACE = add_format(RecordFormat(FORMAT, VERSION, "a game record", EVENT_TYPES))
"""How Chase the Ace writes its records (RULES.md part A)."""


def check_header(data: Any, fmt: str, version: int, required: set[str], what: str = "a game record") -> None:
    """Check a record's format, version and required keys; RecordError says what is wrong.

    ``what`` names the kind of record with its article ("a game record").
    """
    if not isinstance(data, Mapping):
        raise RecordError(f"{what} must be a JSON object")
    if data.get("format") != fmt:
        raise RecordError(f"not {what}: 'format' must be {fmt!r}")
    if data.get("version") != version:
        raise RecordError(f"unsupported record version {data.get('version')!r} (this reads {version})")
    missing = required - set(data)
    if missing:
        raise RecordError(f"the record lacks {', '.join(sorted(missing))}")


def load_events(items: Any, types: Mapping[str, type[Event]] = EVENT_TYPES) -> list[Event]:
    """Read a list of event dicts of the given ``types``; RecordError names the first bad one."""
    if not isinstance(items, list):
        raise RecordError("'events' must be a list")
    events = []
    for i, item in enumerate(items):
        try:
            events.append(event_from_dict(item, types))
        except ValueError as exc:
            raise RecordError(str(exc), i) from None
    return events


def _seat_or_none(value: Any, key: str) -> int | None:
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise RecordError(f"bad set-up: {key!r} must be a seat number or null, not {value!r}")


@dataclass(frozen=True, kw_only=True)
class Record:
    """A game's record: its set-up and every event, hidden cards included.

    ``format`` and ``version`` say which game wrote it and how (:data:`FORMATS`); ``rules`` and
    ``carry`` (the pot carried in) are Chase the Ace's (None: the standard rules; a game played
    by one set of rules has None and 0); ``deck`` is the stacked pack of the first hand (None:
    shuffled from the seed); ``dealer`` the first dealer's seat (Ace Chasing: the first matador;
    None: drawn for).
    Only :meth:`from_json` checks a record's fields; a game's ``from_record`` replays it.
    """

    format: str = FORMAT
    version: int = VERSION
    rules: Rules | None = None
    players: tuple[str, ...]
    deck: tuple[Card, ...] | None = None
    dealer: int | None = None
    carry: int = 0
    events: tuple[Event, ...] = ()

    @property
    def finished(self) -> bool:
        """Whether the record ends with the game's end (a record holds every card: a game still
        being played has none to give)."""
        return bool(self.events) and isinstance(self.events[-1], GameOver)

    def to_json(self) -> dict[str, Any]:
        """The record as JSON-ready data, in its format's keys: :meth:`from_json` reads it back."""
        layout = FORMATS.get(self.format)
        if layout is None:
            raise ValueError(f"unknown record format {self.format!r}: known {', '.join(FORMATS)}")
        data: dict[str, Any] = {"format": self.format, "version": self.version}
        if layout.house_rules:
            data["rules"] = (self.rules or Rules()).to_dict()
        data["players"] = list(self.players)
        data["deck"] = None if self.deck is None else [str(c) for c in self.deck]
        data[layout.dealer_key] = self.dealer
        if layout.house_rules:
            data["carry"] = self.carry
        data["events"] = [e.to_dict() for e in self.events]
        return data

    @classmethod
    def from_json(cls, data: Any, layout: RecordFormat | None = None) -> Record:
        """Read a record from its JSON form; one RecordError says what is wrong.

        ``layout`` is the format the record must have (a game reading its own records); without
        it, any game's format in :data:`FORMATS` is read.
        """
        if layout is None:
            fmt = data.get("format") if isinstance(data, Mapping) else None
            layout = FORMATS.get(fmt) if isinstance(fmt, str) else None
            if layout is None:
                if not isinstance(data, Mapping):
                    raise RecordError("a game record must be a JSON object")
                known = ", ".join(map(repr, FORMATS))
                raise RecordError(f"not a game record: 'format' must be one of {known}")
        required = {"players", "events", *(("rules",) if layout.house_rules else ())}
        check_header(data, layout.name, layout.version, required, layout.what)
        rules = None
        if layout.house_rules:
            try:
                rules = Rules.from_dict(data["rules"])
            except (ValueError, TypeError) as exc:
                raise RecordError(f"bad rules: {exc}") from None
        events = tuple(load_events(data["events"], layout.events))
        players, deck, carry = data["players"], data.get("deck"), data.get("carry", 0)
        if not isinstance(players, list) or not all(isinstance(name, str) for name in players):
            raise RecordError(f"bad set-up: 'players' must be a list of names, not {players!r}")
        if deck is not None and not isinstance(deck, list):
            raise RecordError(f"bad set-up: 'deck' must be a list of cards or null, not {deck!r}")
        if not isinstance(carry, int) or isinstance(carry, bool):
            raise RecordError(f"bad set-up: 'carry' must be an integer, not {carry!r}")
        try:
            cards = None if deck is None else tuple(Card.parse(c) for c in deck)
        except ValueError as exc:
            raise RecordError(f"bad set-up: {exc}") from None
        dealer = _seat_or_none(data.get(layout.dealer_key, layout.default_dealer), layout.dealer_key)
        return cls(format=layout.name, version=layout.version, rules=rules, players=tuple(players),
                   deck=cards, dealer=dealer, carry=carry, events=events)

    def check_format(self, layout: RecordFormat) -> None:
        """RecordError unless this is a record of ``layout``'s game and version."""
        if self.format != layout.name:
            raise RecordError(f"not {layout.what}: 'format' must be {layout.name!r}")
        if self.version != layout.version:
            raise RecordError(f"unsupported record version {self.version!r} (this reads {layout.version})")


class EventLog:
    """A game's history: the events in order, and each seat's view of them, each written once.

    While a record is replayed (``script`` given), every event appended must be the record's
    event at the same place; :meth:`end_script` ends that check.
    """

    def __init__(self, script: Sequence[Event] | None = None) -> None:
        self.events: list[Event] = []
        self.script = script
        # each seat's view, and how many of the events in ``_inside`` it has gone through
        self._views: dict[int | None, tuple[list[Mapping[str, Any]], list[int]]] = {}
        self._public: list[View] = []  # each event as every seat outside its insiders sees it
        self._inside: list[tuple[int, Container[int | None], Event]] = []  # the events some seats see
        #                                                     more of: their place, insiders, event

    def append(self, event: Event) -> None:
        """Add the next event (checked against the record while replaying one)."""
        script, index = self.script, len(self.events)
        if script is not None:
            if index >= len(script):
                raise RecordError(f"the record ends, but the game goes on with {event.type}", index)
            if script[index] != event:
                raise RecordError(
                    f"the record says {script[index].to_dict()}, the rules give {event.to_dict()}", index)
        self.events.append(event)

    def end_script(self) -> None:
        """The replay is over: events from now on are the game's own."""
        self.script = None

    def view(self, seat: int | None) -> Sequence[Mapping[str, Any]]:
        """The history as ``seat`` sees it (None: a spectator), one dict per event.

        The list is the log's own, extended as the game goes on, and a view every seat outside an
        event's :meth:`~chasetheace.events.Event.insiders` sees alike is one dict shared between
        them (the spectator's): read them, never change them.
        """
        mine = self._views.get(seat)
        if mine is None:
            mine = self._views[seat] = ([], [0])
        view, read = mine
        events = self.events
        have = len(view)
        if have == len(events):
            return view
        public = self._public
        if len(public) < len(events):
            self._share()
        view += public[have:]  # every event's shared view, then this seat's own where it has one
        inside = self._inside
        for place, insiders, ev in inside[read[0]:]:  # (View.of written out: every observation's path)
            if seat in insiders:
                own = View(ev.view(seat))
                own._event = ev
                own._seat = seat
                view[place] = own
        read[0] = len(inside)
        return view

    def _share(self) -> None:
        """Work out the shared view of each event not seen yet, and note those with insiders."""
        public, inside, events = self._public, self._inside, self.events
        for place in range(len(public), len(events)):
            ev = events[place]
            wholly = _WHOLLY_PUBLIC.get(type(ev))
            if wholly is None:
                wholly = _WHOLLY_PUBLIC[type(ev)] = type(ev).view is Event.view
            if wholly:
                public.append(public_view(ev))
                continue
            public.append(View.of(ev.view(None), ev))
            insiders = ev.insiders()
            if insiders is None:
                inside.append((place, _EVERYONE, ev))
            elif insiders:
                inside.append((place, insiders, ev))


class _Everyone:
    """The insiders of an event that does not say who they are: every seat and the spectator."""

    def __contains__(self, seat: object) -> bool:
        return True


_EVERYONE = _Everyone()


_WHOLLY_PUBLIC: dict[type, bool] = {}
"""By event class: whether its events are wholly public (the class keeps :meth:`Event.view`)."""


class Chance(Protocol):
    """Where a game's shuffles and random picks come from."""

    def shuffle(self, cards: list[Card]) -> list[Card]:
        """An order of ``cards``."""
        ...

    def pick(self, bound: int) -> int:
        """A number in ``0 .. bound - 1``."""
        ...


class LiveChance:
    """Chance from a seeded generator: the only source of randomness in a live game."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def shuffle(self, cards: list[Card]) -> list[Card]:
        """A uniformly random order of ``cards``: ``rng.shuffle``'s."""
        order = list(cards)
        rng = self.rng
        if type(rng) is not random.Random:  # a generator of its own: its own shuffle
            rng.shuffle(order)
            return order
        # random.Random.shuffle written out (its _randbelow inlined, the same draws from the same
        # generator, in the same order: the same order of the cards, which the tests check), as
        # a shuffle a hand is a large part of a simulation's time (measured: 2.3 times as fast)
        getrandbits = rng.getrandbits
        i = len(order) - 1
        while i > 0:
            bound = i + 1
            bits = bound.bit_length()
            j = getrandbits(bits)
            while j >= bound:
                j = getrandbits(bits)
            order[i], order[j] = order[j], order[i]
            i -= 1
        return order

    def pick(self, bound: int) -> int:
        """A uniformly random number in ``0 .. bound - 1``."""
        return self.rng.randrange(bound)


class ScriptedChance:
    """Chance read back from a record: the log's next event must be the matching chance event."""

    def __init__(self, log: EventLog, script: Sequence[Event]) -> None:
        self.log, self.script = log, script

    def _next(self, what: str) -> tuple[int, Event]:
        i = len(self.log.events)
        if i >= len(self.script):
            raise RecordError(f"the record ends where the game goes on with {what}", i)
        return i, self.script[i]

    def shuffle(self, cards: list[Card]) -> list[Card]:
        """The order the record shows, if it is an order of ``cards``."""
        i, ev = self._next("a shuffle")
        if not isinstance(ev, Shuffle):
            raise RecordError(f"expected a shuffle here, found {ev.type}", i)
        if sorted(ev.cards) != sorted(cards):
            raise RecordError("the shuffle is not an order of the cards being shuffled", i)
        return list(ev.cards)

    def pick(self, bound: int) -> int:
        """The number the record shows, if it is in ``0 .. bound - 1``."""
        i, ev = self._next("a pick")
        if not isinstance(ev, Pick) or ev.bound != bound or not 0 <= ev.value < bound:
            raise RecordError(f"expected a pick in 0..{bound - 1} here, found {ev.to_dict()}", i)
        return ev.value


class Replayable(Protocol):
    """What :class:`Replay` needs of a game being rebuilt from its record."""

    @property
    def events(self) -> Sequence[Event]:
        """The events so far."""
        ...

    @property
    def to_act(self) -> int | None:
        """The seat to act, or None once the game is over."""
        ...

    def act(self, action: Any, seat: int | None = None) -> Any:
        """Play the seat to act's decision."""
        ...


G = TypeVar("G", bound=Replayable)


class Replay(Generic[G]):
    """A record played through once: iterating yields ``(state, move)`` at each recorded decision,
    the state as the seat to act found it, before its move is played (like PokerKit's
    ``HandHistory.state_actions``).

    ``game`` is built on :class:`ScriptedChance` over ``script`` (a game's ``replaying`` does
    that). At each decision ``decision(game, event)`` reads the move the recorded event shows, or
    None when the event is no move of the seat to act (``task(game)`` then says what the seat had
    to do). Every event the rules produce is checked against the record as it is appended; an
    illegal move or a record that goes on after the game is over is a RecordError too. When the
    record is played out, ``finish(game)`` hands the game its own chance for the moves to come.

    The state yielded is the game itself, changed by the next step: read it before asking for
    the next. A replay is played once; :attr:`game` is the game at the record's end after it.
    """

    def __init__(self, game: G, script: Sequence[Event], decision: Callable[[G, Event], Any | None],
                 task: Callable[[G], str], finish: Callable[[G], None]) -> None:
        self.game = game
        self._script, self._decision, self._task, self._finish = script, decision, task, finish
        self._started = False

    def __iter__(self) -> Iterator[tuple[G, Any]]:
        if self._started:
            raise RuntimeError("a replay is played once: ask the game for another")
        self._started = True
        return self._steps()

    def _steps(self) -> Iterator[tuple[G, Any]]:
        game, script = self.game, self._script
        while game.to_act is not None and len(game.events) < len(script):
            i = len(game.events)
            move = self._decision(game, script[i])
            if move is None:
                raise RecordError(f"seat {game.to_act} must {self._task(game)} here, "
                                  f"but the record says {script[i].to_dict()}", i)
            yield game, move
            try:
                game.act(move)
            except IllegalActionError as exc:
                raise RecordError(str(exc), i) from None
        if len(game.events) < len(script):
            raise RecordError("the game is over, but the record goes on", len(game.events))
        self._finish(game)

    def run(self, visit: Callable[[G, Any], None] | None = None) -> G:
        """Play the record out (``visit(state, move)`` at each decision) and return the game."""
        for state, move in self:
            if visit is not None:
                visit(state, move)
        return self.game
