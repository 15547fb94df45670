"""The store and table replay: a table rebuilt from its store at any point is the same table, on
SQLite and on PostgreSQL (a throwaway server: skipped where PostgreSQL is not installed)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

import chasetheace as cta
from chasetheace.web.databases import open_store
from chasetheace.web.protocol import Create, ProtocolError
from chasetheace.web.store import Store, StoreConflict, TableStore
from chasetheace.web.tables import Lobby, Table


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new database: a SQLite file, or a fresh database on the session's PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "t.sqlite3")
    url: str = request.getfixturevalue("pg_url")
    return url


def execute(store: TableStore, sql: str) -> None:
    """Run one statement on the store's database behind its back (a tampering hand)."""
    if isinstance(store, Store):
        store.db.execute(sql)
        return
    import psycopg

    from chasetheace.web.pgstore import PgStore

    assert isinstance(store, PgStore)
    with psycopg.connect(store.url, autocommit=True) as conn:
        conn.execute(sql.encode())


def every_view(table: Table) -> list[Mapping[str, object]]:
    game = table.game
    assert game is not None
    return [game.observation(s) for s in [None, *range(game.players)]]


@pytest.mark.parametrize("preset", ["standard", "chase-the-ace", "hoyle", "le-her"])
def test_a_table_restored_at_any_point_is_the_same(tmp_path: Path, preset: str, db: str) -> None:
    store = open_store(db)
    seats = 2 if preset == "le-her" else 4
    table, seat, _ = Lobby(store).create(Create("Ann", preset=preset, seats=seats, bots="random"))
    table.start(seat)
    game = table.game
    assert isinstance(game, cta.Game)  # these presets are all Chase the Ace (RULES.md part A)
    steps = 0
    while not game.over:
        s = game.to_act
        assert s is not None
        table.act(s, "keep" if s == 0 else table.bot_action(s), "human" if s == 0 else "bot")
        steps += 1
        if steps % 5 == 0 or game.over:
            saved = store.load_table(table.id)
            assert saved is not None
            again = Table.restore(saved, store)
            assert every_view(again) == every_view(table)
            bot = again.bot_to_act()
            if bot is not None:  # a bot chooses the same after a restart
                assert again.bot_action(bot) == table.bot_action(bot)
            tail = store.load_tail(table.id, 1, max(0, steps - 3))  # a copy a few moves behind catches up
            assert tail is not None and tail.first_action == max(0, steps - 3)
    record = store.game_record(table.id, 1, game.rules.to_dict())
    assert cta.Game.from_record(record).events == game.events
    store.close()
    if isinstance(store, Store):
        assert not (tmp_path / "t.sqlite3-wal").exists() or (tmp_path / "t.sqlite3-wal").stat().st_size == 0


def test_a_tampered_log_is_detected(db: str) -> None:
    store = open_store(db)
    table, seat, _ = Lobby(store).create(Create("Ann", seats=3, bots="threshold"))
    table.start(seat)
    game = table.game
    assert game is not None and game.to_act is not None
    table.act(game.to_act, "swap" if game.to_act == 0 else table.bot_action(game.to_act))
    execute(store, "UPDATE actions SET action = CASE action WHEN 'keep' THEN 'swap' ELSE 'keep' END")
    saved = store.load_table(table.id)
    assert saved is not None
    with pytest.raises(ValueError, match="differs from its stored event log"):
        Table.restore(saved, store)
    store.close()


def test_unknown_tables_and_ids_are_refused(tmp_path: Path) -> None:
    lobby = Lobby(Store(":memory:"))
    for bad in ("missing", "../../x", "a" * 65, ""):
        with pytest.raises(ProtocolError) as info:
            lobby.get(bad)
        assert info.value.code == "no_table"


def test_a_move_the_store_fails_to_save_is_undone(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = open_store(db)
    table, seat, _ = Lobby(store).create(Create("Ann", seats=3, bots="threshold"))
    table.start(seat)
    before = every_view(table)
    game = table.game
    assert game is not None and game.to_act is not None

    def full_disk(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(store, "append_action", full_disk)
    with pytest.raises(OSError, match="disk full"):
        table.act(game.to_act, "keep")
    # the copy played the move: it is stale, refuses moves, and is rebuilt (by the server, in a
    # worker thread: a long game's replay never runs on the event loop) as the store holds it
    assert table.stale
    with pytest.raises(ProtocolError) as info:
        table.act(game.to_act, "keep")
    assert info.value.code == "not_now"
    again = table.rebuilt()
    assert again is not None
    table.become(again)
    assert not table.stale and every_view(table) == before
    store.close()


def test_a_database_of_each_earlier_schema_is_upgraded_on_start(tmp_path: Path) -> None:
    import sqlite3

    from chasetheace.web.store import _SCHEMA, SCHEMA_VERSION, UPGRADES

    assert sorted(UPGRADES) == list(range(1, SCHEMA_VERSION))  # a step from every earlier version
    assert SCHEMA_VERSION == 4
    for version in range(1, SCHEMA_VERSION):
        path = tmp_path / f"v{version}.sqlite3"
        con = sqlite3.connect(path)
        con.executescript(_SCHEMA)
        for step in range(1, version):
            for statement in UPGRADES[step]:
                con.execute(statement)
        con.execute("INSERT INTO meta VALUES ('schema', ?)", (str(version),))
        con.execute("INSERT INTO tables VALUES ('T1', 1.0, '{}')")
        con.execute("INSERT INTO seats (table_id, seat, name, token_hash) VALUES ('T1', 0, 'Ann', 'h')")
        con.commit()
        con.close()
        store = Store(str(path))
        assert store.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == (
            str(SCHEMA_VERSION),)
        columns = {row[1] for row in store.db.execute("PRAGMA table_info(seats)")}
        assert "recovery_hash" in columns
        assert "act_id" in {row[1] for row in store.db.execute("PRAGMA table_info(actions)")}
        assert store.db.execute("SELECT name, token_hash FROM seats").fetchall() == [("Ann", "h")]
        store.close()
        Store(str(path)).close()  # opening it again changes nothing


@pytest.mark.parametrize("version", ["99", "two"])
def test_a_newer_or_unknown_schema_is_refused_changing_nothing(tmp_path: Path, version: str) -> None:
    import sqlite3

    from chasetheace.web.store import _SCHEMA

    path = tmp_path / "other.sqlite3"
    con = sqlite3.connect(path)
    con.executescript(_SCHEMA)
    con.execute("INSERT INTO meta VALUES ('schema', ?)", (version,))
    con.commit()
    con.close()
    with pytest.raises(ValueError, match="schema version"):
        Store(str(path))
    con = sqlite3.connect(path)
    assert con.execute("SELECT value FROM meta").fetchall() == [(version,)]
    assert "recovery_hash" not in {row[1] for row in con.execute("PRAGMA table_info(seats)")}
    con.close()


def test_a_move_saved_twice_or_an_act_id_used_twice_is_a_conflict(db: str) -> None:
    store = open_store(db)
    table, seat, _ = Lobby(store).create(Create("Ann", seats=3, bots="threshold"))
    table.start(seat)
    game = table.game
    assert game is not None and game.to_act is not None
    who = game.to_act
    move = "keep" if who == 0 else table.bot_action(who)
    table.act(who, move, act_id="a-1")
    assert store.applied(table.id, "a-1") and not store.applied(table.id, "a-2")
    with pytest.raises(StoreConflict):  # another process saved move 0 first
        store.append_action(table.id, 1, who, move, "human", [], 0)
    with pytest.raises(StoreConflict):  # the same act id again
        store.append_action(table.id, 1, who, move, "human", [], 1, act_id="a-1")
    saved = store.load_table(table.id)
    assert saved is not None and len(saved.games[-1].actions) == 1
    store.close()


def test_a_database_of_another_application_is_refused_changing_nothing(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "theirs.sqlite3"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    con.commit()
    con.close()
    with pytest.raises(ValueError, match=r"another application.*invoices"):
        Store(str(path))
    con = sqlite3.connect(path)
    assert [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")] == ["invoices"]
    con.close()


def test_idle_tables_expire_with_everything_they_hold(db: str) -> None:
    store = open_store(db)
    lobby = Lobby(store)
    old, seat, _ = lobby.create(Create("Ann", seats=3, bots="threshold"))
    old.start(seat)
    fresh, _, _ = lobby.create(Create("Bob", seats=3, bots="threshold"))
    import time

    later = time.time() + 10
    assert set(store.idle_tables(later)) == {old.id, fresh.id}
    game = old.game
    assert game is not None and game.to_act is not None
    old.act(game.to_act, "keep" if game.to_act == 0 else old.bot_action(game.to_act))
    assert store.idle_tables(time.time() - 3600) == []  # created since then
    store.delete_table(old.id)
    assert store.load_table(old.id) is None and store.load_table(fresh.id) is not None
    assert store.idle_tables(later) == [fresh.id]
    store.close()


def test_the_web_servers_calls_run_at_once_on_the_loop_while_nothing_holds_the_file(tmp_path: Path) -> None:
    pytest.importorskip("greenlet")
    import asyncio

    store = Store(str(tmp_path / "t.sqlite3"))
    store.off_the_loop()

    def calls() -> None:
        store.create_table("t1", {"preset": "standard"}, created=0.0)
        store.add_seat("t1", 0, "Ann", "hash")
        store.set_seat_keys("t1", 0, None, "code")
        store.delete_table("t1")

    try:
        asyncio.run(store.bridged(calls))
        assert (store.handed, store.loop_waits) == (0, 0)  # no call went to the writer thread
        assert store.load_table("t1") is None
    finally:
        store.close()


def test_a_call_that_meets_the_files_lock_waits_for_it_in_the_writer_thread(tmp_path: Path) -> None:
    pytest.importorskip("greenlet")
    import asyncio
    import sqlite3

    path = tmp_path / "t.sqlite3"
    store = Store(str(path))
    store.create_table("t1", {"preset": "standard"}, created=0.0)
    store.off_the_loop()
    pongs = 0

    async def main() -> None:
        nonlocal pongs
        holder = sqlite3.connect(path, isolation_level=None)  # another program writing the file
        holder.execute("BEGIN IMMEDIATE")
        try:
            seat = asyncio.ensure_future(store.bridged(lambda: store.add_seat("t1", 0, "Ann", "hash")))
            while store.waiting == 0:  # met the lock at once on the loop, now waits off it
                assert not seat.done(), seat
                await asyncio.sleep(0.01)
            pongs += 1  # the loop goes on meanwhile
            assert store.reader().load_table("t1").seats == []  # type: ignore[union-attr]
        finally:
            holder.rollback()
            holder.close()
        await seat  # the write goes through once the lock is gone
        await store.bridged(lambda: store.add_seat("t1", 1, "Bob", "hash"))  # at once again

    try:
        asyncio.run(main())
        assert (store.handed, store.waiting, pongs) == (1, 0, 1)
        assert [s.name for s in store.load_table("t1").seats] == ["Ann", "Bob"]  # type: ignore[union-attr]
    finally:
        store.close()
