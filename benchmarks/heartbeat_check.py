"""The cost of a heartbeat on PostgreSQL with many idle tables in memory: the position check.

A process on PostgreSQL beats once a second (``Cluster.heartbeat``). Besides saying it is alive,
reading the database's clock and renewing its leases, each beat reads where the database has up
to ``Cluster.check_batch`` of the tables it has in memory (seats taken, last game, moves in it)
and which of their seats have a person connected to another live process, to find writes and
changes of people whose notification never came (``Cluster._unheard_writes`` and
``_unheard_presence``). This benchmark measures what that costs a beat when nothing happens.

It starts a throwaway PostgreSQL server (from the installed binaries, as the tests do:
``tests/pgtools.py``) or uses ``--db``, creates the tables in one in-process server (a real
``PgStore`` and ``Cluster``; no listening connection, probe or players: the heartbeat is called
directly, back to back), gives each table ``--present`` seats with a person connected to another
live process (rows in ``presence``, known to the cluster: no table is read), and for each count
in ``--tables`` and each ``--batch`` (``check_batch``: 0 checks nothing, the beat as it was
before the check; ``all``, every table at each beat) runs ``--beats`` heartbeats after
``--warm`` unmeasured ones, then as many again beside a 1 ms ticker. For each it prints, per
beat: the event loop thread's CPU (``time.thread_time``: the heartbeat's own work on the loop),
the worker thread's CPU for the beat's transaction (``PgStore.beat``: the query built, sent and
its rows read; the interpreter's lock is held meanwhile, apart from the waits on the socket),
their sum, the wall time of the beat, the PostgreSQL server's CPU (all its processes', from
``/proc/PID/schedstat``, background work included; throwaway server only) and the longest the
loop was held at once (the largest lateness of the ticker, in the second run: wall time, so a
loaded machine adds its own waits to it). With the load average.

    python benchmarks/heartbeat_check.py                          # 100, 1,000 and 3,000 tables
    python benchmarks/heartbeat_check.py --tables 1000 --batch 0 200 all

Only loopback is used; every wait is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))


def _server_cpu(pg: Any) -> float | None:
    """Seconds of CPU the PostgreSQL server's processes used so far (``/proc/PID/schedstat``, in
    nanoseconds: each of its processes has one thread); None: not ours to read."""
    if pg is None:
        return None
    total = 0
    for pid in pg.processes():
        with contextlib.suppress(OSError, ValueError, IndexError):
            total += int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])
    return total / 1e9


async def _beats(cluster: Any, count: int, worker: list[float], pg: Any, ticker: bool) -> dict[str, float]:
    """``count`` heartbeats back to back: the mean per beat of each figure, and the ticker's worst."""
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
    worker.clear()
    on_loop, walls = [], []
    server = _server_cpu(pg)
    for _ in range(count):
        cpu, wall = time.thread_time(), time.perf_counter()
        await cluster.heartbeat()
        walls.append(time.perf_counter() - wall)
        on_loop.append(time.thread_time() - cpu)
    after = _server_cpu(pg)
    stop.set()
    if ticking is not None:
        await ticking
    assert len(worker) == count and not cluster.dirty and not cluster.seats_dirty, "a table was read"
    return {"loop_ms": 1000 * statistics.fmean(on_loop), "worker_ms": 1000 * statistics.fmean(worker),
            "wall_ms": 1000 * statistics.fmean(walls), "wall_max_ms": 1000 * max(walls),
            "pg_ms": float("nan") if server is None or after is None else 1000 * (after - server) / count,
            "held_ms": 1000 * late[0]}


async def run(url: str, counts: list[int], batches: list[int | None], present: int, beats: int, warm: int,
              pg: Any) -> list[dict[str, Any]]:
    from chasetheace.web import protocol as P
    from chasetheace.web.app import Server
    from chasetheace.web.cluster import Cluster
    from chasetheace.web.pgstore import PgStore

    store = PgStore(url)
    server = Server(store, bot_delay=0)
    tables = {}
    for _ in range(max(counts)):  # made off the loop: each create writes its table to the database
        table, _, _ = await asyncio.to_thread(server.lobby.create, P.Create("Ann", seats=3, bots=None))
        tables[table.id] = table
    server.lobby.tables.clear()
    cluster = Cluster(server, store)
    seats = list(range(1, 1 + present))
    if seats:  # another live process with people at every table (its heartbeat kept fresh below)
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("INSERT INTO processes VALUES ('other', now() + interval '1 day')")
            conn.execute("INSERT INTO presence SELECT 'other', t, s FROM unnest(%s::text[]) AS x(t), "
                         "unnest(%s::int[]) AS y(s)", (list(tables), seats))
        cluster.elsewhere = {t: set(seats) for t in tables}
    worker: list[float] = []
    beat = store.beat

    def timed(*args: Any) -> Any:
        started = time.thread_time()
        try:
            return beat(*args)
        finally:
            worker.append(time.thread_time() - started)

    store.beat = timed  # type: ignore[method-assign]
    results = []
    try:
        for n in counts:
            server.lobby.tables.clear()
            server.lobby.tables.update(dict(list(tables.items())[:n]))
            for batch in batches:
                cluster.check_batch = n if batch is None else batch
                cluster.checked.clear()
                if warm:
                    await _beats(cluster, warm, worker, pg, False)  # statements prepared, caches warm
                row: dict[str, Any] = {"tables": n, "batch": "all" if batch is None else batch,
                                       "checked": min(n, cluster.check_batch),
                                       **await _beats(cluster, beats, worker, pg, False)}
                row["held_ms"] = (await _beats(cluster, beats, worker, pg, True))["held_ms"]
                results.append(row)
                print(_line(row), flush=True)
    finally:
        cluster.writer.shutdown()
        store.close()
    return results


def _line(r: dict[str, Any]) -> str:
    return (f"{r['tables']:>6} tables, check_batch {r['batch']!s:>4} ({r['checked']:>4} checked a beat): "
            f"loop CPU {r['loop_ms']:.2f} ms + beat thread CPU {r['worker_ms']:.2f} ms = "
            f"{r['loop_ms'] + r['worker_ms']:.2f} ms a beat; wall {r['wall_ms']:.1f} ms (max "
            f"{r['wall_max_ms']:.1f}); PostgreSQL server CPU {r['pg_ms']:.2f} ms; loop held at most "
            f"{r['held_ms']:.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, nargs="+", default=[100, 1000, 3000],
                        help="how many idle tables the process has in memory")
    parser.add_argument("--batch", nargs="+", default=["0", "200"],
                        help="Cluster.check_batch values to compare (0: no check; 'all': every table)")
    parser.add_argument("--present", type=int, default=1, choices=range(0, 3),
                        help="seats of each table with a person connected to another process (0 to 2)")
    parser.add_argument("--beats", type=int, default=100, help="heartbeats measured, each way")
    parser.add_argument("--warm", type=int, default=10, help="heartbeats before, not measured")
    parser.add_argument("--db", help="an empty PostgreSQL database's URL (default: a throwaway server)")
    args = parser.parse_args()
    batches: list[int | None] = []
    for b in args.batch:
        if b == "all":
            batches.append(None)
        elif b.isdecimal():
            batches.append(int(b))
        else:
            parser.error(f"--batch: a number or 'all', not {b!r}")
    if not all(1 <= n <= 20_000 for n in args.tables) or args.beats < 1 or args.warm < 0:
        parser.error("--tables: 1..20000 each; --beats: 1 or more; --warm: 0 or more")
    pg = None
    if args.db is None:
        from pgtools import benchmark_server  # type: ignore[import-not-found]  # tests/ is put on sys.path above

        pg = benchmark_server()
        if pg is None:
            return 2
    try:
        url = args.db if pg is None else pg.new_database("heartbeat")
        print(f"load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        cpu = time.process_time()
        asyncio.run(run(url, sorted(set(args.tables)), batches, args.present, args.beats, args.warm, pg))
        print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}; this process's CPU "
              f"{time.process_time() - cpu:.1f} s in all")
    finally:
        if pg is not None:
            pg.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
