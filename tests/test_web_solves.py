"""The solve worker (issue 31, item 6): one address has the solver work out only so many new rule
sets per window, and is told so in words; a solve under way stops with the server on SIGTERM."""

from __future__ import annotations

import dataclasses
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("numpy")
pytest.importorskip("scipy")
pytest.importorskip("uvicorn")

import chasetheace as cta
from chasetheace.web.advice import Advisor
from chasetheace.web.protocol import ProtocolError
from webtools import TEST_LIMITS, Client, LiveServer, ServerProcess, create, server_processes, wait_until


def _rules(n: int) -> cta.Rules:
    return cta.Rules().replace(lives=n + 1, ties="eldest-loses")


@pytest.fixture
def advisor(tmp_path: Path) -> Iterator[Advisor]:
    made = Advisor(str(tmp_path / "solutions"), solves_per_client=2, window=3600.0)
    yield made
    made.close()


def test_one_address_starts_only_its_share_of_new_solves(advisor: Advisor) -> None:
    advisor.prepare(_rules(1), 2, "10.0.0.1")
    advisor.prepare(_rules(1), 2, "10.0.0.1")  # under way already: costs nothing
    advisor.prepare(_rules(2), 2, "10.0.0.1")
    with pytest.raises(ProtocolError, match="your address had the solver work out 2 new rule sets in the "
                                            "last 60 minutes") as refused:
        advisor.prepare(_rules(3), 2, "10.0.0.1")
    assert refused.value.code == "too_many_solves"
    assert "come again in about 60 minutes" in str(refused.value)
    advisor.prepare(_rules(3), 2, "10.0.0.2")  # another address has its own share
    assert set(advisor.solves) == {"10.0.0.1", "10.0.0.2"}


def test_a_hint_past_the_share_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHASE_THE_ACE_CACHE", str(tmp_path / "solutions"))  # nothing solved yet
    live = LiveServer(str(tmp_path / "t.sqlite3"),
                      limits=dataclasses.replace(TEST_LIMITS, solves_per_client=1))
    ann = live.client()
    try:
        # the first table's rules take the address's one solve
        create(ann, seats=2, bots="threshold:8", hints=True, options={"ties": "eldest-loses"})
        create(ann, seats=2, bots="threshold:8", hints=True, options={"ties": "latest-loses"})
        ann.send({"type": "start"})
        ann.wait_for(lambda c: c.my_turn())
        answer = ann.request({"type": "hint"}, "hint")
        assert answer["type"] == "error" and answer["code"] == "too_many_solves", answer
        assert "your address had the solver work out 1 new rule sets" in answer["message"]
    finally:
        ann.close()
        live.stop()


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            found |= {int(p) for p in f.read().split()}
    return found


def _solving(pid: int) -> list[int]:
    """The server's worker processes (spawned: ``multiprocessing.spawn`` in their command line)."""
    out = []
    for child in _children(pid):
        try:
            with open(f"/proc/{child}/cmdline", "rb") as f:
                if b"spawn_main" in f.read():
                    out.append(child)
        except OSError:
            pass
    return out


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="reads the process tree from /proc (Linux)")
def test_a_solve_under_way_stops_with_the_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHASE_THE_ACE_CACHE", str(tmp_path / "solutions"))  # nothing solved yet
    with server_processes() as procs:
        proc = ServerProcess(str(tmp_path / "t.sqlite3"))
        procs.append(proc)
        ann = Client(f"ws://127.0.0.1:{proc.port}/ws")
        # five players under the pairing rule: a solve of minutes
        create(ann, seats=5, bots="threshold:8", hints=True, options={"pairing": True})
        wait_until(lambda: _solving(proc.proc.pid), "the worker process is solving")
        workers = _solving(proc.proc.pid)
        ann.close()
        proc.proc.terminate()  # SIGTERM
        proc.proc.wait(60)  # far less than the solve's minutes
        # uvicorn shuts down, then ends the process with the signal it caught
        stderr = proc.proc.stderr.read() if proc.proc.stderr else ""
        assert proc.proc.returncode in (0, -signal.SIGTERM), stderr
        wait_until(lambda: all(_gone(w) for w in workers), "the worker process ended with the server")
