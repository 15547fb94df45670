"""No one can take a player's seat away: a crafted seat link, a flood of spectators, a look-alike
name, a second server on the same database file, or a solutions cache that grows without end."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
from chasetheace.web.app import Server
from chasetheace.web.limits import Limits
from chasetheace.web.lock import DatabaseInUseError, DatabaseLock
from chasetheace.web.store import Store
from webtools import LiveServer, create, join, wait_until


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    s = LiveServer(str(tmp_path / "t.sqlite3"))
    yield s
    s.stop()


# --- spectators never push a player off the table -----------------------------------------------

def test_spectators_cause_no_state_messages_to_players_and_rewatching_is_a_no_op(
        server: LiveServer) -> None:
    ann, bob = server.client(), server.client()
    table = create(ann, seats=3, bots="threshold:8")["table"]
    join(bob, table, "Bob")
    ann.send({"type": "start"})
    ann.until(lambda m: m["type"] == "state" and m["game"] is not None)
    bob.until(lambda m: m["type"] == "state" and m["game"] is not None)
    ann.quiet()
    bob.quiet()
    eve = server.client()
    assert eve.request({"type": "watch", "table": table}, "state")["type"] == "state"
    for _ in range(20):
        eve.send({"type": "watch", "table": table})
    got = eve.quiet()  # every re-watch is handled: eve alone hears of it
    assert {m["type"] for m in got} == {"joined", "state"}
    eve.close()
    wait_until(lambda: server.call(lambda: len(server.core.watchers.get(table, ()))) == 2, "eve has gone")
    # whatever the server queued for the players was queued before their pong
    assert ann.quiet() == [] and bob.quiet() == [], "a spectator made the server send players a state"


class _Socket:
    """A stand-in WebSocket: frames in from a queue; ``stuck`` never takes a frame out."""

    def __init__(self, stuck: bool = False) -> None:
        self.stuck = stuck
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.sent: list[dict[str, Any]] = []
        self.headers: dict[str, str] = {}
        self.client = None

    async def accept(self) -> None:
        pass

    async def receive(self) -> dict[str, Any]:
        return await self.inbox.get()

    async def send_text(self, text: str) -> None:
        if self.stuck:
            await asyncio.Event().wait()  # a client on a link that never drains
        self.sent.append(json.loads(text))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        pass

    def say(self, **message: Any) -> None:
        self.inbox.put_nowait({"type": "websocket.receive", "text": json.dumps(message)})


async def _until(condition: Callable[[], object], what: str, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, f"timed out waiting until {what}"
        await asyncio.sleep(0.005)


def _seated(server: Server, table: str, count: int) -> Callable[[], bool]:
    return lambda: len(server.present(server.lobby.tables[table])) == count


def test_a_client_whose_queue_overflowed_is_gone_at_once() -> None:
    async def scenario() -> None:
        server = Server(Store(":memory:"), bot_delay=0.0,
                        limits=Limits(queue=3, absent_grace=0.0, connections_per_client=100))
        ann, bob, cat, dan = _Socket(), _Socket(stuck=True), _Socket(), _Socket()
        tasks = [asyncio.create_task(server.serve(ws)) for ws in (ann, bob, cat, dan)]  # type: ignore[arg-type]
        ann.say(type="create", name="Ann", seats=4, bots=None)
        await _until(lambda: any(m["type"] == "joined" for m in ann.sent), "Ann has a table")
        table = next(m["table"] for m in ann.sent if m["type"] == "joined")
        for ws, name, seated in ((bob, "Bob", 2), (cat, "Cat", 3)):
            ws.say(type="join", table=table, name=name)
            await _until(_seated(server, table, seated), f"{name} sits")
        # the states of Cat's and Dan's joining pile up for Bob, who takes none: his queue overflows
        dan.say(type="join", table=table, name="Dan")
        # gone at once, without a word from him: his seat is absent (his turns would be played)
        await _until(lambda: tasks[1].done(), "Bob's connection has ended")
        t = server.lobby.tables[table]
        assert server.present(t) == {0, 2, 3}
        assert bob.sent == [] and not bob.inbox.qsize()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        server.advisor.close()

    asyncio.run(scenario())


# --- one server per database, whatever name it is given -----------------------------------------

@pytest.mark.parametrize("link", ["symlink", "hardlink", "dotted"])
def test_the_database_lock_is_keyed_on_the_file_not_its_name(tmp_path: Path, link: str) -> None:
    db = tmp_path / "x.sqlite3"
    Store(str(db)).close()
    other = tmp_path / "y.sqlite3"
    if link == "symlink":
        other.symlink_to(db)
    elif link == "hardlink":
        other.hardlink_to(db)
    else:
        (tmp_path / "sub").mkdir()
        other = tmp_path / "sub" / ".." / "x.sqlite3"
    with DatabaseLock(str(db)), pytest.raises(DatabaseInUseError, match="in use by another"):
        DatabaseLock(str(other)).acquire()
    with DatabaseLock(str(other)):  # let go: free again, under either name
        pass


def test_a_running_servers_database_cannot_be_locked_through_a_hard_link(
        server: LiveServer, tmp_path: Path) -> None:
    other = tmp_path / "again.sqlite3"
    other.hardlink_to(server.db)
    with pytest.raises(DatabaseInUseError, match="in use by another"):  # what serve takes first
        DatabaseLock(str(other)).acquire()
    ann = server.client()  # the first server is unharmed
    create(ann)
    ann.close()


# --- the solutions the server keeps in memory are bounded ---------------------------------------

def test_the_servers_solutions_in_memory_are_bounded_least_recently_used_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numpy")
    pytest.importorskip("scipy")
    import chasetheace as cta
    from chasetheace.solver.solutions import cache
    from chasetheace.web.advice import MAX_KEPT_SOLUTIONS, Advisor

    monkeypatch.setattr(cache, "_MEMORY", {})  # solved into this test's folder, not found in memory
    folder = str(tmp_path / "solutions")
    rule_sets = [cta.Rules().replace(lives=n) for n in range(1, MAX_KEPT_SOLUTIONS + 3)]
    limit = cache.MEMORY_LIMIT
    try:
        for rules in rule_sets:  # solved here, once, into the test's own folder (tiny: 2 players)
            cache.solution_for(rules, 2, folder=folder)
        advisor = Advisor(folder)
        for rules in rule_sets:
            assert advisor._solution(rules, 2) is not None
        advisor._solution(rule_sets[-MAX_KEPT_SOLUTIONS], 2)  # used again: kept over the others
        advisor._solution(rule_sets[0], 2)
        kept = [key for key in cache._MEMORY if key[1] == 2]
        assert len(cache._MEMORY) <= MAX_KEPT_SOLUTIONS
        recent = (rule_sets[-MAX_KEPT_SOLUTIONS], rule_sets[0])
        keys = {json.dumps(r.to_dict(), sort_keys=True) for r in recent}
        assert keys <= {key[0] for key in kept}
        advisor.close()
    finally:
        cache.limit_memory(limit)


# --- look-alike names ----------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "code"), [
    ("An\u0578", "name_taken"),  # an Armenian vo for the n
    ("\u0251nn", "name_taken"),  # a Latin alpha
    ("\u13aann", "name_taken"),  # a Cherokee A
    ("\uab7ann", "name_taken"),  # its small letter
    ("\ua4eenn", "name_taken"),  # a Lisu A
    ("\u1d00nn", "name_taken"),  # a small capital A
    ("Ann \u2768you\u2769", "bad_name"),  # reads like the page's own "Ann (you)"
    ("Ann \u27e8you\u27e9", "bad_name"),
    ("Ann \u02c2you\u02c3", "bad_name"),
    ("Ann \u00abyou\u00bb", "bad_name"),
    ("\u3164", "bad_name"),  # a Hangul filler: a name that shows as nothing
    ("\u3164\u3164\u3164", "bad_name"),
    ("Ann\u3164", "bad_name"),
    ("\uffa0", "bad_name"),
    ("Bob\u2800", "bad_name"),  # a Braille blank
])
def test_look_alike_invisible_and_bracketed_names_are_refused(server: LiveServer, name: str,
                                                               code: str) -> None:
    ann, other = server.client(), server.client()
    table = create(ann)["table"]
    msg = other.request({"type": "join", "table": table, "name": name}, "joined")
    assert msg["type"] == "error" and msg["code"] == code, msg
    assert server.count("SELECT COUNT(*) FROM seats WHERE table_id=?", table) == 1
    ann.close()
    other.close()


def test_names_in_other_scripts_still_sit_side_by_side() -> None:
    from chasetheace.web.names import check_name, skeleton

    for name in ("Zo\u00eb", "O'Brien", "O\u2019Brien", "Jean-Luc", "\u674e\u96f7",
                 "\u041e\u043b\u044c\u0433\u0430", "Han"):
        check_name(name, ["Ann", "Bob"])
    assert skeleton("\u0397\u0391\u039d") == skeleton("HAN")  # Greek capitals, not eta read as n


# --- a seat's way back: its recovery code --------------------------------------------------------

def test_a_recovery_code_shown_once_takes_the_seat_back_with_a_new_token(server: LiveServer) -> None:
    ann, bob = server.client(), server.client()
    joined = create(ann, seats=3)
    table, old_token, code = joined["table"], joined["token"], joined["recovery"]
    assert len(code) == 19 and code.count("-") == 3
    assert server.count("SELECT COUNT(*) FROM seats WHERE recovery_hash=? OR token_hash=?", code, code) == 0
    back = bob.request({"type": "recover", "table": table, "code": code.lower().replace("-", " ")}, "joined")
    assert back["type"] == "joined" and back["seat"] == 0 and back["role"] == "player", back
    assert back["token"] != old_token and back["recovery"] != code
    ann.until(lambda m: m["type"] == "error" and m["code"] == "replaced")
    carl = server.client()  # the old token and the old code no longer hold the seat
    old = carl.request({"type": "resume", "table": table, "token": old_token}, "joined")
    assert old["code"] == "bad_token"
    assert carl.request({"type": "recover", "table": table, "code": code}, "joined")["code"] == "bad_recovery"
    assert carl.request({"type": "resume", "table": table, "token": back["token"]}, "joined")["seat"] == 0
    for c in (ann, bob, carl):
        c.close()


def test_wrong_recovery_codes_are_limited_per_address(server: LiveServer) -> None:
    from chasetheace.web.seats import GUESSES

    ann, eve = server.client(), server.client()
    joined = create(ann)
    table = joined["table"]
    for _ in range(GUESSES):
        msg = eve.request({"type": "recover", "table": table, "code": "AAAA-AAAA-AAAA-AAAA"}, "joined")
        assert msg["code"] == "bad_recovery"
    msg = eve.request({"type": "recover", "table": table, "code": joined["recovery"]}, "joined")
    assert msg["type"] == "error" and msg["code"] == "too_many_guesses", msg  # even the right one, now
    ann.close()
    eve.close()


@pytest.mark.parametrize("prefix", ["file:", "FILE:"])
def test_a_second_server_on_a_sqlite_uri_of_the_same_file_is_refused(
        server: LiveServer, prefix: str) -> None:
    import subprocess
    import sys

    # SQLite reads file: names as URIs (to the running server's file), the lock file would not
    done = subprocess.run([sys.executable, "-m", "chasetheace.web", "--port", "0", "--db",
                           prefix + server.db], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done
    assert "is a SQLite URI (file:...)" in done.stderr and done.stderr.count("\n") == 1
    with pytest.raises(ValueError, match="SQLite URI"):
        DatabaseLock(prefix + server.db)
    ann = server.client()  # the first server is unharmed
    create(ann)
    ann.close()


def test_a_file_whose_name_starts_with_file_is_named_as_a_path(tmp_path: Path) -> None:
    db = tmp_path / "file:x.sqlite3"
    with DatabaseLock(f"{tmp_path}/file:x.sqlite3"), pytest.raises(DatabaseInUseError):
        DatabaseLock(str(db)).acquire()
    store = Store(f"{tmp_path}/file:x.sqlite3")
    store.close()
    assert db.exists()
