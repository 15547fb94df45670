"""The benchmark's hooks in the SQLite server: a move's timestamps (``CTA_MOVE_TRACE``, read by
``benchmarks/server_load.py --trace``) and SQLite's flush at every commit for the comparison row
(``CTA_SQLITE_SYNCHRONOUS=FULL``, ``--sqlite-full``); both off by default."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")

from chasetheace.web import movetrace
from chasetheace.web.store import Store
from webtools import Client, LiveServer, create, join


@pytest.fixture
def traced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "moves.trace"
    monkeypatch.setattr(movetrace, "_PATH", str(path))
    monkeypatch.setattr(movetrace, "_lines", [])
    yield path


def test_a_traced_move_is_stamped_read_saved_committed_and_told_in_that_order(
        tmp_path: Path, traced: Path) -> None:
    live = LiveServer(str(tmp_path / "tables.sqlite3"))
    clients: list[Client] = []
    try:
        ann, bob = live.client(), live.client()
        clients += [ann, bob]
        table = create(ann, seats=2)["table"]
        join(bob, table, "Bob")
        ann.send({"type": "start"})
        for c in (ann, bob):
            c.until(lambda m: m["type"] == "state" and m["game"] is not None)
        first = ann if ann.my_turn() else bob
        first.wait_for(lambda c: c.my_turn())
        seen = first.events_seen
        first.send({"type": "act", "action": "keep", "act_id": "traced-1"})
        first.wait_for(lambda c: c.events_seen > seen)
    finally:
        for c in clients:
            c.close()
        live.stop()
    movetrace._write()
    stamps = {}
    for line in traced.read_text().splitlines():
        act_id, kind, at = line.split()
        assert act_id == "traced-1"
        stamps[kind] = float(at)
    assert list(stamps) == ["r", "s", "c", "b"]
    assert stamps["r"] <= stamps["s"] <= stamps["c"] <= stamps["b"]


def test_nothing_is_traced_by_default() -> None:
    if movetrace.enabled():
        pytest.skip("CTA_MOVE_TRACE is set in this environment")
    movetrace.stamp("a", "r")
    assert movetrace._lines == []


def test_sqlite_flushes_every_commit_only_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CTA_SQLITE_SYNCHRONOUS", raising=False)
    store = Store(str(tmp_path / "normal.sqlite3"))
    assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    store.close()
    monkeypatch.setenv("CTA_SQLITE_SYNCHRONOUS", "FULL")
    store = Store(str(tmp_path / "full.sqlite3"))
    assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    store.close()
