"""A move sent again with an act id the table used already (issue 31, item 1): answered from the
table in memory, never by reading or replaying the game, however long the game is."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

from chasetheace.web import tables as tables_module
from chasetheace.web.app import Connection, Server
from chasetheace.web.limits import Limits
from chasetheace.web.protocol import Create
from chasetheace.web.store import Store
from chasetheace.web.tables import AlreadyApplied, Lobby, Table

LONG = 1500  # moves: the replay of a game this long takes far more than a few milliseconds


def _long_game(path: Path) -> tuple[str, str, list[str]]:
    """A 12-seat table (Ann and 11 bots, 99 lives) played to about ``LONG`` moves, stopped at
    Ann's turn; its id, Ann's token and the act ids Ann used."""
    store = Store(str(path))
    table, seat, token = Lobby(store).create(Create("Ann", seats=12, bots="threshold:8",
                                                    options={"lives": 99}))
    table.start(seat)
    used: list[str] = []
    game = table.game
    assert game is not None
    while not game.over and (table.moves < LONG or game.to_act != 0):
        who = game.to_act
        assert who is not None
        if who == 0:
            used.append(f"ann-{len(used)}")
            table.act(0, "keep", act_id=used[-1])
        else:
            table.act(who, table.bot_action(who), "bot")
    assert not game.over and game.to_act == 0 and table.moves >= LONG
    store.close()
    return table.id, token, used


class _Counted(Store):
    """The SQLite store, counting the reads of a whole table or of a game's moves."""

    reads = 0

    def load_tail(self, table_id: str, game_no: int, seq: int) -> Any:
        _Counted.reads += 1
        return super().load_tail(table_id, game_no, seq)

    def reader(self) -> Store:
        reader = _Counted(self.path)
        return reader


def test_an_act_id_sent_again_in_a_long_game_reads_and_replays_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "long.sqlite3"
    table_id, token, used = _long_game(path)
    replays = []
    restore = Table.restore.__func__  # type: ignore[attr-defined]

    def counted(cls: type[Table], *args: Any, **kwargs: Any) -> Table:
        replays.append(args[0].id)
        return restore(cls, *args, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(tables_module.Table, "restore", classmethod(counted))

    async def run() -> tuple[list[dict[str, Any]], int, int, int]:
        store = _Counted(str(path))
        server = Server(store, bot_delay=3600, limits=Limits(rate=1000, burst=1000, rate_per_client=1000,
                                                             burst_per_client=1000))
        conn = Connection(None, "10.0.0.1", server.limits)  # type: ignore[arg-type]  # never written to
        loading = server.receive(conn, {"type": "websocket.receive",
                                        "text": json.dumps({"type": "resume", "table": table_id,
                                                            "token": token})})
        assert loading is not None
        await loading  # the table is read and replayed once, in the loader thread
        table = server.lobby.tables[table_id]
        loads, moves = len(replays), table.moves
        reads = _Counted.reads
        while not conn.queue.empty():
            conn.queue.get_nowait()
        for act_id in (used[0], used[len(used) // 2], used[-1]) * 10:  # 30 resends, on Ann's own turn
            assert server.receive(conn, {"type": "websocket.receive", "text": json.dumps(
                {"type": "act", "action": "swap", "act_id": act_id})}) is None
        answers = [json.loads(conn.queue.get_nowait() or "null") for _ in range(conn.queue.qsize())]
        assert table.moves == moves and not table.stale
        server.loader.close()  # type: ignore[union-attr]
        store.db.close()
        return answers, len(replays) - loads, _Counted.reads - reads, loads

    answers, replayed, read, loaded = asyncio.run(run())
    assert loaded == 1
    assert replayed == 0 and read == 0  # the old code read and replayed the whole game at each resend
    assert [a["type"] for a in answers] == ["state"] * 30  # the table as it is, to this client alone
    assert all(a["game"]["to_act"] == 0 for a in answers)
    check = Store(str(path))
    assert check.db.execute("SELECT count(*) FROM actions WHERE table_id=? AND act_id IS NOT NULL",
                            (table_id,)).fetchone() == (len(used),)
    check.db.close()


def test_a_table_read_again_knows_the_act_ids_of_its_earlier_games(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "games.sqlite3"))
    table, seat, _ = Lobby(store).create(Create("Ann", seats=3, bots="threshold:8"))
    table.start(seat)
    game = table.game
    assert game is not None
    ids: list[str] = []
    while not game.over:
        who = game.to_act
        assert who is not None
        if who == 0:
            ids.append(f"first-{len(ids)}")
            table.act(0, "keep", act_id=ids[-1])
        else:
            table.act(who, table.bot_action(who), "bot")
    table.rematch(seat)
    saved = store.load_table(table.id)
    assert saved is not None
    again = Table.restore(saved, store)
    assert ids and set(ids) <= again.act_ids
    second = again.game
    assert second is not None
    while second.to_act != 0:
        who = second.to_act
        assert who is not None
        again.act(who, again.bot_action(who), "bot")
    with pytest.raises(AlreadyApplied):  # an id of game 1 sent in game 2: refused before anything is played
        again.act(0, "keep", act_id=ids[0])
    assert not again.stale and again.moves == len(store.load_table(table.id).games[-1].actions)  # type: ignore[union-attr]
    store.close()
