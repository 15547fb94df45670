"""A turn timer's deadline saved on PostgreSQL whose notification never came (issue 30): the process
that set it was killed, or its connection broke, between the commit and the ``NOTIFY``; or the
database lost the deadline itself (its commit does not wait for the disk). The heartbeats find it
(with where the database has each table, they read its turn timer as saved): a process that does
not run the table's timers takes the saved deadline and shows its players the right time left; the
process that runs them writes its own deadline again. A process that takes the table over keeps
the saved deadline.

Two real server processes (``python -m chasetheace.web``) and a throwaway PostgreSQL server; the
process whose notices nobody hears is this test, which holds the table's lease (a row in
``leases``) and writes the deadline (a row in ``turns``) with plain SQL and no ``NOTIFY``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from helpers import TEST_TOOL, missing_extra

pytest.importorskip("uvicorn")
pytest.importorskip("httpx", reason=TEST_TOOL.format("httpx"))
psycopg = pytest.importorskip("psycopg", reason=missing_extra("psycopg", "postgres"))

from webtools import (  # noqa: E402
    PROCESS_LIMITS,
    Client,
    ServerProcess,
    create,
    join,
    server_processes,
    unheard_sql,
    wait_until,
)

LIMITS = PROCESS_LIMITS
GHOST = "ghost"  # the process nobody hears


@pytest.fixture
def started() -> Iterator[list[ServerProcess]]:
    with server_processes() as procs:
        yield procs


sql = unheard_sql


def left(c: Client) -> int | None:
    """The time left on the turn timer that ``c`` was last shown (ms), None if none."""
    return None if c.state is None else c.state["table"]["turn_ms_left"]


def shows(clients: list[Client], low: int, high: int) -> None:
    """Until every client is shown a time left between ``low`` and ``high`` ms (a generous
    deadline: a slow machine waits longer, it does not fail)."""
    for c in clients:
        c.wait_for(lambda c: (ms := left(c)) is not None and low < ms <= high, timeout=30)


def unheard(procs: list[ServerProcess]) -> list[int]:
    return [int(p.health()["cluster"]["timers_unheard"]) for p in procs]


def timed_table(pg_url: str, started: list[ServerProcess]) -> tuple[list[ServerProcess], Client, Client, str]:
    """Two processes, a 2-seat table with a 60 s turn timer: Ann on the first, Bob on the second."""
    one = ServerProcess(pg_url, *LIMITS, bot_delay=0.02, wait=90.0)
    two = ServerProcess(pg_url, *LIMITS, bot_delay=0.02, wait=90.0)
    started += [one, two]
    ann, bob = one.client(), two.client()
    table_id = create(ann, seats=2, bots=None, timer=60)["table"]
    join(bob, table_id, "Bob")
    ann.wait_for(lambda c: c.table_info["seats"][1]["name"] == "Bob", timeout=30)
    return [one, two], ann, bob, table_id


def test_a_deadline_set_unannounced_reaches_every_process_and_holds_after_a_takeover(
        pg_url: str, started: list[ServerProcess]) -> None:
    procs, ann, bob, table_id = timed_table(pg_url, started)
    # the ghost holds the table's lease: neither process runs its timer, each shows what is saved
    sql(pg_url, "INSERT INTO leases VALUES (%s, %s, now() + interval '1 hour') ON CONFLICT (table_id) "
                "DO UPDATE SET holder = EXCLUDED.holder, expires = EXCLUDED.expires", table_id, GHOST)
    wait_until(lambda: all(p.health()["leases"] == 0 for p in procs), "both processes let the lease go", 30)
    ann.send({"type": "start"})
    for c in (ann, bob):
        c.wait_for(lambda c: c.game is not None and c.game["to_act"] is not None, timeout=30)
    bob.wait_for(lambda c: c.marker == ann.marker, timeout=30)
    game_no, events = ann.marker
    assert sql(pg_url, "SELECT count(*) FROM turns WHERE table_id = %s", table_id) == (0,)
    found = [unheard(procs)]
    # the ghost sets the turn's timer (on the database's clock); its notification is lost
    # (a client is shown at most the turn's 60 s; time left only goes down: each of the times
    # awaited below is shown only once the deadline written last is taken)
    sql(pg_url, "INSERT INTO turns VALUES (%s, %s, %s, extract(epoch FROM now())::float8 + 20)",
        table_id, game_no, events)
    shows([ann, bob], -1, 20_000)
    found.append(unheard(procs))
    # ... and sets it anew (a later one), unannounced again
    sql(pg_url, "UPDATE turns SET ends = extract(epoch FROM now())::float8 + 55 WHERE table_id = %s",
        table_id)
    shows([ann, bob], 20_000, 55_000)
    found.append(unheard(procs))
    # each process found each deadline with its heartbeats (nothing else told it)
    for step in (1, 2):
        assert all(found[step][p] > found[step - 1][p] for p in (0, 1)), found
    # the ghost's last deadline, 8 s away, unannounced; then the ghost dies (its lease runs out):
    # the process that takes the table over runs the timer to that deadline, not a fresh 60 s one
    sql(pg_url, "UPDATE turns SET ends = extract(epoch FROM now())::float8 + 8 WHERE table_id = %s",
        table_id)
    shows([ann, bob], -1, 8_000)
    before = ann.events_seen
    sql(pg_url, "UPDATE leases SET expires = now() - interval '1 second' WHERE table_id = %s", table_id)
    for c in (ann, bob):  # its turn played for them by the timer, long before 60 s
        c.wait_for(lambda c: c.events_seen > before, timeout=30)
    holder = sql(pg_url, "SELECT holder FROM leases WHERE table_id = %s", table_id)
    assert holder is not None and holder[0] != GHOST
    for c in (ann, bob):
        c.close()


def test_a_deadline_the_database_lost_is_written_again_by_the_process_that_set_it(
        pg_url: str, started: list[ServerProcess]) -> None:
    procs, ann, bob, table_id = timed_table(pg_url, started)
    ann.send({"type": "start"})
    for c in (ann, bob):
        c.wait_for(lambda c: c.game is not None and left(c) is not None, timeout=30)
    wait_until(lambda: sql(pg_url, "SELECT count(*) FROM turns WHERE table_id = %s", table_id) == (1,),
               "the deadline is saved", 30)
    saved = sql(pg_url, "SELECT ends FROM turns WHERE table_id = %s", table_id)
    holder = 0 if procs[0].health()["leases"] == 1 else 1  # (the process running the timer)
    found = unheard(procs)
    # a crash of PostgreSQL lost the deadline (its commit did not wait for the disk)
    sql(pg_url, "DELETE FROM turns WHERE table_id = %s", table_id)
    wait_until(lambda: sql(pg_url, "SELECT ends FROM turns WHERE table_id = %s", table_id) == saved,
               "the holder wrote its deadline again", 30)
    assert unheard(procs)[holder] > found[holder]
    for c in (ann, bob):
        assert 0 < (left(c) or 0) <= 60_000
        c.close()
