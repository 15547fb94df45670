"""A move's write on PostgreSQL (issue 30): the move commits in a transaction of its own and its
notification in the next one, sent as parameters (no SQL text built from values) in the same round
trip (libpq's pipeline mode); a move that was not saved (a conflict)
is never announced, every announced move is in the database by the time it is heard, in the
order saved, and any text (quotes, backslashes, letters beyond ASCII) arrives as it was sent.
A throwaway PostgreSQL server (skipped where it is missing), no stand-in."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import missing_extra
from pgtools import PgServer, fresh_name

psycopg = pytest.importorskip("psycopg", reason=missing_extra("psycopg", "postgres"))

from chasetheace.web.pgstore import PgStore, channel  # noqa: E402
from chasetheace.web.store import StoreConflict  # noqa: E402

AWKWARD = ["plain", "it's", "back\\slash", "quote ' and '' twice", "ünï ♠ 🂡", "$1 %s {} \"", "E'\\x00'"]


def heard(listener: Any, count: int) -> list[dict[str, object]]:
    """The next ``count`` moves announced on the listener (``PROCESS|TABLE|m|MOVE``), in order."""
    moves = []
    for note in listener.notifies(timeout=10, stop_after=count):
        _, _, rest = note.payload.partition("|")
        _, _, rest = rest.partition("|")
        kind, _, data = rest.partition("|")
        assert kind == "m"
        moves.append(json.loads(data))
    return moves


def stored(url: str, table_id: str) -> list[tuple[object, ...]]:
    with psycopg.connect(url) as conn:
        rows: list[tuple[object, ...]] = conn.execute(
            "SELECT seq, seat, action, actor, act_id FROM actions WHERE table_id = %s ORDER BY seq",
            (table_id,)).fetchall()
        return rows


def test_a_move_is_announced_once_saved_and_a_conflict_never(pg_url: str) -> None:
    store = PgStore(pg_url)
    try:
        store.create_table("t1", {"preset": "standard"})
        with psycopg.connect(pg_url, autocommit=True) as listener:
            listener.execute(f'LISTEN "{channel("t1")}"')

            async def play() -> list[str]:
                refused = []
                for seq in range(6):
                    await store.save_move("t1", 1, seq, seq % 3, "keep", "human", [], f"a{seq}")
                    for act_id in (f"a{seq}", f"other{seq}"):  # the same move again, another one there
                        try:
                            await store.save_move("t1", 1, seq, 1, "swap", "bot", [], act_id)
                        except StoreConflict:
                            refused.append(act_id)
                await store.close_moves()
                return refused

            refused = asyncio.run(play())
            store.append_action("t1", 1, 2, "swap", "timer", [], 6)  # from a thread, as a join does
            with pytest.raises(StoreConflict):
                store.append_action("t1", 1, 0, "keep", "timer", [], 6)
            moves = heard(listener, 7)
            assert list(listener.notifies(timeout=0.5)) == []  # nothing else: no refused move announced
        assert refused == [f"{kind}{seq}" for seq in range(6) for kind in ("a", "other")]
        assert [(m["s"], m["seat"], m["a"], m["w"], m["i"]) for m in moves] == [
            *((seq, seq % 3, "keep", "human", f"a{seq}") for seq in range(6)), (6, 2, "swap", "timer", None)]
        assert stored(pg_url, "t1") == [(m["s"], m["seat"], m["a"], m["w"], m["i"]) for m in moves]
    finally:
        store.close()


def test_every_move_announced_is_in_the_database_when_heard(pg_url: str) -> None:
    store = PgStore(pg_url)
    try:
        store.create_table("t2", {"preset": "standard"})
        with psycopg.connect(pg_url, autocommit=True) as listener, \
                psycopg.connect(pg_url, autocommit=True) as reader:
            listener.execute(f'LISTEN "{channel("t2")}"')
            found: list[tuple[int, bool]] = []

            async def play() -> None:
                for seq in range(20):
                    await store.save_move("t2", 1, seq, 0, "keep", "bot", [], None)
                await store.close_moves()

            async def listen() -> None:
                # each notification read as soon as it comes, beside the moves being saved
                while len(found) < 20:
                    notes = await asyncio.to_thread(lambda: list(listener.notifies(timeout=5, stop_after=1)))
                    for note in notes:
                        seq = json.loads(note.payload.split("|", 3)[3])["s"]
                        row = reader.execute("SELECT 1 FROM actions WHERE table_id = 't2' AND game_no = 1 "
                                             "AND seq = %s", (seq,)).fetchone()
                        found.append((seq, row is not None))

            async def both() -> None:
                await asyncio.gather(play(), listen())

            asyncio.run(both())
        assert found == [(seq, True) for seq in range(20)]
    finally:
        store.close()


@settings(max_examples=8, deadline=None)
@given(table_id=st.sampled_from(AWKWARD), act_id=st.sampled_from([None, *AWKWARD]),
       action=st.sampled_from(AWKWARD), actor=st.sampled_from(AWKWARD),
       events=st.lists(st.sampled_from(AWKWARD), max_size=3))
def test_any_text_of_a_move_is_saved_and_announced_as_sent(
        pg: PgServer, table_id: str, act_id: str | None, action: str, actor: str, events: list[str]) -> None:
    url = pg.new_database(fresh_name())
    store = PgStore(url)
    try:
        store.create_table(table_id, {"preset": "standard"})

        class Said:  # an event as the engine gives it: its dict form
            def __init__(self, text: str) -> None:
                self.text = text

            def to_dict(self) -> dict[str, object]:
                return {"say": self.text}

        with psycopg.connect(url, autocommit=True) as listener:
            listener.execute(f'LISTEN "{channel(table_id).replace(chr(34), chr(34) * 2)}"')

            said_events: Any = [Said(e) for e in events]

            async def play() -> None:
                await store.save_move(table_id, 1, 0, 0, action, actor, said_events, act_id)
                await store.close_moves()

            asyncio.run(play())
            store.append_action(table_id, 1, 1, action, actor, said_events, 1)
            moves = heard(listener, 2)
        said = [{"say": e} for e in events]
        assert [(m["a"], m["w"], m["i"], m["e"]) for m in moves] == [(action, actor, act_id, said),
                                                                      (action, actor, None, said)]
        with psycopg.connect(url) as conn:
            rows = conn.execute("SELECT action, actor, act_id, events FROM actions WHERE table_id = %s "
                                "ORDER BY seq", (table_id,)).fetchall()
        assert rows == [(action, actor, act_id, json.dumps(said, separators=(",", ":"))),
                        (action, actor, None, json.dumps(said, separators=(",", ":")))]
    finally:
        store.close()


def test_a_turn_deadline_is_saved_and_announced_each_time_it_changes(pg_url: str) -> None:
    store = PgStore(pg_url)
    try:
        store.create_table("t3", {"preset": "standard"})
        with psycopg.connect(pg_url, autocommit=True) as listener:
            listener.execute(f'LISTEN "{channel("t3")}"')
            for events, ends in ((4, 1000.25), (5, 1010.5), (5, 1011.0)):
                store.set_turn("t3", 1, events, ends)
            notes = [n.payload.split("|", 2)[2] for n in listener.notifies(timeout=10, stop_after=3)]
        assert notes == ["t|1:4:1000.25", "t|1:5:1010.5", "t|1:5:1011.0"]
        with psycopg.connect(pg_url) as conn:
            rows = conn.execute("SELECT game_no, events, ends FROM turns WHERE table_id = 't3'").fetchall()
        assert rows == [(1, 5, 1011.0)]
    finally:
        store.close()


def trips(trace: str) -> list[str]:
    """The directions of libpq's traced messages, runs of one direction merged: ``["F", "B"]`` is
    one round trip (every message sent before any answer came)."""
    runs: list[str] = []
    for line in trace.splitlines():
        side = line.split("\t", 1)[0]
        if side in ("F", "B") and (not runs or runs[-1] != side):
            runs.append(side)
    return runs


def test_a_moves_statements_are_one_round_trip_leave_no_warning_and_a_refused_one_no_open_block(
        pg_url: str, tmp_path: Any) -> None:
    from chasetheace.web.pgstore import PREPARED, _move_commands, pipeline, prepare

    store = PgStore(pg_url)
    try:
        store.create_table("t4", {"preset": "standard"})
        notices: list[str] = []
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.add_notice_handler(lambda d: notices.append(f"{d.severity}: {d.message_primary}"))
            commands = _move_commands(store._move("t4", 1, 0, 0, "keep", "human", [], "x1"))
            traced = tmp_path / "trace"
            with open(traced, "w") as out:
                conn.pgconn.trace(out.fileno())
                conn.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
                saved = conn.wait(pipeline(conn.pgconn, commands))
                conn.pgconn.untrace()
            assert saved is None
            assert trips(traced.read_text()) == ["F", "B"]  # one round trip, parameters in Bind messages
            parsed = [line for line in traced.read_text().splitlines() if "\tParse\t" in line]
            assert parsed and not any("x1" in line or "t4" in line for line in parsed)  # values: never in SQL
            assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
            with open(traced, "w") as out:
                conn.pgconn.trace(out.fileno())
                conn.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
                refused = conn.wait(pipeline(conn.pgconn, commands))
                conn.pgconn.untrace()
            assert refused is not None
            assert refused.error_field(psycopg.pq.DiagnosticField.SQLSTATE) == b"23505"
            assert trips(traced.read_text()) == ["F", "B", "F", "B"]  # and the rollback, only then
            assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE  # rolled back
            assert conn.execute("SELECT count(*) FROM actions").fetchone() == (1,)
            # as on the moves' own connections: the statements prepared once, then sent by name
            conn.wait(prepare(conn.pgconn))
            commands = _move_commands(store._move("t4", 1, 1, 0, "keep", "human", [], "x2"))
            with open(traced, "w") as out:
                conn.pgconn.trace(out.fileno())
                conn.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
                assert conn.wait(pipeline(conn.pgconn, commands, PREPARED)) is None
                refused = conn.wait(pipeline(conn.pgconn, commands, PREPARED))
                conn.pgconn.untrace()
            assert refused is not None
            assert trips(traced.read_text()) == ["F", "B", "F", "B", "F", "B"]  # saved; refused, rolled back
            assert "\tParse\t" not in traced.read_text().split("\tSync", 1)[0]  # nothing parsed again
            assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
            assert conn.execute("SELECT count(*) FROM actions").fetchone() == (2,)
        assert notices == []  # (a COMMIT outside a block would warn at every move, in the server's log too)
        store.append_action("t4", 1, 1, "swap", "bot", [], 2)
        with pytest.raises(StoreConflict):
            store.append_action("t4", 1, 1, "swap", "bot", [], 2)
        store.append_action("t4", 1, 0, "keep", "bot", [], 3)  # the pool's connection is fine after it
        assert [row[0] for row in stored(pg_url, "t4")] == [0, 1, 2, 3]
    finally:
        store.close()


def test_seat_game_and_presence_writes_are_announced_after_their_commit_and_a_refused_one_never(
        pg_url: str) -> None:
    # issue 30: a seat's, a game's and a presence write's NOTIFY goes after the commit (in the
    # same round trip), as a move's: each write is in the database when it is heard, in order;
    # a write refused (a seat taken, a start missing a seat) is rolled back and never announced
    store = PgStore(pg_url, process="p1")
    try:
        store.create_table("t5", {"preset": "standard"})
        with psycopg.connect(pg_url, autocommit=True) as listener, \
                psycopg.connect(pg_url, autocommit=True) as reader:
            listener.execute(f'LISTEN "{channel("t5")}"')

            def write() -> list[str]:
                refused = []
                store.add_seat("t5", 0, "Ann", "h0")
                try:
                    store.add_seat("t5", 0, "Bob", "h1")  # taken: refused, not announced
                except StoreConflict:
                    refused.append("seat")
                try:  # two people in this copy, one seat in the database
                    store.start_game("t5", 1, 7, 0, ["Ann", "Bob"], ["human", "human"], [])
                except StoreConflict:
                    refused.append("game")
                store.add_seat("t5", 1, "Bob", "h1")
                store.set_presence("t5", 1, True, 1000.5)
                store.start_game("t5", 1, 7, 0, ["Ann", "Bob"], ["human", "human"], [])
                store.set_presence("t5", 1, False)
                return refused

            with concurrent.futures.ThreadPoolExecutor(1) as pool:
                writing = pool.submit(write)
                heard = []
                for note in listener.notifies(timeout=10, stop_after=5):
                    # each notice read as it comes, beside the writes: what it says is in the
                    # database by then (seats and games are only ever added)
                    seats = reader.execute("SELECT count(*) FROM seats WHERE table_id = 't5'").fetchone()
                    games = reader.execute("SELECT count(*) FROM games WHERE table_id = 't5'").fetchone()
                    assert seats is not None and games is not None
                    heard.append((note.payload.split("|", 3)[2:3], seats[0], games[0]))
                assert writing.result() == ["seat", "game"]
            assert list(listener.notifies(timeout=0.5)) == []  # nothing else: no refused write announced
        assert [kind for kind, _, _ in heard] == [[], [], ["r"], ["g"], ["p"]]
        least = [(1, 0), (2, 0), (2, 0), (2, 1), (2, 1)]
        assert all(seats >= s and games >= g
                   for (_, seats, games), (s, g) in zip(heard, least, strict=True)), heard
    finally:
        store.close()


def test_a_heartbeat_reads_where_the_database_has_each_table(pg_url: str) -> None:
    # the positions a heartbeat reads (seats taken, last game, moves in it): how a process finds a
    # write whose notification was lost (its process killed between the commit and the NOTIFY)
    store = PgStore(pg_url, process="p1")
    try:
        store.create_table("t6", {"preset": "standard"})
        store.create_table("t7", {"preset": "standard"})
        positions = dict.fromkeys(["t6", "t7", "gone"], (-1, -1, -1))
        store.beat(None, [], [], 3.0, 3.0, set(), None, positions)
        assert positions == {"t6": (0, 0, 0), "t7": (0, 0, 0), "gone": (0, 0, 0)}
        store.add_seat("t6", 0, "Ann", "h0")
        store.add_seat("t6", 1, "Bob", "h1")
        for game_no in (1, 2):
            store.start_game("t6", game_no, 7, 0, ["Ann", "Bob"], ["human", "human"], [])
        for seq in range(3):
            store.append_action("t6", 2, seq % 2, "keep", "human", [], seq)
        store.append_action("t6", 1, 0, "keep", "human", [], 0)  # an earlier game's move: not counted
        store.beat(None, [], [], 3.0, 3.0, set(), None, positions)
        assert positions == {"t6": (2, 2, 3), "t7": (0, 0, 0), "gone": (0, 0, 0)}
    finally:
        store.close()
