"""Small helpers for engine tests: stacked games and readable assertions."""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

import chasetheace as cta
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
    HandStarted,
    KingJerk,
    ShowBlocker,
    Showdown,
    Swap,
)


def stacked(cards: str, *, players: int | None = None, dealer: int | None = None,
            **options: Any) -> cta.Game:
    """A game whose pack starts with ``cards`` (space separated, top first).

    The dealer defaults to the last seat, so seat 0 is eldest and the deal goes 0, 1, ..., dealer.
    The dealer takes the top card of the stock unless options say otherwise.
    """
    deck = cards.split()
    n = players if players is not None else len(deck)
    options.setdefault("dealer_exchange", "top")
    rules = cta.Rules().replace(**options)
    return cta.Game(rules, players=n, stack=deck, dealer=n - 1 if dealer is None else dealer)


def event_types(events: Sequence[cta.Event]) -> list[str]:
    """The types of some events, in order."""
    return [e.type for e in events]


def hand_events(game: cta.Game, hand: int) -> list[cta.Event]:
    """The events of one hand, from its HandStarted up to the next one."""
    out: list[cta.Event] = []
    current = 0
    for e in game.events:
        if isinstance(e, HandStarted):
            current = e.hand
        if current == hand:
            out.append(e)
    return out


def of(game: cta.Game, kind: str, hand: int = 1) -> list[Any]:
    """The events of a type in a hand."""
    return [e for e in hand_events(game, hand) if e.type == kind]


CARD = re.compile(r"\b[A2-9TJQK][cdhs]\b")
TEST_TOOL = "{} is a test tool, in the dev extra (pip install -e '.[dev]'; make test installs it)"
"""The reason a test skips without one of the dev extra's tools: ``TEST_TOOL.format("httpx")``."""


def missing_extra(module: str, extra: str) -> str:
    """The reason a test skips without a module of one of the package's extras: what is missing and
    the one command that installs it here (``make test`` and ``.ci/run`` install every extra)."""
    from chasetheace.extras import install_command

    return f"{module} (the {extra} extra) is not installed: run {install_command(extra)}, or make test"


SCREENSHOTS = pytest.StashKey[list[str]]()
"""Where the browser tests left their screenshots: tests/conftest.py prints these lines at the end."""


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


SCHEMA_TYPES: dict[str, type | tuple[type, ...]] = {
    "object": dict, "array": list, "string": str, "integer": int, "number": (int, float), "boolean": bool,
    "null": type(None)}


def check_schema(value: Any, schema: dict[str, Any], where: str = "$") -> None:
    """A small JSON Schema checker for what docs/review.md uses: type, enum, required,
    properties (with no others), items, minimum, maximum."""
    types = schema.get("type")
    if types is not None:
        names = types if isinstance(types, list) else [types]
        ok = any(isinstance(value, SCHEMA_TYPES[t])
                 and not (t in ("integer", "number") and isinstance(value, bool)) for t in names)
        assert ok, f"{where}: {value!r} is not {names}"
    if "enum" in schema:
        assert value in schema["enum"], f"{where}: {value!r} not in {schema['enum']}"
    if "const" in schema:
        assert value == schema["const"], f"{where}: {value!r} != {schema['const']!r}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema:
            assert value >= schema["minimum"], where
        if "maximum" in schema:
            assert value <= schema["maximum"], where
    if isinstance(value, dict) and "properties" in schema:
        props = schema["properties"]
        missing = set(schema.get("required", [])) - set(value)
        assert not missing, f"{where}: missing {missing}"
        extra = set(value) - set(props)
        assert not extra, f"{where}: not in the schema: {extra}"
        for key, item in value.items():
            check_schema(item, props[key], f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            check_schema(item, schema["items"], f"{where}[{i}]")


def cli_run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str],
            stdin: str = "") -> tuple[int, str, str]:
    """Run ``chase-the-ace argv`` in-process with ``stdin`` typed in and wide lines (Rich wraps at
    ``COLUMNS`` when not on a terminal); its exit status, standard output and standard error."""
    from chasetheace import cli

    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err
