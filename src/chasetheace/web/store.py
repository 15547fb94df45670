"""Persistence: every table as its creation options, its seats, and each game's log, in SQLite (WAL).

A game row holds its seed, the pot carried in, the seats' names, who plays each seat (its seat
kind: ``human`` or a bot spec, in the column ``kinds``) and the events of the deal; each decision
appends one row with the seat, the action, who made it and the events that followed. Replaying
the decisions from the seed rebuilds the game exactly, and the stored events check the replay;
together they are the game's record (:meth:`Store.game_record`), which the engine's
``Game.from_record`` validates too.

>>> import chasetheace as cta
>>> store = Store(":memory:")
>>> store.create_table("t1", {"preset": "standard"}, created=0.0)
>>> store.add_seat("t1", 0, "Ann", "hash")
>>> game = cta.Game(cta.Rules(), ["Ann", "Bob"], seed=3)
>>> store.start_game("t1", 1, 3, 0, ["Ann", "Bob"], ["human", "random"], game.events)
>>> seat = game.to_act
>>> store.append_action("t1", 1, seat, "keep", "human", game.act("keep"))
>>> saved = store.load_table("t1")
>>> saved.games[-1].actions[0].seat == seat
True
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol, TypeVar

if TYPE_CHECKING:
    from .bridge import Bridge

from ..events import Event
from ..record import Record

__all__ = ["Store", "StoredTable", "StoredSeat", "StoredGame", "StoredAction", "SCHEMA_VERSION",
           "StoreConflict", "StoreUnavailable", "TableStore", "is_url"]

SCHEMA_VERSION = 4
"""The version of the database's layout this server reads and writes (``meta.schema``)."""

UPGRADES: dict[int, tuple[str, ...]] = {
    1: ("ALTER TABLE seats ADD COLUMN recovery_hash TEXT",),  # 1 -> 2: seats' recovery codes
    2: ("ALTER TABLE actions ADD COLUMN act_id TEXT",  # 2 -> 3: a client's act applied once
        "CREATE UNIQUE INDEX IF NOT EXISTS actions_act_id ON actions (table_id, act_id)"),
    3: (),  # 3 -> 4: on PostgreSQL only, when each connected person took their seat (``presence``)
}
"""The statements that take a database from each version to the next; a server upgrades an
older database on start, one version after another, and refuses a newer one."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY, created REAL NOT NULL, options TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL REFERENCES tables(id), seat INTEGER NOT NULL, name TEXT NOT NULL,
    token_hash TEXT NOT NULL, PRIMARY KEY (table_id, seat));
CREATE TABLE IF NOT EXISTS games (
    table_id TEXT NOT NULL REFERENCES tables(id), game_no INTEGER NOT NULL, seed INTEGER NOT NULL,
    carry INTEGER NOT NULL, names TEXT NOT NULL, kinds TEXT NOT NULL, events TEXT NOT NULL,
    PRIMARY KEY (table_id, game_no));
CREATE TABLE IF NOT EXISTS actions (
    table_id TEXT NOT NULL, game_no INTEGER NOT NULL, seq INTEGER NOT NULL, seat INTEGER NOT NULL,
    action TEXT NOT NULL, actor TEXT NOT NULL, events TEXT NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (table_id, game_no, seq));
"""


class StoreConflict(Exception):
    """A write that lost a race: another server process saved that seat, game or move first (or
    the act with that id was applied already). Nothing was written; read the table again."""


class StoreUnavailable(Exception):
    """The database cannot be reached now (a server of several processes on PostgreSQL while
    PostgreSQL is down or restarting). Nothing was written; try again later."""


def is_url(db: str) -> bool:
    """Whether ``--db`` names a PostgreSQL database (a ``postgresql://`` or ``postgres://`` URL)
    rather than a SQLite file."""
    return db.startswith(("postgresql://", "postgres://"))


@dataclass(frozen=True)
class StoredSeat:
    """A seat taken by a person: its name, the SHA-256 of its secret token and of its recovery code."""

    seat: int
    name: str
    token_hash: str
    recovery_hash: str | None = None


@dataclass(frozen=True)
class StoredAction:
    """One decision: who made it (``human``, ``bot`` or ``timer``) and the events that followed."""

    seat: int
    action: str
    actor: str
    events: list[dict[str, Any]]
    act_id: str | None = None  # the client's id for the move, if it sent one


@dataclass
class StoredGame:
    """One game at a table: its set-up, the events of the deal, and its decisions in order."""

    game_no: int
    seed: int
    carry: int
    names: list[str]
    seat_kinds: list[str]
    """Who plays each seat: ``human`` or a bot spec such as ``threshold:8`` (column ``kinds``)."""
    events: list[dict[str, Any]]
    actions: list[StoredAction] = field(default_factory=list)


@dataclass
class StoredTable:
    """A table as saved: options, seats and games (the last one may be in progress)."""

    id: str
    created: float
    options: dict[str, Any]
    seats: list[StoredSeat]
    games: list[StoredGame]
    first_action: int = 0  # the number of the last game's first action held (see load_tail)
    # the act ids of the earlier games' moves (read with a whole table, first_action 0): a client's
    # act id is the table's, so a move sent again in a later game is known without a query
    act_ids: list[str] = field(default_factory=list)


class TableStore(Protocol):
    """What the web server needs of a store: :class:`Store` (SQLite) and
    :class:`~.pgstore.PgStore` (PostgreSQL) both are one. ``shared`` says whether other server
    processes may write the same database (then :class:`StoreConflict` can happen)."""

    path: str
    shared: bool
    loop_waits: int  # calls the event loop's thread waited for itself (none, in the web server)

    def close(self) -> None: ...
    def checkpoint(self, mode: str = "PASSIVE") -> None: ...
    def reader(self) -> TableStore: ...
    def create_table(self, table_id: str, options: dict[str, Any], *,
                     created: float | None = None) -> None: ...
    def add_seat(self, table_id: str, seat: int, name: str, token_hash: str) -> None: ...
    def set_seat_keys(self, table_id: str, seat: int, token_hash: str | None,
                      recovery_hash: str | None) -> None: ...
    def start_game(self, table_id: str, game_no: int, seed: int, carry: int, names: Sequence[str],
                   seat_kinds: Sequence[str], events: Sequence[Event]) -> None: ...
    def append_action(self, table_id: str, game_no: int, seat: int, action: str, actor: str,
                      events: Sequence[Event], seq: int | None = None, act_id: str | None = None) -> None: ...
    def applied(self, table_id: str, act_id: str) -> bool: ...
    def set_seat_kinds(self, table_id: str, game_no: int, seat_kinds: Sequence[str]) -> None: ...
    def idle_tables(self, before: float, limit: int = 200) -> list[str]: ...
    def delete_table(self, table_id: str) -> None: ...
    def load_table(self, table_id: str) -> StoredTable | None: ...
    def load_tail(self, table_id: str, game_no: int, seq: int) -> StoredTable | None: ...
    def game_record(self, table_id: str, game_no: int, config: dict[str, Any],
                    game: str = "chase-the-ace") -> Record: ...


Args = ParamSpec("Args")
R = TypeVar("R")


def _serial(method: Callable[Concatenate[Store, Args], R]) -> Callable[Concatenate[Store, Args], R]:
    """A call on the store's connection, one at a time; made from a greenlet of the web server
    (:meth:`Store.bridged`), in the writer thread while the event loop serves others."""
    def call(self: Store, /, *args: Args.args, **kwargs: Args.kwargs) -> R:
        return self._call(functools.partial(method, self, *args, **kwargs))
    functools.update_wrapper(call, method)  # its name and docstring
    return call


def _synchronous() -> str:
    """SQLite's ``synchronous`` mode for the server's connection: NORMAL. FULL (every commit
    flushed to disk, on the event loop's thread, which waits for it) only for
    ``benchmarks/server_load.py --sqlite-full``, which compares the two databases with the same
    promise as PostgreSQL's default: the environment variable ``CTA_SQLITE_SYNCHRONOUS=FULL``,
    for measurements only."""
    return "FULL" if os.environ.get("CTA_SQLITE_SYNCHRONOUS", "").upper() == "FULL" else "NORMAL"


class Store:
    """The SQLite database of every table; each write is committed before anyone is told of it.

    The web server (:meth:`off_the_loop`) makes its calls from greenlets (:mod:`.saving`). A call
    that cannot wait runs at once on the event loop's thread: in WAL mode with synchronous=NORMAL
    a commit does not fsync (checkpoints, which do, run in another thread: :meth:`checkpoint`),
    and there the connection's busy timeout is 0, so a write lock held by another program fails
    the call at once (SQLITE_BUSY, the statement rolled back, nothing written) instead of waiting.
    Such a call, and any call made while the writer thread still has calls to answer (so they
    keep their order), runs in the store's one writer thread instead while the event loop serves
    others: a lock on the file freezes no ping. A write there that waits longer than
    ``busy_timeout`` (5 s) for the lock is :class:`StoreUnavailable`."""

    shared = False  # one server process per SQLite file (:mod:`.lock`)
    bridge: Bridge | None = None
    loop_waits = 0  # calls the event loop's thread made itself while a bridge was there
    waiting = 0  # calls of greenlets sent to the writer thread and not answered yet
    handed = 0  # calls of greenlets sent to the writer thread (not made at once on the loop)
    backed_up_since: float | None = None  # time.monotonic() since when ``waiting`` has not been 0
    _busy_ms = 5000  # the connection's busy timeout now (0 for the calls made at once on the loop)

    def __init__(self, path: str, *, read_only: bool = False) -> None:
        self.path = path
        self._lock = threading.RLock()  # the connection, one call at a time
        self.writer: concurrent.futures.ThreadPoolExecutor | None = None
        if read_only:  # a reader beside the server's own connection (WAL lets it read alongside)
            uri = Path(path).absolute().as_uri() + "?mode=ro"
            self.db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA busy_timeout=5000")
            return
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        # WAL with synchronous=NORMAL: a commit survives the process being killed at any moment
        # (the OS holds the write); only a power cut can lose the last commits.
        self.db.execute(f"PRAGMA synchronous={_synchronous()}")
        self.db.execute("PRAGMA busy_timeout=5000")
        # checkpoints (which fsync) run in :meth:`checkpoint` off the event loop, not inside a commit
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        self._upgrade(path)

    def _upgrade(self, path: str) -> None:
        """Create a new database at :data:`SCHEMA_VERSION`, or bring an older one up to it (in one
        transaction); a newer one is refused, changing nothing."""
        db = self.db
        fresh = db.execute("SELECT name FROM sqlite_master WHERE name='meta'").fetchone() is None
        if fresh:
            others = [r[0] for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' "
                "ORDER BY name")]
            if others:
                raise ValueError(f"database {path!r} holds tables of another application "
                                 f"({', '.join(others[:5])}) and no chase-the-ace schema: "
                                 "give chase-the-ace a database of its own")
        db.executescript(_SCHEMA)
        row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if fresh or row is None:
            version = 1  # _SCHEMA is version 1's layout; the upgrades bring it up to date
        elif not str(row[0]).isdecimal():
            raise ValueError(f"database {path!r} has an unknown schema version {row[0]!r}")
        else:
            version = int(row[0])
        if version > SCHEMA_VERSION:
            raise ValueError(f"database {path!r} has schema version {version}, written by a newer "
                             f"chase-the-ace; this server reads up to {SCHEMA_VERSION}: upgrade the server")
        db.execute("BEGIN IMMEDIATE")
        try:
            for step in range(version, SCHEMA_VERSION):
                for statement in UPGRADES[step]:
                    db.execute(statement)
            db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def off_the_loop(self) -> None:
        """Make the calls of the web server's greenlets (:meth:`bridged`) in a writer thread of
        the store's own (the greenlet package, in the web extra, is needed)."""
        from .bridge import Bridge

        self.bridge = Bridge("the web table", "web")
        self.writer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="cta-sqlite")

    async def bridged(self, call: Callable[[], R], paused: Callable[[], None] | None = None,
                      resumed: Callable[[], None] | None = None) -> R:
        """Run ``call`` (plain code that may call this store) on the event loop's thread in a
        greenlet of its own: each store call it makes runs in the writer thread while the greenlet
        is paused and the loop serves everyone else (:class:`.bridge.Bridge`); ``paused`` and
        ``resumed`` are called around each pause. Without :meth:`off_the_loop`, it runs as it is."""
        if self.bridge is None:
            return call()
        return await self.bridge.run(call, _answer, paused, resumed)

    def _call(self, call: Callable[[], R]) -> R:
        bridge = self.bridge
        if bridge is not None and self.writer is not None:
            if bridge.inside():
                if not self.waiting and self._lock.acquire(blocking=False):
                    try:  # nothing under way in the writer thread: at once, if nothing holds it up
                        return self._at_once(call)
                    except _Busy:
                        pass  # the file's write lock is held elsewhere: wait for it off the loop
                    finally:
                        self._lock.release()
                # paused until the writer thread answers
                if not self.waiting:
                    self.backed_up_since = time.monotonic()
                self.waiting += 1
                self.handed += 1
                try:
                    return bridge.call(self.writer.submit(self._locked, call))  # type: ignore[no-any-return]
                finally:
                    self.waiting -= 1
                    if not self.waiting:
                        self.backed_up_since = None
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                pass
            else:
                self.loop_waits += 1  # made on the loop itself (counted: none should be)
        return self._locked(call)

    def _at_once(self, call: Callable[[], R]) -> R:
        """``call`` made without waiting for the file's write lock (busy timeout 0); _Busy if it is
        held elsewhere, the statement that met it rolled back (and any transaction begun)."""
        self._busy(0)
        try:
            return call()
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY:
                raise
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise _Busy from exc

    def _busy(self, ms: int) -> None:
        if self._busy_ms != ms:
            self.db.execute(f"PRAGMA busy_timeout={int(ms)}")
            self._busy_ms = ms

    def _locked(self, call: Callable[[], R]) -> R:
        with self._lock:
            self._busy(5000)
            try:
                return call()
            except sqlite3.OperationalError as exc:
                if "locked" in str(exc) or "busy" in str(exc):  # another writer held it past busy_timeout
                    raise StoreUnavailable(f"database {self.path!r} is locked: {exc}") from None
                raise

    def close(self) -> None:
        """Checkpoint and close the database."""
        if self.writer is not None:
            self.writer.shutdown(wait=True)
        self.checkpoint("TRUNCATE")
        self.db.close()

    def checkpoint(self, mode: str = "PASSIVE") -> None:
        """Copy the write-ahead log into the database file, on a connection of its own (so another
        thread may call it while the server writes)."""
        if self.path == ":memory:":
            return
        db = sqlite3.connect(self.path, isolation_level=None)
        try:
            db.execute("PRAGMA busy_timeout=5000")
            db.execute(f"PRAGMA wal_checkpoint({'TRUNCATE' if mode == 'TRUNCATE' else 'PASSIVE'})")
        finally:
            db.close()

    def reader(self) -> Store:
        """A store for reading in another thread beside this one (a read-only connection)."""
        return Store(self.path, read_only=True)

    @property
    def journal_mode(self) -> str:
        """The journal mode in force (``wal`` for a file database)."""
        return str(self.db.execute("PRAGMA journal_mode").fetchone()[0])

    @_serial
    def create_table(self, table_id: str, options: dict[str, Any], *, created: float | None = None) -> None:
        """Save a new table's options."""
        self.db.execute("INSERT INTO tables VALUES (?, ?, ?)",
                        (table_id, time.time() if created is None else created, _dump(options)))

    @_serial
    def add_seat(self, table_id: str, seat: int, name: str, token_hash: str) -> None:
        """Save a person taking a seat."""
        self.db.execute("INSERT INTO seats (table_id, seat, name, token_hash) VALUES (?, ?, ?, ?)",
                        (table_id, seat, name, token_hash))

    @_serial
    def set_seat_keys(self, table_id: str, seat: int, token_hash: str | None,
                      recovery_hash: str | None) -> None:
        """Save a seat's new token (None: unchanged) and recovery code hashes."""
        self.db.execute("UPDATE seats SET token_hash=COALESCE(?, token_hash), recovery_hash=? "
                        "WHERE table_id=? AND seat=?", (token_hash, recovery_hash, table_id, seat))

    @_serial
    def start_game(self, table_id: str, game_no: int, seed: int, carry: int, names: Sequence[str],
                   seat_kinds: Sequence[str], events: Sequence[Event]) -> None:
        """Save the start of a game: its seed and the events of the deal."""
        self.db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (table_id, game_no, seed, carry, _dump(list(names)), _dump(list(seat_kinds)),
                         _dump([e.to_dict() for e in events])))

    @_serial
    def append_action(self, table_id: str, game_no: int, seat: int, action: str, actor: str,
                      events: Sequence[Event], seq: int | None = None, act_id: str | None = None) -> None:
        """Append one decision and the events it caused to the game's log; ``seq`` is its number
        in the game (0, 1, ...), counted here if not given (a cost that grows with the game);
        ``act_id`` the client's id for it (StoreConflict if that id or that number is taken)."""
        if seq is None:
            row = self.db.execute("SELECT COUNT(*) FROM actions WHERE table_id=? AND game_no=?",
                                  (table_id, game_no)).fetchone()
            seq = int(row[0])
        try:
            self.db.execute("INSERT INTO actions (table_id, game_no, seq, seat, action, actor, events, at, "
                            "act_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            (table_id, game_no, seq, seat, action, actor,
                             _dump([e.to_dict() for e in events]), time.time(), act_id))
        except sqlite3.IntegrityError as exc:
            raise StoreConflict(f"move {seq} of game {game_no} at table {table_id} is saved already") from exc

    @_serial
    def applied(self, table_id: str, act_id: str) -> bool:
        """Whether a move with this act id was saved at the table."""
        return self.db.execute("SELECT 1 FROM actions WHERE table_id=? AND act_id=?",
                               (table_id, act_id)).fetchone() is not None

    @_serial
    def set_seat_kinds(self, table_id: str, game_no: int, seat_kinds: Sequence[str]) -> None:
        """Save who plays each seat of a game (a person's seat handed to a bot, or taken back)."""
        self.db.execute("UPDATE games SET kinds=? WHERE table_id=? AND game_no=?",
                        (_dump(list(seat_kinds)), table_id, game_no))

    @_serial
    def idle_tables(self, before: float, limit: int = 200) -> list[str]:
        """Tables created before ``before`` with no move since then (the oldest ``limit``)."""
        return [r[0] for r in self.db.execute(
            "SELECT id FROM tables t WHERE created < ? AND NOT EXISTS "
            "(SELECT 1 FROM actions a WHERE a.table_id = t.id AND a.at >= ?) ORDER BY created LIMIT ?",
            (before, before, limit))]

    @_serial
    def delete_table(self, table_id: str) -> None:
        """Delete a table with its seats, games and moves, in one transaction."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            for name in ("actions", "games", "seats", "tables"):
                db.execute(f"DELETE FROM {name} WHERE {'id' if name == 'tables' else 'table_id'}=?",
                           (table_id,))
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def load_table(self, table_id: str) -> StoredTable | None:
        """A table as saved, or None if there is no such table."""
        return self.load_tail(table_id, 0, 0)

    @_serial
    def load_tail(self, table_id: str, game_no: int, seq: int) -> StoredTable | None:
        """A table as saved with only its latest game, and of that game's decisions only those
        from number ``seq`` on if it is game ``game_no`` (else all of them): what a copy of the
        table at that point is missing (:attr:`StoredTable.first_action` says where it starts).
        None if there is no such table."""
        db = self.db
        row = db.execute("SELECT created, options FROM tables WHERE id=?", (table_id,)).fetchone()
        if row is None:
            return None
        seats = [StoredSeat(s, n, h, r) for s, n, h, r in db.execute(
            "SELECT seat, name, token_hash, recovery_hash FROM seats WHERE table_id=? ORDER BY seat",
            (table_id,))]
        games = [StoredGame(g, seed, carry, json.loads(names), json.loads(kinds), json.loads(evs))
                 for g, seed, carry, names, kinds, evs in db.execute(
                     "SELECT game_no, seed, carry, names, kinds, events FROM games WHERE table_id=? "
                     "ORDER BY game_no", (table_id,))]
        first = 0
        earlier: list[str] = []
        if games:
            last = games[-1]
            first = seq if last.game_no == game_no else 0
            last.actions = [StoredAction(s, a, who, json.loads(evs), i) for s, a, who, evs, i in db.execute(
                "SELECT seat, action, actor, events, act_id FROM actions WHERE table_id=? AND game_no=? "
                "AND seq>=? ORDER BY seq", (table_id, last.game_no, first))]
            if first == 0:
                earlier = [r[0] for r in db.execute(
                    "SELECT act_id FROM actions WHERE table_id=? AND game_no<? AND act_id IS NOT NULL",
                    (table_id, last.game_no))]
        return StoredTable(table_id, row[0], json.loads(row[1]), seats, games, first, earlier)

    @_serial
    def game_record(self, table_id: str, game_no: int, config: dict[str, Any],
                    game: str = "chase-the-ace") -> Record:
        """A stored game as a game record (hidden cards included: for referees only): the engine's,
        the record of the table's ``game`` under its ``config`` (the JSON form its options keep
        under ``rules``: :meth:`chasetheace.kinds.GameKind.stored_record`)."""
        row = self.db.execute("SELECT carry, names, events FROM games WHERE table_id=? AND game_no=?",
                              (table_id, game_no)).fetchone()
        if row is None:
            raise ValueError(f"no game {game_no} at table {table_id!r}")
        events = json.loads(row[2])
        for (evs,) in self.db.execute("SELECT events FROM actions WHERE table_id=? AND game_no=? "
                                      "ORDER BY seq", (table_id, game_no)):
            events.extend(json.loads(evs))
        from ..registry import game_kind

        return game_kind(game).stored_record(json.loads(row[1]), config, row[0], events)


class _Busy(Exception):
    """A call made at once met the file's write lock held elsewhere: nothing of it was written."""


async def _answer(future: concurrent.futures.Future[R]) -> R:
    return await asyncio.wrap_future(future)


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))
