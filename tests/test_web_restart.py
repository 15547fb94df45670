"""Kill the server process mid-hand, start it again on the same database: same state, nothing lost."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import chasetheace as cta
from chasetheace.web.store import Store
from webtools import Client, create, join, play_to_end


class Process:
    """``python -m chasetheace.web`` as a child process on a free loopback port."""

    def __init__(self, db: Path, port: int) -> None:
        self.port = port
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "chasetheace.web", "--port", str(port), "--db", str(db),
             "--bot-delay", "0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 20
        while True:
            assert self.proc.poll() is None, self.proc.stderr.read() if self.proc.stderr else ""
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)

    def client(self) -> Client:
        return Client(f"ws://127.0.0.1:{self.port}/ws")

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)  # no chance to clean up: as in a crash
        self.proc.wait(10)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def started(tmp_path: Path) -> Iterator[list[Process]]:
    procs: list[Process] = []
    yield procs
    for p in procs:
        if p.proc.poll() is None:
            p.kill()


def resume(proc: Process, table: str, token: str | None) -> Client:
    c = proc.client()
    assert c.request({"type": "resume", "table": table, "token": token}, "joined")["type"] == "joined"
    c.until(lambda m: m["type"] == "state")
    return c


def test_a_killed_server_restores_every_table_exactly(tmp_path: Path, started: list[Process]) -> None:
    db = tmp_path / "tables.sqlite3"
    port = free_port()
    first = Process(db, port)
    started.append(first)
    ann, bob = first.client(), first.client()
    table = create(ann, seats=5, bots="counting", options={"lives": 4})["table"]
    join(bob, table, "Bob")
    ann.send({"type": "start"})
    # play a few turns: kill while a person is to act, mid-hand
    acted, deadline = 0, time.monotonic() + 30
    while acted < 3 or not (ann.my_turn() or bob.my_turn()) or ann.game["hand"] < 2:  # type: ignore[index]
        for c in (ann, bob):
            c.pump(0.01)
            if c.my_turn() and c.acted != (c.state["table"]["game_no"], c.events_seen):  # type: ignore[index]
                c.acted = (c.state["table"]["game_no"], c.events_seen)  # type: ignore[index]
                c.send({"type": "act", "action": "swap"})
                acted += 1
        assert time.monotonic() < deadline
    for c in (ann, bob):
        c.pump(0.2)
    before = {c.seat: (c.game, list(c.history)) for c in (ann, bob)}
    assert not ann.game["over"] and ann.game["to_act"] in (0, 1)  # type: ignore[index]
    first.kill()

    second = Process(db, port)
    started.append(second)
    ann2, bob2 = resume(second, table, ann.token), resume(second, table, bob.token)
    for old, new in ((ann, ann2), (bob, bob2)):
        game, history = before[old.seat]
        assert new.seat == old.seat
        assert new.game == game and new.history == history  # the very same state, mid-hand
    play_to_end([ann2, bob2])
    record = Store(str(db)).game_record(table, 1, ann2.state["table"]["options"]["rules"])  # type: ignore[index]
    assert cta.Game.from_record(record).over


def test_a_kill_while_bots_play_loses_nothing_anyone_saw(tmp_path: Path, started: list[Process]) -> None:
    db = tmp_path / "tables.sqlite3"
    port = free_port()
    first = Process(db, port)
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
    second = Process(db, port)
    started.append(second)
    again = resume(second, table, ann.token)
    assert again.history[:len(ann.history)] == ann.history  # everything sent had been saved first
    play_to_end([again])
