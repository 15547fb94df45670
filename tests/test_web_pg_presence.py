"""Who is connected at a table, changed on PostgreSQL with no notification heard (issue 30): a
process's presence stated afresh by its heartbeat (after the database was away, or a presence
write failed), a ``NOTIFY`` lost (its process killed between the commit and the ``NOTIFY``), a
process that died, or one that beats again after a pause. The other processes holding the table
find it with their heartbeats (they read, with where the database has each table, which of its
seats have a person connected to another live process) and read those seats again: their players
see the right people connected within two heartbeats and a read, and the bots and timers of the
process holding the table's lease follow (an absent player's turn is played for them).

Two real server processes (``python -m chasetheace.web``) and a throwaway PostgreSQL server; the
third process, the one whose changes nobody hears, is this test, which writes the rows such a
process leaves in the database (``processes``: its heartbeat; ``presence``: its people) with
plain SQL and no ``NOTIFY``."""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator
from itertools import pairwise
from types import SimpleNamespace
from typing import Any, cast

import pytest

from helpers import TEST_TOOL, missing_extra

pytest.importorskip("uvicorn")
pytest.importorskip("httpx", reason=TEST_TOOL.format("httpx"))
psycopg = pytest.importorskip("psycopg", reason=missing_extra("psycopg", "postgres"))

from chasetheace.web.pgstore import PgStore  # noqa: E402
from webtools import PROCESS_LIMITS, Client, ServerProcess, create, join, server_processes, unheard_sql  # noqa: E402

LIMITS = PROCESS_LIMITS
GHOST = "ghost"  # the process nobody hears


@pytest.fixture
def started() -> Iterator[list[ServerProcess]]:
    with server_processes() as procs:
        yield procs


sql = unheard_sql


def connected(c: Client) -> list[int] | None:
    return None if c.state is None else cast(list[int], c.state["table"]["connected"])


def see(clients: list[Client], seats: list[int]) -> float:
    """Until every client is shown exactly ``seats`` connected (a generous deadline: a slow
    machine waits longer, it does not fail); the seconds it took."""
    start = time.monotonic()
    for c in clients:
        c.wait_for(lambda c: connected(c) == seats, timeout=30)
    return time.monotonic() - start


def moved_on(seen: int, c: Client) -> bool:
    return c.events_seen > seen


def unheard(procs: list[ServerProcess]) -> int:
    return sum(int(p.health()["cluster"]["presence_unheard"]) for p in procs)


def three_at_a_table(pg_url: str, started: list[ServerProcess]) -> tuple[list[ServerProcess], Client, Client,
                                                                          str]:
    """Two processes, a table of three seats: Ann at seat 0 on the first, Bob at 1 on the second,
    Cid's seat 2 left by him (his connection closed: announced), so both show seats 0 and 1. No
    bots, no turn timer, and no blocker: every player has a turn in every hand, whatever the deal."""
    one = ServerProcess(pg_url, *LIMITS, bot_delay=0.02, wait=90.0)
    two = ServerProcess(pg_url, *LIMITS, bot_delay=0.02, wait=90.0)
    started += [one, two]
    ann, bob, cid = one.client(), two.client(), two.client()
    table_id = create(ann, seats=3, bots=None, options={"blocker": "none"})["table"]
    join(bob, table_id, "Bob")
    join(cid, table_id, "Cid")
    see([ann, bob], [0, 1, 2])
    cid.close()
    see([ann, bob], [0, 1])
    return [one, two], ann, bob, table_id


def test_people_coming_and_going_unannounced_reach_every_other_process(
        pg_url: str, started: list[ServerProcess]) -> None:
    procs, ann, bob, table_id = three_at_a_table(pg_url, started)
    found = [unheard(procs)]
    took = []
    # Cid back, on a third process whose announcement was lost (or stated by its heartbeat)
    sql(pg_url, "INSERT INTO processes VALUES (%s, now() + interval '1 hour')", GHOST)
    sql(pg_url, "INSERT INTO presence VALUES (%s, %s, 2)", GHOST, table_id)
    took.append(see([ann, bob], [0, 1, 2]))
    found.append(unheard(procs))
    # that process dies: its heartbeat stops (nobody is told; the lease's holder looks at its
    # tables when a process dies, the other process finds it with its heartbeats)
    sql(pg_url, "UPDATE processes SET seen = now() - interval '1 hour' WHERE id = %s", GHOST)
    took.append(see([ann, bob], [0, 1]))
    found.append(unheard(procs))
    # ... or it was only paused, and beats again: Cid is there again (announced by nobody)
    sql(pg_url, "UPDATE processes SET seen = now() + interval '1 hour' WHERE id = %s", GHOST)
    took.append(see([ann, bob], [0, 1, 2]))
    found.append(unheard(procs))
    # Cid leaves it, the announcement lost
    sql(pg_url, "DELETE FROM presence WHERE process = %s", GHOST)
    took.append(see([ann, bob], [0, 1]))
    found.append(unheard(procs))
    print("both processes' players saw it (came, died, beat again, left) after "
          + ", ".join(f"{t:.2f} s" for t in took))
    # each change found by a heartbeat (the death at least by the process not holding the table)
    assert all(b > a for a, b in pairwise(found)), found
    for c in (ann, bob):
        c.close()


def test_an_absent_players_turn_is_played_once_their_unannounced_leaving_is_found(
        pg_url: str, started: list[ServerProcess]) -> None:
    procs, ann, bob, table_id = three_at_a_table(pg_url, started)
    sql(pg_url, "INSERT INTO processes VALUES (%s, now() + interval '1 hour')", GHOST)
    sql(pg_url, "INSERT INTO presence VALUES (%s, %s, 2)", GHOST, table_id)
    see([ann, bob], [0, 1, 2])  # Cid is back, on the ghost
    ann.send({"type": "start"})
    for c in (ann, bob):
        c.wait_for(lambda c: c.game is not None)
    # Ann and Bob play until it is Cid's turn: present, so nobody plays it for him (no turn timer)
    for _ in range(3):
        ann.wait_for(lambda c: c.game is not None and c.game["to_act"] is not None)
        bob.wait_for(lambda c: c.events_seen == ann.events_seen)
        assert ann.game is not None
        if ann.game["to_act"] == 2:
            break
        mover = ann if ann.my_turn() else bob
        assert mover.my_turn() and mover.game is not None
        mover.send({"type": "act", "action": mover.game["legal"][0]})
        ann.wait_for(functools.partial(moved_on, ann.events_seen))
    assert ann.game is not None and ann.game["to_act"] == 2
    before = ann.events_seen
    found = unheard(procs)
    # Cid leaves, unannounced: the lease's holder finds him gone and plays his turn for him
    sql(pg_url, "DELETE FROM presence WHERE process = %s", GHOST)
    gone = time.monotonic()
    see([ann, bob], [0, 1])
    for c in (ann, bob):
        c.wait_for(lambda c: c.events_seen > before, timeout=30)
    print(f"his turn played for him {time.monotonic() - gone:.2f} s after he left")
    assert unheard(procs) > found
    for c in (ann, bob):
        c.close()


def test_a_change_of_people_is_read_when_found_at_two_heartbeats_not_if_heard_meanwhile(pg_url: str) -> None:
    # the rule that reads a table's people again: the database shows other seats connected
    # elsewhere than this process at two checks half a beat apart, not caught up with meanwhile
    # (a change racing its notification is not read); the read takes every such table at once
    from chasetheace.web.cluster import Cluster

    store = PgStore(pg_url)
    try:
        tables = {f"t{i}": SimpleNamespace() for i in range(4)}
        cluster = Cluster(cast(Any, SimpleNamespace(lobby=SimpleNamespace(tables=tables))), store)
        cluster.beat = 0.0  # (any two checks are half a beat apart)
        cluster.elsewhere = {"t0": {1}, "t1": {1}, "t2": {1}}
        cluster._unheard_presence({"t0": {1, 2}, "t1": set(), "t2": {1}, "t3": {0}})
        assert set(cluster.presence_behind) == {"t0", "t1", "t3"} and not cluster.seats_dirty
        assert set(cluster._to_check()[:3]) == {"t0", "t1", "t3"}  # checked again first
        cluster.elsewhere["t1"] = set()  # its notification came meanwhile: not read
        cluster._unheard_presence({"t0": {1, 2}, "t1": {0}, "t3": {0}})
        assert cluster.seats_dirty == {"t0", "t3"} and cluster.counts["presence_unheard"] == 2
        assert set(cluster.presence_behind) == {"t1"}  # (t1 changed again: watched afresh)
        # the read: every table asked is answered, in one statement
        sql(pg_url, "INSERT INTO processes VALUES (%s, now() + interval '1 hour'), "
                    "('gone', now() - interval '1 hour')", GHOST)
        sql(pg_url, "INSERT INTO presence VALUES (%s, 't0', 1), (%s, 't0', 2), ('gone', 't3', 0)",
            GHOST, GHOST)
        assert store.presence_elsewhere(["t0", "t3"], 3.0) == {"t0": {1, 2}, "t3": set()}
        cluster.writer.shutdown()
    finally:
        store.close()
