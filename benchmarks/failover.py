"""Failover on PostgreSQL: how long a table's bots stand still after kill -9 of its process.

Starts ``--processes`` servers (``python -m chasetheace.web``) on one PostgreSQL database (give an
empty one, or one of this script's earlier runs), opens ``--tables`` tables on the first, each
with one WebSocket player and bots in the other seats, and plays (the player keeps at once on its
turn). Then it kills the first process with SIGKILL, as a crash would; every player reconnects at
once to another process and resumes its seat. For each table it measures the time from the kill
to the next move anyone made there (the bots' move, by the process that took the table's lease
over), and prints p50/p90/max and how many tables moved again at all within ``--wait`` seconds.
Then it checks that no move a player had seen is missing from the database.

    python benchmarks/failover.py --db postgresql://postgres@127.0.0.1:5432/failover

Only loopback is used; every wait is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from typing import Any

from server_load import HOST, start_server
from websockets.asyncio.client import ClientConnection, connect


def start(db: str, many: str) -> tuple[subprocess.Popen[str], int]:
    return start_server(db, many, bot_delay=0.05)


class Player:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.table = ""
        self.token = ""
        self.seat = 0
        self.best = (0, 0)
        self.moved_at = 0.0  # when it last saw a new event (monotonic)
        self.acted: tuple[int, int] | None = None
        self.joined = asyncio.Event()

    async def read(self) -> None:
        try:
            async for raw in self.ws:
                msg = json.loads(raw)
                if msg["type"] == "joined":
                    self.table, self.seat = msg["table"], msg["seat"]
                    self.token = msg.get("token", self.token)
                    self.joined.set()
                elif msg["type"] == "state":
                    total = msg["events_from"] + len(msg["events"])
                    mark = (msg["table"]["game_no"], total)
                    if mark > self.best:
                        self.best, self.moved_at = mark, time.monotonic()
                    game = msg["game"]
                    if (
                        game is not None
                        and not game["over"]
                        and game["to_act"] == self.seat
                        and game["legal"]
                        and self.acted != mark
                    ):
                        self.acted = mark
                        await self.ws.send(
                            json.dumps(
                                {
                                    "type": "act",
                                    "action": "keep",
                                    "act_id": f"{self.table}-{mark[0]}-{mark[1]}",
                                }
                            )
                        )
        except Exception:  # the process went away: the caller reconnects
            pass


def stored_events(db: str, table: str, game_no: int) -> int:
    import psycopg

    with psycopg.connect(db) as conn:
        deal = conn.execute(
            "SELECT events FROM games WHERE table_id=%s AND game_no=%s", (table, game_no)
        ).fetchone()
        moves = conn.execute(
            "SELECT events FROM actions WHERE table_id=%s AND game_no=%s", (table, game_no)
        ).fetchall()
    return -1 if deal is None else len(json.loads(deal[0])) + sum(len(json.loads(m[0])) for m in moves)


async def run(args: argparse.Namespace, ports: list[int], victim: subprocess.Popen[str]) -> dict[str, Any]:
    players: list[Player] = []
    readers = []
    for _ in range(args.tables):
        p = Player(await connect(f"ws://{HOST}:{ports[0]}/ws", max_size=None, proxy=None, compression=None))
        readers.append(asyncio.ensure_future(p.read()))
        await p.ws.send(
            json.dumps(
                {
                    "type": "create",
                    "name": "Ann",
                    "seats": args.seats,
                    "bots": "counting",
                    "options": {"lives": 20},
                }
            )
        )
        await asyncio.wait_for(p.joined.wait(), 30)
        await p.ws.send(json.dumps({"type": "start"}))
        players.append(p)
    await asyncio.sleep(args.warmup)
    seen = [p.best for p in players]
    killed = time.monotonic()
    os.kill(victim.pid, signal.SIGKILL)
    for i, p in enumerate(players):  # each page reconnects by itself to another process
        p.ws = await connect(
            f"ws://{HOST}:{ports[1 + i % (len(ports) - 1)]}/ws", max_size=None, proxy=None, compression=None
        )
        p.joined.clear()
        p.acted = None
        readers.append(asyncio.ensure_future(p.read()))
        await p.ws.send(json.dumps({"type": "resume", "table": p.table, "token": p.token}))
    deadline = time.monotonic() + args.wait
    while time.monotonic() < deadline and not all(
        p.best > s and p.moved_at > killed for p, s in zip(players, seen, strict=True)
    ):
        await asyncio.sleep(0.05)
    gaps = sorted(
        p.moved_at - killed for p, s in zip(players, seen, strict=True) if p.best > s and p.moved_at > killed
    )
    lost = sum(1 for p, s in zip(players, seen, strict=True) if stored_events(args.db, p.table, s[0]) < s[1])
    for p in players:
        await p.ws.close()
    for r in readers:
        r.cancel()

    def pct(q: float) -> float:
        return round(gaps[min(len(gaps) - 1, int(q * len(gaps)))], 2) if gaps else float("nan")

    return {
        "tables": args.tables,
        "moved_again": len(gaps),
        "p50_s": pct(0.5),
        "p90_s": pct(0.9),
        "max_s": round(gaps[-1], 2) if gaps else None,
        "mean_s": round(statistics.fmean(gaps), 2) if gaps else None,
        "tables_with_lost_moves": lost,
        "load_average": os.getloadavg()[0],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="postgresql://... (an empty database)")
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds of play before the kill")
    parser.add_argument(
        "--wait", type=float, default=30.0, help="seconds to wait for every table to move again"
    )
    args = parser.parse_args()
    if (
        not args.db.startswith("postgresql://")
        or not 2 <= args.processes <= 8
        or not 1 <= args.tables <= 1000
    ):
        parser.error("--db postgresql://..., --processes 2..8, --tables 1..1000")
    many = str(10 * args.tables + 100)
    procs = [start(args.db, many) for _ in range(args.processes)]
    try:
        result = asyncio.run(run(args, [port for _, port in procs], procs[0][0]))
    finally:
        for proc, _ in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc, _ in procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
    print(
        f"kill -9 of the process holding {args.tables} tables ({args.seats} seats: 1 player, the rest bots), "
        f"{args.processes} processes: {result['moved_again']} of {args.tables} tables moved again within "
        f"{args.wait:g} s; from the kill to the next move: p50 {result['p50_s']} s, p90 {result['p90_s']} s, "
        f"max {result['max_s']} s; tables with a lost move: {result['tables_with_lost_moves']}; "
        f"load average {result['load_average']:.2f}"
    )
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
