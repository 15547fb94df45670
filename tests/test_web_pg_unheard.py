"""A write saved on PostgreSQL whose notification never came (issue 30): the process that saved it
was killed, or its connection broke, between the commit and the ``NOTIFY`` (sent after the commit,
in the same round trip). The other processes holding the table find it with their heartbeats (they
read where the database has each table in memory: seats, game, moves) and read the table: its
players see the move within two heartbeats and a read, even while nobody plays.

Two real server processes (``python -m chasetheace.web``) and a throwaway PostgreSQL server; the
killed process is this test, which saves a move as a server process does (a table restored from
the database, the move played on it and saved by :class:`~chasetheace.web.pgstore.PgStore`) but
announces it on a channel nobody listens on: the database is left as such a crash leaves it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any, cast

import pytest

from helpers import TEST_TOOL, missing_extra

pytest.importorskip("uvicorn")
pytest.importorskip("httpx", reason=TEST_TOOL.format("httpx"))
pytest.importorskip("psycopg", reason=missing_extra("psycopg", "postgres"))

from chasetheace.web.pgstore import PgStore
from chasetheace.web.tables import Table
from webtools import PROCESS_LIMITS, ServerProcess, create, finish_together, join, server_processes

LIMITS = PROCESS_LIMITS


class Unannounced(PgStore):
    """A process's store whose notifications are lost: each goes to a channel nobody listens on,
    as if the process died between a write's commit and its ``NOTIFY``."""

    def _move(self, *args: Any) -> tuple[Any, ...]:
        params = super()._move(*args)
        return (*params[:-2], "cta_tables:nobody", params[-1])


@pytest.fixture
def started() -> Iterator[list[ServerProcess]]:
    with server_processes() as procs:
        yield procs


def test_a_move_saved_but_never_announced_reaches_every_other_process(
        pg_url: str, started: list[ServerProcess]) -> None:
    one = ServerProcess(pg_url, *LIMITS, bot_delay=0.02, wait=90.0)
    two = ServerProcess(pg_url, *LIMITS, bot_delay=0.02, wait=90.0)
    started += [one, two]
    ann, bob = one.client(), two.client()
    table_id = create(ann, seats=2, bots=None)["table"]  # no turn timer: nothing moves by itself
    join(bob, table_id, "Bob")
    ann.wait_for(lambda c: c.table_info["seats"][1]["name"] == "Bob")
    ann.send({"type": "start"})
    for c in (ann, bob):
        c.wait_for(lambda c: c.game is not None)
    mover = next(c for c in (ann, bob) if c.my_turn())
    action = mover.game["legal"][0] if mover.game else "keep"
    seen = {c.seat: c.events_seen for c in (ann, bob)}
    # the killed process: the table as saved, its move played and saved, the notification lost
    dead = Unannounced(pg_url, process="killed")
    try:
        saved = dead.load_table(table_id)
        assert saved is not None
        table = Table.restore(saved, dead)
        assert mover.seat is not None
        table.act(mover.seat, action, "human")
        done = time.monotonic()
    finally:
        dead.close()
    # both processes show it to their players, with nobody else doing anything meanwhile
    took = []
    for c in (ann, bob):
        c.wait_for(lambda c: c.events_seen > seen[c.seat], timeout=30)
        took.append(time.monotonic() - done)
    print(f"the unannounced move reached both processes' players {took[0]:.2f} s and {took[1]:.2f} s after "
          "its commit")
    # found by a heartbeat (a process may have read the table for a reason of its own meanwhile)
    assert sum(p.health()["cluster"]["writes_unheard"] for p in (one, two)) >= 1
    assert ann.events_seen == bob.events_seen
    finish_together([ann, bob])  # and the game goes on from there on both processes


def test_heartbeats_check_every_table_in_turn_and_read_one_found_behind_twice(pg_url: str) -> None:
    # the choice of tables a heartbeat checks (all up to ``check_batch``, beyond that each in turn,
    # those found behind first) and the rule that reads a table: behind at two checks half a beat
    # apart, not caught up with meanwhile (a write racing its notification is not read)
    from chasetheace.web.cluster import Cluster

    store = PgStore(pg_url)
    try:
        tables = {f"t{i}": SimpleNamespace(people=[0, 1], game_no=1, moves=5, stale=False, saving=False)
                  for i in range(5)}
        cluster = Cluster(cast(Any, SimpleNamespace(lobby=SimpleNamespace(tables=tables))), store)
        cluster.check_batch = 2
        rounds = [cluster._to_check() for _ in range(3)]
        assert all(len(r) == 2 for r in rounds) and {t for r in rounds for t in r} == set(tables)
        cluster.beat = 0.0  # (any two checks are half a beat apart)
        cluster._unheard_writes({"t0": (2, 1, 6), "t1": (2, 1, 6), "t2": (2, 1, 5)})
        assert set(cluster.behind) == {"t0", "t1"} and not cluster.dirty
        assert cluster._to_check()[:2] == ["t0", "t1"]  # checked again at the next beat, first
        tables["t1"].moves = 6  # its notification came meanwhile: not read
        cluster._unheard_writes({"t0": (2, 1, 6), "t1": (2, 1, 7)})
        assert cluster.dirty == {"t0"} and cluster.counts["writes_unheard"] == 1
        assert set(cluster.behind) == {"t1"}  # (t1 further on again: a new write, watched afresh)
        cluster.writer.shutdown()
    finally:
        store.close()
