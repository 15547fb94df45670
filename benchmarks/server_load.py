"""Load benchmark of the web table: many tables of WebSocket players (and bots) on loopback.

Starts ``python -m chasetheace.web`` on 127.0.0.1 with a fresh database in a temporary folder,
connects ``--tables x --seats`` players (less ``--bots`` per table, which the server plays), has
every table play game after game for ``--duration`` seconds, each person acting ``--think``
seconds after its turn comes, then stops by itself. Prints the connected players held, actions
per second, and the latency from an action being sent to every client at that table having
received the update it caused (p50/p90/p99/max). Actions per second counts the players' actions;
the bots' moves come on top.

    python benchmarks/server_load.py                          # 200 tables of 5: 1,000 players
    python benchmarks/server_load.py --tables 20 --duration 5 # a quick look
    python benchmarks/server_load.py --processes 3 --db postgresql://postgres@127.0.0.1:5432/load
    python benchmarks/server_load.py --processes 3 --db postgresql://... --rolling-restart

With ``--db postgresql://...`` (an empty database, or one of this benchmark's earlier runs) it
starts ``--processes`` server processes on it; the players of each table are spread over them
(player i of table t on process (t + i) mod N), so most moves cross processes, and the latency
of those deliveries (an action sent to one process, the update received from another) is shown
apart. With ``--route table`` all of a table's players are on one process instead, chosen by a
hash of the table id, as a proxy hashing on the socket's ``?table=`` sends them (the creator,
whose socket had no table yet, opens it again on the table's route and resumes its seat); with
``--route page`` as the page does: the creator's first socket reaches any process, and as soon as
the table is created the creator opens another on the table's route, resumes its seat there and
then closes the first (before the others join, without waiting for anything); ``--route stay``
as the page did before it moved its socket: the creator stays on the process its first socket
reached and only the others (come by the invite link) are on the table's.
``--rolling-restart`` stops the processes one by one during the run (SIGTERM, as a deploy does)
and starts each again; their players reconnect to another process and resume their
seats, sending an unanswered act again with its ``act_id``. At the end every table is checked
against the database: no move a player saw is missing (lost moves), and tables that made no
move in the last seconds of the run are counted as stuck.

It prints the servers' **CPU seconds per action** (their CPU time over the players' actions:
what a set-up costs whatever else runs on the machine) and, on PostgreSQL, apart, the CPU of the
PostgreSQL server's own processes when it runs on this machine (read from /proc: its postmaster
and every child, other databases' work included), and how many times the processes read a table
from the database per move they applied from a notification (``/healthz`` counters). ``--hog N``
starts N busy processes beside the servers for the run (a machine shared with other work).
``--compare`` runs one process on a new SQLite file first, then ``--processes`` on ``--db``, with
the same load, and prints them side by side with the ratio of their CPU per action, and whether
the goals are met (at most 1.5 times one SQLite process's CPU per action; with ``--hog``, a p99
no worse than one SQLite process's):

    python benchmarks/server_load.py --compare --processes 3 --db postgresql://... [--hog 2]

``--trace`` shows where a move's time goes: each server stamps every person's move as its frame
is read, its save sent, the save answered (the commit) and every update queued
(``chasetheace.web.movetrace``, on by the environment variable ``CTA_MOVE_TRACE`` that the
benchmark sets), on the machine's monotonic clock, which the load generator's own stamps (the act
sent, the update received by the mover and by the table's last client) share; it prints each
hop's p50 and p99 and its mean over the slowest 1 % of moves. ``--sqlite-full`` (with
``--compare``) adds a row for comparison only: one SQLite process whose every commit is flushed to
disk (``synchronous=FULL``, the promise of PostgreSQL's default ``synchronous_commit``), made
on its event loop, which waits for each flush; the goals are still judged against SQLite's
default (``synchronous=NORMAL``).

Only loopback is used; every loop is bounded by ``--duration`` and the connection count.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

HOST = "127.0.0.1"


@dataclass
class Pending:
    """An action waiting for every client at its table to hear of it."""

    game_no: int
    marker: int  # events the actor had seen when it acted
    sent: float
    waiting: set[int]
    process: int = 0  # the process the actor is connected to
    act_id: str | None = None
    actor: int = -1  # the acting client's number
    actor_at: float = 0.0  # when the actor itself received the update (perf_counter)


@dataclass
class TableRun:
    """One table's players and the actions in flight."""

    index: int
    clients: list[Player] = field(default_factory=list)
    pending: list[Pending] = field(default_factory=list)
    table_id: str = ""
    moved: float = 0.0  # when a client last saw a new event (monotonic)


class Bench:
    """Shared counters of one run."""

    def __init__(self, think: float, until: float) -> None:
        self.think, self.until = think, until
        self.latencies: list[float] = []
        self.actions = 0
        self.messages = 0
        self.games = 0
        self.errors: list[str] = []
        self.rng = random.Random(1)
        self.tasks: set[asyncio.Future[Any]] = set()
        self.cross: list[float] = []  # deliveries from another process than the actor's
        self.ports: dict[int, int | None] = {}  # process index -> port (None while restarting)
        self.reconnects: list[float] = []  # seconds from a dropped connection to the seat resumed
        self.retried = 0  # acts sent again (same act_id) after a reconnection
        self.db = ""  # the database's URL
        self.done: list[tuple[str, float, float, float]] = []  # act_id, sent, actor's update, last update

    def spawn(self, coro: Any) -> None:
        """Run a coroutine in the background, keeping a reference until it is done."""
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


class Player:
    """One WebSocket client holding one seat."""

    def __init__(self, bench: Bench, run: TableRun, ws: ClientConnection, number: int, process: int) -> None:
        self.bench, self.run, self.ws, self.number, self.process = bench, run, ws, number, process
        self.seat: int | None = None
        self.seen = 0
        self.game_no = 0
        self.acted: tuple[int, int] | None = None
        self.joined = asyncio.Event()
        self.open = True
        self.token: str | None = None
        self.best = (0, 0)  # the furthest (game, events) this player saw
        self.dropped: float | None = None
        self.unanswered: dict[str, Any] | None = None  # the last act sent, till an update answers it

    async def reader(self) -> None:
        while True:
            try:
                async for raw in self.ws:
                    self.bench.messages += 1
                    self.handle(json.loads(raw))
            except Exception as exc:  # a dropped connection is counted, not fatal
                if self.bench.ports.get(self.process) is not None and "1012" not in str(exc):
                    self.bench.errors.append(f"client {self.number}: {exc!r}")
            if time.monotonic() > self.bench.until or self.token is None or not self.bench.ports:
                break
            if not await self.reconnect():
                break
        self.open = False

    async def reconnect(self) -> bool:
        """The process went away (a restart): resume the seat on another process."""
        self.open, self.dropped = False, time.monotonic()
        for attempt in range(40):
            live = [i for i, port in self.bench.ports.items() if port is not None and i != self.process]
            live = live or [i for i, port in self.bench.ports.items() if port is not None]
            if live:
                index = live[(self.number + attempt) % len(live)]
                try:
                    self.ws = await connect(socket_url(self.bench.ports[index], self.run.table_id),
                                            max_size=None, compression=None, open_timeout=10, proxy=None,
                                            ping_interval=None)
                    self.acted = None  # act again if the turn is still ours (the same act_id: applied once)
                    await self.ws.send(json.dumps({"type": "resume", "table": self.run.table_id,
                                                   "token": self.token}))
                except Exception:  # refused, closed, or too slow while it takes over many players
                    await asyncio.sleep(0.1)
                    continue
                self.process, self.open = index, True
                return True
            await asyncio.sleep(0.25)
        self.bench.errors.append(f"client {self.number}: gave up reconnecting")
        return False

    def handle(self, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        if kind == "joined":
            self.seat = msg["seat"]
            self.run.table_id = msg["table"]
            self.token = msg.get("token", self.token)
            self.joined.set()
        elif kind == "error":
            self.bench.errors.append(f"client {self.number}: {msg['code']}: {msg['message']}")
        elif kind == "state":
            self.on_state(msg)

    def on_state(self, msg: dict[str, Any]) -> None:
        now = time.perf_counter()
        game_no = msg["table"]["game_no"]
        total = msg["events_from"] + len(msg["events"])
        self.game_no, self.seen = game_no, total
        run = self.run
        if (game_no, total) > self.best:
            self.best = (game_no, total)
            run.moved = time.monotonic()
        if self.dropped is not None:
            self.bench.reconnects.append(time.monotonic() - self.dropped)
            self.dropped = None
        for p in run.pending:
            if self.number in p.waiting and (game_no > p.game_no or total > p.marker):
                p.waiting.discard(self.number)
                if p.process != self.process:
                    self.bench.cross.append(now - p.sent)
                if self.number == p.actor:
                    p.actor_at = now
                if not p.waiting:
                    self.bench.latencies.append(now - p.sent)
                    if p.act_id is not None and p.actor_at:
                        self.bench.done.append((p.act_id, p.sent, p.actor_at, now))
        run.pending = [p for p in run.pending if p.waiting]
        game = msg["game"]
        if game is None or time.monotonic() > self.bench.until:
            return
        if game["over"]:
            if self.seat == 0 and self.acted != (game_no, -1):
                self.acted = (game_no, -1)
                self.bench.games += 1
                asyncio.get_running_loop().call_later(self.bench.think, self.send, {"type": "rematch"}, None)
            return
        if game["to_act"] == self.seat and game["legal"] and self.acted != (game_no, total):
            self.acted = (game_no, total)
            action = "swap" if "A23456".find(game["card"][0]) >= 0 else "keep"
            delay = self.bench.think * (0.5 + self.bench.rng.random())
            act = {"type": "act", "action": action, "act_id": f"{self.number}-{game_no}-{total}"}
            if self.unanswered is not None and self.unanswered["act_id"] == act["act_id"]:
                self.bench.retried += 1  # sent before a reconnection, unanswered: again, at once
                delay = 0.0
            self.unanswered = act
            asyncio.get_running_loop().call_later(delay, self.send, act, (game_no, total))

    def send(self, message: dict[str, Any], marker: tuple[int, int] | None) -> None:
        if not self.open or time.monotonic() > self.bench.until:
            return
        if marker is not None:
            waiting = {c.number for c in self.run.clients if c.open}
            self.run.pending.append(Pending(marker[0], marker[1], time.perf_counter(), waiting, self.process,
                                            message.get("act_id"), self.number))
            self.bench.actions += 1
        self.bench.spawn(self._send(json.dumps(message)))

    async def _send(self, text: str) -> None:
        with contextlib.suppress(Exception):  # a connection closing meanwhile: it resumes and acts again
            await self.ws.send(text)


def rss_mb(pid: int) -> float:
    """The resident memory of a process, in MB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def health_counts(ports: list[int]) -> dict[int, dict[str, int]]:
    """The cluster counters of ``/healthz`` of each process, by port (none on SQLite); a process
    that does not answer (a 503 while its database is away included) is left out."""
    found: dict[int, dict[str, int]] = {}
    for port in ports:
        with contextlib.suppress(OSError, ValueError):
            answer = json.loads(urllib.request.urlopen(f"http://{HOST}:{port}/healthz", timeout=10).read())
            if answer.get("cluster"):
                found[port] = {key: int(value) for key, value in answer["cluster"].items()}
    return found


def start_hogs(count: int) -> list[subprocess.Popen[bytes]]:
    """``count`` processes that keep one core busy each (until stopped)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def _stat(pid: int) -> list[str]:
    """The fields of ``/proc/PID/stat`` after the command's name (state first, then the parent)."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def nice_of(pid: int) -> int:
    """A process's nice level (``/proc/PID/stat``)."""
    return int(_stat(pid)[16])


def autogroup() -> bool | None:
    """Whether the kernel schedules by session (``sched_autogroup_enabled``; None where it cannot
    tell). When it does, nice levels order processes only within one session: a busy program
    started from another terminal (or with ``setsid``) takes a whole share beside everything this
    benchmark starts, whatever its nice level."""
    try:
        with open("/proc/sys/kernel/sched_autogroup_enabled") as f:
            return f.read().strip() == "1"
    except OSError:
        return None


def wakeups(pid: int) -> int:
    """How many times the threads of a process went to sleep and were woken since they started
    (their voluntary context switches, ``/proc/PID/task/*/status``; 0 if unreadable)."""
    total = 0
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches:"):
                        total += int(line.split()[1])
    return total


def cpu_seconds(pid: int) -> float:
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class DatabaseServer:
    """The CPU time of the PostgreSQL server behind a URL when it runs on this machine: its
    postmaster (the parent of this benchmark's own backend), with what its exited children
    used, and its live children (every backend, whatever database it serves, and PostgreSQL's
    own workers). None when it cannot be read (another machine, no /proc)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.postmaster: int | None = None
        # what a new session on the database has (a setting made for the database or the role
        # included): whether a commit waits for its WAL to be flushed to disk
        self.settings: dict[str, str] = {}
        with contextlib.suppress(Exception):
            import psycopg

            with psycopg.connect(url, connect_timeout=5) as conn:
                for name in ("synchronous_commit", "fsync", "wal_sync_method", "track_wal_io_timing"):
                    row = conn.execute(f"SHOW {name}").fetchone()
                    self.settings[name] = str(row[0]) if row is not None else "?"
                row = conn.execute("SELECT pg_backend_pid()").fetchone()
                backend = int(row[0]) if row is not None else 0
                parent = int(_stat(backend)[1])
                if all(_comm(pid) in ("postgres", "postmaster") for pid in (backend, parent)):
                    self.postmaster = parent

    def nice(self) -> int | None:
        """The nice level of the PostgreSQL server (its postmaster), if on this machine."""
        return None if self.postmaster is None else nice_of(self.postmaster)

    def wal_syncs(self) -> tuple[int, float] | None:
        """PostgreSQL's count of WAL flushes to disk so far and the milliseconds they took (0
        unless ``track_wal_io_timing`` is on), for every database of the server; None if unread."""
        with contextlib.suppress(Exception):
            import psycopg

            with psycopg.connect(self.url, connect_timeout=5) as conn:
                row = conn.execute("SELECT wal_sync, wal_sync_time FROM pg_stat_wal").fetchone()
                if row is not None:
                    return int(row[0]), float(row[1])
        return None

    def cpu(self) -> float | None:
        """CPU seconds used so far by the server's processes (None if not readable)."""
        if self.postmaster is None:
            return None
        try:
            main = _stat(self.postmaster)
        except OSError:
            return None
        ticks = sum(int(main[i]) for i in (11, 12, 13, 14))  # its own and its exited children's
        for entry in os.listdir("/proc"):
            if entry.isdecimal():
                with contextlib.suppress(OSError, IndexError, ValueError):
                    fields = _stat(int(entry))
                    if int(fields[1]) == self.postmaster:
                        ticks += int(fields[11]) + int(fields[12])
        return ticks / os.sysconf("SC_CLK_TCK")

    def wakeups(self) -> int | None:
        """The wake-ups so far (:func:`wakeups`) of the server's live processes (None if unread)."""
        if self.postmaster is None:
            return None
        total = wakeups(self.postmaster)
        for entry in os.listdir("/proc"):
            if entry.isdecimal():
                with contextlib.suppress(OSError, IndexError, ValueError):
                    if int(_stat(int(entry))[1]) == self.postmaster:
                        total += wakeups(int(entry))
        return total


def _comm(pid: int) -> str:
    with open(f"/proc/{pid}/comm") as f:
        return f.read().strip()


def socket_url(port: int | None, table_id: str) -> str:
    """The socket's address as the page opens it: ``/ws``, with ``?table=`` once the table is known
    (what a proxy hashes on to send a table's players to one process; the server ignores it)."""
    return f"ws://{HOST}:{port}/ws" + (f"?table={table_id}" if table_id else "")


def home(table_id: str, processes: int) -> int:
    """The process a proxy hashing on the table id sends the table's players to (any stable hash)."""
    return zlib.crc32(table_id.encode()) % processes


async def open_socket(port: int | None, table_id: str) -> ClientConnection:
    return await connect(socket_url(port, table_id), max_size=None, compression=None, open_timeout=30,
                         proxy=None, ping_interval=None)


def adopt(bench: Bench, run: TableRun, ws: ClientConnection, number: int, process: int) -> Player:
    player = Player(bench, run, ws, number, process)
    run.clients.append(player)
    bench.spawn(player.reader())
    return player


async def open_player(bench: Bench, run: TableRun, process: int, number: int) -> Player:
    return adopt(bench, run, await open_socket(bench.ports[process], run.table_id), number, process)


async def create_table(bench: Bench, run: TableRun, process: int, number: int,
                       create: str) -> tuple[ClientConnection, dict[str, Any]]:
    """The creator's socket, with ``--route table``: opened without a table (a proxy sends it
    anywhere: here ``process``), the table created: the socket and the ``joined`` answer."""
    ws = await open_socket(bench.ports[process], "")
    await ws.send(create)
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
        if msg["type"] == "error":
            raise RuntimeError(f"create refused: {msg['code']}: {msg['message']}")
        if msg["type"] == "joined":
            run.table_id = msg["table"]
            return ws, msg


async def rehome(bench: Bench, run: TableRun, ws: ClientConnection, joined: dict[str, Any], process: int,
                 number: int) -> None:
    """The creator on the table's home: its first socket kept if it reached it already, else
    closed and opened again on the table's route, the seat resumed with its token. Done once the
    others have joined there, so the presence its first process announced is long heard (a late
    one would take the seat back from the resumed socket)."""
    target = home(run.table_id, len(bench.ports))
    if target == process:
        adopt(bench, run, ws, number, process).handle(joined)
        return
    for _ in range(300):  # the first process's word that the seat is taken there is out (its writer
        if await asyncio.to_thread(announced, bench.db, run.table_id):  # thread may lag under load)
            break
        await asyncio.sleep(0.05)
    await ws.close()
    creator = await open_player(bench, run, target, number)
    await creator.ws.send(json.dumps({"type": "resume", "table": run.table_id, "token": joined["token"]}))
    await asyncio.wait_for(creator.joined.wait(), 30)


async def move_at_once(bench: Bench, run: TableRun, ws: ClientConnection, joined: dict[str, Any],
                       process: int, number: int) -> None:
    """The creator as the page moves it: at once, a second socket on the table's route resumes the
    seat, and the first is closed once the second has it (its first socket kept if it reached the
    table's process already)."""
    target = home(run.table_id, len(bench.ports))
    if target == process:
        adopt(bench, run, ws, number, process).handle(joined)
        return
    creator = await open_player(bench, run, target, number)
    await creator.ws.send(json.dumps({"type": "resume", "table": run.table_id, "token": joined["token"]}))
    await asyncio.wait_for(creator.joined.wait(), 30)
    await ws.close()


async def seat_table(bench: Bench, run: TableRun, humans: int, seats: int, route: str) -> None:
    n = len(bench.ports)
    bots = "threshold:8" if humans < seats else None
    create = json.dumps({"type": "create", "name": "P0", "seats": seats, "bots": bots})
    if route in ("table", "page"):  # the creator's socket has no table: a proxy sends it anywhere
        ws, joined = await create_table(bench, run, run.index % n, run.index * seats, create)
        if route == "page":
            await move_at_once(bench, run, ws, joined, run.index % n, run.index * seats)
    else:
        creator = await open_player(bench, run, run.index % n, run.index * seats)
        await creator.ws.send(create)
        await asyncio.wait_for(creator.joined.wait(), 30)
    for i in range(1, humans):
        process = (run.index + i) % n if route == "spread" else home(run.table_id, n)
        p = await open_player(bench, run, process, run.index * seats + i)
        await p.ws.send(json.dumps({"type": "join", "table": run.table_id, "name": f"P{i}"}))
        await asyncio.wait_for(p.joined.wait(), 30)
    if route == "table":
        await rehome(bench, run, ws, joined, run.index % n, run.index * seats)
    run.clients.sort(key=lambda c: c.number)  # the creator first: it starts the games


def launch_server(db: str, *options: str,
                  env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], int]:
    """``python -m chasetheace.web`` on ``db`` with ``options``, ready: the process and its port.
    Port 0: the server binds a free port itself and prints it (no race for a port chosen here).
    ``env``: more environment variables (``CTA_MOVE_TRACE``: a file where the process writes its
    moves' timestamps; ``CTA_SQLITE_SYNCHRONOUS``)."""
    env = None if not env else {**os.environ, **env}
    proc = subprocess.Popen([sys.executable, "-m", "chasetheace.web", "--host", HOST, "--port", "0",
                             "--db", db, "--log-level", "error", *options],
                            stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    found = re.search(r":(\d+)/", proc.stdout.readline())
    if found is None:
        raise SystemExit("a server did not start")
    port = int(found.group(1))
    for _ in range(400):
        try:
            urllib.request.urlopen(f"http://{HOST}:{port}/healthz", timeout=1).read()
            break
        except OSError:
            time.sleep(0.05)
    return proc, port


def start_server(db: str, many: str, bot_delay: float = 0.0,
                 env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], int]:
    """The load's server on ``db``, ready: one load generator is one client address, so the
    per-client limits are raised to ``many``."""
    return launch_server(db, "--bot-delay", str(bot_delay), "--connections-per-client", many,
                         "--connections", many, "--tables-per-client", many,
                         "--rate-per-client", many, "--burst-per-client", many,
                         "--http-rate", many, "--http-burst", many, env=env)


class Servers:
    """The server processes of a run, each restartable on the same database."""

    def __init__(self, db: str, count: int, many: str, trace: str | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.db, self.many = db, many
        self.trace = trace  # a folder for the processes' move timestamps (``--trace``)
        self.env = env or {}
        self.started = 0
        self.procs: list[subprocess.Popen[str]] = []
        self.ports: list[int] = []
        self.restarts: list[float] = []  # seconds from SIGTERM to the new process answering
        self.retired_cpu = 0.0  # CPU seconds of the processes stopped during the run
        self.kill = False  # restart with SIGKILL instead of SIGTERM
        for _ in range(count):
            proc, port = self.start()
            self.procs.append(proc)
            self.ports.append(port)

    def start(self) -> tuple[subprocess.Popen[str], int]:
        self.started += 1
        env = dict(self.env)
        if self.trace is not None:
            env["CTA_MOVE_TRACE"] = os.path.join(self.trace, f"{self.started}.trace")
        return start_server(self.db, self.many, env=env)

    def stop_all(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()

    def _total(self, measure: Callable[[int], float]) -> float:
        """``measure`` (of a process id) summed over the servers still running."""
        total = 0.0
        for proc in self.procs:
            with contextlib.suppress(OSError):
                total += measure(proc.pid)
        return total

    def cpu(self) -> float:
        return self._total(cpu_seconds)

    def wakeups(self) -> float:
        return self._total(wakeups)

    def rss(self) -> float:
        return self._total(rss_mb)


async def rolling_restart(bench: Bench, servers: Servers, duration: float) -> None:
    """Restart the processes one by one, evenly spread over the first half of the run (the rest
    shows that every table plays on)."""
    n = len(servers.procs)
    for i in range(n):
        await asyncio.sleep(duration / 2 / n)
        t0 = time.monotonic()
        bench.ports[i] = None  # its players reconnect to the others
        old = servers.procs[i]
        cpu_before = cpu_seconds(old.pid)
        if servers.kill:
            old.kill()  # as in a crash: no goodbye, its leases run out
        else:
            old.terminate()
        await asyncio.to_thread(old.wait, 30)
        servers.retired_cpu += cpu_before
        proc, port = await asyncio.to_thread(servers.start)
        servers.procs[i] = proc
        bench.ports[i] = port
        servers.restarts.append(time.monotonic() - t0)


def announced(db: str, table_id: str) -> bool:
    """Whether a process has said in the database that a person sits at seat 0 of the table."""
    import psycopg

    with psycopg.connect(db) as conn:
        return conn.execute("SELECT 1 FROM presence WHERE table_id = %s AND seat = 0",
                            (table_id,)).fetchone() is not None


def stored_events(db: str, table_id: str, game_no: int) -> int:
    """How many events the database holds for a table's game (deal and every saved move)."""
    if db.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(db) as conn:
            deal = conn.execute("SELECT events FROM games WHERE table_id=%s AND game_no=%s",
                                (table_id, game_no)).fetchone()
            moves = conn.execute("SELECT events FROM actions WHERE table_id=%s AND game_no=%s",
                                 (table_id, game_no)).fetchall()
    else:
        import sqlite3

        con = sqlite3.connect(db)
        try:
            deal = con.execute("SELECT events FROM games WHERE table_id=? AND game_no=?",
                               (table_id, game_no)).fetchone()
            moves = con.execute("SELECT events FROM actions WHERE table_id=? AND game_no=?",
                                (table_id, game_no)).fetchall()
        finally:
            con.close()
    if deal is None:
        return -1
    return len(json.loads(deal[0])) + sum(len(json.loads(m[0])) for m in moves)


async def main_async(args: argparse.Namespace, servers: Servers,
                     hogs: list[subprocess.Popen[bytes]]) -> dict[str, Any]:
    bench = Bench(args.think, float("inf"))
    args.done = bench.done
    bench.ports = dict(enumerate(servers.ports))
    bench.db = args.db
    runs = [TableRun(i) for i in range(args.tables)]
    humans = args.seats - args.bots
    t0 = time.perf_counter()
    for start in range(0, len(runs), 25):  # seat the tables 25 at a time
        await asyncio.gather(*(seat_table(bench, r, humans, args.seats, args.route)
                               for r in runs[start:start + 25]))
    connect_s = time.perf_counter() - t0
    connected = sum(1 for r in runs for c in r.clients if c.open)
    counts0 = await asyncio.to_thread(health_counts, servers.ports)
    database = DatabaseServer(args.db) if args.db.startswith("postgresql://") else None
    db0 = None if database is None else database.cpu()
    woke0 = None if database is None else database.wakeups()
    wal0 = None if database is None else await asyncio.to_thread(database.wal_syncs)
    cpu0, wall0, mine0 = servers.cpu(), time.perf_counter(), time.process_time()
    waking0 = servers.wakeups()
    servers.retired_cpu = 0.0
    bench.until = time.monotonic() + args.duration
    for r in runs:
        asyncio.get_running_loop().call_later(bench.rng.random() * args.think, r.clients[0].send,
                                              {"type": "start"}, None)
    if args.rolling_restart:
        bench.spawn(rolling_restart(bench, servers, args.duration))
    await asyncio.sleep(args.duration)
    held = sum(1 for r in runs for c in r.clients if c.open)
    measured = time.perf_counter() - wall0
    cpu = servers.cpu() + servers.retired_cpu - cpu0
    waking = servers.wakeups() - waking0  # (a process restarted meanwhile makes this meaningless)
    db1 = None if database is None else database.cpu()
    woke1 = None if database is None else database.wakeups()
    db_woke = None if woke0 is None or woke1 is None else woke1 - woke0
    db_cpu = None if db0 is None or db1 is None else db1 - db0
    wal1 = None if database is None else await asyncio.to_thread(database.wal_syncs)
    wal = None if wal0 is None or wal1 is None else (wal1[0] - wal0[0], wal1[1] - wal0[1])
    mine = time.process_time() - mine0
    rss = servers.rss()
    counts1 = await asyncio.to_thread(health_counts, servers.ports)
    counts: dict[str, int] = {}
    for port in counts0.keys() & counts1.keys():  # the processes that answered before and after
        for key, value in counts1[port].items():
            counts[key] = counts.get(key, 0) + value - counts0[port].get(key, 0)
    ended = time.monotonic()
    await asyncio.sleep(0.5)  # let the last updates land
    ports, bench.ports = bench.ports, {}
    for r in runs:
        for c in r.clients:
            await c.ws.close()
    bench.ports = ports
    # every move a player saw is in the database; a table with no move in the last seconds is stuck
    lost = 0
    for r in runs:
        best = max(c.best for c in r.clients)
        if best[0] > 0 and await asyncio.to_thread(stored_events, args.db, r.table_id, best[0]) < best[1]:
            lost += 1
    quiet = min(5.0, args.duration / 3)
    stuck = sum(1 for r in runs if r.moved < ended - quiet)
    lat = sorted(bench.latencies)
    cross = sorted(bench.cross)
    back = sorted(bench.reconnects)

    sqlite_promise = "sqlite: WAL, " + (
        "synchronous=FULL (a flush to disk at every commit, on the event loop)" if args.synchronous_full
        else "synchronous=NORMAL (no flush to disk at commit)")

    def pct(q: float, values: list[float] = lat) -> float:
        return 1000 * values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")

    return {
        "processes": len(servers.procs), "route": args.route,
        "db": "postgresql" if args.db.startswith("postgresql://") else "sqlite",
        "tables": args.tables, "seats": args.seats, "bots_per_table": args.bots, "think_s": args.think,
        "connected": connected, "held": held, "connect_s": round(connect_s, 2),
        "seconds": round(measured, 2), "actions": bench.actions,
        "actions_per_s": round(bench.actions / measured, 1),
        "messages_received": bench.messages, "games_finished": bench.games,
        "latency_samples": len(lat), "p50_ms": round(pct(0.50), 2), "p90_ms": round(pct(0.90), 2),
        "p99_ms": round(pct(0.99), 2), "max_ms": round(1000 * lat[-1], 2) if lat else None,
        "mean_ms": round(1000 * statistics.fmean(lat), 2) if lat else None,
        "cross_samples": len(cross), "cross_p50_ms": round(pct(0.50, cross), 2),
        "cross_p99_ms": round(pct(0.99, cross), 2),
        "restarts": [round(x, 2) for x in servers.restarts], "reconnects": len(back),
        "reconnect_p50_s": round(pct(0.50, back) / 1000, 3),
        "reconnect_max_s": round(back[-1], 3) if back else None,
        "acts_sent_again": bench.retried, "tables_with_lost_moves": lost, "tables_stuck": stuck,
        "server_cpu_percent_of_one_core": round(100 * cpu / measured, 1),
        "server_cpu_ms_per_action": round(1000 * cpu / bench.actions, 2) if bench.actions else None,
        "database_cpu_ms_per_action": (round(1000 * db_cpu / bench.actions, 2)
                                       if bench.actions and db_cpu is not None else None),
        "cluster_counts": counts,
        # how many times the servers' threads (and PostgreSQL's processes) slept and were woken,
        # per action: each wake-up waits for a core when busy processes hold them
        "server_wakeups_per_action": round(waking / bench.actions, 1) if bench.actions else None,
        "database_wakeups_per_action": (round(db_woke / bench.actions, 1)
                                        if bench.actions and db_woke is not None else None),
        "tables_read_per_applied_move": (round(counts["tables_read"] / counts["moves_applied"], 3)
                                         if counts.get("moves_applied") else None),
        "hogs": args.hog,
        # how each set-up keeps a move: SQLite's WAL with synchronous=NORMAL writes it to the file
        # at commit (it survives the server killed) and flushes to disk only at checkpoints;
        # PostgreSQL with synchronous_commit on flushes its WAL to disk at every commit
        "durability": (sqlite_promise if database is None
                       else "postgresql: " + ", ".join(f"{k}={v}" for k, v in database.settings.items())),
        "synchronous_full": args.synchronous_full,
        "wal_flushes_per_action": (round(wal[0] / bench.actions, 2) if wal is not None and bench.actions
                                   else None),
        "wal_flush_ms": round(wal[1] / wal[0], 2) if wal is not None and wal[0] and wal[1] else None,
        "save_wait_ms": (round(counts["save_wait_us"] / 1000 / counts["moves_saved"], 2)
                         if counts.get("moves_saved") and "save_wait_us" in counts else None),
        "nice": {"servers": sorted({nice_of(p.pid) for p in servers.procs}),
                 "hogs": sorted({nice_of(h.pid) for h in hogs}),
                 "postgresql": None if database is None else database.nice()},
        "sched_autogroup": autogroup(),
        "clients_cpu_percent_of_one_core": round(100 * mine / measured, 1), "errors": len(bench.errors),
        "load_average": os.getloadavg()[0], "server_rss_mb": round(rss, 1),
        "first_errors": bench.errors[:3],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seats", type=int, default=5)
    parser.add_argument("--bots", type=int, default=0, help="bots per table (the rest are WebSocket players)")
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds a person takes to act")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of play measured")
    parser.add_argument("--processes", type=int, default=1,
                        help="server processes (several need --db postgresql)")
    parser.add_argument("--db", default=None, help="postgresql://... (default: a new SQLite file)")
    parser.add_argument("--rolling-restart", action="store_true",
                        help="restart the processes one by one during the run")
    parser.add_argument("--kill", action="store_true",
                        help="with --rolling-restart: stop each with SIGKILL (a crash), not SIGTERM")
    parser.add_argument("--hog", type=int, default=0, metavar="N",
                        help="start N busy processes beside the servers for the run (0..8)")
    parser.add_argument("--route", choices=("spread", "table", "page", "stay"), default="spread",
                        help="spread: each table's players on every process in turn; table: all of a "
                             "table's players on one process (its id hashed, as a proxy hashing on the "
                             "socket's ?table= would; the creator moves there once the others joined); "
                             "page: as the page does, the creator moves there at once after creating "
                             "the table; stay: as the page did before, the creator stays where its "
                             "first socket went")
    parser.add_argument("--trace", action="store_true",
                        help="time each move's hops (the servers stamp them: CTA_MOVE_TRACE) and print "
                             "where the slowest 1%% of moves spent their time")
    parser.add_argument("--sqlite-full", action="store_true",
                        help="with --compare: also one SQLite process with synchronous=FULL (every commit "
                             "flushed to disk, as PostgreSQL's default; on the event loop), an extra row "
                             "for comparison only (the goals are judged against SQLite's default)")
    parser.add_argument("--compare", action="store_true",
                        help="with --db postgresql://...: first one process on a new SQLite file, then "
                             "--processes on the database, the same load; prints both and their ratio")
    args = parser.parse_args()
    if not (1 <= args.tables <= 1000 and 2 <= args.seats <= 12 and 0 <= args.bots < args.seats
            and 0 < args.duration <= 600 and args.think >= 0 and 1 <= args.processes <= 8
            and 0 <= args.hog <= 8):
        parser.error("out of range: tables 1..1000, seats 2..12, bots 0..seats-1, duration 0..600 s, "
                     "processes 1..8, hog 0..8")
    if args.db is not None and not args.db.startswith("postgresql://"):
        parser.error("--db takes a postgresql:// URL (the default is a new SQLite file)")
    if (args.processes > 1 or args.rolling_restart or args.compare) and args.db is None:
        parser.error("several processes, a rolling restart, or --compare need --db postgresql://...")
    setups: list[tuple[str | None, int, bool]] = [(None, 1, False)] if args.compare else []
    if args.compare and args.sqlite_full:
        setups.append((None, 1, True))
    setups.append((args.db, args.processes, False))
    results = []
    for db, processes, full in setups:
        run = argparse.Namespace(**vars(args))
        run.db = db or os.path.join(tempfile.mkdtemp(prefix="cta-load-"), "load.sqlite3")
        run.processes = processes
        run.synchronous_full = full
        results.append(run_setup(run))
        report(run, results[-1])
    if args.compare:
        compare(results)
    return 0


def run_setup(args: argparse.Namespace) -> dict[str, Any]:
    """One set-up's run: its servers started, the load played, everything stopped again."""
    trace = tempfile.mkdtemp(prefix="cta-trace-") if args.trace else None
    env = {"CTA_SQLITE_SYNCHRONOUS": "FULL"} if args.synchronous_full else None
    servers = Servers(args.db, args.processes, str(10 * args.tables * args.seats + 100), trace, env)
    servers.kill = args.kill
    hogs = start_hogs(args.hog)
    try:
        gc.disable()  # the load generator must not pause to collect garbage mid-measure
        result = asyncio.run(main_async(args, servers, hogs))
    finally:
        gc.enable()
        for hog in hogs:
            hog.kill()
            hog.wait()
        servers.stop_all()  # (each writes its moves' timestamps as it exits)
    if trace is not None:
        result["hops"] = hops(args.done, read_traces(trace))
    return result


HOPS = (("to the server", "sent", "r"), ("to the save", "r", "s"), ("save (commit)", "s", "c"),
        ("updates queued", "c", "b"), ("to the mover", "b", "actor"), ("to the last", "actor", "last"))
"""A move's hops (``--trace``): from one stamp to the next. ``sent``, ``actor`` and ``last`` are
the load generator's (the act sent; its update received by the mover, by the table's last
client); ``r``, ``s``, ``c``, ``b`` the server's (:mod:`chasetheace.web.movetrace`): its frame read
by the event loop, its save sent, the save's answer back, every update queued."""


def read_traces(folder: str) -> dict[str, dict[str, float]]:
    """The servers' move timestamps in ``folder``, by act id (the first of each kind)."""
    found: dict[str, dict[str, float]] = {}
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            for line in f:
                act_id, kind, at = line.split()
                found.setdefault(act_id, {}).setdefault(kind, float(at))
    return found


def hops(done: list[tuple[str, float, float, float]], stamps: dict[str, dict[str, float]]) -> dict[str, Any]:
    """Where moves' time went: for every move with all its stamps, each hop's median over all,
    and its mean over the slowest 1 % of moves (by the time to the last client's update) and
    that share of the total; milliseconds."""
    rows = []
    for act_id, sent, actor, last in done:
        s = stamps.get(act_id)
        if s is None or not all(k in s for k in "rscb"):
            continue
        rows.append({**s, "sent": sent, "actor": actor, "last": last})
    if not rows:
        return {"traced": 0}
    rows.sort(key=lambda row: row["last"] - row["sent"])
    slow = rows[-max(1, len(rows) // 100):]
    result: dict[str, Any] = {"traced": len(rows), "slowest": len(slow),
                              "slowest_total_ms": round(1000 * statistics.fmean(r["last"] - r["sent"]
                                                                                for r in slow), 2)}
    for name, a, b in HOPS:
        each = sorted(r[b] - r[a] for r in rows)
        result[name] = {"p50_ms": round(1000 * statistics.median(each), 2),
                        "p99_ms": round(1000 * each[int(0.99 * (len(each) - 1))], 2),
                        "slowest_mean_ms": round(1000 * statistics.fmean(r[b] - r[a] for r in slow), 2)}
    return result


def _setup_name(result: dict[str, Any]) -> str:
    count = result["processes"]
    route = f" ({result['route']})" if count > 1 else ""
    full = " FULL" if result.get("synchronous_full") else ""
    return (f"{count} process{'es' if count > 1 else ''}, "
            f"{'PostgreSQL' if result['db'] == 'postgresql' else 'SQLite'}{route}{full}")


def report(args: argparse.Namespace, result: dict[str, Any]) -> None:
    """Print one set-up's figures (and, last, all of them as one JSON line)."""
    print(f"{_setup_name(result)}: connected players held: {result['held']} of "
          f"{result['connected']} ({args.tables} tables of {args.seats}, {args.bots} bots each; seated in "
          f"{result['connect_s']} s)")
    print(f"actions: {result['actions']} in {result['seconds']} s = {result['actions_per_s']} actions/s "
          f"(think {args.think} s); games finished {result['games_finished']}; "
          f"messages received {result['messages_received']}")
    print(f"latency action -> every client's update: p50 {result['p50_ms']} ms, p90 {result['p90_ms']} ms, "
          f"p99 {result['p99_ms']} ms, max {result['max_ms']} ms ({result['latency_samples']} actions)")
    if result["cross_samples"]:
        print(f"latency of updates crossing processes (action to one, update from another): p50 "
              f"{result['cross_p50_ms']} ms, p99 {result['cross_p99_ms']} ms "
              f"({result['cross_samples']} deliveries)")
    if args.rolling_restart:
        how = "SIGKILL" if args.kill else "SIGTERM"
        print(f"rolling restart ({how}): {len(result['restarts'])} processes restarted (each stopped to "
              "answering again: "
              f"{result['restarts']} s); {result['reconnects']} reconnections, seat back in p50 "
              f"{result['reconnect_p50_s']} s, max {result['reconnect_max_s']} s; acts sent again "
              f"{result['acts_sent_again']}")
    print(f"tables with a lost move: {result['tables_with_lost_moves']}; "
          f"tables stuck: {result['tables_stuck']}")
    print(f"CPU: servers {result['server_cpu_percent_of_one_core']}% of one core, load generator "
          f"{result['clients_cpu_percent_of_one_core']}%; servers' memory {result['server_rss_mb']} MB; "
          f"machine load average {result['load_average']:.2f}; "
          f"errors: {result['errors']}")
    if result["db"] == "postgresql":
        more = result["database_cpu_ms_per_action"]
        database = "not measured (not a server on this machine)" if more is None else f"{more} ms more"
        where = f"; the PostgreSQL server's own processes: {database}"
    else:
        where = " (SQLite's work is in the server process: counted)"
    print(f"CPU per action: servers {result['server_cpu_ms_per_action']} ms (CPU seconds of the "
          f"{result['processes']} server process(es) over {result['actions']} players' actions; "
          f"{args.hog} busy processes beside them){where}")
    more_woken = result["database_wakeups_per_action"]
    print(f"wake-ups per action (voluntary context switches): servers {result['server_wakeups_per_action']}"
          + ("" if more_woken is None else f", the PostgreSQL server's processes {more_woken}"))
    print(f"durability: {result['durability']}; nice levels: servers {result['nice']['servers']}, busy "
          f"processes {result['nice']['hogs'] or '-'}"
          + ("" if result["db"] != "postgresql" else f", PostgreSQL server {result['nice']['postgresql']}"))
    if result["sched_autogroup"]:
        print("warning: the kernel schedules by session (sched_autogroup_enabled is 1): nice levels "
              "order processes only within a session, and a busy program started from another "
              "session takes a whole share beside these, niced or not; for a fair run, as root: "
              "echo 0 > /proc/sys/kernel/sched_autogroup_enabled")
    if result["db"] == "postgresql":
        flush = result["wal_flush_ms"]
        took = "(time not measured: track_wal_io_timing off)" if flush is None else f"{flush} ms each"
        print(f"a move's write waited for its commit {result['save_wait_ms']} ms on average (in the "
              f"servers); PostgreSQL flushed its WAL to disk {result['wal_flushes_per_action']} times per "
              f"action, {took}")
        levels = set(result["nice"]["servers"]) | {result["nice"]["postgresql"]}
        if result["nice"]["postgresql"] is not None and len(levels) > 1:
            print("warning: the PostgreSQL server and the servers run at different nice levels: "
                  "not a fair comparison beside busy processes")
    if result.get("hops", {}).get("traced"):
        h = result["hops"]
        print(f"where a move's time went ({h['traced']} moves traced; the slowest {h['slowest']}, "
              f"{h['slowest_total_ms']} ms on average): hop p50 / p99 / mean of the slowest, ms")
        for name, _, _ in HOPS:
            hop = h[name]
            print(f"  {name:<15} {hop['p50_ms']:>7} {hop['p99_ms']:>8} {hop['slowest_mean_ms']:>8}")
    if result["cluster_counts"]:
        c = result["cluster_counts"]
        print(f"notifications: {c.get('notified', 0)}; moves applied from them "
              f"{c.get('moves_applied', 0)}, "
              f"already held {c.get('moves_known', 0)}; tables read {c.get('tables_read', 0)} = "
              f"{result['tables_read_per_applied_move']} per applied move; "
              f"moves saved {c.get('moves_saved', 0)}")
    print(json.dumps(result))


def compare(results: list[dict[str, Any]]) -> None:
    """The set-ups side by side, and the ratio of their CPU per action."""
    print("\nset-up                            actions/s  p50 ms    p99 ms  CPU/action: servers  +database  "
          "reads/applied move  load avg.")
    for r in results:
        database = r["database_cpu_ms_per_action"]
        reads = r["tables_read_per_applied_move"]
        print(f"{_setup_name(r):<33} {r['actions_per_s']:>9} {r['p50_ms']:>7} {r['p99_ms']:>9} "
              f"{r['server_cpu_ms_per_action']:>17} ms {'-' if database is None else database:>7} ms "
              f"{'-' if reads is None else reads:>19} {r['load_average']:>10.2f}")
    one, many = results[0], results[-1]
    if one["server_cpu_ms_per_action"] and many["server_cpu_ms_per_action"]:
        ratio = many["server_cpu_ms_per_action"] / one["server_cpu_ms_per_action"]
        text = f"CPU per action, {_setup_name(many)} over {_setup_name(one)}: {ratio:.2f}x (servers)"
        if many["database_cpu_ms_per_action"] is not None:
            both = (many["server_cpu_ms_per_action"] + many["database_cpu_ms_per_action"])
            text += f", {both / one['server_cpu_ms_per_action']:.2f}x with the PostgreSQL server's own"
        print(text)
        # the goals: at most 1.5 times the CPU per action of one SQLite process (the servers' own
        # CPU), and beside a CPU hog a p99 no worse than that one process's
        met = "met" if ratio <= 1.5 else "NOT met"
        print(f"goal: CPU per action at most 1.5x one SQLite process's (servers' CPU): {met} ({ratio:.2f}x)")
        if many["hogs"]:
            met = "met" if many["p99_ms"] <= one["p99_ms"] else "NOT met"
            print(f"goal: with {many['hogs']} busy processes beside them, p99 no worse than one SQLite "
                  f"process's at {many['tables'] * (many['seats'] - many['bots_per_table']):,} players: "
                  f"{met} ({many['p99_ms']} ms against {one['p99_ms']} ms)")
    for r in results[1:-1]:  # SQLite flushing every commit (--sqlite-full): for comparison only
        print(f"for comparison only (not the goal's): {_setup_name(r)}, a flush to disk at every commit as "
              f"PostgreSQL's default, on its event loop: p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms "
              f"against {many['p99_ms']} ms")


if __name__ == "__main__":
    sys.exit(main())
