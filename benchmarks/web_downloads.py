"""A download flood against the web table: does another client's WebSocket stay responsive?

Builds a database with one long finished game (12 random bots, lives 40: about 3,500 moves),
starts ``python -m chasetheace.web`` on 127.0.0.1, connects one WebSocket client that pings
the server every ``--interval`` seconds, measures its ping round trip for ``--quiet`` seconds
with nothing else going on, then while ``--downloaders`` processes download the game's record
(``/api/record/TABLE/1``) in a loop as fast as they can for ``--duration`` seconds, ignoring
``Retry-After`` as an attacker would. Prints the ping p50/p95/p99/max in both phases, the
downloads answered (200 full record, 304 not modified, 429 refused for the rate) and the
server's CPU. The goal: ping p99 under 50 ms during the flood.

    python benchmarks/web_downloads.py                    # the server's default limits
    python benchmarks/web_downloads.py --http-rate 100000 # no HTTP limit: the stored bytes alone
    python benchmarks/web_downloads.py --duration 5       # a quick look

Only loopback is used; every loop is bounded by ``--duration``.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import multiprocessing
import os
import statistics
import tempfile
import time
import urllib.request
from typing import Any

from server_load import HOST, launch_server
from websockets.asyncio.client import connect

from chasetheace.web.protocol import Create
from chasetheace.web.store import Store
from chasetheace.web.tables import Lobby


def long_game(db: str, seats: int, lives: int) -> tuple[str, int]:
    """A table whose first game random bots played to its end; its id and the moves played."""
    store = Store(db)
    table, _, _ = Lobby(store).create(Create("Ann", seats=seats, bots="random", options={"lives": lives}))
    table.start(0)
    game = table.game
    assert game is not None
    moves = 0
    while game.to_act is not None:
        table.act(game.to_act, table.bot_action(game.to_act, "random"), "bot")
        moves += 1
    store.close()
    return table.id, moves


def downloader(port: int, path: str, until: float) -> dict[str, int]:
    """In a process of its own: GET ``path`` over one kept-alive connection until ``until``."""
    counts: dict[str, int] = {"bytes": 0}
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    while time.time() < until:
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read()
        except (OSError, http.client.HTTPException):
            conn.close()
            conn = http.client.HTTPConnection(HOST, port, timeout=30)
            counts["dropped"] = counts.get("dropped", 0) + 1
            continue
        counts[str(response.status)] = counts.get(str(response.status), 0) + 1
        counts["bytes"] += len(body)
        if response.getheader("connection", "").lower() == "close":
            conn.close()
            conn = http.client.HTTPConnection(HOST, port, timeout=30)
    conn.close()
    return counts


async def pings(ws: Any, seconds: float, interval: float) -> list[float]:
    """Ping round trips (ms) for ``seconds``, one every ``interval`` seconds."""
    out = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        start = time.perf_counter()
        await ws.send('{"type":"ping"}')
        while json.loads(await ws.recv())["type"] != "pong":
            pass
        out.append((time.perf_counter() - start) * 1000)
        await asyncio.sleep(max(0.0, interval - (time.perf_counter() - start)))
    return out


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def figures(samples: list[float]) -> str:
    if len(samples) < 2:
        return f"{len(samples)} pings"
    q = statistics.quantiles(samples, n=100, method="inclusive")
    return (f"p50 {q[49]:.1f} ms, p95 {q[94]:.1f} ms, p99 {q[98]:.1f} ms, max {max(samples):.1f} ms "
            f"({len(samples)} pings)")


async def measure(args: argparse.Namespace, port: int, table_id: str, server_pid: int) -> None:
    path = f"/api/record/{table_id}/1"
    start = time.perf_counter()
    with urllib.request.urlopen(f"http://{HOST}:{port}{path}", timeout=60) as response:
        size = len(response.read())
    print(f"first download (the build): {(time.perf_counter() - start) * 1000:.0f} ms, {size / 1e6:.2f} MB")
    async with connect(f"ws://{HOST}:{port}/ws", max_size=None, compression=None, proxy=None,
                       ping_interval=None) as ws:
        await ws.recv()  # the welcome
        quiet = await pings(ws, args.quiet, args.interval)
        print(f"ping, quiet: {figures(quiet)}")
        until = time.time() + args.duration
        cpu0, wall0 = cpu_seconds(server_pid), time.perf_counter()
        with multiprocessing.get_context("spawn").Pool(args.downloaders) as pool:
            flood = pool.starmap_async(downloader, [(port, path, until)] * args.downloaders)
            await asyncio.sleep(0.5)  # the downloaders get going
            during = await pings(ws, max(0.5, until - time.time() - 0.5), args.interval)
            counts = await asyncio.to_thread(flood.get, args.duration + 60)
        cpu = cpu_seconds(server_pid) - cpu0
        wall = time.perf_counter() - wall0
    total: dict[str, int] = {}
    for c in counts:
        for k, v in c.items():
            total[k] = total.get(k, 0) + v
    answered = ", ".join(f"{total[k]} x {k}" for k in sorted(total) if k != "bytes")
    print(f"flood: {args.downloaders} downloaders for {args.duration:g} s: {answered}; "
          f"{total['bytes'] / 1e6:.1f} MB sent; server CPU {100 * cpu / wall:.0f}% of one core")
    print(f"ping, during the flood: {figures(during)}")
    if len(during) >= 2:
        p99 = statistics.quantiles(during, n=100, method="inclusive")[98]
        print(f"goal p99 < 50 ms: {'met' if p99 < 50 else 'NOT met'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--downloaders", type=int, default=8, help="parallel downloading processes")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of the flood")
    parser.add_argument("--quiet", type=float, default=3.0, help="seconds of pings before the flood")
    parser.add_argument("--interval", type=float, default=0.11,
                        help="seconds between pings (the per-connection limit is 10 a second)")
    parser.add_argument("--seats", type=int, default=12)
    parser.add_argument("--lives", type=int, default=40)
    parser.add_argument("--http-rate", type=float, default=None,
                        help="the server's --http-rate (default: its own default)")
    args = parser.parse_args()
    if not (1 <= args.downloaders <= 64 and 0 < args.duration <= 600 and 0 < args.quiet <= 60
            and 2 <= args.seats <= 12 and 1 <= args.lives <= 99 and args.interval >= 0.1):
        parser.error("out of range: downloaders 1..64, duration 0..600 s, quiet 0..60 s, seats 2..12, "
                     "lives 1..99, interval >= 0.1 s")
    folder = tempfile.mkdtemp(prefix="cta-downloads-")
    db = os.path.join(folder, "downloads.sqlite3")
    table_id, moves = long_game(db, args.seats, args.lives)
    print(f"a finished game of {moves} moves ({args.seats} random bots, lives {args.lives})")
    options = [] if args.http_rate is None else [
        "--http-rate", str(args.http_rate), "--http-burst", str(max(60.0, args.http_rate))]
    server, port = launch_server(db, *options)
    try:
        asyncio.run(measure(args, port, table_id, server.pid))
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
