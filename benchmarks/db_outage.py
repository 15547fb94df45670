"""A hung or locked PostgreSQL under three server processes: pings, who is told, moves lost.

Starts a throwaway PostgreSQL server of its own (from the installed binaries, as the tests do:
``tests/pgtools.py``), ``--processes`` server processes on it, ``--tables`` tables of two people
(on two different processes) and a bot, every person playing with ``--think`` seconds of thought,
and on each process a client that pings it (the next ping as soon as the last pong came, every
``--ping-every`` seconds). After ``--warmup`` seconds of play:

1. **hung**: every PostgreSQL process is stopped with SIGSTOP for ``--hang`` seconds (as a hung or
   overloaded database: its connections stay open, nothing answers), then SIGCONT;
2. **locked**: a connection holds ``LOCK TABLE actions IN SHARE MODE`` (what a plain ``CREATE
   INDEX`` on the moves takes) for ``--lock`` seconds, then rolls back.

For each it prints the pings' worst and 99th-percentile round trip per process (from the start
of the outage until a few seconds after its end: the event loop's stall), how long the clients
took to be told ``database_unavailable`` (per client: the first such error after the outage
began), how long after the database's return they were told ``database_back``, moves refused
and accepted during the outage, and the load average. At the end every person's last seen game
is checked against the database: a move a client saw that is not saved is a lost move.

    python benchmarks/db_outage.py
    python benchmarks/db_outage.py --tables 60 --hang 8 --lock 10

Goal (issue 30): no ping stalled over 200 ms, ``database_back`` within a second of the return,
no move lost. Only loopback is used; every wait is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from failover import stored_events
from server_load import HOST, cpu_seconds, start_server
from websockets.asyncio.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))


@dataclass
class Person:
    """One person at a table: plays its turns, notes what the server told it and when."""

    ws: ClientConnection
    process: int
    think: float
    table: str = ""
    seat: int = -1
    best: tuple[int, int] = (0, 0)  # (game, events) seen
    turn: tuple[int, int] | None = None  # the position where it is this person's turn, if any
    sent: dict[tuple[int, int], float] = field(default_factory=dict)  # position -> when acted
    joined: asyncio.Event = field(default_factory=asyncio.Event)
    unavailable: list[float] = field(default_factory=list)  # when told database_unavailable
    back: list[float] = field(default_factory=list)  # when told database_back
    accepted: list[float] = field(default_factory=list)  # when a move of its was seen played
    rematched: set[int] = field(default_factory=set)  # the games after which it asked for another

    async def read(self) -> None:
        with contextlib.suppress(Exception):
            async for raw in self.ws:
                msg = json.loads(raw)
                now = time.monotonic()
                kind = msg["type"]
                if kind == "joined":
                    self.table, self.seat = msg["table"], msg["seat"]
                    self.joined.set()
                elif kind == "error" and msg.get("code") == "database_unavailable":
                    self.unavailable.append(now)
                elif kind == "notice" and msg.get("code") == "database_back":
                    self.back.append(now)
                elif kind == "state":
                    mark = (msg["table"]["game_no"], msg["events_from"] + len(msg["events"]))
                    if mark > self.best:
                        if self.turn is not None and self.turn in self.sent:
                            self.accepted.append(now)
                        self.best = mark
                    game = msg["game"]
                    mine = (game is not None and not game["over"] and game["to_act"] == self.seat
                            and bool(game["legal"]))
                    self.turn = mark if mine else None
                    if game is not None and game["over"] and self.seat == 0 and mark[0] not in self.rematched:
                        self.rematched.add(mark[0])
                        await self.ws.send(json.dumps({"type": "rematch"}))

    async def play(self, until: float) -> None:
        """Act on its turn after ``think`` seconds; a move not answered within 2 s (refused, or
        lost with the database) is sent again with the same ``act_id`` (applied at most once)."""
        with contextlib.suppress(Exception):
            while time.monotonic() < until:
                await asyncio.sleep(self.think)
                turn = self.turn
                if turn is None or time.monotonic() - self.sent.get(turn, -9.0) < 2.0:
                    continue
                self.sent[turn] = time.monotonic()
                await self.ws.send(json.dumps({"type": "act", "action": "keep",
                                               "act_id": f"{self.table}-{turn[0]}-{turn[1]}"}))


class Pinger:
    """Pings one process again and again, one ping in flight: the round trips are its stalls."""

    def __init__(self, ws: ClientConnection, every: float) -> None:
        self.ws, self.every = ws, every
        self.trips: list[tuple[float, float]] = []  # (sent, round trip in seconds)

    async def run(self, until: float) -> None:
        with contextlib.suppress(Exception):
            while time.monotonic() < until:
                sent = time.monotonic()
                await self.ws.send(json.dumps({"type": "ping"}))
                while json.loads(await asyncio.wait_for(self.ws.recv(), 120))["type"] != "pong":
                    pass
                self.trips.append((sent, time.monotonic() - sent))
                await asyncio.sleep(self.every)

    def stalls(self, start: float, end: float) -> list[float]:
        """The round trips of the pings sent in [start, end], and of one still unanswered."""
        trips = [t for s, t in self.trips if start <= s <= end]
        if self.trips and self.trips[-1][0] + self.trips[-1][1] < end:
            last_answer = self.trips[-1][0] + self.trips[-1][1]
            if end - last_answer > self.every + (max(trips) if trips else 0.0):
                trips.append(end - last_answer)  # a ping sent and never answered before ``end``
        return trips


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f}"


def _spread(values: list[float]) -> str:
    if not values:
        return "none"
    values = sorted(values)
    return (f"min {values[0]:.2f} s, median {statistics.median(values):.2f} s, "
            f"max {values[-1]:.2f} s")


async def outage(name: str, people: list[Person], pingers: list[Pinger], start: float, end: float,
                 settle: float) -> dict[str, Any]:
    await asyncio.sleep(max(0.0, end + settle - time.monotonic()))
    told = [min(t for t in p.unavailable if t >= start) - start for p in people
            if any(t >= start for t in p.unavailable)]
    back = [min(t for t in p.back if t >= end) - end for p in people if any(t >= end for t in p.back)]
    accepted_during = sum(1 for p in people for t in p.accepted if start + 0.05 < t < end)
    resumed = [min(t for t in p.accepted if t >= end) - end for p in people
               if any(t >= end for t in p.accepted)]
    stalls = []
    for i, pinger in enumerate(pingers):
        trips = sorted(pinger.stalls(start, end + settle))
        p99 = trips[min(len(trips) - 1, int(0.99 * len(trips)))] if trips else float("nan")
        stalls.append({"process": i, "pings": len(trips), "max_ms": round(max(trips, default=0) * 1000),
                       "p99_ms": round(p99 * 1000)})
    return {"outage": name, "seconds": round(end - start, 2), "pings": stalls,
            "told_unavailable": len(told), "told_s": sorted(round(t, 3) for t in told),
            "told_back": len(back), "back_s": sorted(round(t, 3) for t in back),
            "person_moves_accepted_during": accepted_during,
            "first_move_after_s": round(min(resumed), 3) if resumed else None,
            "load_average": round(os.getloadavg()[0], 2), "people": len(people)}


def count_moves(db: str) -> int:
    import psycopg

    with psycopg.connect(db, connect_timeout=5) as conn:
        row = conn.execute("SELECT count(*) FROM actions").fetchone()
        return -1 if row is None else int(row[0])


async def run(args: argparse.Namespace, pg: Any, db: str, ports: list[int],
              pids: list[int]) -> dict[str, Any]:
    async def dial(port: int) -> ClientConnection:
        return await connect(f"ws://{HOST}:{port}/ws", max_size=None, proxy=None, compression=None)

    n = len(ports)
    people: list[Person] = []
    tasks: list[asyncio.Task[None]] = []
    for t in range(args.tables):
        ann = Person(await dial(ports[t % n]), t % n, args.think)
        bob = Person(await dial(ports[(t + 1) % n]), (t + 1) % n, args.think)
        for p in (ann, bob):
            tasks.append(asyncio.create_task(p.read()))
        await ann.ws.send(json.dumps({"type": "create", "name": "Ann", "seats": 3, "bots": "counting",
                                      "options": {"lives": 99}}))
        await asyncio.wait_for(ann.joined.wait(), 30)
        await bob.ws.send(json.dumps({"type": "join", "table": ann.table, "name": "Bob"}))
        await asyncio.wait_for(bob.joined.wait(), 30)
        await ann.ws.send(json.dumps({"type": "start"}))
        people += [ann, bob]
    pingers = [Pinger(await dial(port), args.ping_every) for port in ports]
    until = time.monotonic() + args.warmup + args.hang + args.lock + 3 * args.settle + 30
    tasks += [asyncio.create_task(p.play(until)) for p in people]
    tasks += [asyncio.create_task(p.run(until)) for p in pingers]
    results = []
    cpu = sum(cpu_seconds(pid) for pid in pids)
    await asyncio.sleep(args.warmup)
    calm_start = time.monotonic() - args.warmup / 2
    results.append(await outage("none (play as usual)", people, pingers, calm_start, time.monotonic(),
                                0.0))

    start = time.monotonic()
    pg.pause()
    try:
        await asyncio.sleep(args.hang)
    finally:
        end = time.monotonic()  # the return: SIGCONT sent from here
        pg.resume()
    results.append(await outage(f"hung: SIGSTOP for {args.hang:g} s", people, pingers, start, end,
                                args.settle))

    import psycopg

    holder: Any = await asyncio.to_thread(lambda: psycopg.connect(db))
    await asyncio.to_thread(holder.execute, "LOCK TABLE actions IN SHARE MODE")
    start = time.monotonic()
    await asyncio.sleep(args.lock)
    end = time.monotonic()
    await asyncio.to_thread(holder.rollback)
    holder.close()
    results.append(await outage(f"locked: LOCK TABLE actions IN SHARE MODE for {args.lock:g} s", people,
                                pingers, start, end, args.settle))

    for task in tasks:
        task.cancel()
    for p in people:
        await p.ws.close()
    for pinger in pingers:
        await pinger.ws.close()
    cpu = sum(cpu_seconds(pid) for pid in pids) - cpu
    lost = 0
    for p in people:
        if p.best[0] and stored_events(db, p.table, p.best[0]) < p.best[1]:
            lost += 1
    return {"phases": results, "people_with_a_lost_move": lost, "servers_cpu_s": round(cpu, 1),
            "moves_saved": await asyncio.to_thread(count_moves, db)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--tables", type=int, default=30, help="tables of two people and a bot")
    parser.add_argument("--think", type=float, default=0.3, help="seconds before a person acts")
    parser.add_argument("--ping-every", type=float, default=0.15,
                        help="seconds between a pong and the next ping (the server takes 10 messages/s)")
    parser.add_argument("--warmup", type=float, default=6.0)
    parser.add_argument("--hang", type=float, default=8.0, help="seconds PostgreSQL is stopped")
    parser.add_argument("--lock", type=float, default=10.0, help="seconds the moves table is locked")
    parser.add_argument("--settle", type=float, default=5.0,
                        help="seconds after an outage that still count towards it")
    args = parser.parse_args()
    if not 2 <= args.processes <= 8 or not 1 <= args.tables <= 500:
        parser.error("--processes 2..8, --tables 1..500")
    from pgtools import benchmark_server  # type: ignore[import-not-found]  # tests/ is put on sys.path above

    pg = benchmark_server()
    if pg is None:
        return 2
    procs: list[subprocess.Popen[str]] = []
    try:
        db = pg.new_database("outage")
        many = str(10 * args.tables + 100)
        started = [start_server(db, many, bot_delay=0.3) for _ in range(args.processes)]
        procs = [proc for proc, _ in started]
        result = asyncio.run(run(args, pg, db, [port for _, port in started], [p.pid for p in procs]))
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
        pg.close()
    for phase in result["phases"]:
        pings = ", ".join(f"process {s['process']} max {s['max_ms']} / p99 {s['p99_ms']} ms"
                          for s in phase["pings"])
        print(f"{phase['outage']}: pings {pings}")
        if phase["outage"].startswith("none"):
            continue
        print(f"  told database_unavailable: {phase['told_unavailable']} of {phase['people']} people, "
              f"{_spread(phase['told_s'])} after it began; database_back: {phase['told_back']} people, "
              f"{_spread(phase['back_s'])} after its return")
        print(f"  people's moves seen played during it {phase['person_moves_accepted_during']}; the first "
              f"after it {phase['first_move_after_s']} s after its end; load average {phase['load_average']}")
    print(f"people with a lost move: {result['people_with_a_lost_move']}; moves saved in all "
          f"{result['moves_saved']}; the servers' CPU from the warm-up to the end "
          f"{result['servers_cpu_s']} s")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
