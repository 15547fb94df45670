"""Game records: the event list written out, versioned, and replayed to validate it.

>>> import json, chasetheace as cta
>>> game = cta.Game(cta.Rules(), players=3, seed=5)
>>> _ = game.act("swap")
>>> again = cta.Game.from_record(json.loads(json.dumps(game.record())))
>>> again.events == game.events and again.to_act == game.to_act
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .errors import RecordError
from .events import EVENT_TYPES, Blocked, DealerExchange, Event, Keep, Swap, event_from_dict
from .rules import Rules

if TYPE_CHECKING:
    from .game import Game

__all__ = ["FORMAT", "VERSION", "game_record", "game_from_record", "load_events"]

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


def game_from_record(data: Any, *, seed: int | None = None) -> Game:
    """Rebuild a game from its record, checking every event against the rules.

    The returned game can be played on; chance after the record's end comes from ``seed``.
    """
    from .game import Game

    if not isinstance(data, Mapping):
        raise RecordError("a game record must be a JSON object")
    if data.get("format") != FORMAT:
        raise RecordError(f"not a game record: 'format' must be {FORMAT!r}")
    if data.get("version") != VERSION:
        raise RecordError(f"unsupported record version {data.get('version')!r} (this reads {VERSION})")
    missing = {"rules", "players", "events"} - set(data)
    if missing:
        raise RecordError(f"the record lacks {', '.join(sorted(missing))}")
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
