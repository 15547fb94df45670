"""Several server processes on PostgreSQL when the database hangs or a lock holds its moves
(issue 30): pings keep answering, every client is told, moves are refused (nothing half-saved),
``/healthz`` says 503, and play goes on when the database is back; turn timers on processes
whose clocks differ, the first state of a join on another process, a newer schema found while
running. Real server processes, real WebSocket clients, a throwaway PostgreSQL server (skipped
where it is missing)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers import TEST_TOOL, missing_extra
from pgtools import PgServer

pytest.importorskip("uvicorn")
pytest.importorskip("httpx", reason=TEST_TOOL.format("httpx"))
psycopg = pytest.importorskip("psycopg", reason=missing_extra("psycopg", "postgres"))
import httpx  # noqa: E402

from chasetheace.web.store import SCHEMA_VERSION  # noqa: E402
from webtools import Client, ServerProcess, create, join, server_processes  # noqa: E402

LIMITS = ["--connections-per-client", "1000", "--tables-per-client", "100000", "--rate-per-client", "100000",
          "--burst-per-client", "100000", "--http-rate", "100000", "--http-burst", "100000"]


def Process(url: str) -> ServerProcess:
    return ServerProcess(url, *LIMITS, bot_delay=0.02, wait=90.0)


@pytest.fixture
def started() -> Iterator[list[ServerProcess]]:
    with server_processes() as procs:
        yield procs


def _table_of_two(one: ServerProcess, two: ServerProcess) -> tuple[str, Client, Client]:
    """Ann on process one, Bob on process two, a game started; the table's id and both clients."""
    ann, bob = one.client(), two.client()
    table = create(ann, seats=2, bots=None, options={"lives": 5})["table"]
    join(bob, table, "Bob")
    ann.wait_for(lambda c: c.table_info["seats"][1]["name"] == "Bob")
    ann.send({"type": "start"})
    for c in (ann, bob):
        c.wait_for(lambda c: c.game is not None and c.game["to_act"] is not None)
    return table, ann, bob


def _to_act(ann: Client, bob: Client) -> Client:
    for c in (ann, bob):
        c.quiet()
    return ann if ann.my_turn() else bob


def _moves(url: str, table: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM actions WHERE table_id = %s", (table,)).fetchone()
        assert row is not None
        return int(row[0])


def _error(client: Client, code: str) -> dict[str, Any]:
    return client.until(lambda m: m["type"] == "error" and m["code"] == code, timeout=15)


def test_a_hung_database_is_told_to_every_process_pings_go_on_and_nothing_is_lost(
        pg: PgServer, pg_url: str, started: list[ServerProcess]) -> None:
    one, two = Process(pg_url), Process(pg_url)
    started += [one, two]
    table, ann, bob = _table_of_two(one, two)
    mover = _to_act(ann, bob)
    seen = mover.events_seen
    mover.send({"type": "act", "action": "keep", "act_id": "before"})
    for c in (ann, bob):
        c.wait_for(lambda c: c.events_seen > seen)
    pg.pause()
    try:
        for c in (ann, bob):  # both processes notice by themselves, with no move made
            _error(c, "database_unavailable")
        for c in (ann, bob):
            assert c.request({"type": "ping"}, "pong")["type"] == "pong"
        for proc in (one, two):
            answer = httpx.get(f"http://127.0.0.1:{proc.port}/healthz", timeout=5)
            assert answer.status_code == 503 and answer.json()["database"] is False
            assert answer.json()["writer"] is None  # a SQLite writer thread's figures: none here
        mover = _to_act(ann, bob)
        mover.send({"type": "act", "action": "swap", "act_id": "while-hung"})
        _error(mover, "database_unavailable")
        assert mover.request({"type": "ping"}, "pong")["type"] == "pong"
    finally:
        pg.resume()
    for c in (ann, bob):
        c.until(lambda m: m["type"] == "notice" and m["code"] == "database_back", timeout=15)
    for proc in (one, two):
        assert httpx.get(f"http://127.0.0.1:{proc.port}/healthz", timeout=5).status_code == 200
    assert _moves(pg_url, table) == 1  # the refused move was not saved
    mover = _to_act(ann, bob)
    seen = mover.events_seen
    mover.send({"type": "act", "action": "keep", "act_id": "after"})
    for c in (ann, bob):
        c.wait_for(lambda c: c.events_seen > seen)
    assert _moves(pg_url, table) == 2
    for c in (ann, bob):
        c.quiet()
    assert ann.events_seen == bob.events_seen  # both processes hold the same game
    for c in (ann, bob):
        c.close()


def test_a_lock_held_on_the_moves_refuses_a_move_and_stalls_nothing(
        pg_url: str, started: list[ServerProcess]) -> None:
    one, two = Process(pg_url), Process(pg_url)
    started += [one, two]
    table, ann, bob = _table_of_two(one, two)
    mover = _to_act(ann, bob)
    with psycopg.connect(pg_url) as holder:  # what a plain CREATE INDEX on the moves would take
        holder.execute("LOCK TABLE actions IN SHARE MODE")
        mover.send({"type": "act", "action": "keep", "act_id": "locked"})
        for c in (ann, bob):
            assert c.request({"type": "ping"}, "pong")["type"] == "pong"
        _error(mover, "database_unavailable")
        assert one.health()["database"] is True  # the database answers: only the moves wait
        holder.rollback()
    assert _moves(pg_url, table) == 0
    mover.wait_for(lambda c: c.my_turn())  # the copy that played the refused move was read again
    seen = mover.events_seen
    mover.send({"type": "act", "action": "keep", "act_id": "unlocked"})
    for c in (ann, bob):
        c.wait_for(lambda c: c.events_seen > seen)
    assert _moves(pg_url, table) == 1
    for c in (ann, bob):
        c.close()


def _probe_backends(url: str) -> list[int]:
    """The server backends running (or last having run) the processes' probe on ``url``'s database."""
    with psycopg.connect(url, autocommit=True) as conn:
        return [r[0] for r in conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND query = 'SELECT 1 FROM meta LIMIT 1' AND pid <> pg_backend_pid() ORDER BY pid")]


def _until_health(proc: ServerProcess, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    deadline = time.monotonic() + 30  # against a hang only
    while not pred(health := proc.health()):
        assert time.monotonic() < deadline, health
        time.sleep(0.05)
    return health


def test_a_probe_past_its_statement_timeout_keeps_its_connection_and_an_outage_is_still_seen(
        pg_url: str, started: list[ServerProcess]) -> None:
    one = Process(pg_url)
    started.append(one)
    ann = one.client()
    create(ann, seats=2, bots=None)
    _until_health(one, lambda h: h["ok"] and h["cluster"]["probe_connects"] == 1)
    deadline = time.monotonic() + 30
    while len(probe := _probe_backends(pg_url)) != 1:
        assert time.monotonic() < deadline, probe
        time.sleep(0.05)
    with psycopg.connect(pg_url) as holder:  # the probe's read waits for the lock: too slow
        holder.execute("LOCK TABLE meta IN ACCESS EXCLUSIVE MODE")
        _error(ann, "database_unavailable")  # slow answers only, for 2 s: told, as for no answer
        health = _until_health(one, lambda h: h["cluster"]["probe_timeouts"] >= 2)
        assert health["ok"] is False and health["database"] is False
        holder.rollback()
    ann.until(lambda m: m["type"] == "notice" and m["code"] == "database_back", timeout=15)
    health = _until_health(one, lambda h: h["ok"])
    # every probe that ran out its statement timeout kept its connection: no reconnect
    assert health["cluster"]["probe_connects"] == 1
    assert _probe_backends(pg_url) == probe
    with psycopg.connect(pg_url, autocommit=True) as admin:  # a real break: every connection cut
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                      "datname = current_database() AND pid <> pg_backend_pid()")
    _error(ann, "database_unavailable")
    ann.until(lambda m: m["type"] == "notice" and m["code"] == "database_back", timeout=15)
    health = _until_health(one, lambda h: h["ok"] and h["cluster"]["probe_connects"] == 2)
    assert _probe_backends(pg_url) != probe  # the probe connected again, once
    ann.close()


# --- clocks, joins, a newer schema -------------------------------------------------------------------


def _clock_ahead(folder: Path, seconds: float) -> dict[str, str]:
    """The environment of a server process whose clock (``time.time``) runs ``seconds`` ahead:
    a ``sitecustomize`` module first on its path shifts it before the server starts."""
    (folder / "sitecustomize.py").write_text(
        "import time\n_real = time.time\n"
        f"time.time = lambda: _real() + {seconds!r}\n")
    return {"PYTHONPATH": os.pathsep.join([str(folder), *sys.path])}


def _moved_on(seen: int) -> Callable[[Client], bool]:
    """Whether a client had the events after ``seen`` and the next turn's timer."""
    return lambda c: c.events_seen > seen and c.table_info["turn_ms_left"] is not None


def test_turn_timers_hold_on_processes_whose_clocks_differ(
        pg_url: str, started: list[ServerProcess], tmp_path: Path) -> None:
    ahead = ServerProcess(pg_url, *LIMITS, bot_delay=0.02, wait=90.0, env=_clock_ahead(tmp_path, 30.0))
    right = Process(pg_url)
    started += [ahead, right]
    timer = 60
    ann, bob = ahead.client(), right.client()
    table = create(ann, seats=2, bots=None, timer=timer)["table"]
    join(bob, table, "Bob")
    ann.wait_for(lambda c: c.table_info["seats"][1]["name"] == "Bob")
    ann.send({"type": "start"})
    for c in (ann, bob):  # both processes show the timer of the turn, whichever process set it
        c.wait_for(lambda c: c.game is not None and c.table_info["turn_ms_left"] is not None)
    for _ in range(2):  # two turns, so both processes' clients see a timer set by either process
        mover = _to_act(ann, bob)
        for c in (ann, bob):
            left = c.table_info["turn_ms_left"]
            assert 0 < left <= timer * 1000 and left > (timer - 15) * 1000, (c.seat, left)
        moved_on = _moved_on(mover.events_seen)
        mover.send({"type": "act", "action": "keep"})
        for c in (ann, bob):
            c.wait_for(moved_on)
    for c in (ann, bob):
        c.close()


@given(offset=st.floats(-1e5, 1e5), waits=st.lists(st.tuples(st.floats(0, 0.5), st.floats(0, 1)),
                                                     min_size=1, max_size=40))
def test_the_clock_offset_is_as_close_as_the_quickest_reading_kept_proves(
        offset: float, waits: list[tuple[float, float]]) -> None:
    from chasetheace.web.cluster import ClockReadings

    clock, at = ClockReadings(keep=30), 1.7e9
    for wait, share in waits:  # the database read its clock ``share`` of the way through the wait
        before = at
        got = clock.add(before + wait * share + offset, before, before + wait)
        at += 1.0
    kept = [w for w, _ in waits[-30:]]
    assert abs(got - offset) <= min(kept) / 2 + 1e-6


def test_a_clock_set_meanwhile_is_followed_at_once() -> None:
    from chasetheace.web.cluster import ClockReadings

    clock = ClockReadings()
    assert clock.add(100.001, 100.0, 100.002) == pytest.approx(0.0)  # a quick reading
    assert clock.add(101.1, 101.0, 101.3) == pytest.approx(0.0)  # slow, lopsided: the quick one holds
    assert clock.add(132.001, 102.0, 102.002) == pytest.approx(30.0)  # the clock was set: 30 s now


def test_idle_tables_expire_on_the_databases_clock_whatever_a_process_clock_says(
        pg_url: str, started: list[ServerProcess], tmp_path: Path) -> None:
    right = Process(pg_url)
    started.append(right)
    ann = right.client()
    fresh = create(ann, seats=2, bots=None)["table"]
    ann.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        deadline = time.monotonic() + 20
        while conn.execute("SELECT (SELECT count(*) FROM presence) + (SELECT count(*) FROM leases "
                           "WHERE expires > now())").fetchone() != (0,):  # Ann's process lets it go
            assert time.monotonic() < deadline
            time.sleep(0.1)
        conn.execute("INSERT INTO tables VALUES ('old', extract(epoch FROM now()) - 600, '{}')")
    # an hour ahead, with tables living a minute: by its own clock every table is past its time
    ahead = ServerProcess(pg_url, *LIMITS, "--table-ttl", "60", bot_delay=0.02, wait=90.0,
                          env=_clock_ahead(tmp_path, 3600.0))
    started.append(ahead)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        deadline = time.monotonic() + 40
        while conn.execute("SELECT count(*) FROM tables WHERE id = 'old'").fetchone() != (0,):
            assert time.monotonic() < deadline, "the table idle for 10 minutes did not expire"
            time.sleep(0.2)
        assert conn.execute("SELECT id FROM tables").fetchall() == [(fresh,)]  # a minute is not up


def test_the_first_state_of_a_join_on_another_process_shows_who_is_connected(
        pg_url: str, started: list[ServerProcess]) -> None:
    one, two = Process(pg_url), Process(pg_url)
    started += [one, two]
    ann = one.client()
    table = create(ann, seats=3, bots=None)["table"]
    bob = two.client()
    answer = bob.request({"type": "join", "table": table, "name": "Bob"}, "joined")
    assert answer["type"] == "joined", answer
    first = bob.until(lambda m: m["type"] == "state")
    assert first["table"]["connected"] == [0, 1]  # Ann (on the other process) and Bob, at once
    for c in (ann, bob):
        c.close()


def test_a_process_that_finds_a_newer_schema_opens_no_new_tables_and_says_so(
        pg_url: str, started: list[ServerProcess]) -> None:
    one = Process(pg_url)
    started.append(one)
    ann = one.client()
    table = create(ann, seats=2, bots=None)["table"]
    with psycopg.connect(pg_url, autocommit=True) as conn:  # as a newer server's upgrade would
        conn.execute("UPDATE meta SET value = %s WHERE key = 'schema'", (str(SCHEMA_VERSION + 1),))
    deadline = time.monotonic() + 20
    while one.health()["newer_schema"] is None:  # noticed at its next heartbeat
        assert time.monotonic() < deadline, one.health()
        time.sleep(0.1)
    assert one.health()["newer_schema"] == SCHEMA_VERSION + 1
    refused = one.client().request({"type": "create", "name": "Cy", "seats": 2}, "joined")
    assert refused["type"] == "error" and refused["code"] == "server_outdated", refused
    bob = one.client()  # the tables it has go on
    join(bob, table, "Bob")
    for c in (ann, bob):
        c.close()


# --- no database call on the event loop ---------------------------------------------------------------


def test_joins_creates_and_the_public_list_wait_on_no_event_loop_when_the_database_is_locked_or_hung(
        pg: PgServer, pg_url: str, started: list[ServerProcess]) -> None:
    one, two = Process(pg_url), Process(pg_url)
    started += [one, two]
    ann = one.client()
    table = create(ann, seats=5, bots=None, public=True)["table"]
    bob = two.client()
    join(bob, table, "Bob")  # the table is in process two's memory
    with psycopg.connect(pg_url) as holder:  # a lock on the seats: a join there waits for it
        holder.execute("LOCK TABLE seats IN SHARE MODE")
        cy = two.client()
        cy.send({"type": "join", "table": table, "name": "Cy"})
        bob.send({"type": "ping"})  # answered while the join waits for the lock
        bob.until(lambda m: m["type"] == "pong")
        _error(cy, "database_unavailable")
        holder.rollback()
    join(cy, table, "Cy")  # nothing was half-saved: the join goes through once the lock is gone
    pg.pause()
    try:
        dee, eve = two.client(), two.client()
        dee.send({"type": "create", "name": "Dee", "seats": 2})
        eve.send({"type": "join", "table": table, "name": "Eve"})
        for c in (bob, cy):  # answered while the create and the join wait for the database
            c.send({"type": "ping"})
            c.until(lambda m: m["type"] == "pong")
        for c in (dee, eve):
            _error(c, "database_unavailable")
        bob.wait_for(lambda c: any(m["type"] == "error" and m["code"] == "database_unavailable"
                                   for _, m in c.log), timeout=15)  # the process noticed
        bob.send({"type": "list"})
        bob.until(lambda m: m["type"] == "tables")
    finally:
        pg.resume()
    bob.until(lambda m: m["type"] == "notice" and m["code"] == "database_back", timeout=15)
    fay = two.client()
    join(fay, table, "Fay")
    ann.wait_for(lambda c: any(s["name"] == "Fay" for s in c.table_info["seats"]))
    ann.send({"type": "start"})
    for c in (ann, bob, cy, fay):
        c.wait_for(lambda c: c.game is not None and c.game["to_act"] is not None)
    for proc in (one, two):  # no database call made the event loop wait
        assert proc.health()["cluster"]["loop_waits"] == 0
    # the join and the create answered database_unavailable left nothing once the database went on
    with psycopg.connect(pg_url) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM seats ORDER BY table_id, seat")]
        assert names == ["Ann", "Bob", "Cy", "Fay"]
        assert conn.execute("SELECT count(*) FROM tables").fetchone() == (1,)
    assert [s["name"] for s in ann.table_info["seats"]][:4] == ["Ann", "Bob", "Cy", "Fay"]
    for c in (ann, bob, cy, dee, eve, fay):
        c.close()
