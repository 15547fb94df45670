"""Slow and huge HTTP requests against the web table: do others' pings and page loads go on?

Starts ``python -m chasetheace.web`` on 127.0.0.1 with ``--forwarded-allow-ips`` naming no local
address (so loopback is an ordinary client, as on a port reachable without a proxy), connects one
WebSocket client from 127.0.0.1 that pings every ``--interval`` seconds, measures its round trip
for ``--quiet`` seconds, then while an attacker process (from ``--addresses`` loopback addresses,
127.0.0.2 and up) holds ``--partial`` partial requests open (one more header byte a second, as
slowloris does), sends ``--giants`` 32 MB headers in 4 KB pieces and requests of 100,000 headers
over and over for ``--duration`` seconds. Meanwhile a page load (``GET /``) from 127.0.0.200 every
second must be answered. Prints the ping p50/p95/p99/max in both phases, the page loads answered,
what the attacker got back, and the server's CPU. The goal: ping p99 under 50 ms.

    python benchmarks/web_slow_requests.py
    python benchmarks/web_slow_requests.py --duration 5     # a quick look

Only loopback is used; every loop is bounded by ``--duration``.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import tempfile
import time
from collections import Counter

from server_load import HOST, launch_server
from web_downloads import cpu_seconds, figures, pings
from websockets.asyncio.client import connect

HEAD = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"


async def _answer(reader: asyncio.StreamReader, counts: Counter[str]) -> None:
    try:
        line = await reader.readline()
    except (OSError, asyncio.IncompleteReadError):
        line = b""
    counts[line.split(b" ")[1].decode() if line.count(b" ") >= 2 else "closed"] += 1


async def _connect(source: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection(HOST, port, local_addr=(source, 0))


async def _slow(source: str, port: int, until: float, counts: Counter[str]) -> None:
    """One partial request after another: a header byte a second until the server answers."""
    while time.time() < until:
        try:
            reader, writer = await _connect(source, port)
            writer.write(HEAD + b"X-Slow: ")
            answered = asyncio.ensure_future(_answer(reader, counts))
            while not answered.done() and time.time() < until:
                writer.write(b"a")
                await writer.drain()
                await asyncio.wait([answered], timeout=1.0)
            answered.cancel()
            writer.close()
            await asyncio.sleep(0.5)  # then again
        except OSError:  # reset by the server: its answer was counted (or "closed")
            await asyncio.sleep(0.5)


async def _giant(source: str, port: int, until: float, counts: Counter[str], lines: bool) -> None:
    """A 32 MB header in 4 KB pieces (or 100,000 header lines), again and again."""
    piece = b"a: b\r\n" * 683 if lines else b"a" * 4096
    pieces = 147 if lines else 8192
    while time.time() < until:
        try:
            reader, writer = await _connect(source, port)
            answered = asyncio.ensure_future(_answer(reader, counts))
            writer.write(HEAD + (b"" if lines else b"X-Big: "))
            for _ in range(pieces):
                if answered.done() or time.time() >= until:
                    break
                writer.write(piece)
                await writer.drain()
            await asyncio.wait([answered], timeout=max(0.0, until - time.time()))
            answered.cancel()
            writer.close()
            await asyncio.sleep(0.5)  # then again
        except OSError:  # reset by the server: its answer was counted (or "closed")
            await asyncio.sleep(0.5)


def attacker(port: int, partial: int, giants: int, addresses: int, until: float) -> dict[str, int]:
    """In a process of its own: the slow and huge requests, until ``until``."""
    counts: Counter[str] = Counter()

    async def run() -> None:
        sources = [f"127.0.0.{2 + i}" for i in range(addresses)]
        jobs = [_slow(sources[i % addresses], port, until, counts) for i in range(partial)]
        jobs += [_giant(sources[i % addresses], port, until, counts, lines=bool(i % 2))
                 for i in range(giants)]
        await asyncio.gather(*jobs)

    asyncio.run(run())
    return dict(counts)


def page_loads(port: int, until: float) -> tuple[int, int, float]:
    """``GET /`` from 127.0.0.200 once a second: (answered 200, asked, slowest ms)."""
    import http.client

    ok = asked = 0
    slowest = 0.0
    while time.time() < until:
        asked += 1
        start = time.perf_counter()
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=10, source_address=("127.0.0.200", 0))
            conn.request("GET", "/")
            if conn.getresponse().status == 200:
                ok += 1
            conn.close()
        except OSError:
            pass
        slowest = max(slowest, (time.perf_counter() - start) * 1000)
        time.sleep(max(0.0, 1.0 - (time.perf_counter() - start)))
    return ok, asked, slowest


async def measure(args: argparse.Namespace, port: int, server_pid: int) -> None:
    async with connect(f"ws://{HOST}:{port}/ws", max_size=None, compression=None, proxy=None,
                       ping_interval=None) as ws:
        await ws.recv()  # the welcome
        quiet = await pings(ws, args.quiet, args.interval)
        print(f"ping, quiet: {figures(quiet)}")
        until = time.time() + args.duration
        cpu0, wall0 = cpu_seconds(server_pid), time.perf_counter()
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            attack = pool.apply_async(attacker, (port, args.partial, args.giants, args.addresses, until))
            loads = asyncio.ensure_future(asyncio.to_thread(page_loads, port, until))
            await asyncio.sleep(0.5)
            during = await pings(ws, max(0.5, until - time.time() - 0.5), args.interval)
            got = await asyncio.to_thread(attack.get, args.duration + 60)
            ok, asked, slowest = await loads
        cpu = cpu_seconds(server_pid) - cpu0
        wall = time.perf_counter() - wall0
    print(f"attack: {args.partial} slow requests, {args.giants} huge ones from {args.addresses} addresses "
          f"for {args.duration:g} s; the attacker got: "
          + ", ".join(f"{v} x {k}" for k, v in sorted(got.items())))
    print(f"page loads from another address: {ok} of {asked} answered 200, slowest {slowest:.0f} ms")
    print(f"server CPU {100 * cpu / wall:.0f}% of one core")
    print(f"ping, during the attack: {figures(during)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--partial", type=int, default=1100, help="partial requests held at once")
    parser.add_argument("--giants", type=int, default=4, help="huge requests under way at once")
    parser.add_argument("--addresses", type=int, default=11, help="loopback addresses the attack comes from")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of the attack")
    parser.add_argument("--quiet", type=float, default=3.0, help="seconds of pings before it")
    parser.add_argument("--interval", type=float, default=0.11, help="seconds between pings")
    args = parser.parse_args()
    if not (0 <= args.partial <= 5000 and 0 <= args.giants <= 64 and 1 <= args.addresses <= 200
            and 0 < args.duration <= 600 and 0 < args.quiet <= 60 and args.interval >= 0.1):
        parser.error("out of range: partial 0..5000, giants 0..64, addresses 1..200, duration 0..600 s, "
                     "quiet 0..60 s, interval >= 0.1 s")
    db = os.path.join(tempfile.mkdtemp(prefix="cta-slow-"), "slow.sqlite3")
    server, port = launch_server(db, "--forwarded-allow-ips", "10.255.255.254")
    try:
        asyncio.run(measure(args, port, server.pid))
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
