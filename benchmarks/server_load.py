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

Only loopback is used; every loop is bounded by ``--duration`` and the connection count.
"""

from __future__ import annotations

import argparse
import asyncio
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


@dataclass
class TableRun:
    """One table's players and the actions in flight."""

    index: int
    clients: list[Player] = field(default_factory=list)
    pending: list[Pending] = field(default_factory=list)
    table_id: str = ""


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

    def spawn(self, coro: Any) -> None:
        """Run a coroutine in the background, keeping a reference until it is done."""
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


class Player:
    """One WebSocket client holding one seat."""

    def __init__(self, bench: Bench, run: TableRun, ws: ClientConnection, number: int) -> None:
        self.bench, self.run, self.ws, self.number = bench, run, ws, number
        self.seat: int | None = None
        self.seen = 0
        self.game_no = 0
        self.acted: tuple[int, int] | None = None
        self.joined = asyncio.Event()
        self.open = True

    async def reader(self) -> None:
        try:
            async for raw in self.ws:
                self.bench.messages += 1
                self.handle(json.loads(raw))
        except Exception as exc:  # a dropped connection is counted, not fatal
            self.bench.errors.append(f"client {self.number}: {exc!r}")
        self.open = False

    def handle(self, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        if kind == "joined":
            self.seat = msg["seat"]
            self.run.table_id = msg["table"]
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
        for p in run.pending:
            if self.number in p.waiting and (game_no > p.game_no or total > p.marker):
                p.waiting.discard(self.number)
                if not p.waiting:
                    self.bench.latencies.append(now - p.sent)
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
            asyncio.get_running_loop().call_later(delay, self.send, {"type": "act", "action": action},
                                                  (game_no, total))

    def send(self, message: dict[str, Any], marker: tuple[int, int] | None) -> None:
        if not self.open or time.monotonic() > self.bench.until:
            return
        if marker is not None:
            waiting = {c.number for c in self.run.clients if c.open}
            self.run.pending.append(Pending(marker[0], marker[1], time.perf_counter(), waiting))
            self.bench.actions += 1
        self.bench.spawn(self.ws.send(json.dumps(message)))


def rss_mb(pid: int) -> float:
    """The resident memory of a process, in MB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def open_player(bench: Bench, run: TableRun, url: str, number: int) -> Player:
    ws = await connect(url, max_size=None, compression=None, open_timeout=30, proxy=None, ping_interval=None)
    player = Player(bench, run, ws, number)
    run.clients.append(player)
    bench.spawn(player.reader())
    return player


async def seat_table(bench: Bench, run: TableRun, url: str, humans: int, seats: int) -> None:
    creator = await open_player(bench, run, url, run.index * seats)
    bots = "threshold:8" if humans < seats else None
    await creator.ws.send(json.dumps({"type": "create", "name": "P0", "seats": seats, "bots": bots}))
    await asyncio.wait_for(creator.joined.wait(), 30)
    for i in range(1, humans):
        p = await open_player(bench, run, url, run.index * seats + i)
        await p.ws.send(json.dumps({"type": "join", "table": run.table_id, "name": f"P{i}"}))
        await asyncio.wait_for(p.joined.wait(), 30)


async def main_async(args: argparse.Namespace, port: int, server_pid: int) -> dict[str, Any]:
    url = f"ws://{HOST}:{port}/ws"
    bench = Bench(args.think, float("inf"))
    runs = [TableRun(i) for i in range(args.tables)]
    humans = args.seats - args.bots
    t0 = time.perf_counter()
    for start in range(0, len(runs), 25):  # seat the tables 25 at a time
        await asyncio.gather(*(seat_table(bench, r, url, humans, args.seats) for r in runs[start:start + 25]))
    connect_s = time.perf_counter() - t0
    connected = sum(1 for r in runs for c in r.clients if c.open)
    cpu0, wall0, mine0 = cpu_seconds(server_pid), time.perf_counter(), time.process_time()
    bench.until = time.monotonic() + args.duration
    for r in runs:
        asyncio.get_running_loop().call_later(bench.rng.random() * args.think, r.clients[0].send,
                                              {"type": "start"}, None)
    await asyncio.sleep(args.duration)
    held = sum(1 for r in runs for c in r.clients if c.open)
    measured = time.perf_counter() - wall0
    cpu = cpu_seconds(server_pid) - cpu0
    mine = time.process_time() - mine0
    rss = rss_mb(server_pid)
    await asyncio.sleep(0.5)  # let the last updates land
    for r in runs:
        for c in r.clients:
            await c.ws.close()
    lat = sorted(bench.latencies)

    def pct(q: float) -> float:
        return 1000 * lat[min(len(lat) - 1, int(q * len(lat)))] if lat else float("nan")

    return {
        "tables": args.tables, "seats": args.seats, "bots_per_table": args.bots, "think_s": args.think,
        "connected": connected, "held": held, "connect_s": round(connect_s, 2),
        "seconds": round(measured, 2), "actions": bench.actions,
        "actions_per_s": round(bench.actions / measured, 1),
        "messages_received": bench.messages, "games_finished": bench.games,
        "latency_samples": len(lat), "p50_ms": round(pct(0.50), 2), "p90_ms": round(pct(0.90), 2),
        "p99_ms": round(pct(0.99), 2), "max_ms": round(1000 * lat[-1], 2) if lat else None,
        "mean_ms": round(1000 * statistics.fmean(lat), 2) if lat else None,
        "server_cpu_percent_of_one_core": round(100 * cpu / measured, 1),
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
    args = parser.parse_args()
    if not (1 <= args.tables <= 1000 and 2 <= args.seats <= 12 and 0 <= args.bots < args.seats
            and 0 < args.duration <= 600 and args.think >= 0):
        parser.error("out of range: tables 1..1000, seats 2..12, bots 0..seats-1, duration 0..600 s")
    folder = tempfile.mkdtemp(prefix="cta-load-")
    # port 0: the server binds a free port itself and prints it (no race for a port chosen here);
    # one load generator is one client address, so the per-client limits are raised for it
    many = str(10 * args.tables * args.seats + 100)
    server = subprocess.Popen([sys.executable, "-m", "chasetheace.web", "--host", HOST, "--port", "0",
                               "--db", os.path.join(folder, "load.sqlite3"), "--bot-delay", "0",
                               "--log-level", "error", "--connections-per-client", many,
                               "--connections", many, "--tables-per-client", many,
                               "--rate-per-client", many, "--burst-per-client", many,
                               "--http-rate", many, "--http-burst", many],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        found = re.search(r":(\d+)/", server.stdout.readline())
        if found is None:
            raise SystemExit("the server did not start")
        port = int(found.group(1))
        for _ in range(200):
            try:
                urllib.request.urlopen(f"http://{HOST}:{port}/healthz", timeout=1).read()
                break
            except OSError:
                time.sleep(0.05)
        gc.disable()  # the load generator must not pause to collect garbage mid-measure
        result = asyncio.run(main_async(args, port, server.pid))
    finally:
        server.terminate()
        server.wait(10)
    print(f"connected players held: {result['held']} of {result['connected']} "
          f"({args.tables} tables of {args.seats}, {args.bots} bots each; seated in {result['connect_s']} s)")
    print(f"actions: {result['actions']} in {result['seconds']} s = {result['actions_per_s']} actions/s "
          f"(think {args.think} s); games finished {result['games_finished']}; "
          f"messages received {result['messages_received']}")
    print(f"latency action -> every client's update: p50 {result['p50_ms']} ms, p90 {result['p90_ms']} ms, "
          f"p99 {result['p99_ms']} ms, max {result['max_ms']} ms ({result['latency_samples']} actions)")
    print(f"CPU: server {result['server_cpu_percent_of_one_core']}% of one core, load generator "
          f"{result['clients_cpu_percent_of_one_core']}%; server memory {result['server_rss_mb']} MB; "
          f"machine load average {result['load_average']:.2f}; "
          f"errors: {result['errors']}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
