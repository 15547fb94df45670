"""A seat taken over through another process on PostgreSQL whose notification never came (issue
30): the same seat's token connected again elsewhere, the ``NOTIFY`` that tells the old
connection's process lost (its process killed, or its connection broken, between the commit and
the ``NOTIFY``). The heartbeats find it: with where the database has each table, they read when
each seat with a person connected through another live process was taken there
(``presence.since``, schema version 4); a connection here that took its seat before loses it
(``replaced``), as on hearing the notice, so no seat stays held by two connections.

Two real server processes (``python -m chasetheace.web``) and a throwaway PostgreSQL server; the
process whose notices nobody hears is this test, which writes its heartbeat and its people's rows
with plain SQL and no ``NOTIFY``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from helpers import TEST_TOOL, missing_extra

pytest.importorskip("uvicorn")
pytest.importorskip("httpx", reason=TEST_TOOL.format("httpx"))
psycopg = pytest.importorskip("psycopg", reason=missing_extra("psycopg", "postgres"))

from chasetheace.web.pgstore import PG_SCHEMA_V1, PG_UPGRADES, PgStore  # noqa: E402
from webtools import PROCESS_LIMITS, ServerProcess, create, join, server_processes, unheard_sql, wait_until  # noqa: E402

LIMITS = PROCESS_LIMITS
GHOST = "ghost"  # the process nobody hears


@pytest.fixture
def started() -> Iterator[list[ServerProcess]]:
    with server_processes() as procs:
        yield procs


sql = unheard_sql


def counts(proc: ServerProcess, key: str) -> int:
    return int(proc.health()["cluster"][key])


def test_a_seat_taken_over_unannounced_is_taken_from_the_older_connection_only(
        pg_url: str, started: list[ServerProcess]) -> None:
    one = ServerProcess(pg_url, *LIMITS, bot_delay=0.02, wait=90.0)
    two = ServerProcess(pg_url, *LIMITS, bot_delay=0.02, wait=90.0)
    started += [one, two]
    ann, bob, cid = one.client(), two.client(), two.client()
    table_id = create(ann, seats=3, bots=None)["table"]
    join(bob, table_id, "Bob")
    join(cid, table_id, "Cid")
    for c in (ann, bob):
        c.wait_for(lambda c: c.state is not None and c.state["table"]["connected"] == [0, 1, 2], timeout=30)
    cid.close()  # (announced)
    for c in (ann, bob):
        c.wait_for(lambda c: c.state is not None and c.state["table"]["connected"] == [0, 1], timeout=30)
    # the ghost's rows for Bob's seat, taken an hour ago (before Bob took it: that connection lost
    # it to Bob's), and for Cid's, back now; unannounced. The second process shows Cid back, and
    # compares the ghost's taking of seat 1 with Bob's at every heartbeat: Bob keeps his seat
    sql(pg_url, "INSERT INTO processes VALUES (%s, now() + interval '1 hour')", GHOST)
    sql(pg_url, "INSERT INTO presence VALUES (%s, %s, 1, extract(epoch FROM now())::float8 - 3600), "
                "(%s, %s, 2, extract(epoch FROM now())::float8)", GHOST, table_id, GHOST, table_id)
    bob.wait_for(lambda c: c.state is not None and c.state["table"]["connected"] == [0, 1, 2], timeout=30)
    beats = counts(two, "beats")
    wait_until(lambda: counts(two, "beats") >= beats + 3, "three more heartbeats of the second process", 30)
    # Ann's seat resumed through the ghost now (after Ann took it), unannounced: she loses it
    sql(pg_url, "INSERT INTO presence VALUES (%s, %s, 0, extract(epoch FROM now())::float8)", GHOST, table_id)
    told = ann.until(lambda m: m["type"] == "error", timeout=30)
    assert told["code"] == "replaced", told
    ann.send({"type": "start"})  # the old connection holds no seat now
    refused = ann.until(lambda m: m["type"] == "error", timeout=30)
    assert refused["code"] == "not_seated", refused
    assert counts(one, "takeovers_unheard") == 1
    bob.quiet()
    assert not [m for _, m in bob.log if m.get("type") == "error"], bob.log
    assert counts(two, "takeovers_unheard") == 0
    assert bob.request({"type": "ping"}, "pong")["type"] == "pong"
    for c in (ann, bob):
        c.close()


def test_version_3_is_upgraded_and_its_processes_writes_still_fit(pg_url: str) -> None:
    # 3 -> 4 adds when each seat was taken (``presence.since``); a process of version 3 still running
    # beside newer ones (it takes no new tables once it sees version 4) writes its rows as before
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(PG_SCHEMA_V1.encode())
        for step in (1, 2):
            for statement in PG_UPGRADES[step]:
                conn.execute(statement.encode())
        conn.execute("INSERT INTO meta VALUES ('schema', '3')")
    PgStore(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == ("4",)
        conn.execute("INSERT INTO processes VALUES ('old', now())")
        conn.execute("INSERT INTO presence VALUES ('old', 't1', 0)")  # as version 3 writes it
        conn.execute("INSERT INTO presence SELECT 'old', t, s FROM unnest(%s::text[], %s::int[]) AS x(t, s) "
                     "ON CONFLICT DO NOTHING", (["t1", "t2"], [0, 1]))
        assert conn.execute("SELECT table_id, seat, since FROM presence ORDER BY 1, 2").fetchall() == [
            ("t1", 0, None), ("t2", 1, None)]
