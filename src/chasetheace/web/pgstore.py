"""Persistence on PostgreSQL: the same tables, seats, games and moves as the SQLite store, shared
by any number of server processes.

The layout and its versions follow :mod:`.store` (``meta.schema``; each earlier version is
upgraded on start, in one transaction under an advisory lock so processes starting together
upgrade once; a newer one is refused; a database holding another application's tables is
refused). Version 3 adds what several processes need: ``processes`` (each live process and its
heartbeat), ``presence`` (which seats have a person connected to which process) and ``leases``
(which process runs a table's bots and timers, until when); version 4, when each person connected
took their seat (``presence.since``: a takeover whose notification was lost is found by it).

Every write the other processes must hear of is one short transaction followed by a
``NOTIFY "cta_tables:TABLE", 'PROCESS|TABLE'`` (a channel per table) in a transaction of its own,
sent only once the write committed and in the same round trip as its commit
(:func:`_move_commands` says why; a turn's deadline, whose commit does not wait for the disk,
sends it in its own transaction): PostgreSQL delivers it to every process listening there, the
processes with the table in memory (:mod:`.cluster`), each of which reads what it is missing and
tells its own clients (a write whose ``NOTIFY`` was lost is found by their heartbeats,
:meth:`PgStore.beat`, as is a change of who is connected, a turn's deadline or a seat's takeover
that nobody announced). Two processes saving the same move number, seat or game collide on the
primary key: the second gets :class:`~.store.StoreConflict` and nothing is written. A database
that cannot be reached is :class:`~.store.StoreUnavailable` (fast: after a failure, calls fail at
once for a second instead of each waiting on the connection pool).

Connections come from a psycopg-pool pool for the worker threads, and for the moves, written
from the event loop, from a few asynchronous connections of their own (a connection that broke,
as after a PostgreSQL restart, is dropped and the move tried on another). Every value goes to
PostgreSQL as a parameter, never quoted into SQL text. The driver is the ``postgres`` extra,
imported only here.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import json
import os
import re
import secrets
import socket
import threading
import time
from collections.abc import Callable, Generator, Sequence
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit, urlunsplit

from ..events import Event
from ..extras import needs_extra_text
from ..record import Record
from .bridge import Bridge
from .store import (
    SCHEMA_VERSION,
    StoreConflict,
    StoredAction,
    StoredGame,
    StoredSeat,
    StoredTable,
    StoreUnavailable,
    _dump,
)
from .tables import HUMAN

__all__ = ["PgStore", "mask_url", "PG_UPGRADES", "PG_SCHEMA_V1", "CHANNEL", "channel", "listen_text"]

CHANNEL = "cta_tables"
"""The prefix of the NOTIFY channels: each table has its own (:func:`channel`), so a process is
woken only by writes about the tables it has in memory."""


def channel(table_id: str) -> str:
    """The NOTIFY channel of a table: payload ``PROCESS|TABLE_ID...``, sent with every write about
    it (a channel name is at most 63 bytes: a table id longer than any this server makes shares
    the channel of its first 40 characters, whose readers ignore the others' payloads)."""
    return f"{CHANNEL}:{table_id[:40]}"


def listen_text(table_ids: Sequence[str], *, stop: bool = False) -> str:
    """The ``LISTEN`` (``stop``: ``UNLISTEN``) statements of these tables' channels, as one text."""
    word = "UNLISTEN" if stop else "LISTEN"
    return "".join(f'{word} "{channel(t).replace(chr(34), chr(34) * 2)}";' for t in table_ids)

_LOCK_KEY = 0x43544131  # the advisory lock taken while a process creates or upgrades the schema

PG_SCHEMA_V1 = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY, created DOUBLE PRECISION NOT NULL, options TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL REFERENCES tables(id), seat INTEGER NOT NULL, name TEXT NOT NULL,
    token_hash TEXT NOT NULL, PRIMARY KEY (table_id, seat));
CREATE TABLE IF NOT EXISTS games (
    table_id TEXT NOT NULL REFERENCES tables(id), game_no INTEGER NOT NULL, seed BIGINT NOT NULL,
    carry INTEGER NOT NULL, names TEXT NOT NULL, kinds TEXT NOT NULL, events TEXT NOT NULL,
    PRIMARY KEY (table_id, game_no));
CREATE TABLE IF NOT EXISTS actions (
    table_id TEXT NOT NULL, game_no INTEGER NOT NULL, seq INTEGER NOT NULL, seat INTEGER NOT NULL,
    action TEXT NOT NULL, actor TEXT NOT NULL, events TEXT NOT NULL, at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (table_id, game_no, seq));
CREATE INDEX IF NOT EXISTS actions_at ON actions (table_id, at);
"""
"""The layout of version 1 (the SQLite store's first, in PostgreSQL's types)."""

PG_UPGRADES: dict[int, tuple[str, ...]] = {
    1: ("ALTER TABLE seats ADD COLUMN recovery_hash TEXT",),
    2: ("ALTER TABLE actions ADD COLUMN act_id TEXT",
        "CREATE UNIQUE INDEX actions_act_id ON actions (table_id, act_id)",
        "CREATE TABLE processes (id TEXT PRIMARY KEY, seen TIMESTAMPTZ NOT NULL)",
        "CREATE TABLE presence (process TEXT NOT NULL REFERENCES processes(id) ON DELETE CASCADE, "
        "table_id TEXT NOT NULL, seat INTEGER NOT NULL, PRIMARY KEY (process, table_id, seat))",
        "CREATE INDEX presence_table ON presence (table_id)",
        "CREATE TABLE leases (table_id TEXT PRIMARY KEY, holder TEXT NOT NULL, "
        "expires TIMESTAMPTZ NOT NULL)",
        "CREATE INDEX tables_public ON tables (created) WHERE (options::jsonb ->> 'public') = 'true'",
        "CREATE TABLE turns (table_id TEXT PRIMARY KEY, game_no INTEGER NOT NULL, events INTEGER NOT NULL, "
        "ends DOUBLE PRECISION NOT NULL)"),
    # when each person connected took their seat (the database's clock): a takeover of a seat by
    # another process is found by the heartbeats even if its notification was lost (NULL: a row
    # of a process of version 3, still running beside newer ones, which never says)
    3: ("ALTER TABLE presence ADD COLUMN since DOUBLE PRECISION",),
}
"""From each version to the next, as :data:`.store.UPGRADES` for SQLite."""

T = TypeVar("T")
_MAX_PAYLOAD = 7900  # PostgreSQL's NOTIFY takes up to 8000 bytes
_ELSEWHERE = ("SELECT p.seat FROM presence p JOIN processes q ON q.id = p.process WHERE p.table_id = %s "
              "AND p.process <> %s AND q.seen > now() - make_interval(secs => %s)")
_CLOCK = "SELECT extract(epoch FROM clock_timestamp())::float8, (SELECT value FROM meta WHERE key='schema')"


def _clock_row(row: Any) -> tuple[float, int | None]:
    """The database's clock and schema version from a row of :data:`_CLOCK`."""
    schema = str(row[1]) if row[1] is not None else ""
    return float(row[0]), int(schema) if schema.isdecimal() else None


_LIVE = "p.process <> %s AND q.seen > now() - make_interval(secs => %s)"
_ELSEWHERE_MANY = ("SELECT p.table_id, p.seat FROM presence p JOIN processes q ON q.id = p.process "
                   "WHERE p.table_id = ANY(%s::text[]) AND " + _LIVE)
"""The seats of some tables with a person connected to another live process (table, seat)."""
_POSITIONS = ("SELECT x.t, (SELECT count(*) FROM seats s WHERE s.table_id = x.t), g.n, "
              "COALESCE((SELECT a.seq + 1 FROM actions a WHERE a.table_id = x.t AND a.game_no = g.n "
              "ORDER BY a.seq DESC LIMIT 1), 0), e.seats, e.since, e.procs, u.game_no, u.events, u.ends "
              "FROM unnest(%s::text[]) AS x(t) CROSS JOIN LATERAL "
              "(SELECT COALESCE(max(game_no), 0) AS n FROM games WHERE table_id = x.t) AS g "
              "CROSS JOIN LATERAL (SELECT array_agg(p.seat) AS seats, array_agg(p.since) AS since, "
              "array_agg(p.process) AS procs FROM presence p JOIN processes q ON q.id = p.process "
              "WHERE p.table_id = x.t AND " + _LIVE + ") AS e LEFT JOIN turns u ON u.table_id = x.t")
"""Where the database has each of some tables: seats taken, last game, moves saved in it; the
people connected to other live processes there (their seats, when each took it and through which
process; NULLs if none); and its turn timer's saved deadline (game, events, ends; NULLs if none)
(parameters: the tables, this process, how recent a live process's heartbeat is, in seconds)."""
_ALIVE = "INSERT INTO processes VALUES (%s, now()) ON CONFLICT (id) DO UPDATE SET seen = now()"
# a move: its insert committed first, on its own (dated on the database's clock, as tables are:
# the expiry of idle tables reads that clock), then its NOTIFY in a transaction of its own, sent
# only if the insert committed; parameters, not text, in one pipeline: one round trip (:func:`_move_commands`)
_INSERT_MOVE = (b"INSERT INTO actions (table_id, game_no, seq, seat, action, actor, events, at, act_id) "
                b"VALUES ($1, $2, $3, $4, $5, $6, $7, extract(epoch FROM now())::float8, $8)")
_TELL = b"SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2)"
_BEGIN, _COMMIT, _ROLLBACK = b"BEGIN", b"COMMIT", b"ROLLBACK"

Command = tuple[bytes, Sequence[bytes | None] | None]
"""A statement and its parameters (PostgreSQL's text form; None: NULL), as sent in a pipeline."""
PREPARED = {_BEGIN: b"cta_begin", _INSERT_MOVE: b"cta_move", _COMMIT: b"cta_commit", _TELL: b"cta_tell"}
"""The names of a move's statements as prepared on each moves' connection (:func:`prepare`): parsed
and planned once per connection, not at every move (``benchmarks/pg_moves.py --back-to-back
2000 --forms text params unprepared``, three rounds: 86 to 102 us of the client's CPU a move
against 109 to 134 unprepared and 101 to 114 as one quoted text; 188 to 372 us a move in all
against 450 to 629 and 399 to 528)."""


def _tell_command(chan: str, payload: str) -> Command:
    """The NOTIFY of a write, in a transaction of its own after the write's (its commit does not
    wait for the disk: it saves nothing)."""
    return _TELL, (chan.encode(), payload.encode())


def _move_commands(params: Sequence[Any]) -> list[Command]:
    """The statements that save a move (the parameters of :meth:`PgStore._move`), each with its
    values as parameters (no value is ever quoted into the SQL), sent as one pipeline with a
    single Sync at its end (:func:`pipeline`: one round trip): the insert between
    ``BEGIN`` and ``COMMIT``, then the notification. PostgreSQL runs them in order and, at the
    first error, skips the rest up to the Sync (leaving the block failed: it is rolled back), so
    a move that was not saved (a conflict) is not announced; the insert's commit waits, as any
    commit, until the move is on disk (``synchronous_commit``), and nobody hears of the move
    before: the notification's own transaction commits only after it. (A process or backend that
    dies between the two leaves the move saved and not announced: the other processes holding
    the table find it at its next notification, a gap, at their next write there, a conflict, or
    at their second heartbeat after it (:meth:`PgStore.beat`'s positions), and read the table.)

    Why two transactions: PostgreSQL serialises every transaction that sends a NOTIFY with a lock
    held from before its commit until after it (so notifications come in commit order), the WAL
    flush included; with the NOTIFY in the move's transaction, the moves of every process were
    written one flush after another (about 4 ms each on a disk of this kind: 190 moves a second
    kept the lock busy three quarters of the time, and any holder a busy CPU paused held up every
    other). Without it, moves committing together share one flush (PostgreSQL's group commit),
    and the notification's transaction, which saves nothing, does not wait for a flush of its own
    (on PostgreSQL 15 it writes no commit record at all: 0.01 flushes per such transaction against
    1.0 with an insert beside it, measured; ``synchronous_commit`` is set off for it alone too, for
    servers that would write one)."""
    table_id, game_no, seq, seat, action, actor, events, act_id, chan, payload = params
    row = (table_id.encode(), b"%d" % game_no, b"%d" % seq, b"%d" % seat, action.encode(), actor.encode(),
           events.encode(), None if act_id is None else act_id.encode())
    return [(_BEGIN, None), (_INSERT_MOVE, row), (_COMMIT, None), _tell_command(chan, payload)]


def prepare(pgconn: Any, statements: dict[bytes, bytes] = PREPARED) -> Generator[Any, Any, None]:
    """Prepare ``statements`` (each under its name: by default a move's, :data:`PREPARED`) on
    ``pgconn``, in one round trip; run by the connection's ``wait``. psycopg's error if one is
    refused."""
    from psycopg import errors, generators, pq

    pgconn.enter_pipeline_mode()
    try:
        for statement, name in statements.items():
            pgconn.send_prepare(name, statement)
        pgconn.pipeline_sync()
        yield from generators.send(pgconn)
        results = []
        for _ in range(len(statements) + 1):
            results += yield from generators.fetch_many(pgconn)
    except BaseException:
        with contextlib.suppress(Exception):
            pgconn.exit_pipeline_mode()
        raise
    pgconn.exit_pipeline_mode()
    for result in results:
        if result.status == pq.ExecStatus.FATAL_ERROR:
            raise errors.error_from_result(result, encoding="utf-8")


def pipeline(pgconn: Any, commands: Sequence[Command],
             prepared: dict[bytes, bytes] | None = None) -> Generator[Any, Any, Any]:
    """Send ``commands`` on ``pgconn`` (libpq's connection, idle or in a transaction block) in
    pipeline mode with one Sync at the end, so in one round trip, and read their answers; to be
    run by the connection's ``wait`` (``await conn.wait(...)`` on an asynchronous one).
    Returns the first failed result, or None if every command succeeded. PostgreSQL skips the
    commands after a failed one up to the Sync (a ``NOTIFY`` after a ``COMMIT`` is not sent
    when the commit or a statement before it failed); a transaction block left failed is
    rolled back (a second round trip, only then), so the connection is idle again after any
    answer. ``prepared``: the names of statements prepared on the connection (:func:`prepare`),
    sent by name."""
    from psycopg import generators, pq

    fatal, in_error = pq.ExecStatus.FATAL_ERROR, pq.TransactionStatus.INERROR
    pgconn.enter_pipeline_mode()
    try:
        for statement, params in commands:
            name = None if prepared is None else prepared.get(statement)
            if name is None:
                pgconn.send_query_params(statement, params)
            else:
                pgconn.send_query_prepared(name, params)
        pgconn.pipeline_sync()
        yield from generators.send(pgconn)
        failed = None
        for _ in range(len(commands) + 1):  # each command's answer, then the Sync's
            for result in (yield from generators.fetch_many(pgconn)):
                if failed is None and result.status == fatal:
                    failed = result
        if failed is not None and pgconn.transaction_status == in_error:
            pgconn.send_query_params(_ROLLBACK, None)
            pgconn.pipeline_sync()
            yield from generators.send(pgconn)
            for _ in range(2):
                yield from generators.fetch_many(pgconn)
    except BaseException:  # (the connection broke, or the wait was given up: it is dropped)
        with contextlib.suppress(Exception):
            pgconn.exit_pipeline_mode()
        raise
    pgconn.exit_pipeline_mode()  # every answer read: back to the connection's ordinary mode
    return failed


class _MoveConnections:
    """The moves' own connections (psycopg's asynchronous ones), lent on the event loop one move
    at a time: up to ``size`` of them, opened when needed; one that broke (or whose move was given
    up mid-way) is closed, not lent again."""

    def __init__(self, store: PgStore, size: int) -> None:
        self.store, self.size = store, size
        self.idle: list[Any] = []
        self.count = 0  # open or opening
        self.waiting: collections.deque[asyncio.Future[Any]] = collections.deque()
        self.closed = False
        self.closing: set[asyncio.Future[None]] = set()  # connections being closed

    async def take(self) -> Any:
        """A free connection; :class:`~.store.StoreUnavailable` if none is free within the store's
        :attr:`~PgStore.pool_timeout` or one cannot be opened within it."""
        store = self.store
        while True:
            if self.closed:
                raise StoreUnavailable(f"database {store.path} is unavailable: the server is stopping")
            if self.idle:
                return self.idle.pop()
            if self.count < self.size:
                self.count += 1
                try:
                    return await asyncio.wait_for(self._open(), store.pool_timeout)
                except BaseException as exc:
                    self.count -= 1
                    self._next()
                    if isinstance(exc, asyncio.CancelledError) or not isinstance(exc, Exception):
                        raise
                    why = store._mask(exc) if str(exc) else f"no connection within {store.pool_timeout:g} s"
                    raise StoreUnavailable(f"database {store.path} is unavailable: {why}") from None
            waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self.waiting.append(waiter)
            try:
                return await asyncio.wait_for(waiter, store.pool_timeout)
            except _Reopen:
                continue
            except TimeoutError:
                raise StoreUnavailable(f"database {store.path} is unavailable: every connection busy for "
                                       f"{store.pool_timeout:g} s") from None

    async def _open(self) -> Any:
        psycopg = self.store._psycopg
        options = self.store._pool_options["kwargs"]
        # UTF-8 whatever the database's encoding: :meth:`PgStore._save` sends its text so encoded
        conn = await psycopg.AsyncConnection.connect(self.store.url, client_encoding="UTF8", **options)
        try:
            await conn.wait(prepare(conn.pgconn))  # a move's statements, parsed once for the connection
        except BaseException:
            await self._close(conn)
            raise
        return conn

    def give(self, conn: Any, ok: bool) -> None:
        """Take back a connection lent; ``ok``: it is idle and may be lent again."""
        if ok and not self.closed and not conn.closed:
            while self.waiting:
                waiter = self.waiting.popleft()
                if not waiter.done():
                    waiter.set_result(conn)
                    return
            self.idle.append(conn)
            return
        self.count -= 1
        closing = asyncio.ensure_future(self._close(conn))
        self.closing.add(closing)
        closing.add_done_callback(self.closing.discard)
        self._next()

    def _next(self) -> None:
        """A connection fewer: the first caller waiting opens one of its own."""
        while self.waiting:
            waiter = self.waiting.popleft()
            if not waiter.done():
                waiter.set_exception(_Reopen())
                return

    @staticmethod
    async def _close(conn: Any) -> None:
        with contextlib.suppress(Exception):
            await conn.close()

    async def close(self) -> None:
        self.closed = True
        idle, self.idle = self.idle, []
        for conn in idle:
            await self._close(conn)


class _Reopen(Exception):
    """To a caller waiting for a moves' connection: one was closed, open another."""


class _GivenUp(Exception):
    """A call the event loop gave up on, stopped before its commit."""


class _Call:
    """A database call made for the event loop, run in a worker thread: the loop may give up on it
    (:meth:`abandon`) until the worker is about to commit (:meth:`commit`), not after."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state = "running"  # then "committing" or "abandoned", for good

    def commit(self) -> bool:
        """In the worker, before the commit: whether the loop still waits (then it cannot give up)."""
        with self._lock:
            if self._state == "running":
                self._state = "committing"
            return self._state == "committing"

    def abandon(self) -> bool:
        """On the loop: give up, so the call commits nothing; False if its commit is under way."""
        with self._lock:
            if self._state == "running":
                self._state = "abandoned"
            return self._state == "abandoned"


def mask_url(url: str) -> str:
    """The URL with its password (if any) replaced by ``***``: what logs and errors show."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return re.sub(r"//[^@/]*@", "//***@", url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


class PgStore:
    """The PostgreSQL database of every table, shared by the server's processes."""

    shared = True

    wait = 10.0
    """The longest a move's write is awaited (:meth:`save_move`: the event loop serves others
    meanwhile) before its client is told the database is unavailable (the write may still commit:
    the table is read again). Long, so that a machine short of CPU is not taken for a database
    gone: a database that stops answering is found by the probe (:mod:`.cluster`) within seconds,
    and moves are refused at once from then on."""
    loop_wait = 0.15
    """A call made on the event loop thread itself (a rare one: a join, a start) runs in a worker
    thread while the loop waits: past this many seconds, if the probe has had no answer for
    :attr:`probe_silence` seconds (a database gone, not merely busy), the client is told the
    database is unavailable and the call commits nothing, even once the database goes on (unless
    its commit was sent already: that one is awaited up to :attr:`wait`); else it waits up to
    :attr:`wait`."""
    probe_silence = 1.0
    pool_timeout = 2.0
    """The longest a call waits for one of the pool's connections to be free."""
    statement_timeout = 5.0
    """PostgreSQL ends a statement running longer than this (seconds)."""
    lock_timeout = 1.0
    """PostgreSQL ends a statement waiting longer than this for a lock (a ``CREATE INDEX`` or a
    ``LOCK TABLE`` held on the moves): the move is refused as unavailable, not left waiting."""

    def __init__(self, url: str, *, process: str | None = None, pool_size: int = 8, move_pool_size: int = 4,
                 connect_timeout: float = 5.0) -> None:
        self.url = url
        self.path = mask_url(url)
        self.process = process or f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        try:
            import psycopg
            import psycopg_pool
        except ImportError as exc:
            missing = exc.name or "psycopg"
            raise ImportError(needs_extra_text(f"--db {self.path}", "postgres", missing=missing),
                              name=exc.name) from None
        self._psycopg = psycopg
        self.bridge = Bridge(f"--db {self.path}", "postgres")  # for :meth:`bridged`
        self.loop_waits = 0  # database calls the event loop's thread waited for (see :meth:`_tx`)
        self._tries = pool_size + 1  # a connection found broken is dropped and the next one tried
        self._beats = 0  # heartbeats made (:meth:`beat`)
        self._timeout = connect_timeout
        self._check_url(url)
        self._down_until = 0.0
        self._lock = threading.Lock()
        # the threads that run database calls for the event loop (a hung database holds some of
        # them, never the loop); the probe has its own thread and connection
        self.executor = concurrent.futures.ThreadPoolExecutor(pool_size + 4, thread_name_prefix="cta-db")
        self._probe_conn: Any = None
        self.answered = time.monotonic()  # when the probe last had an answer (see probing)
        self.probe_connects = 0  # connections the probe opened (the first, then after a break)
        self.probe_timeouts = 0  # probes that ran past their statement timeout (slow answers)
        self._probing = threading.Event()  # set: stop probing
        self._probe_started = False
        try:
            with psycopg.connect(url, connect_timeout=max(1, round(connect_timeout))) as conn:
                self._upgrade(conn)
        except psycopg.Error as exc:
            raise ValueError(f"cannot use database {self.path}: {self._mask(exc)}") from None
        self._pool_options: dict[str, Any] = dict(
            kwargs={"connect_timeout": max(1, round(connect_timeout)), "autocommit": True,
                    "options": f"-c statement_timeout={round(self.statement_timeout * 1000)} "
                               f"-c lock_timeout={round(self.lock_timeout * 1000)}"},
            reconnect_timeout=365 * 86400.0)
        self.pool = psycopg_pool.ConnectionPool(url, min_size=2, max_size=pool_size, open=False,
                                                name="chase-the-ace", **self._pool_options)
        self.pool.open(wait=False)
        # the moves' own connections, used from the event loop (:meth:`save_move`), opened there
        self._moves = _MoveConnections(self, move_pool_size)
        from psycopg import pq

        self._idle, self._fatal = pq.TransactionStatus.IDLE, pq.ExecStatus.FATAL_ERROR

    # --- set-up ---------------------------------------------------------------------------------

    def _check_url(self, url: str) -> None:
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 (raises on a bad port)
        except ValueError as exc:
            raise ValueError(f"bad database URL {self.path}: {exc}") from None
        if not parts.path.strip("/") and "dbname=" not in parts.query:
            raise ValueError(f"bad database URL {self.path}: name the database "
                             "(postgresql://USER@HOST:PORT/DBNAME)")

    def _mask(self, exc: BaseException) -> str:
        text = " ".join(str(exc).split())
        password = urlsplit(self.url).password
        if password:
            text = text.replace(password, "***")
        return text or type(exc).__name__

    def _upgrade(self, conn: Any) -> None:
        """Create the schema at :data:`.store.SCHEMA_VERSION` or bring an older one up to it, in one
        transaction under an advisory lock; a newer one, or another application's tables, is
        refused with nothing changed."""
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            names = [r[0] for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")]
            if "meta" not in names:
                if names:
                    raise ValueError(f"database {self.path} holds tables of another application "
                                     f"({', '.join(names[:5])}) and no chase-the-ace schema: give "
                                     "chase-the-ace a database of its own")
                version = 0
            else:
                row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
                if row is None or not str(row[0]).isdecimal():
                    raise ValueError(f"database {self.path} has an unknown schema version "
                                     f"{None if row is None else row[0]!r}")
                version = int(row[0])
            if version > SCHEMA_VERSION:
                raise ValueError(f"database {self.path} has schema version {version}, written by a newer "
                                 f"chase-the-ace; this server reads up to {SCHEMA_VERSION}: "
                                 "upgrade the server")
            if version == 0:
                conn.execute(PG_SCHEMA_V1)
                version = 1
            for step in range(version, SCHEMA_VERSION):
                for statement in PG_UPGRADES[step]:
                    conn.execute(statement)
            conn.execute("INSERT INTO meta VALUES ('schema', %s) ON CONFLICT (key) DO UPDATE SET value = "
                         "EXCLUDED.value", (str(SCHEMA_VERSION),))

    def close(self) -> None:
        """Close the pool (this process's presence and leases go with it)."""
        def goodbye() -> None:
            self._tx(lambda cur: cur.execute("DELETE FROM processes WHERE id=%s", (self.process,)))
            self._tx(lambda cur: cur.execute("DELETE FROM leases WHERE holder=%s", (self.process,)))
        with contextlib.suppress(StoreUnavailable, StoreConflict, concurrent.futures.TimeoutError):
            self.executor.submit(goodbye).result(2.0)
        self.pool.close()
        self._probing.set()
        self.executor.shutdown(wait=False, cancel_futures=True)

    # --- off the event loop ---------------------------------------------------------------------

    async def off_loop(self, call: Callable[[], T], wait: float | None = None) -> T:
        """Run ``call`` (a call on this store) in a worker thread, the event loop free meanwhile;
        :class:`~.store.StoreUnavailable` if it takes longer than ``wait`` (default :attr:`wait`):
        the call may still finish later."""
        return await self._within(asyncio.get_running_loop().run_in_executor(self.executor, call), wait)

    async def _within(self, future: asyncio.Future[T], wait: float | None = None) -> T:
        """``future``'s result; :class:`~.store.StoreUnavailable` if it takes longer than ``wait``
        (default :attr:`wait`) seconds: what it does goes on, and may still finish later."""
        limit = self.wait if wait is None else wait
        if not future.done():  # (a timer and a future: cheaper than wait_for and shield, once a move)
            loop = asyncio.get_running_loop()
            waiter = loop.create_future()

            def wake(_: Any = None) -> None:
                if not waiter.done():
                    waiter.set_result(None)

            future.add_done_callback(wake)
            timer = loop.call_later(limit, wake)
            try:
                await waiter
            finally:
                timer.cancel()
                future.remove_done_callback(wake)
            if not future.done():
                future.add_done_callback(lambda f: f.cancelled() or f.exception())
                raise StoreUnavailable(f"database {self.path} is too slow: no answer within {limit:g} s")
        return future.result()

    async def bridged(self, call: Callable[[], T], paused: Callable[[], None] | None = None,
                      resumed: Callable[[], None] | None = None) -> T:
        """Run ``call`` (plain code that may call this store, such as a join's handling) on the
        event loop's thread in a greenlet of its own: each database call it makes runs in a worker
        thread while the greenlet is paused and the loop serves everyone else, then the greenlet
        goes on with the answer (or the call's exception). ``paused`` and ``resumed`` are called
        around each pause (to mark a table as being saved meanwhile). A call waits as one made
        on the loop would (:attr:`loop_wait`, :attr:`probe_silence`, :attr:`wait`), never
        holding up the loop."""
        return await self.bridge.run(call, self._answer, paused, resumed)

    async def _answer(self, request: tuple[concurrent.futures.Future[Any], _Call]) -> Any:
        """The answer of a call made in a worker thread for :meth:`bridged`, awaited: given up
        (StoreUnavailable, nothing committed) as a call on the loop would be."""
        future, call = request
        waiting = asyncio.wrap_future(future)
        started = time.monotonic()
        while True:
            done, _ = await asyncio.wait({waiting}, timeout=0.05)
            if done:
                return waiting.result()
            waited = time.monotonic() - started
            if self._give_up(waited, call):
                waiting.add_done_callback(lambda f: f.cancelled() or f.exception())
                raise StoreUnavailable(f"database {self.path} is too slow: no answer within "
                                       f"{waited:.2g} s")

    def _give_up(self, waited: float, call: _Call) -> bool:
        """Whether the event loop stops waiting for ``call`` after ``waited`` seconds: past
        :attr:`wait`, or past :attr:`loop_wait` while the probe has no answer; then the call
        commits nothing (unless its commit was sent already: that one is awaited up to
        :attr:`wait`, its outcome unknown before)."""
        if waited > self.wait:
            call.abandon()
            return True
        return waited > self.loop_wait and self.silent() > self.probe_silence and call.abandon()

    def probe(self, timeout: float) -> float:
        """In the probe's thread: how long a one-row read of the schema table took on the probe's
        own connection (connected again if it has none or it broke); an exception if the database
        cannot be reached, or :class:`~.store.StoreUnavailable` if it did not answer within
        ``timeout`` (its statement timeout: the database is there but slow, or the table locked),
        the connection then kept (a reconnect would only add its own time to the next probe's)."""
        psycopg = self._psycopg
        started = time.monotonic()
        try:
            if self._probe_conn is None or self._probe_conn.closed:
                self.probe_connects += 1
                self._probe_conn = psycopg.connect(self.url, autocommit=True,
                                                   connect_timeout=max(1, round(timeout)),
                                                   options=f"-c statement_timeout={round(timeout * 1000)}")
            self._probe_conn.execute("SELECT 1 FROM meta LIMIT 1")
        except psycopg.errors.QueryCanceled as exc:
            self.probe_timeouts += 1
            if self._probe_conn.info.transaction_status != self._idle:  # (autocommit: it is idle)
                with contextlib.suppress(Exception):
                    self._probe_conn.close()
                self._probe_conn = None
            raise StoreUnavailable(f"database {self.path} is too slow: {self._mask(exc)}") from None
        except Exception:
            with contextlib.suppress(Exception):
                self._probe_conn.close()
            self._probe_conn = None
            raise
        return time.monotonic() - started

    def start_probing(self, every: float, timeout: float) -> None:
        """Probe the database every ``every`` seconds in a thread of its own (independent of the
        event loop, so a loop waiting on a call still learns whether the database answers);
        :attr:`answered` is when the last probe had its answer in time (a probe past its timeout
        is a slow answer: not counted, its connection kept)."""
        def run() -> None:
            while not self._probing.wait(every):
                with contextlib.suppress(Exception):
                    self.probe(timeout)
                    self.answered = time.monotonic()
        self.answered = time.monotonic()
        self._probe_started = True
        threading.Thread(target=run, name="cta-db-probe", daemon=True).start()

    def silent(self) -> float:
        """Seconds since the probe last had an answer (0 while nothing probes)."""
        return time.monotonic() - self.answered if self._probe_started else 0.0

    def checkpoint(self, mode: str = "PASSIVE") -> None:
        """Nothing to do: PostgreSQL checkpoints by itself."""

    def reader(self) -> PgStore:
        """This store: its pool serves any thread."""
        return self

    # --- one transaction ------------------------------------------------------------------------

    def _tx(self, work: Callable[[Any], T], notify: str | None = None, *, atomic: bool = True,
            call: _Call | None = None) -> T:
        """Run ``work(cursor)`` in one transaction (then, with ``notify``, a NOTIFY about that table
        in a transaction of its own, in the round trip of the commit and only if it succeeded), or,
        not ``atomic``, as it is (one statement is a transaction of its own). A connection that broke
        while in the pool (PostgreSQL restarted) is dropped and the call made on another. Made for
        the event loop (``call``), it commits only if the loop still waits for it: a call the loop
        gave up on (its client told ``database_unavailable``) leaves nothing behind when the
        database goes on."""
        if time.monotonic() < self._down_until:
            raise StoreUnavailable(f"database {self.path} is unavailable")
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass  # a worker thread: it may wait
        else:  # the event loop's own thread: the call runs in a worker
            call = _Call()
            future = self.executor.submit(self._tx, work, notify, atomic=atomic, call=call)
            if self.bridge.inside():  # paused, the loop free, until the answer (:meth:`bridged`)
                return cast(T, self.bridge.call((future, call)))
            # else the loop waits for it while the database answers the probe (busy, not gone),
            # and gives up soon once it does not (counted: no such call is left on the loop)
            self.loop_waits += 1
            started = time.monotonic()
            while True:
                try:
                    return future.result(0.05)
                except concurrent.futures.TimeoutError:
                    waited = time.monotonic() - started
                    if self._give_up(waited, call):
                        raise StoreUnavailable(f"database {self.path} is too slow: no answer within "
                                               f"{waited:.2g} s") from None
        for attempt in range(self._tries):
            try:
                with self.pool.connection(timeout=self.pool_timeout) as conn:
                    if not atomic:
                        if call is not None and not call.commit():
                            raise _GivenUp
                        with conn.cursor() as cur:
                            return work(cur)
                    if notify is None:
                        with conn.transaction(), conn.cursor() as cur:
                            result = work(cur)
                            if call is not None and not call.commit():
                                raise _GivenUp  # rolled back: its client was told it failed
                            return result
                    # the NOTIFY after the commit, in one round trip with it (as a move's,
                    # :func:`_move_commands`: PostgreSQL's notification lock is not held through
                    # the commit's flush), and only if the commit succeeded
                    conn.execute(_BEGIN)
                    try:
                        with conn.cursor() as cur:
                            result = work(cur)
                        if call is not None and not call.commit():
                            raise _GivenUp  # rolled back: its client was told it failed
                    except BaseException:
                        with contextlib.suppress(Exception):
                            conn.rollback()
                        raise
                    self._run(conn, [(_COMMIT, None), _tell_command(channel(notify.partition("|")[0]),
                                                                    f"{self.process}|{notify}")])
                    return result
            except _GivenUp:
                raise StoreUnavailable(f"database {self.path} was too slow: given up, "
                                       "nothing saved") from None
            except Exception as exc:
                if self._failed(exc, attempt):
                    continue
                raise
        raise AssertionError("unreachable")

    def _run(self, conn: Any, commands: Sequence[Command]) -> None:
        """:func:`pipeline` on a connection of the pool, in this thread: the first failure raised
        as psycopg's error of its kind."""
        failed = conn.wait(pipeline(conn.pgconn, commands))
        if failed is not None:
            raise self._psycopg.errors.error_from_result(failed, encoding="utf-8")

    def _failed(self, exc: Exception, attempt: int) -> bool:
        """What a call's failure means: True to try again on another connection (a connection
        that broke while in the pool: a write that did commit before the break is then a
        conflict, no double); else it raises :class:`~.store.StoreConflict` or
        :class:`~.store.StoreUnavailable`, or returns False for an error that is none of these."""
        psycopg = self._psycopg
        if isinstance(exc, psycopg.errors.UniqueViolation):
            raise StoreConflict(self._mask(exc)) from None
        if isinstance(exc, (psycopg.errors.QueryCanceled, psycopg.errors.LockNotAvailable)):
            # a statement or lock timeout: the database is there but too slow (nothing saved)
            raise StoreUnavailable(f"database {self.path} is too slow: {self._mask(exc)}") from None
        if isinstance(exc, (psycopg.OperationalError, psycopg.InterfaceError)):
            if attempt + 1 < self._tries:
                return True
            self._down_until = time.monotonic() + 1.0
            raise StoreUnavailable(f"database {self.path} is unavailable: {self._mask(exc)}") from None
        if type(exc).__module__.startswith("psycopg_pool"):  # PoolTimeout, PoolClosed
            # every connection busy (a burst, or a hung database): this call fails, the next ones
            # are tried (the probe says when the database itself is gone)
            raise StoreUnavailable(f"database {self.path} is unavailable: {self._mask(exc)}") from None
        return False

    def renew(self) -> None:
        """Drop the pool's connections that broke (PostgreSQL restarted) and wait, a few seconds
        at most, until it holds a working one again."""
        with contextlib.suppress(Exception):
            self.pool.check()
        with contextlib.suppress(Exception):
            self.pool.wait(timeout=5.0)

    def mark_down(self, seconds: float = 1.0) -> None:
        """Fail calls at once for ``seconds`` (the listener or the probe saw the database go)."""
        self._down_until = time.monotonic() + seconds

    def mark_up(self) -> None:
        """Try the database again at the next call."""
        self._down_until = 0.0

    # --- writes ---------------------------------------------------------------------------------

    def create_table(self, table_id: str, options: dict[str, Any], *, created: float | None = None) -> None:
        """Save a new table's options; created now on the database's clock unless ``created`` says
        when (as are its moves' times: the expiry of idle tables reads that clock too)."""
        self._tx(lambda cur: cur.execute(
            "INSERT INTO tables VALUES (%s, COALESCE(%s::float8, extract(epoch FROM now())::float8), %s)",
            (table_id, created, _dump(options))))

    def add_seat(self, table_id: str, seat: int, name: str, token_hash: str) -> None:
        """Save a person taking a seat (StoreConflict if another process gave that seat first)."""
        self._tx(lambda cur: cur.execute(
            "INSERT INTO seats (table_id, seat, name, token_hash) VALUES (%s, %s, %s, %s)",
            (table_id, seat, name, token_hash)), table_id)

    def set_seat_keys(self, table_id: str, seat: int, token_hash: str | None,
                      recovery_hash: str | None) -> None:
        """Save a seat's new token (None: unchanged) and recovery code hashes."""
        def work(cur: Any) -> None:
            if token_hash is not None:
                cur.execute("UPDATE seats SET token_hash=%s WHERE table_id=%s AND seat=%s",
                            (token_hash, table_id, seat))
            cur.execute("UPDATE seats SET recovery_hash=%s WHERE table_id=%s AND seat=%s",
                        (recovery_hash, table_id, seat))
        # no notification: only ``resume`` and ``recover`` read the keys, and they read the table first
        self._tx(work)

    def start_game(self, table_id: str, game_no: int, seed: int, carry: int, names: Sequence[str],
                   seat_kinds: Sequence[str], events: Sequence[Event]) -> None:
        """Save the start of a game: its seed and the events of the deal. The notification carries
        them (when they fit: ``PROCESS|TABLE|g|GAME``), so the other processes deal it without
        reading the table."""
        deal = _dump([e.to_dict() for e in events])
        game = _dump({"g": game_no, "seed": seed, "carry": carry, "names": list(names),
                      "kinds": list(seat_kinds)})
        note = f'{table_id}|g|{game[:-1]},"e":{deal}}}'
        if len(f"{self.process}|{note}".encode()) > _MAX_PAYLOAD:
            note = table_id
        people = sum(1 for kind in seat_kinds if kind == HUMAN)  # every person plays a new game

        def work(cur: Any) -> None:
            # only if the database holds no seat this copy does not know of (one taken on another
            # process, its notification not heard yet): else a conflict, and the table is read
            cur.execute("INSERT INTO games SELECT %s, %s, %s, %s, %s, %s, %s "
                        "WHERE (SELECT count(*) FROM seats WHERE table_id = %s) = %s",
                        (table_id, game_no, seed, carry, _dump(list(names)), _dump(list(seat_kinds)), deal,
                         table_id, people))
            if cur.rowcount != 1:
                raise StoreConflict(f"table {table_id} has more seats taken than this copy knows of")
        self._tx(work, note)

    def append_action(self, table_id: str, game_no: int, seat: int, action: str, actor: str,
                      events: Sequence[Event], seq: int | None = None, act_id: str | None = None) -> None:
        """Append one decision (number ``seq``, counted here if not given); StoreConflict if another
        process saved that number first or the act id is taken."""
        if seq is None:
            seq = self._tx(lambda cur: int(cur.execute(
                "SELECT COUNT(*) FROM actions WHERE table_id=%s AND game_no=%s",
                (table_id, game_no)).fetchone()[0]))
        commands = _move_commands(self._move(table_id, game_no, seq, seat, action, actor, events, act_id))
        self._tx(lambda cur: self._run(cur.connection, commands), atomic=False)

    async def save_move(self, table_id: str, game_no: int, seq: int, seat: int, action: str, actor: str,
                        events: Sequence[Event], act_id: str | None = None) -> None:
        """:meth:`append_action` of move number ``seq``, from the event loop, on one of the moves'
        own connections awaited there (no thread: a move is the busiest call); the same errors,
        and :class:`~.store.StoreUnavailable` if no answer comes within :attr:`wait` seconds (the
        statement goes on: it may still commit, as a move written by a thread)."""
        if time.monotonic() < self._down_until:
            raise StoreUnavailable(f"database {self.path} is unavailable")
        params = self._move(table_id, game_no, seq, seat, action, actor, events, act_id)
        await self._within(asyncio.ensure_future(self._save(params)))

    async def _save(self, params: Sequence[Any]) -> None:
        """Run :func:`_move_commands` of ``params`` on a moves' connection: libpq's own calls
        awaited on the loop (one round trip, no cursor, no query conversion); a connection found
        broken is dropped and the move tried on another (a write that did commit before the break
        is then a conflict, no double)."""
        commands = _move_commands(params)
        for attempt in range(self._tries):
            conn = await self._moves.take()
            ok = False
            try:
                pgconn = conn.pgconn
                failed = await conn.wait(pipeline(pgconn, commands, PREPARED))
                ok = pgconn.transaction_status == self._idle
                if failed is not None:
                    raise self._psycopg.errors.error_from_result(failed, encoding="utf-8")
                return
            except Exception as exc:
                if self._failed(exc, attempt):
                    continue
                raise
            finally:
                self._moves.give(conn, ok)

    async def close_moves(self) -> None:
        """Close the moves' connections (on the event loop, before :meth:`close`)."""
        await self._moves.close()

    def _move(self, table_id: str, game_no: int, seq: int, seat: int, action: str, actor: str,
              events: Sequence[Event], act_id: str | None) -> tuple[Any, ...]:
        """The parameters of :func:`_move_commands`: the move's row, and the notification that carries
        the move itself (when it fits), so the other processes apply it without reading it back."""
        dumped = _dump([e.to_dict() for e in events])
        move = _dump({"g": game_no, "s": seq, "seat": seat, "a": action, "w": actor, "i": act_id})
        payload = f'{self.process}|{table_id}|m|{move[:-1]},"e":{dumped}}}'
        if len(payload.encode()) > _MAX_PAYLOAD:
            payload = f"{self.process}|{table_id}"
        return (table_id, game_no, seq, seat, action, actor, dumped, act_id, channel(table_id), payload)

    def applied(self, table_id: str, act_id: str) -> bool:
        """Whether a move with this act id was saved at the table."""
        return self._tx(lambda cur: cur.execute("SELECT 1 FROM actions WHERE table_id=%s AND act_id=%s",
                                                (table_id, act_id)).fetchone() is not None)

    def set_seat_kinds(self, table_id: str, game_no: int, seat_kinds: Sequence[str]) -> None:
        """Save who plays each seat of a game."""
        self._tx(lambda cur: cur.execute("UPDATE games SET kinds=%s WHERE table_id=%s AND game_no=%s",
                                         (_dump(list(seat_kinds)), table_id, game_no)), table_id)

    def idle_tables(self, before: float, limit: int = 200) -> list[str]:
        """Tables created before ``before`` (seconds since the epoch on the database's clock, which
        dates tables and moves here) with no move since then and no person connected to any
        live process, nor leased (the oldest ``limit``)."""
        return self._tx(lambda cur: [r[0] for r in cur.execute(
            "SELECT id FROM tables t WHERE created < %s AND NOT EXISTS "
            "(SELECT 1 FROM actions a WHERE a.table_id = t.id AND a.at >= %s) AND NOT EXISTS "
            "(SELECT 1 FROM presence p JOIN processes q ON q.id = p.process WHERE p.table_id = t.id "
            "AND q.seen > now() - interval '10 seconds') AND NOT EXISTS "
            "(SELECT 1 FROM leases l WHERE l.table_id = t.id AND l.expires > now()) "
            "ORDER BY created LIMIT %s", (before, before, limit))])

    def delete_table(self, table_id: str) -> None:
        """Delete a table with its seats, games, moves and lease, in one transaction."""
        def work(cur: Any) -> None:
            for name in ("actions", "games", "seats", "leases", "presence", "turns"):
                cur.execute(f"DELETE FROM {name} WHERE table_id=%s", (table_id,))
            cur.execute("DELETE FROM tables WHERE id=%s", (table_id,))
        self._tx(work, table_id)

    # --- reads ----------------------------------------------------------------------------------

    def load_table(self, table_id: str) -> StoredTable | None:
        """A table as saved, or None if there is no such table."""
        return self.load_tail(table_id, 0, 0)

    def load_tail(self, table_id: str, game_no: int, seq: int) -> StoredTable | None:
        """As :meth:`.store.Store.load_tail`: the table with the moves a copy at game ``game_no``,
        move ``seq`` is missing."""
        return self.catch_up(table_id, game_no, seq, None)[0]

    def catch_up(self, table_id: str, game_no: int, seq: int,
                 alive: float | None) -> tuple[StoredTable | None, set[int], tuple[int, int, float] | None]:
        """:meth:`load_tail` and, unless ``alive`` is None, the seats with a person connected to
        another live process (:meth:`present_elsewhere`) and the turn timer's deadline
        (:meth:`set_turn`), in one snapshot."""
        def work(cur: Any) -> StoredTable | None:
            row = cur.execute("SELECT created, options FROM tables WHERE id=%s", (table_id,)).fetchone()
            if row is None:
                return None
            seats = [StoredSeat(s, n, h, r) for s, n, h, r in cur.execute(
                "SELECT seat, name, token_hash, recovery_hash FROM seats WHERE table_id=%s ORDER BY seat",
                (table_id,)).fetchall()]
            games = [StoredGame(g, seed, carry, json.loads(names), json.loads(kinds), json.loads(evs))
                     for g, seed, carry, names, kinds, evs in cur.execute(
                         "SELECT game_no, seed, carry, names, kinds, events FROM games WHERE table_id=%s "
                         "ORDER BY game_no", (table_id,)).fetchall()]
            first = 0
            earlier: list[str] = []
            if games:
                last = games[-1]
                first = seq if last.game_no == game_no else 0
                last.actions = [StoredAction(s, a, who, json.loads(evs), i)
                                for s, a, who, evs, i in cur.execute(
                    "SELECT seat, action, actor, events, act_id FROM actions WHERE table_id=%s "
                    "AND game_no=%s AND seq>=%s ORDER BY seq", (table_id, last.game_no, first)).fetchall()]
                if first == 0:
                    earlier = [r[0] for r in cur.execute(
                        "SELECT act_id FROM actions WHERE table_id=%s AND game_no<%s AND act_id IS NOT NULL",
                        (table_id, last.game_no)).fetchall()]
            return StoredTable(table_id, row[0], json.loads(row[1]), seats, games, first, earlier)
        def both(cur: Any) -> tuple[StoredTable | None, set[int], tuple[int, int, float] | None]:
            # one snapshot for the whole read: a move committed meanwhile is either all in or all out
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            saved = work(cur)
            seats: set[int] = set()
            turn = None
            if alive is not None:
                seats = {r[0] for r in cur.execute(_ELSEWHERE, (table_id, self.process, alive)).fetchall()}
                row = cur.execute("SELECT game_no, events, ends FROM turns WHERE table_id=%s",
                                  (table_id,)).fetchone()
                turn = None if row is None else (int(row[0]), int(row[1]), float(row[2]))
            return saved, seats, turn
        return self._tx(both)

    def game_record(self, table_id: str, game_no: int, config: dict[str, Any],
                    game: str = "chase-the-ace") -> Record:
        """A stored game as a game record (hidden cards included: for referees only)."""
        def work(cur: Any) -> tuple[Any, list[str]]:
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            row = cur.execute("SELECT carry, names, events FROM games WHERE table_id=%s AND game_no=%s",
                              (table_id, game_no)).fetchone()
            moves = [r[0] for r in cur.execute("SELECT events FROM actions WHERE table_id=%s AND game_no=%s "
                                               "ORDER BY seq", (table_id, game_no)).fetchall()]
            return row, moves
        row, moves = self._tx(work)
        if row is None:
            raise ValueError(f"no game {game_no} at table {table_id!r}")
        events = json.loads(row[2])
        for evs in moves:
            events.extend(json.loads(evs))
        from ..registry import game_kind

        return game_kind(game).stored_record(json.loads(row[1]), config, row[0], events)

    # --- processes, presence, leases (:mod:`.cluster`) ------------------------------------------

    def clock(self) -> tuple[float, int | None]:
        """The database's clock (seconds since the epoch) and the schema version it holds now."""
        return self._tx(lambda cur: _clock_row(cur.execute(_CLOCK).fetchone()), atomic=False)

    def beat(self, present: Sequence[tuple[str, int, float]] | None, wanted: Sequence[str],
             held: Sequence[str], lease: float, alive: float, dead: set[str],
             clock: list[tuple[float, int | None, float, float]] | None = None,
             positions: dict[str, tuple[int, int, int]] | None = None,
             elsewhere: dict[str, set[int]] | None = None,
             turns: dict[str, tuple[int, int, float] | None] | None = None,
             takers: dict[str, dict[int, tuple[float, str]]] | None = None,
             ) -> tuple[set[str], set[str], dict[str, set[int]], set[str], float | None]:
        """One heartbeat of this process, in one transaction: with ``clock`` (a list), first read
        the database's clock as :meth:`clock` does and append the reading to it, with this
        process's time (``time.time()``) just before and after the reading; say it is alive; if
        ``present`` is
        given, state afresh the seats it has people connected at (table, seat, when the person
        took it on the database's clock; otherwise they
        are kept up to date by :meth:`set_presence`); renew the leases it ``held`` that it still
        wants, give up the others, and take the lease of each ``wanted`` table that has no live
        holder (for ``lease`` seconds). Returns the tables it holds; those it just took (it did
        not hold them without a break since the last beat); for the tables it just took
        (for all it holds when a process died since the ``dead`` it knew of), the seats connected
        to other live processes (alive: a heartbeat within ``alive`` seconds); the processes
        dead now; and in how many seconds the first lease another process holds on a ``wanted``
        table runs out (None if none: the next beat may take it then, not a beat later). With
        ``positions`` (a dict whose keys are tables), each table's value is set to where the
        database has it: seats taken, last game, moves in that game (:data:`_POSITIONS`: four
        index probes a table, with the people below), so a write whose notification was lost (its process or
        backend gone between the commit and the ``NOTIFY``) is found by the caller; with
        ``elsewhere`` (a dict) too, it gets each such table's seats with a person connected to
        another live process (in the same statement: one more index probe a table), so a change
        of who is connected that no notification announced (a presence written by a heartbeat, a
        process that died or beats again, a lost ``NOTIFY``) is found as well; with ``turns`` (a
        dict) too, each such table's turn timer as saved (game, events, when it ends; None if
        none: :meth:`set_turn`), in the same statement (one more index probe a table), so a
        deadline whose notification was lost is found too; with ``takers`` (a dict) too, for each
        such table with a seat taken through another live process (that process saying when),
        the last taking of each such seat elsewhere (seat: when, which process), so a seat taken
        from a person connected here whose notification was lost is found too. Each
        step touches only what changed: a steady beat is a few small statements, and its commit
        does not wait for the disk (``synchronous_commit`` off for it alone: a beat lost with a
        crash of PostgreSQL is written again by the next one a second later, and a lease taken in
        it and lost can at worst have two processes play a bot's move, which the moves' primary
        key settles as always)."""
        self._beats += 1
        tidy = self._beats % 60 == 1  # now and then: leases left from a beat whose answer was lost

        def work(cur: Any) -> tuple[set[str], set[str], dict[str, set[int]], set[str], float | None]:
            me = self.process
            before = time.time()
            row = cur.execute(_CLOCK + ", set_config('synchronous_commit', 'off', true)").fetchone()
            after = time.time()
            if clock is not None:
                clock.append((*_clock_row(row), before, after))
            cur.execute(_ALIVE, (me,))
            if present is not None:
                cur.execute("DELETE FROM presence WHERE process=%s", (me,))
                if present:
                    cur.execute("INSERT INTO presence (process, table_id, seat, since) SELECT %s, t, s, w "
                                "FROM unnest(%s::text[], %s::int[], %s::float8[]) AS x(t, s, w) "
                                "ON CONFLICT DO NOTHING",
                                (me, [t for t, _, _ in present], [s for _, s, _ in present],
                                 [w for _, _, w in present]))
            want = set(wanted)
            if tidy or set(held) - want:
                cur.execute("DELETE FROM leases WHERE holder=%s AND NOT (table_id = ANY(%s::text[]))",
                            (me, sorted(want)))
            kept = {r[0] for r in cur.execute(
                "UPDATE leases SET expires = now() + make_interval(secs => %s) WHERE holder=%s "
                "AND table_id = ANY(%s::text[]) RETURNING table_id",
                (lease, me, sorted(want & set(held)))).fetchall()} if want & set(held) else set()
            gained: set[str] = set()
            others = sorted(want - kept)
            soonest = None
            if others:
                leased = cur.execute(
                    "SELECT t, (SELECT extract(epoch FROM min(l.expires) - now())::float8 FROM leases l "
                    "WHERE l.table_id = x.t AND l.expires >= now() AND l.holder <> %s) "
                    "FROM unnest(%s::text[]) AS x(t)", (me, others)).fetchall()
                free = [t for t, left in leased if left is None]
                soonest = min((float(left) for _, left in leased if left is not None), default=None)
                if free:
                    gained = {r[0] for r in cur.execute(
                        "INSERT INTO leases SELECT t, %s, now() + make_interval(secs => %s) "
                        "FROM unnest(%s::text[]) AS x(t) ON CONFLICT (table_id) DO UPDATE "
                        "SET holder = EXCLUDED.holder, expires = EXCLUDED.expires "
                        "WHERE leases.holder = EXCLUDED.holder OR leases.expires < now() RETURNING table_id",
                        (me, lease, sorted(free))).fetchall()}
            now_dead = {r[0] for r in cur.execute(
                "SELECT id FROM processes WHERE seen < now() - make_interval(secs => %s)",
                (alive,)).fetchall()}
            holding = kept | gained
            ask = sorted(holding if now_dead - dead else gained)
            seats: dict[str, set[int]] = {t: set() for t in ask}
            if ask:
                for t, s in cur.execute(_ELSEWHERE_MANY, (ask, me, alive)).fetchall():
                    seats[t].add(s)
            if tidy:
                cur.execute("DELETE FROM processes WHERE seen < now() - interval '1 day'")
            if positions:
                rows = cur.execute(_POSITIONS, (sorted(positions), me, alive)).fetchall()
                for t, taken, game_no, moves, here, since, procs, turn_game, turn_events, ends in rows:
                    positions[t] = (int(taken), int(game_no), int(moves))
                    if elsewhere is not None:
                        elsewhere[t] = {int(s) for s in here or ()}
                    if takers is not None and here:
                        last: dict[int, tuple[float, str]] = {}
                        for s, w, q in zip(here, since, procs, strict=True):
                            if w is not None and (int(s) not in last or (w, q) > last[int(s)]):
                                last[int(s)] = (float(w), str(q))
                        if last:
                            takers[t] = last
                    if turns is not None:
                        turns[t] = None if ends is None else (int(turn_game), int(turn_events), float(ends))
            return holding, gained, seats, now_dead, soonest
        return self._tx(work)

    def set_presence(self, table_id: str, seat: int, here: bool, at: float | None = None) -> None:
        """Say at once that a person connected to this process sits at (or left) a seat; ``at``:
        when they took it (the database's clock, seconds since the epoch), told with it so that a
        process hearing it late keeps a connection that took the seat after."""
        def work(cur: Any) -> None:
            if here:
                cur.execute(_ALIVE, (self.process,))
                cur.execute("INSERT INTO presence (process, table_id, seat, since) VALUES (%s, %s, %s, %s) "
                            "ON CONFLICT (process, table_id, seat) DO UPDATE SET since = EXCLUDED.since",
                            (self.process, table_id, seat, at))
            else:
                cur.execute("DELETE FROM presence WHERE process=%s AND table_id=%s AND seat=%s",
                            (self.process, table_id, seat))
        # a seat taken here is taken from any other process's connection on it (``r``: replaced)
        taken = f"{seat}" if at is None else f"{seat}@{at:.6f}"
        self._tx(work, f"{table_id}|r|{taken}" if here else f"{table_id}|p")

    def set_turn(self, table_id: str, game_no: int, events: int, ends: float) -> None:
        """Save when the turn timer of a position (game, events so far) runs out (seconds since the
        epoch), so another process that takes the table over keeps it, and tell the others (their
        clients see the time left). Its commit does not wait for the disk (``synchronous_commit``
        off for it alone): with a ``NOTIFY`` it holds PostgreSQL's notification lock through its
        commit (see :func:`_move_commands`), and a turn comes with nearly every move; a deadline lost
        with a crash of PostgreSQL only has a process that takes the table over start the turn's
        timer afresh."""
        payload = f"{self.process}|{table_id}|t|{game_no}:{events}:{ends!r}"
        self._tx(lambda cur: cur.execute(
            "WITH saved AS (INSERT INTO turns VALUES (%s, %s, %s, %s) ON CONFLICT (table_id) DO UPDATE SET "
            "game_no = EXCLUDED.game_no, events = EXCLUDED.events, ends = EXCLUDED.ends RETURNING 1) "
            "SELECT pg_notify(%s, %s), set_config('synchronous_commit', 'off', true) FROM saved",
            (table_id, game_no, events, ends, channel(table_id), payload)),
            atomic=False)

    def open_tables(self, limit: int, alive: float) -> list[tuple[str, dict[str, Any], int, str]]:
        """Public tables not started with a person connected to another live process: id, options,
        seats taken and the first seat's name (the newest ``limit``)."""
        rows = self._tx(lambda cur: cur.execute(
            "SELECT t.id, t.options, (SELECT count(*) FROM seats s WHERE s.table_id = t.id), "
            "(SELECT name FROM seats s WHERE s.table_id = t.id AND s.seat = 0) FROM tables t "
            "WHERE (t.options::jsonb ->> 'public') = 'true' "
            "AND NOT EXISTS (SELECT 1 FROM games g WHERE g.table_id = t.id) "
            "AND EXISTS (SELECT 1 FROM presence p JOIN processes q ON q.id = p.process "
            "WHERE p.table_id = t.id AND p.process <> %s AND q.seen > now() - make_interval(secs => %s)) "
            "ORDER BY t.created DESC LIMIT %s", (self.process, alive, limit)).fetchall())
        return [(r[0], json.loads(r[1]), int(r[2]), str(r[3])) for r in rows]

    def present_elsewhere(self, table_id: str, alive: float) -> set[int]:
        """The seats of a table with a person connected to another live process."""
        return self._tx(lambda cur: {r[0] for r in cur.execute(
            _ELSEWHERE, (table_id, self.process, alive)).fetchall()})

    def presence_elsewhere(self, table_ids: Sequence[str], alive: float) -> dict[str, set[int]]:
        """:meth:`present_elsewhere` of several tables, in one statement (every table given is a
        key)."""
        found: dict[str, set[int]] = {t: set() for t in table_ids}
        for t, s in self._tx(lambda cur: cur.execute(
                _ELSEWHERE_MANY, (list(table_ids), self.process, alive)).fetchall(), atomic=False):
            found[t].add(int(s))
        return found
