"""Helpers for the web tests: a live server on loopback in a thread, and a recording client."""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import os
import re
import selectors
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

uvicorn = pytest.importorskip("uvicorn")
pytest.importorskip("starlette")
pytest.importorskip("websockets")

from websockets.exceptions import ConnectionClosed  # noqa: E402
from websockets.sync.client import ClientConnection, connect  # noqa: E402

import helpers  # noqa: E402
from chasetheace.events import event_from_dict  # noqa: E402
from chasetheace.web.app import Server, create_app  # noqa: E402
from chasetheace.web.botkinds import WebBots  # noqa: E402
from chasetheace.web.guards import LOCAL_HOSTS  # noqa: E402
from chasetheace.web.limits import Limits  # noqa: E402
from chasetheace.web.listener import uvicorn_config  # noqa: E402

CARD = re.compile(r'"([A2-9TJQK][cdhs])"')
# the tests' server: one client (127.0.0.1) opens many tables and connections
TEST_LIMITS = Limits(connections_per_client=1000, tables_per_client=100_000, absent_grace=0.05,
                     solves_per_client=100_000,
                     rate_per_client=100_000.0, burst_per_client=100_000.0, http_rate=100_000.0,
                     http_burst=100_000.0)


class LiveServer:
    """A real uvicorn server on 127.0.0.1 (an ephemeral port), running in a thread.

    The socket is bound here (port 0) and handed to uvicorn, so the port cannot be taken by
    anyone else between choosing it and listening on it."""

    def __init__(self, db: str, *, bot_delay: float = 0.0, timer_scale: float = 1.0,
                 limits: Limits | None = None, bots: WebBots | None = None,
                 hosts: tuple[str, ...] = LOCAL_HOSTS, forwarded_allow_ips: str = "127.0.0.1") -> None:
        self.db = db
        self.app = create_app(db, bot_delay=bot_delay, timer_scale=timer_scale,
                              limits=limits or TEST_LIMITS, bots=bots, hosts=hosts)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn_config(self.app, limits or TEST_LIMITS, log_level="warning",
                                forwarded_allow_ips=forwarded_allow_ips)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def core(self) -> Server:
        server: Server = self.app.state.server
        return server

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``fn(*args)`` on the server's event loop (where the server's state lives); its result."""
        done: concurrent.futures.Future[Any] = concurrent.futures.Future()

        def run() -> None:
            try:
                done.set_result(fn(*args))
            except BaseException as exc:  # handed to the test thread
                done.set_exception(exc)

        self.app.state.loop.call_soon_threadsafe(run)
        return done.result(10)

    def client(self, **options: Any) -> Client:
        return Client(self.ws_url, **options)

    def count(self, sql: str, *args: Any) -> int:
        """A number read from the database by a second connection (WAL lets it read alongside)."""
        db = sqlite3.connect(self.db)
        try:
            return int(db.execute(sql, args).fetchone()[0])
        finally:
            db.close()

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


class Client:
    """A WebSocket client that records every message and rebuilds its seat's event history."""

    def __init__(self, url: str, **options: Any) -> None:
        # entered as a context manager, as websockets >= 17 asks; no proxy on loopback
        self.ws: ClientConnection = connect(url, max_size=None, open_timeout=5, proxy=None,
                                            compression=None, **options).__enter__()
        self.log: list[tuple[str, dict[str, Any]]] = []  # (raw text, parsed) of every message
        self.state: dict[str, Any] | None = None
        self.history: list[dict[str, Any]] = []  # this game's events from event number ``base``
        self.base = 0
        self.history_game = -1
        self.fresh = True
        self.seat: int | None = None
        self.table: str | None = None
        self.token: str | None = None
        self.acted: tuple[int, int] | None = None
        self.welcome = self.recv()
        assert self.welcome["type"] == "welcome"

    def send(self, message: dict[str, Any] | str | bytes) -> None:
        self.ws.send(message if isinstance(message, (str, bytes)) else json.dumps(message))

    def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        raw = self.ws.recv(timeout)
        assert isinstance(raw, str)
        msg: dict[str, Any] = json.loads(raw)
        self.log.append((raw, msg))
        if msg["type"] == "state":
            game_no = msg["table"]["game_no"]
            if self.fresh or msg["events_from"] == 0 or game_no != self.history_game:
                # a (re)join: the server sends at most its history cap of past events
                self.history, self.base, self.history_game = [], msg["events_from"], game_no
                self.fresh = False
            assert msg["events_from"] == self.base + len(self.history), "events arrived out of order"
            self.history.extend(msg["events"])
            self.state = msg
        elif msg["type"] == "joined":
            self.fresh = True  # the next state starts this client's history afresh
            self.seat, self.table = msg["seat"], msg["table"]
            self.token = msg.get("token", self.token)
        return msg

    def until(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10.0) -> dict[str, Any]:
        """Receive until a message satisfies ``pred``."""
        end = time.monotonic() + timeout
        while True:
            msg = self.recv(max(0.0, end - time.monotonic()))
            if pred(msg):
                return msg

    def wait_for(self, pred: Callable[[Client], bool], timeout: float = 10.0) -> None:
        """Receive until ``pred(self)`` holds (it is checked first, after everything sent so far
        is in); a TimeoutError after ``timeout`` seconds."""
        self.quiet()
        end = time.monotonic() + timeout
        while not pred(self):
            self.recv(max(0.0, end - time.monotonic()))

    def request(self, message: dict[str, Any] | str | bytes, kind: str) -> dict[str, Any]:
        """Send, then receive until a message of type ``kind`` (or an error) comes."""
        self.send(message)
        return self.until(lambda m: m["type"] in (kind, "error"))

    def pump(self, timeout: float = 0.01) -> None:
        """Take the messages that come within ``timeout`` of each other (a poll in a loop that
        waits for a condition; use :meth:`quiet` to be sure everything sent so far is in)."""
        try:
            while True:
                self.recv(timeout)
        except TimeoutError:
            pass

    def quiet(self) -> list[dict[str, Any]]:
        """Ping and collect everything up to the pong: what the server sent meanwhile."""
        self.send({"type": "ping"})
        got: list[dict[str, Any]] = []
        while True:
            msg = self.recv()
            if msg["type"] == "pong":
                return got
            got.append(msg)

    @property
    def game(self) -> dict[str, Any] | None:
        return None if self.state is None else self.state["game"]

    @property
    def events_seen(self) -> int:
        return self.base + len(self.history)

    @property
    def table_info(self) -> dict[str, Any]:
        """The table part of the latest state (one must have come)."""
        assert self.state is not None, "no state has come yet"
        table: dict[str, Any] = self.state["table"]
        return table

    @property
    def marker(self) -> tuple[int, int]:
        """Where this client is: the table's game number and the events seen (one move at each)."""
        return (self.state["table"]["game_no"] if self.state else 0, self.events_seen)

    def my_turn(self) -> bool:
        game = self.game
        return game is not None and game["to_act"] == self.seat and bool(game["legal"])

    def close(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            self.ws.close()



PROCESS_LIMITS = ["--connections-per-client", "1000", "--tables-per-client", "100000", "--rate-per-client",
                  "100000", "--burst-per-client", "100000", "--http-rate", "100000", "--http-burst", "100000"]
"""A server process's command-line limits high enough that a test's many clients from one address
are never refused."""


def unheard_sql(url: str, text: str, *args: Any) -> Any:
    """One statement on PostgreSQL in a transaction of its own, with no ``NOTIFY`` (as a process
    whose notices nobody hears writes); its first row, if any."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(text.encode(), args)
        return cur.fetchone() if cur.description is not None else None

STATE_WAIT = 30.0
"""Seconds a test waits for the table's state after joining: generous for a loaded machine (once,
under a CI run beside a solver on two cores, a new PostgreSQL process's first state took over 10 s)."""


def create(client: Client, **options: Any) -> dict[str, Any]:
    msg = client.request({"type": "create", "name": options.pop("name", "Ann"), **options}, "joined")
    assert msg["type"] == "joined", msg
    client.until(lambda m: m["type"] == "state", STATE_WAIT)
    return msg


def join(client: Client, table: str, name: str) -> dict[str, Any]:
    msg = client.request({"type": "join", "table": table, "name": name}, "joined")
    assert msg["type"] == "joined", msg
    client.until(lambda m: m["type"] == "state", STATE_WAIT)
    return msg


def wait_until(condition: Callable[[], object], what: str, timeout: float = 10.0) -> None:
    """Poll ``condition`` until it holds; an AssertionError saying ``what`` was awaited after
    ``timeout`` seconds (a generous deadline: a slow machine waits longer, it does not fail)."""
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, f"timed out waiting until {what}"
        time.sleep(0.01)


def game_on(number: int) -> Callable[[dict[str, Any]], bool]:
    """For :meth:`Client.until`: the table's state once its game ``number`` is on."""
    return lambda m: m["type"] == "state" and m["table"]["game_no"] == number


def play_to_end(clients: list[Client], choose: Callable[[Client], str] | None = None,
                limit: float = 60.0, stop: Callable[[], bool] | None = None) -> None:
    """Every client plays its turns (threshold 8 by default) until every client sees the game over."""
    end = time.monotonic() + limit
    while True:
        for c in clients:
            c.pump(0.002)
        if all(c.game is not None and c.game["over"] for c in clients):
            return
        if stop is not None and stop():
            return
        assert time.monotonic() < end, "the game did not finish in time"
        for c in clients:
            if c.my_turn() and c.acted != c.marker:
                c.acted = c.marker
                c.send({"type": "act", "action": (choose or threshold)(c)})


def finish_together(clients: list[Client]) -> None:
    """Play the game to its end (:func:`play_to_end`), check every client saw the same last event,
    and close them: the end of a test whose clients sit on several processes."""
    play_to_end(clients)
    for c in clients:
        c.wait_for(lambda c: c.game is not None and c.game["over"])
    assert all(c.history[-1] == clients[0].history[-1] for c in clients)
    for c in clients:
        c.close()


def threshold(client: Client) -> str:
    game = client.game
    assert game is not None and game["card"] is not None
    rank = "A23456789TJQK".index(game["card"][0]) + 1
    return "swap" if rank < 8 else "keep"


def known_cards(events: list[dict[str, Any]], seat: int | None) -> set[str]:
    """The cards ``seat`` may know after ``events`` (a record's event dicts; a spectator: seat
    None), by the tests' one knowledge check, independent of the engine's views."""
    return helpers.known_cards([event_from_dict(ev) for ev in events], seat)


def move_socket(old: Client, ws_url: str) -> Client:
    """What the page does after a create, a join or a watch (``moveSocket`` in app.js): a second
    socket on the table's address (``ws_url?table=ID``, what a proxy hashes to the table's
    process) resumes the seat with its token (a spectator watches); once it has the seat there, the
    first socket is let go (a player's read up to the ``replaced`` the server tells it, so that
    everything it was sent is in its log)."""
    assert old.table is not None
    new = Client(f"{ws_url}?table={old.table}")
    if old.seat is None:
        answer = new.request({"type": "watch", "table": old.table}, "joined")
        assert answer["type"] == "joined" and answer["role"] == "spectator", answer
        old.quiet()
    else:
        assert old.token is not None
        answer = new.request({"type": "resume", "table": old.table, "token": old.token}, "joined")
        assert answer["type"] == "joined" and answer["seat"] == old.seat, answer
        new.token = old.token
        old.until(lambda m: m["type"] == "error" and m["code"] == "replaced", timeout=15)
    old.close()
    return new


def play_with_moved_sockets(first: Callable[[], Client], ws_url: str, http_url: str) -> None:
    """A game of two people and two bots, watched by a spectator, where each page moves its socket
    (:func:`move_socket`): Ann (creator) with her start on its way, Bob and the spectator in the
    middle of the game. Their first sockets come from ``first``, the table's from ``ws_url``. No
    message on any of the six sockets carries a card its seat may not know (another's unshown
    card, a stock card), by the tests' own knowledge check on the finished game's record (read at
    ``http_url``)."""
    import httpx

    ann1 = first()
    table = create(ann1, seats=4, bots="counting", options={"lives": 2})["table"]
    bob1, cy1 = first(), first()
    join(bob1, table, "Bob")
    assert cy1.request({"type": "watch", "table": table}, "joined")["role"] == "spectator"
    ann1.wait_for(lambda c: c.table_info["seats"][1]["name"] == "Bob")
    ann1.send({"type": "start"})  # the start on its way while the page moves
    ann2 = move_socket(ann1, ws_url)
    bob1.until(lambda m: m["type"] == "state" and m["game"] is not None)
    started = bob1.events_seen
    play_to_end([ann2, bob1], stop=lambda: bob1.events_seen > started + 3)
    bob2 = move_socket(bob1, ws_url)  # mid-game: bots and Ann play on meanwhile
    cy2 = move_socket(cy1, ws_url)
    play_to_end([ann2, bob2, cy2], limit=120)
    answer = httpx.get(f"{http_url}/api/record/{table}/1", timeout=10)
    assert answer.status_code == 200, answer.text
    events = answer.json()["events"]
    for c in (ann1, ann2, bob1, bob2, cy1, cy2):
        states = 0
        for raw, msg in c.log:
            if msg["type"] == "state" and msg["game"] is not None and msg["table"]["game_no"] == 1:
                states += 1
                upto = msg["events_from"] + len(msg["events"])
                leaked = set(CARD.findall(raw)) - known_cards(events[:upto], c.seat)
                assert not leaked, f"seat {c.seat} was sent {leaked} at event {upto}: {raw}"
            else:
                assert not CARD.findall(raw), raw
        assert states > 0 or c is ann1  # (Ann's first socket may go before the game's first state)
    for c in (ann2, bob2, cy2):
        c.close()


class ServerProcess:
    """``python -m chasetheace.web`` as a child process on loopback, on the database ``db`` (a SQLite
    path or a PostgreSQL URL). It binds port 0 itself (so no other process can take the port between
    its choice and its use) and prints the port; ready once its health check answers. ``wait`` is a
    deadline against a hang: on a loaded machine a process can take tens of seconds to start."""

    def __init__(self, db: str, *extra: str, bot_delay: float = 0.0, wait: float = 30.0,
                 env: dict[str, str] | None = None) -> None:
        import httpx

        self._httpx = httpx
        argv = ["--port", "0", "--db", db, "--bot-delay", str(bot_delay), *extra]
        self.proc = subprocess.Popen([sys.executable, "-m", "chasetheace.web", *argv],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=None if env is None else {**os.environ, **env})
        assert self.proc.stdout is not None
        line = ""
        with selectors.DefaultSelector() as sel:  # wait for the line
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            if sel.select(wait):
                line = self.proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, (line, self.proc.poll(), self.proc.stderr.read() if self.proc.poll() is not None
                       and self.proc.stderr else "")
        self.port = int(found.group(1))
        deadline = time.monotonic() + wait
        while True:  # listening already; wait until the app has started (its lifespan ran)
            assert self.proc.poll() is None, self.proc.stderr.read() if self.proc.stderr else ""
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)

    def client(self) -> Client:
        return Client(f"ws://127.0.0.1:{self.port}/ws")

    def health(self) -> dict[str, Any]:
        answer: dict[str, Any] = self._httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=5).json()
        return answer

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)  # no chance to clean up: as in a crash
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


@contextlib.contextmanager
def server_processes() -> Iterator[list[ServerProcess]]:
    """The child-process servers a test starts (append them): killed at the end if still running."""
    procs: list[ServerProcess] = []
    yield procs
    for p in procs:
        if p.proc.poll() is None:
            p.kill()


def resume(proc: ServerProcess, table: str, token: str | None) -> Client:
    """A new client of ``proc`` resuming ``token``'s seat at ``table``, once it has the state."""
    c = proc.client()
    answer = c.request({"type": "resume", "table": table, "token": token}, "joined")
    assert answer["type"] == "joined", answer
    c.until(lambda m: m["type"] == "state")
    return c


def swap_until(clients: list[Client], done: Callable[[int], bool], timeout: float,
               what: str = "the game did not get going") -> None:
    """Each client swaps on its turn until ``done(swaps made)`` holds, within ``timeout`` seconds."""
    acted, deadline = 0, time.monotonic() + timeout
    while not done(acted):
        for c in clients:
            c.pump(0.01)
            if c.my_turn() and c.acted != c.marker:
                c.acted = c.marker
                c.send({"type": "act", "action": "swap"})
                acted += 1
        assert time.monotonic() < deadline, what
