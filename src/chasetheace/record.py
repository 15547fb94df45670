"""Game records: the event list written out, versioned, and replayed to validate it.

>>> import json, chasetheace as cta
>>> game = cta.Game(cta.Rules(), players=3, seed=5)
>>> _ = game.act("swap")
>>> again = cta.Game.from_record(json.loads(json.dumps(game.record())))
>>> again.events == game.events and again.to_act == game.to_act
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .errors import RecordError
from .events import EVENT_TYPES, Blocked, DealerExchange, Event, Keep, Swap, event_from_dict
from .rules import Rules

if TYPE_CHECKING:
    from .game import Game

__all__ = [
    "FORMAT", "VERSION", "check_against_script", "check_header", "game_record", "game_from_record",
    "load_events",
]

FORMAT = "chase-the-ace/game"
VERSION = 1


def game_record(game: Game) -> dict[str, Any]:
    """The record of ``game``: its set-up and every event, hidden cards included."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": game.rules.to_dict(),
        "players": list(game.names),
        "deck": None if game.stacked is None else [str(c) for c in game.stacked],
        "dealer": game.first_dealer,
        "carry": game.carry,
        "events": [e.to_dict() for e in game.events],
    }


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


def check_against_script(script: Sequence[Event], index: int, event: Event) -> None:
    """While replaying: the rules produced ``event`` as event ``index``; the record must agree."""
    if index >= len(script):
        raise RecordError(f"the record ends, but the game goes on with {event.type}", index)
    if script[index] != event:
        raise RecordError(
            f"the record says {script[index].to_dict()}, the rules give {event.to_dict()}", index)


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


def game_from_record(data: Any, *, seed: int | None = None,
                     visit: Callable[[Game, str], None] | None = None) -> Game:
    """Rebuild a game from its record, checking every event against the rules.

    The returned game can be played on; chance after the record's end comes from ``seed``.
    ``visit(game, action)`` is called at each recorded decision, before it is played.
    """
    from .game import Game

    check_header(data, FORMAT, VERSION, {"rules", "players", "events"})
    try:
        rules = Rules.from_dict(data["rules"])
    except (ValueError, TypeError) as exc:
        raise RecordError(f"bad rules: {exc}") from None
    script = load_events(data["events"])
    try:
        game = Game(rules, data["players"], deck=data.get("deck"), dealer=data.get("dealer"),
                    carry=data.get("carry", 0), _script=script)
    except RecordError:
        raise
    except (ValueError, TypeError) as exc:
        raise RecordError(f"bad set-up: {exc}") from None
    while game.to_act is not None and len(game.events) < len(script):
        i = len(game.events)
        ev = script[i]
        action = _decision(ev, game.to_act, game.dealer)
        if action is None:
            raise RecordError(
                f"seat {game.to_act} must decide here, but the record says {ev.to_dict()}", i)
        if visit is not None:
            visit(game, action)
        game.act(action)
    if len(game.events) < len(script):
        raise RecordError("the game is over, but the record goes on", len(game.events))
    game._go_live(seed)
    return game


def _decision(ev: Event, seat: int, dealer: int) -> str | None:
    """The decision a recorded event shows ``seat`` made, or None if it is not one."""
    if isinstance(ev, Keep) and ev.seat == seat:
        return "keep"
    if isinstance(ev, (Swap, Blocked)) and ev.seat == seat and seat != dealer:
        return "swap"
    if isinstance(ev, DealerExchange) and ev.seat == seat == dealer:
        return "swap"
    if ev.type == "pick" and seat == dealer:
        return "swap"  # the cut comes before the dealer's exchange
    return None
