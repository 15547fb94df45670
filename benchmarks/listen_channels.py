"""The event loop's time for a heartbeat's LISTEN/UNLISTEN work on PostgreSQL, with many tables.

A process on PostgreSQL listens on one notification channel per table it has in memory. At each
heartbeat (``Cluster.tidy_channels``) it sends ``LISTEN`` for the tables loaded since, and one
``UNLISTEN`` text for the tables it let go, on its listening connection, and takes the answers as
they come (in the event loop's thread, without blocking it on the socket). This benchmark starts
a throwaway PostgreSQL server (from the installed binaries, as the tests do: ``tests/pgtools.py``)
or uses ``--db``, opens ``--tables`` tables in one in-process server (a real ``PgStore`` and
``Cluster``, its listening connection only: no heartbeats, probes or players), and for each count
in ``--tables`` measures two heartbeats:

1. **listen**: every table appears at once (loaded since the last beat): a ``LISTEN`` each;
2. **unlisten**: every table is let go at once: one ``UNLISTEN`` text for all of them.

For each it prints, from the heartbeat's call until the last answer came: the event loop thread's
CPU time in all (``time.thread_time``), the heartbeat call's own time, and the longest the loop
was held at once (the largest lateness of a 1 ms ticker beside it, in a second run of the same
heartbeat: the ticker's own CPU is left out of the first; wall time, so a loaded machine adds its
own waits to it). ``--batch`` sets how many channels one text names (``Cluster.listen_batch``):
``1`` is a command per table (a LISTEN each, as the heartbeat sent them before), a number above
``--tables`` one text for all. With the load average.

    python benchmarks/listen_channels.py                       # 100 and 1,000 tables
    python benchmarks/listen_channels.py --tables 3000
    python benchmarks/listen_channels.py --tables 1000 --batch 1 200 20000   # side by side

Only loopback is used; every wait is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))


async def _settled(cluster: Any, limit: float = 120.0) -> None:
    """Until every command sent on the listening connection was answered."""
    end = time.monotonic() + limit
    while cluster.sent is not None or cluster.commands:
        if time.monotonic() > end:
            raise TimeoutError("the listening connection did not answer in time")
        await asyncio.sleep(0.001)


async def _beat(cluster: Any, change: Any, ticker: bool) -> dict[str, float]:
    """One heartbeat's channel work after ``change()``: the loop thread's CPU until the last answer,
    the call's own time, and (``ticker``) the longest the loop was held at once."""
    loop = asyncio.get_running_loop()
    late = [0.0]
    stop = asyncio.Event()

    async def tick() -> None:
        while not stop.is_set():
            due = loop.time() + 0.001
            await asyncio.sleep(0.001)
            late[0] = max(late[0], loop.time() - due)

    ticking = asyncio.create_task(tick()) if ticker else None
    await asyncio.sleep(0.01)
    change()
    cpu, wall = time.thread_time(), time.perf_counter()
    cluster.tidy_channels()
    call = time.perf_counter() - wall
    await _settled(cluster)
    cpu = time.thread_time() - cpu
    stop.set()
    if ticking is not None:
        await ticking
    return {"cpu_ms": cpu * 1000, "call_ms": call * 1000, "held_ms": late[0] * 1000}


async def run(url: str, counts: list[int], batches: list[int]) -> list[dict[str, Any]]:
    from chasetheace.web import protocol as P
    from chasetheace.web.app import Server
    from chasetheace.web.cluster import Cluster
    from chasetheace.web.pgstore import PgStore

    store = PgStore(url)
    server = Server(store, bot_delay=0)
    tables = {}
    for _ in range(max(counts)):  # made off the loop: each create writes its table to the database
        table, _, _ = await asyncio.to_thread(server.lobby.create, P.Create("Ann", seats=2, bots=None))
        tables[table.id] = table
    server.lobby.tables.clear()
    cluster = Cluster(server, store)
    listening = asyncio.create_task(cluster._listen())
    end = time.monotonic() + 30
    while cluster.listener is None:
        if time.monotonic() > end:
            raise TimeoutError("the listening connection did not connect")
        await asyncio.sleep(0.01)
    results = []
    try:
        for n, batch in [(n, b) for n in counts for b in batches]:
            cluster.listen_batch = batch
            chosen = dict(list(tables.items())[:n])
            for ticker in (False, True):
                appear = lambda chosen=chosen: server.lobby.tables.update(chosen)  # noqa: E731
                listen = await _beat(cluster, appear, ticker)
                assert cluster.channels == set(chosen)
                await _settled(cluster)
                unlisten = await _beat(cluster, server.lobby.tables.clear, ticker)
                assert not cluster.channels
                if not ticker:
                    row: dict[str, Any] = {"tables": n, "batch": batch, "listen": listen,
                                           "unlisten": unlisten}
                else:
                    row["listen"]["held_ms"] = listen["held_ms"]
                    row["unlisten"]["held_ms"] = unlisten["held_ms"]
                    results.append(row)
    finally:
        listening.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await listening
        store.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, nargs="+", default=[100, 1000],
                        help="how many tables appear, then are let go, at one heartbeat")
    parser.add_argument("--batch", type=int, nargs="+", default=[200],
                        help="the most channels to a LISTEN/UNLISTEN text (Cluster.listen_batch; 1: "
                             "a command per table)")
    parser.add_argument("--db", help="an empty PostgreSQL database's URL (default: a throwaway server)")
    args = parser.parse_args()
    if not all(1 <= n <= 20_000 for n in args.tables) or not all(b >= 1 for b in args.batch):
        parser.error("--tables: 1..20000 each; --batch: 1 or more each")
    pg = None
    if args.db is None:
        from pgtools import benchmark_server  # type: ignore[import-not-found]  # tests/ is put on sys.path above

        pg = benchmark_server()
        if pg is None:
            return 2
    try:
        url = args.db if pg is None else pg.new_database("channels")
        print(f"load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        results = asyncio.run(run(url, sorted(set(args.tables)), args.batch))
        print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        if pg is not None:
            pg.close()
    for row in results:
        for phase in ("listen", "unlisten"):
            r = row[phase]
            print(f"{row['tables']:>6} tables, batch {row['batch']:>5}, {phase:<8}: loop CPU "
                  f"{r['cpu_ms']:.1f} ms until answered, the heartbeat's call {r['call_ms']:.1f} ms, "
                  f"the loop held at most {r['held_ms']:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
