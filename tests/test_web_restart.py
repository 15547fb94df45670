"""Kill the server process mid-hand, start it again on the same database: same state, nothing lost."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import TEST_TOOL

pytest.importorskip("uvicorn")
pytest.importorskip("httpx", reason=TEST_TOOL.format("httpx"))

import chasetheace as cta
from chasetheace.web.store import Store
from webtools import ServerProcess, create, join, play_to_end, resume, server_processes, swap_until


def Process(db: Path, *extra: str) -> ServerProcess:
    return ServerProcess(str(db), *extra, bot_delay=0.0, wait=20.0)


@pytest.fixture
def started() -> Iterator[list[ServerProcess]]:
    with server_processes() as procs:
        yield procs


def test_a_killed_server_restores_every_table_exactly(tmp_path: Path, started: list[ServerProcess]) -> None:
    db = tmp_path / "tables.sqlite3"
    first = Process(db)
    started.append(first)
    ann, bob = first.client(), first.client()
    table = create(ann, seats=5, bots="counting", options={"lives": 4})["table"]
    join(bob, table, "Bob")
    ann.send({"type": "start"})
    # play a few turns: kill while a person is to act, mid-hand
    swap_until([ann, bob], lambda acted: acted >= 3 and (ann.my_turn() or bob.my_turn())
               and ann.game is not None and ann.game["hand"] >= 2, 30)
    # the bots have moved (bot delay 0) and both have heard of every move: a person is to act
    ann.wait_for(lambda c: c.game is not None and (c.game["over"] or c.game["to_act"] in (0, 1)))
    bob.wait_for(lambda c: c.events_seen == ann.events_seen)
    before = {c.seat: (c.game, list(c.history)) for c in (ann, bob)}
    assert ann.game is not None and not ann.game["over"] and ann.game["to_act"] in (0, 1)
    first.kill()

    second = Process(db)
    started.append(second)
    ann2, bob2 = resume(second, table, ann.token), resume(second, table, bob.token)
    for old, new in ((ann, ann2), (bob, bob2)):
        game, history = before[old.seat]
        assert new.seat == old.seat
        assert new.game == game and new.history == history  # the very same state, mid-hand
    play_to_end([ann2, bob2])
    record = Store(str(db)).game_record(table, 1, ann2.table_info["options"]["rules"])
    assert cta.Game.from_record(record).over


def test_a_kill_while_bots_play_loses_nothing_anyone_saw(
        tmp_path: Path, started: list[ServerProcess]) -> None:
    db = tmp_path / "tables.sqlite3"
    first = Process(db)
    started.append(first)
    ann = first.client()
    table = create(ann, seats=6, bots="random", timer=5, on_timeout="bot")["table"]
    ann.send({"type": "start"})
    ann.until(lambda m: m["type"] == "state" and m["game"] is not None)
    while ann.game is not None and not ann.game["over"] and ann.events_seen < 40:
        if ann.my_turn():
            ann.send({"type": "act", "action": "keep"})
        ann.pump(0.005)
    first.kill()  # the bots may be in the middle of their moves
    second = Process(db)
    started.append(second)
    again = resume(second, table, ann.token)
    assert again.history[:len(ann.history)] == ann.history  # everything sent had been saved first
    play_to_end([again])


def test_a_second_server_on_the_same_database_refuses_to_start(tmp_path: Path,
                                                                started: list[ServerProcess]) -> None:
    db = tmp_path / "tables.sqlite3"
    first = Process(db)
    started.append(first)
    second = subprocess.run([sys.executable, "-m", "chasetheace.web", "--port", "0", "--db", str(db)],
                            capture_output=True, text=True, timeout=30)
    assert second.returncode == 2
    assert second.stderr.count("\n") == 1 and "Traceback" not in second.stderr
    assert f"in use by another chase-the-ace server (process {first.proc.pid})" in second.stderr
    c = first.client()  # the first one is unharmed
    assert c.request({"type": "ping"}, "pong")["type"] == "pong"
    c.close()


def test_a_server_stopped_with_sigterm_shuts_down_and_exits_0(tmp_path: Path,
                                                            started: list[ServerProcess]) -> None:
    server = Process(tmp_path / "tables.sqlite3")
    started.append(server)
    ann = server.client()
    create(ann, seats=2, bots=None)
    server.proc.send_signal(signal.SIGTERM)  # as systemd stops it
    assert server.proc.wait(20) == 0  # a graceful shutdown, then a clean exit (not -15)
    ann.close()
