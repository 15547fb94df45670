"""The web table's wire protocol: versioned JSON messages, validated before anything acts on them.

Every client message is one JSON object with a ``type``; an optional ``v`` must equal
:data:`VERSION`. :func:`parse_message` turns text into one of the frozen message classes below or
raises :class:`ProtocolError` naming what was wrong. ``docs/protocol.md`` describes every message.

>>> parse_message('{"type": "act", "action": "keep"}')
Act(action='keep')
>>> parse_message('{"type": "fly"}')
Traceback (most recent call last):
...
chasetheace.web.protocol.ProtocolError: unknown message type 'fly': allowed create, join, resume, \
recover, watch, start, act, rematch, ping, list, replace, hint
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..registry import GAMES as GAME_KINDS

__all__ = [
    "VERSION", "MAX_MESSAGE_BYTES", "MAX_NAME", "MAX_SEATS", "MIN_TIMER", "MAX_TIMER", "TIMEOUT_MOVES",
    "GAMES", "ACTIONS", "MAX_BET",
    "ProtocolError", "Create", "Join", "Resume", "Recover", "Watch", "Start", "Act", "Rematch", "Ping",
    "ListTables",
    "Replace", "HintRequest",
    "ClientMessage", "parse_message", "error", "encode",
]

VERSION = 1
MAX_MESSAGE_BYTES = 4096
MAX_NAME = 24
MAX_SEATS = 12
MIN_TIMER, MAX_TIMER = 5, 600
TIMEOUT_MOVES = ("keep", "bot")
GAMES = tuple(GAME_KINDS)  # RULES.md part A, and part B (the matador game, with bets): the registry's
ACTIONS = ("keep", "swap", "offer", "accept", "decline")
MAX_BET = 1_000_000
_MAX_ID = 64


class ProtocolError(ValueError):
    """A message the server refuses; ``code`` is a stable word, the text says what was wrong."""

    def __init__(self, message: str, code: str = "bad_message") -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Create:
    """Open a new table and take its first seat (the creator's)."""

    name: str
    preset: str = "standard"
    options: Mapping[str, Any] = field(default_factory=dict)
    seats: int = 4
    bots: str | None = "counting"
    timer: int | None = None
    on_timeout: str = "keep"
    public: bool = False
    game: str = "chase-the-ace"
    hints: bool = False  # house rule: players may ask the solver for a hint on their turn


@dataclass(frozen=True)
class Join:
    """Take the next free seat of a table that has not started."""

    table: str
    name: str


@dataclass(frozen=True)
class Resume:
    """Return to a seat held by ``token`` (after a reload or a dropped connection)."""

    table: str
    token: str


@dataclass(frozen=True)
class Recover:
    """Take back a seat with its recovery code (shown once when the seat was taken): the seat's
    token is issued anew (the old one stops working), with a new recovery code."""

    table: str
    code: str


@dataclass(frozen=True)
class Watch:
    """Follow a table as a spectator, seeing only what every player sees."""

    table: str


@dataclass(frozen=True)
class Start:
    """The creator starts the game; empty seats get bots if the table has them."""


@dataclass(frozen=True)
class Act:
    """The seat's decision on its turn: ``keep`` or ``swap``; at Ace Chasing also ``offer`` (with
    an ``amount``: a bettor's offer, 0 for no bet), ``accept`` or ``decline`` (the matador)."""

    action: str
    amount: int | None = field(default=None, repr=False)
    # the client's id for this act (1 to 64 characters): an act sent again with the same id (after a
    # reconnection, to any server process) is applied once
    act_id: str | None = field(default=None, repr=False)

    @property
    def move(self) -> str:
        """The action as the table stores it: ``keep``, ..., or ``offer:AMOUNT``."""
        return self.action if self.amount is None else f"offer:{self.amount}"


@dataclass(frozen=True)
class Rematch:
    """The creator starts a new game at the same table once the game is over."""


@dataclass(frozen=True)
class Ping:
    """Ask for a ``pong`` (keeps idle connections alive, measures round trips)."""


@dataclass(frozen=True)
class ListTables:
    """Ask for the public list of open tables (tables whose creator chose to list them)."""


@dataclass(frozen=True)
class Replace:
    """The creator hands the seat of a person who has gone to the stand-in bot for this game."""

    seat: int


@dataclass(frozen=True)
class HintRequest:
    """Ask the solver for a hint on your turn (where the table's house rules allow hints)."""


ClientMessage = (Create | Join | Resume | Recover | Watch | Start | Act | Rematch | Ping | ListTables
                 | Replace | HintRequest)


def parse_message(data: str | bytes) -> ClientMessage:
    """Validate one client message; ProtocolError says what is wrong."""
    if isinstance(data, bytes):
        raise ProtocolError("messages must be text frames of JSON, not binary", "bad_json")
    size = len(data.encode("utf-8", "surrogatepass"))
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"message too large: {size} bytes, at most {MAX_MESSAGE_BYTES}", "too_large")
    try:
        obj = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError(f"malformed JSON: {exc}", "bad_json") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"a message must be a JSON object, not {type(obj).__name__}")
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("a message needs a string field 'type'")
    reader = _READERS.get(kind)
    if reader is None:
        raise ProtocolError(f"unknown message type {kind!r}: allowed {', '.join(_READERS)}", "unknown_type")
    version = obj.get("v", VERSION)
    if version != VERSION or isinstance(version, bool):
        raise ProtocolError(f"unsupported protocol version {version!r}: this server speaks {VERSION}",
                            "bad_version")
    return reader(_Fields(kind, obj))


class _Fields:
    """Typed access to one message's fields; unknown fields are an error."""

    def __init__(self, kind: str, obj: dict[str, Any]) -> None:
        self.kind, self.obj = kind, obj
        self.used = {"type", "v"}

    def done(self) -> None:
        extra = sorted(set(self.obj) - self.used)
        if extra:
            raise ProtocolError(f"{self.kind}: unknown field(s) {', '.join(map(repr, extra))}")

    def _get(self, key: str, default: Any, required: bool) -> Any:
        self.used.add(key)
        if key not in self.obj:
            if required:
                raise ProtocolError(f"{self.kind}: missing field {key!r}")
            return default
        return self.obj[key]

    def text(self, key: str, *, limit: int = _MAX_ID, required: bool = True, default: str = "") -> str:
        value = self._get(key, default, required)
        if not isinstance(value, str) or not value or len(value) > limit:
            raise ProtocolError(f"{self.kind}: {key!r} must be a non-empty string of at most {limit} "
                                f"characters, got {_short(value)}")
        return value

    def name(self, key: str = "name") -> str:
        value = self.text(key, limit=4 * MAX_NAME)
        value = " ".join(unicodedata.normalize("NFKC", value).split())
        if not value or len(value) > MAX_NAME or any(
                unicodedata.category(ch).startswith("C") for ch in value):
            raise ProtocolError(f"{self.kind}: {key!r} must be 1 to {MAX_NAME} printable characters, "
                                f"got {_short(value)}")
        return value

    def integer(self, key: str, default: int | None, lo: int, hi: int, *, nullable: bool = False) -> Any:
        value = self._get(key, default, False)
        if value is None and nullable:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
            allowed = f"an integer {lo}..{hi}" + (" or null" if nullable else "")
            raise ProtocolError(f"{self.kind}: {key!r} must be {allowed}, got {_short(value)}",
                                "bad_options")
        return value

    def flag(self, key: str, default: bool = False) -> bool:
        value = self._get(key, default, False)
        if not isinstance(value, bool):
            raise ProtocolError(f"{self.kind}: {key!r} must be true or false, got {_short(value)}",
                                "bad_options")
        return value

    def choice(self, key: str, allowed: tuple[str, ...], default: str | None = None) -> str:
        value = self._get(key, default, default is None)
        if value not in allowed:
            raise ProtocolError(f"{self.kind}: {key!r} must be one of {', '.join(allowed)}, "
                                f"got {_short(value)}", "bad_options" if self.kind == "create" else
                                "bad_message")
        return str(value)


def _short(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _create(f: _Fields) -> Create:
    name = f.name()
    preset = f.text("preset", required=False, default="standard")
    options = f._get("options", {}, False)
    if not isinstance(options, dict) or len(options) > 64:
        raise ProtocolError("create: 'options' must be an object of rule keys to values", "bad_options")
    seats = f.integer("seats", 4, 2, MAX_SEATS)
    bots = f._get("bots", "counting", False)
    if bots is not None and (not isinstance(bots, str) or not 0 < len(bots) <= _MAX_ID):
        raise ProtocolError(f"create: 'bots' must be a bot kind or null, got {_short(bots)}", "bad_options")
    timer = f.integer("timer", None, MIN_TIMER, MAX_TIMER, nullable=True)
    on_timeout = f.choice("on_timeout", TIMEOUT_MOVES, "keep")
    public = f.flag("public")
    game = f.choice("game", GAMES, "chase-the-ace")
    hints = f.flag("hints")
    f.done()
    return Create(name, preset, dict(options), seats, bots, timer, on_timeout, public, game, hints)


def _join(f: _Fields) -> Join:
    msg = Join(f.text("table"), f.name())
    f.done()
    return msg


def _resume(f: _Fields) -> Resume:
    msg = Resume(f.text("table"), f.text("token"))
    f.done()
    return msg


def _recover(f: _Fields) -> Recover:
    msg = Recover(f.text("table"), f.text("code"))
    f.done()
    return msg


def _watch(f: _Fields) -> Watch:
    msg = Watch(f.text("table"))
    f.done()
    return msg


def _replace(f: _Fields) -> Replace:
    value = f._get("seat", None, True)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < MAX_SEATS:
        raise ProtocolError(f"replace: 'seat' must be an integer 0..{MAX_SEATS - 1}, got {_short(value)}")
    f.done()
    return Replace(value)


def _act(f: _Fields) -> Act:
    action = f.choice("action", ACTIONS)
    amount = None
    if action == "offer":
        amount = f._get("amount", None, True)
        if not isinstance(amount, int) or isinstance(amount, bool) or not 0 <= amount <= MAX_BET:
            raise ProtocolError(f"act: an offer's 'amount' must be a whole number 0..{MAX_BET} "
                                f"(0: no bet), got {_short(amount)}")
    act_id = f.text("act_id") if "act_id" in f.obj else None
    msg = Act(action, amount, act_id)
    f.done()
    return msg


def _bare(cls: Callable[[], ClientMessage]) -> Callable[[_Fields], ClientMessage]:
    def read(f: _Fields) -> ClientMessage:
        f.done()
        return cls()
    return read


_READERS: dict[str, Callable[[_Fields], ClientMessage]] = {
    "create": _create, "join": _join, "resume": _resume, "recover": _recover, "watch": _watch,
    "start": _bare(Start),
    "act": _act, "rematch": _bare(Rematch), "ping": _bare(Ping), "list": _bare(ListTables),
    "replace": _replace, "hint": _bare(HintRequest),
}


def error(code: str, message: str) -> dict[str, Any]:
    """The server's answer to a refused message: nothing changed."""
    return {"type": "error", "v": VERSION, "code": code, "message": message}


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)  # one for every message


def encode(message: Any) -> str:
    """One server message (or a part of one) as compact JSON text."""
    return _ENCODER.encode(message)
