"""Game records, and the history machinery both games share: the event log with each seat's view
of it, chance that is live or read back from a record, and the replay that validates a record.

A record is a game's set-up and its event list, written out and versioned. This module knows
records and events, not the games: each game (:class:`chasetheace.Game`,
:class:`chasetheace.AceChasingGame`) writes its record and replays one through :func:`replay`,
so the imports go one way, from the games down to here.

>>> import json, chasetheace as cta
>>> game = cta.Game(cta.Rules(), players=3, seed=5)
>>> _ = game.act("swap")
>>> again = cta.Game.from_record(json.loads(json.dumps(game.record())))
>>> again.events == game.events and again.to_act == game.to_act
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Container, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from .cards import Card
from .errors import IllegalActionError, RecordError
from .events import EVENT_TYPES, Event, Pick, Shuffle, View, event_from_dict

__all__ = [
    "FORMAT", "VERSION", "EventLog", "Chance", "LiveChance", "ScriptedChance", "check_header",
    "load_events", "replay",
]

FORMAT = "chase-the-ace/game"
"""The ``format`` of a Chase the Ace record (Ace Chasing has its own)."""
VERSION = 1


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


class EventLog:
    """A game's history: the events in order, and each seat's view of them, each written once.

    While a record is replayed (``script`` given), every event appended must be the record's
    event at the same place; :meth:`end_script` ends that check.
    """

    def __init__(self, script: Sequence[Event] | None = None) -> None:
        self.events: list[Event] = []
        self.script = script
        self._views: dict[int | None, list[Mapping[str, Any]]] = {}
        self._shared: list[tuple[View, Container[int | None], Event]] = []

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
        view = self._views.get(seat)
        if view is None:
            view = self._views[seat] = []
        events, shared = self.events, self._shared
        if len(view) == len(events):
            return view
        for i in range(len(shared), len(events)):
            shared.append(_shared_view(events[i]))
        of = View.of
        view.extend([of(ev.view(seat), ev, seat) if seat in insiders else public
                     for public, insiders, ev in shared[len(view):]])
        return view


class _Everyone:
    """The insiders of an event that does not say who they are: every seat and the spectator."""

    def __contains__(self, seat: object) -> bool:
        return True


_EVERYONE = _Everyone()


def _shared_view(event: Event) -> tuple[View, Container[int | None], Event]:
    """The view every seat outside an event's insiders shares (the spectator's), those insiders,
    and the event."""
    if type(event).view is Event.view:
        return View.of(event.to_dict(), event), (), event
    insiders = event.insiders()
    return View.of(event.view(None), event), _EVERYONE if insiders is None else insiders, event


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
        """A uniformly random order of ``cards``."""
        order = list(cards)
        self.rng.shuffle(order)
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
    """What :func:`replay` needs of a game being rebuilt from its record."""

    @property
    def events(self) -> list[Event]:
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


def replay(game: G, script: Sequence[Event], decision: Callable[[G, Event], Any | None],
           task: Callable[[G], str], visit: Callable[[G, Any], None] | None = None) -> G:
    """Play ``game`` (built on :class:`ScriptedChance` over ``script``) through its record.

    At each decision ``decision(game, event)`` reads the move the recorded event shows, or None
    when the event is no move of the seat to act (``task(game)`` then says what the seat had to
    do). Every event the rules produce is checked against the record as it is appended; an
    illegal move or a record that goes on after the game is over is a RecordError too.
    ``visit(game, move)``, if given, is called at each recorded decision before it is played
    (a review reads what the seat knew there).
    """
    while game.to_act is not None and len(game.events) < len(script):
        i = len(game.events)
        move = decision(game, script[i])
        if move is None:
            raise RecordError(f"seat {game.to_act} must {task(game)} here, "
                              f"but the record says {script[i].to_dict()}", i)
        if visit is not None:
            visit(game, move)
        try:
            game.act(move)
        except IllegalActionError as exc:
            raise RecordError(str(exc), i) from None
    if len(game.events) < len(script):
        raise RecordError("the game is over, but the record goes on", len(game.events))
    return game
