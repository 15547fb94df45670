"""How long a move's write waits for its commit on PostgreSQL, written three ways side by side.

``together``: the move's insert and its ``NOTIFY`` in one transaction (the web table's write before
issue 30's third session); ``text``: the insert committed on its own, the ``NOTIFY`` in the next
transaction of the same round trip, all as one SQL text with the values quoted by libpq's
``PQescapeLiteral`` (the third session's write); ``params``: the same statements with every value a
parameter, sent in libpq's pipeline mode with one Sync, still one round trip, each statement
prepared once per connection (:func:`chasetheace.web.pgstore._move_commands`, what the web table
sends now); ``unprepared`` (not by default): the same parameters, the statements parsed at every
move. PostgreSQL holds a
lock that orders notifying transactions from before their commit until after it, WAL flush
included: with ``together`` every move of every connection waits for the flushes of the moves
before it, with the other two moves committing at once share one flush (group commit). Moves
arrive at random (a Poisson process) at ``--rate`` a second spread over ``--connections``
connections, each form for ``--seconds``, the forms alternating ``--rounds`` times; prints the
commit wait (p50, p99, max), PostgreSQL's WAL flushes per move (``pg_stat_wal``, the whole
server's) and this client's CPU per move (with the load's own scheduling) of each round.
``--back-to-back N`` first writes N moves one after another on one connection per form and round
(``synchronous_commit`` off on it, so no flush hides the rest) and prints the client's CPU a
move (the driver's share of a move's cost) and the time a move took in all; ``--seconds 0``
leaves out the load:

    python benchmarks/pg_moves.py --db postgresql://postgres@127.0.0.1:5432/scratch --back-to-back 1500

It creates (and drops at the end) a table ``bench_moves`` in that database.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from typing import Any

import psycopg
import psycopg.generators

from chasetheace.web.pgstore import PREPARED, _move_commands, pipeline, prepare

TABLE = "bench_moves"
OURS = f"INSERT INTO {TABLE}".encode()
BENCH_PREPARED = {statement.replace(b"INSERT INTO actions", OURS): name
                  for statement, name in PREPARED.items()}
FORMS = ("together", "text", "params", "unprepared")


def move_text(escape: Any, params: tuple[Any, ...]) -> str:
    """The ``text`` form: the statements of :func:`_move_commands` as one SQL text, each value
    quoted by ``escape`` (libpq's ``PQescapeLiteral`` on the connection)."""
    table_id, game_no, seq, seat, action, actor, events, act_id, chan, payload = params

    def lit(value: str | None) -> str:
        return "NULL" if value is None else escape(value.encode()).decode()

    insert = ("INSERT INTO actions (table_id, game_no, seq, seat, action, actor, events, at, act_id) VALUES "
              f"({lit(table_id)}, {game_no:d}, {seq:d}, {seat:d}, {lit(action)}, {lit(actor)}, "
              f"{lit(events)}, extract(epoch FROM now())::float8, {lit(act_id)})")
    tell = f"SELECT set_config('synchronous_commit', 'off', true), pg_notify({lit(chan)}, {lit(payload)})"
    return f"BEGIN; {insert}; COMMIT; {tell}"


def together_text(escape: Any, params: tuple[Any, ...]) -> str:
    """The insert and its NOTIFY in one statement, one transaction (the earlier write)."""
    text = move_text(escape, params).removeprefix("BEGIN; ")
    insert, _, tell = text.partition("; COMMIT; ")
    notify = tell.replace("set_config('synchronous_commit', 'off', true), ", "")
    return f"WITH saved AS ({insert} RETURNING 1) {notify} FROM saved"


async def connect(url: str, form: str) -> Any:
    conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
    if form == "params":  # as the web table's moves' connections: the statements prepared on each
        await conn.wait(prepare(conn.pgconn, BENCH_PREPARED))
    return conn


async def write(conn: Any, form: str, params: tuple[Any, ...]) -> None:
    """One move written in ``form``, as the web table wrote it (libpq's calls, no cursor)."""
    pgconn = conn.pgconn
    if form in ("params", "unprepared"):
        commands = [(statement.replace(b"INSERT INTO actions", OURS), values)
                    for statement, values in _move_commands(params)]
        failed = await conn.wait(pipeline(pgconn, commands, BENCH_PREPARED if form == "params" else None))
    else:
        escape = psycopg.pq.Escaping(pgconn).escape_literal
        text = move_text(escape, params) if form == "text" else together_text(escape, params)
        pgconn.send_query(text.replace("INSERT INTO actions", f"INSERT INTO {TABLE}").encode())
        results = await conn.wait(psycopg.generators.execute(pgconn))
        failed = next((r for r in results if r.status == psycopg.pq.ExecStatus.FATAL_ERROR), None)
    if failed is not None:
        raise psycopg.errors.error_from_result(failed, encoding="utf-8")


def move_params(seq: int, form: str) -> tuple[Any, ...]:
    return (f"b{seq % 200}", 1, seq, 0, "keep", "human", '[{"t":"kept","seat":0}]', f"{form}-{seq}",
            f"{TABLE}:{seq % 200}", f'bench|b{seq % 200}|m|{{"g":1,"s":{seq},"seat":0,"a":"keep","w":"human",'
            f'"i":"{form}-{seq}","e":[{{"t":"kept","seat":0}}]}}')


async def back_to_back(url: str, form: str, moves: int) -> tuple[float, float]:
    """``moves`` moves one after another on one connection: the client's CPU and the wall time
    (``synchronous_commit`` off on it: no flush to wait for, which would hide the driver's cost)."""
    conn = await connect(url, form)
    try:
        await conn.execute(f"TRUNCATE {TABLE}")
        await conn.execute("SET synchronous_commit = off")
        cpu, wall = time.process_time(), time.perf_counter()
        for seq in range(moves):
            await write(conn, form, move_params(seq, form))
        return time.process_time() - cpu, time.perf_counter() - wall
    finally:
        await conn.close()


async def one_form(url: str, form: str, rate: float, seconds: float, connections: int,
                   rng: random.Random) -> tuple[list[float], int, float]:
    conns = [await connect(url, form) for _ in range(connections)]
    free = list(conns)
    waits: list[float] = []
    counter = iter(range(10**9))

    async def move() -> None:
        while not free:
            await asyncio.sleep(0.0005)
        conn = free.pop()
        params = move_params(next(counter), form)
        started = time.perf_counter()
        await write(conn, form, params)
        waits.append(time.perf_counter() - started)
        free.append(conn)

    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as admin:
        await admin.execute(f"TRUNCATE {TABLE}")
        await asyncio.sleep(1.1)  # PostgreSQL reports its WAL statistics about once a second
        row = await (await admin.execute("SELECT wal_sync FROM pg_stat_wal")).fetchone()
        flushes0 = int(row[0]) if row else 0
        tasks = []
        cpu = time.process_time()
        due = time.perf_counter()
        until = due + seconds
        while due < until:  # each move at its time, however late the loop wakes
            now = time.perf_counter()
            while due <= now and due < until:
                tasks.append(asyncio.ensure_future(move()))
                due += rng.expovariate(rate)
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
        await asyncio.gather(*tasks)
        cpu = time.process_time() - cpu
        for conn in conns:
            await conn.close()
        await asyncio.sleep(1.1)  # PostgreSQL reports its WAL statistics about once a second
        row = await (await admin.execute("SELECT wal_sync FROM pg_stat_wal")).fetchone()
        flushes = (int(row[0]) if row else 0) - flushes0
    return sorted(waits), flushes, cpu


async def main_async(args: argparse.Namespace) -> None:
    async with await psycopg.AsyncConnection.connect(args.db, autocommit=True) as admin:
        await admin.execute(f"DROP TABLE IF EXISTS {TABLE}")
        await admin.execute(f"CREATE TABLE {TABLE} (table_id TEXT NOT NULL, game_no INTEGER NOT NULL, "
                            "seq INTEGER NOT NULL, seat INTEGER NOT NULL, action TEXT NOT NULL, actor TEXT "
                            "NOT NULL, events TEXT NOT NULL, at DOUBLE PRECISION NOT NULL, act_id TEXT, "
                            "PRIMARY KEY (table_id, game_no, seq))")
        row = await (await admin.execute("SHOW synchronous_commit")).fetchone()
        print(f"synchronous_commit={row[0] if row else '?'}; {args.rate:g} moves/s over "
              f"{args.connections} connections, {args.seconds:g} s per form and round")
    rng = random.Random(1)
    try:
        for round_no in range(1, args.rounds + 1 if args.back_to_back else 1):
            for form in args.forms:
                cpu, wall = await back_to_back(args.db, form, args.back_to_back)
                print(f"back to back, round {round_no} {form:>8}: {args.back_to_back} moves on one "
                      f"connection, client CPU {1e6 * cpu / args.back_to_back:.0f} us a move, "
                      f"{1e6 * wall / args.back_to_back:.0f} us a move in all")
        for round_no in range(1, args.rounds + 1 if args.seconds else 1):
            for form in args.forms:
                waits, flushes, cpu = await one_form(args.db, form, args.rate, args.seconds, args.connections,
                                                     rng)

                p50, p99 = (1000 * waits[min(len(waits) - 1, int(q * len(waits)))] for q in (0.5, 0.99))
                print(f"round {round_no} {form:>8}: {len(waits)} moves, commit wait p50 {p50:.2f} ms, "
                      f"p99 {p99:.2f} ms, max {1000 * waits[-1]:.2f} ms; WAL flushes per move "
                      f"{flushes / len(waits):.2f}; client CPU per move {1e6 * cpu / len(waits):.0f} us")
    finally:
        async with await psycopg.AsyncConnection.connect(args.db, autocommit=True) as admin:
            await admin.execute(f"DROP TABLE IF EXISTS {TABLE}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="postgresql://... (a scratch database)")
    parser.add_argument("--rate", type=float, default=190.0, help="moves a second (all connections)")
    parser.add_argument("--connections", type=int, default=12, help="connections writing moves")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per form and round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--back-to-back", type=int, default=0, metavar="N",
                        help="first, N moves one after another on one connection per form and round: "
                             "the client's CPU a move, without the load's scheduling")
    parser.add_argument("--forms", nargs="+", choices=FORMS, default=list(FORMS[:3]),
                        help="the forms to compare, in this order each round")
    args = parser.parse_args()
    if not (0 < args.rate <= 5000 and 1 <= args.connections <= 50 and 0 <= args.seconds <= 300
            and 1 <= args.rounds <= 10 and 0 <= args.back_to_back <= 10**6):
        parser.error("out of range: rate 0..5000, connections 1..50, seconds 0..300, rounds 1..10, "
                     "back-to-back 0..1000000")
    if not args.db.startswith(("postgresql://", "postgres://")):
        parser.error("--db takes a postgresql:// URL")
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
