"""A move's write on PostgreSQL (issue 30): the move commits in a transaction of its own and its
notification in the next one, sent in the same round trip; a move that was not saved (a conflict)
is never announced, every announced move is in the database by the time it is heard, in the
order saved, and any text (quotes, backslashes, letters beyond ASCII) arrives as it was sent.
A throwaway PostgreSQL server (skipped where it is missing), no stand-in."""

from __future__ import annotations

import asyncio
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


def test_a_moves_statements_leave_no_warning_and_a_refused_one_no_open_block(pg_url: str) -> None:
    from chasetheace.web.pgstore import _move_text

    store = PgStore(pg_url)
    try:
        store.create_table("t4", {"preset": "standard"})
        notices: list[str] = []
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.add_notice_handler(lambda d: notices.append(f"{d.severity}: {d.message_primary}"))
            escape = psycopg.pq.Escaping(conn.pgconn).escape_literal
            params = store._move("t4", 1, 0, 0, "keep", "human", [], "x1")
            conn.execute(_move_text(escape, params))
            assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
            with pytest.raises(psycopg.errors.UniqueViolation):
                conn.execute(_move_text(escape, params))
            assert conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR
        assert notices == []  # (a COMMIT outside a block would warn at every move, in the server's log too)
        store.append_action("t4", 1, 1, "swap", "bot", [], 1)
        with pytest.raises(StoreConflict):
            store.append_action("t4", 1, 1, "swap", "bot", [], 1)
        store.append_action("t4", 1, 0, "keep", "bot", [], 2)  # the pool's connection is fine after it
        assert [row[0] for row in stored(pg_url, "t4")] == [0, 1, 2]
    finally:
        store.close()
