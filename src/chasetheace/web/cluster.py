"""Several server processes on one PostgreSQL database: fan-out, presence, leases, failover.

Any process may apply a person's move at any table: it saves the move under the next number of
the game, and the primary key ``(table, game, number)`` lets exactly one process save each
number (a loser reads the table again; :class:`~.store.StoreConflict`). So moves are applied
one at a time, in one order, whatever process their player is connected to, and no hop to
another process stands between a click and its answer. Each write also sends a NOTIFY
(:mod:`.pgstore`); this process LISTENs on its own connection and, for each table it has in
memory, reads the moves it is missing, replays them on its copy of the game (deterministic
from the seed, checked against the stored events) and sends each of its clients its own view.

Bots, absent players' moves and turn timers run in one process per table: the holder of the
table's lease (a row in ``leases`` with an expiry; renewed every :attr:`Cluster.beat` seconds,
lasting :attr:`Cluster.lease`). A process wants the lease of each table where it has a person
seated and connected; when the holder dies (kill -9), its lease runs out and a process that
wants the table takes it within ``lease + beat`` seconds, reads the table from the database
and goes on with its bots and timers. Should two processes ever run a bot's move at once (a
holder paused past its lease), the primary key still lets one of them save it.

Which seats have a person connected (bots and timers wait while nobody is there; an absent
player's turn is played for them) is shared in ``presence``, rewritten at every heartbeat and
changed at once when someone comes or goes.

When PostgreSQL goes away the listener's connection drops: every client is told (an ``error``
with code ``database_unavailable``), nothing is saved or applied meanwhile, and when the listener
is back every table in memory is read again and play resumes (a ``notice`` tells the clients).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from . import protocol as P
from .pgstore import CHANNEL, PgStore
from .store import StoreConflict, StoredAction, StoredTable, StoreUnavailable
from .tables import Lobby, Table


class _Client(Protocol):
    table: Table | None
    seat: int | None

    def send(self, text: str) -> None: ...


class Server(Protocol):
    """What the cluster needs of the app's server (:class:`~.app.Server`)."""

    @property
    def lobby(self) -> Lobby: ...
    @property
    def watchers(self) -> Mapping[str, Any]: ...
    @property
    def open(self) -> Any: ...
    @property
    def loading(self) -> Mapping[str, Any]: ...
    def changed(self, table: Table) -> None: ...
    def reschedule(self, table: Table) -> None: ...
    def broadcast(self, table: Table, only: Any = None) -> None: ...
    def replace_seat(self, table: Table, seat: int) -> None: ...
    def rebuild_soon(self, table: Table) -> None: ...
    async def load(self, table_id: str) -> None: ...

__all__ = ["Cluster"]

log = logging.getLogger("chasetheace.web.cluster")


class Cluster:
    """This process's part in a server of several processes on one PostgreSQL database."""

    def __init__(self, server: Server, store: PgStore, *, lease: float = 3.0, beat: float = 1.0) -> None:
        self.server, self.store = server, store
        self.lease, self.beat = lease, beat
        self.held: dict[str, float] = {}  # table -> until when (monotonic) this process holds its lease
        self.elsewhere: dict[str, set[int]] = {}  # table -> seats connected to other processes
        self.dirty: set[str] = set()  # tables to read again
        self.seats_dirty: set[str] = set()  # tables whose people connected elsewhere changed
        # table -> the position (game, events) whose turn timer runs out when (seconds since the epoch)
        self.turns: dict[str, tuple[tuple[int, int], float]] = {}
        self.wake = asyncio.Event()
        self.up = False  # the listener is connected
        self.tasks: list[asyncio.Task[None]] = []
        self.writer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="cta-presence")
        self.restate = True  # the next heartbeat states this process's presence afresh
        self.dead: set[str] = set()  # the processes known to be dead (their presence is ignored)
        self.counts = {"notified": 0, "moves_applied": 0, "tables_read": 0}  # shown by /healthz

    @property
    def process(self) -> str:
        return self.store.process

    def start(self) -> None:
        self.tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._beats()),
                      asyncio.create_task(self._catch_up())]

    async def stop(self) -> None:
        self.writer.shutdown(wait=True)
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # --- leases ---------------------------------------------------------------------------------

    def holds(self, table_id: str) -> bool:
        """Whether this process runs the table's bots and timers now."""
        return self.held.get(table_id, 0.0) > time.monotonic()

    def wanted(self) -> list[str]:
        """The tables this process wants the lease of: where a person of its is seated."""
        return sorted(t for t, conns in self.server.watchers.items()
                      if any(c.seat is not None for c in conns))

    async def _beats(self) -> None:
        while True:
            try:
                await self.heartbeat()
            except Exception:
                log.exception("cluster heartbeat failed")
            await asyncio.sleep(self.beat)

    async def heartbeat(self) -> None:
        """Say this process is alive, with its people; take, renew or give up leases."""
        server = self.server
        present = None
        if self.restate:  # at the start, and after the database was away: state every seat afresh
            present = sorted({(c.table.id, c.seat) for conns in server.watchers.values() for c in conns
                              if c.table is not None and c.seat is not None})
        wanted = self.wanted()
        asked = time.monotonic()
        try:
            held, seats, self.dead = await asyncio.to_thread(
                self.store.beat, present, wanted, sorted(self.held), self.lease, self.lease, self.dead)
        except StoreUnavailable:
            return  # the leases run out by themselves: bots and timers stop here
        if present is not None:
            self.restate = False
        until = asked + self.lease - 0.5  # a margin: stop before the database's expiry passes
        gained = [t for t in held if not self.holds(t)]
        lost = [t for t in self.held if t not in held]
        self.held = {t: until for t in held}
        for t, s in seats.items():
            self.elsewhere[t] = s
        for table_id in [*gained, *lost, *held]:
            table = server.lobby.tables.get(table_id)
            if table is None:
                continue
            if table_id in gained:  # taken over: read the table as saved, then go on with it
                self.refresh(table)
            else:
                server.reschedule(table)

    # --- presence -------------------------------------------------------------------------------

    def present_elsewhere(self, table_id: str) -> set[int]:
        return self.elsewhere.get(table_id, set())

    def seated(self, table_id: str, seat: int, here: bool) -> None:
        """A person of this process sat down at (or left) a seat: tell the others now (written in
        a thread of its own, in order, off the event loop)."""
        def write() -> None:
            try:
                self.store.set_presence(table_id, seat, here)
            except (StoreUnavailable, StoreConflict):
                self.restate = True  # the next heartbeat says it
        self.writer.submit(write)

    def open_tables(self, limit: int, known: set[str]) -> list[dict[str, Any]]:
        """Public tables not started, with a free seat and a person connected to another process."""
        try:
            rows = self.store.open_tables(limit + len(known), self.lease)
        except StoreUnavailable:
            return []
        found = []
        for table_id, options, taken, host in rows:
            if table_id in known or taken >= options.get("seats", 0):
                continue
            found.append({"id": table_id, "preset": options.get("preset"), "seats": options.get("seats"),
                          "taken": taken, "host": host, "bots": options.get("bots"),
                          "timer": options.get("timer")})
        return found[:limit]

    # --- turn timers ----------------------------------------------------------------------------

    def turn_ends(self, table_id: str, marker: tuple[int, int]) -> float | None:
        """When (on this process's monotonic clock) the turn timer of this position runs out, as
        the process that set it saved it; None if none was saved for this position."""
        saved = self.turns.get(table_id)
        if saved is None or saved[0] != marker:
            return None
        return time.monotonic() + (saved[1] - time.time())

    def share_turn(self, table_id: str, marker: tuple[int, int], ends: float) -> None:
        """Save a turn timer this process set (``ends`` on its monotonic clock)."""
        epoch = time.time() + (ends - time.monotonic())
        self.turns[table_id] = (marker, epoch)
        with contextlib.suppress(StoreUnavailable, StoreConflict):
            self.store.set_turn(table_id, marker[0], marker[1], epoch)

    # --- fan-out --------------------------------------------------------------------------------

    def refresh(self, table: Table) -> bool:
        """Read what this copy of the table is missing (moves, seats, a new game; who is connected
        elsewhere), apply it, tell this process's clients; whether anything changed. The database
        being away is left for later (the table is marked to be read again). A stale copy is
        rebuilt off the event loop (:meth:`~.app.Server.rebuild_soon`) instead."""
        if table.stale:
            self.server.rebuild_soon(table)
            return False
        self.counts["tables_read"] += 1
        try:
            read = self.store.catch_up(table.id, table.game_no, table.moves, self.lease)
        except StoreUnavailable:
            self.dirty.add(table.id)
            return False
        return self._apply(table, read)

    async def refresh_off_loop(self, table: Table) -> None:
        """:meth:`refresh`, the database read in a worker thread (the event loop goes on meanwhile);
        if the copy moved on during the read, it is read again on the loop; a stale copy is
        rebuilt in the loader thread."""
        if table.stale:
            self.counts["tables_read"] += 1
            await self.server.load(table.id)
            return
        self.counts["tables_read"] += 1
        marks = (table.game_no, table.moves)
        try:
            read = await asyncio.to_thread(self.store.catch_up, table.id, table.game_no, table.moves,
                                           self.lease)
        except StoreUnavailable:
            self.dirty.add(table.id)
            return
        if (table.game_no, table.moves) != marks or self.server.lobby.tables.get(table.id) is not table:
            if self.server.lobby.tables.get(table.id) is table:
                self.refresh(table)
            return
        self._apply(table, read)

    def _apply(self, table: Table,
               read: tuple[StoredTable | None, set[int], tuple[int, int, float] | None]) -> bool:
        saved, elsewhere, turn = read
        if saved is None:  # deleted (expired) meanwhile
            return False
        changed = table.catch_up(saved)
        if table.stale:  # too far behind to replay here: rebuilt off the loop, then its clients told
            self.server.rebuild_soon(table)
        if turn is not None and self.turns.get(table.id) != ((turn[0], turn[1]), turn[2]):
            self.turns[table.id] = ((turn[0], turn[1]), turn[2])
            changed = True
        if elsewhere != self.elsewhere.get(table.id, set()):
            self.elsewhere[table.id] = elsewhere
            changed = True
        if changed:
            self.server.changed(table)
        else:
            self.server.reschedule(table)
        return changed

    def heard(self, payload: str) -> None:
        """A notification: ``PROCESS|TABLE`` (read the table again), ``PROCESS|TABLE|p`` (who is
        connected changed) or ``PROCESS|TABLE|m|MOVE`` (a saved move, applied here at once if it
        is the next one this copy expects)."""
        sender, _, rest = payload.partition("|")
        table_id, _, rest = rest.partition("|")
        kind, _, data = rest.partition("|")
        if sender == self.process:
            return
        self.counts["notified"] += 1
        table = self.server.lobby.tables.get(table_id)
        if table is None:
            if table_id in self.server.loading:
                self.dirty.add(table_id)
                self.wake.set()
            return
        if kind == "r":  # a person took a seat on another process: an older connection here loses it
            if data.isdecimal():
                self.server.replace_seat(table, int(data))
            kind = "p"
        if table_id not in self.dirty:
            if kind == "m" and self.apply_move(table, data):
                return
            if kind == "p":
                self.seats_dirty.add(table_id)
                self.wake.set()
                return
            if kind == "t":
                with contextlib.suppress(ValueError):
                    game_no, events, ends = data.split(":")
                    self.turns[table_id] = ((int(game_no), int(events)), float(ends))
                    self.server.broadcast(table)  # its clients see the time left
                return
        self.dirty.add(table_id)
        self.wake.set()

    def apply_move(self, table: Table, data: str) -> bool:
        """Apply a move another process saved (from its notification); False if it is not the
        next move of this copy (then the table is read from the database)."""
        try:
            move = json.loads(data)
            if table.stale or table.game is None or move["g"] != table.game_no or move["s"] != table.moves:
                return False
            table.apply_saved(StoredAction(move["seat"], move["a"], move["w"], move["e"], move.get("i")))
        except (ValueError, KeyError, TypeError):
            return False
        self.counts["moves_applied"] += 1
        self.server.changed(table)
        return True

    async def _catch_up(self) -> None:
        """Apply what the notifications announced, a batch at a time."""
        readers = asyncio.Semaphore(3)  # reads at once (the pool has 4 connections)
        while True:
            await self.wake.wait()
            self.wake.clear()
            seats, self.seats_dirty = self.seats_dirty - self.dirty, set()
            for table_id in seats:
                table = self.server.lobby.tables.get(table_id)
                if table is None:
                    continue
                try:
                    elsewhere = await asyncio.to_thread(self.store.present_elsewhere, table_id, self.lease)
                except StoreUnavailable:
                    self.dirty.add(table_id)
                    continue
                if elsewhere != self.elsewhere.get(table_id, set()):
                    self.elsewhere[table_id] = elsewhere
                    self.server.changed(table)
            batch, self.dirty = self.dirty, set()

            async def one(table_id: str) -> None:
                if table_id in self.server.loading:  # read after its load: the load may predate the write
                    with contextlib.suppress(Exception):
                        await self.server.loading[table_id]
                table = self.server.lobby.tables.get(table_id)
                if table is None:
                    return
                async with readers:
                    try:
                        await self.refresh_off_loop(table)
                    except Exception:
                        log.exception("could not bring table %s up to date", table_id)

            await asyncio.gather(*(one(t) for t in batch))

    async def _listen(self) -> None:
        """LISTEN for the other processes' writes, reconnecting when the connection drops."""
        import psycopg

        first = True
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self.store.url, autocommit=True,
                                                             connect_timeout=3)
            except (psycopg.Error, OSError):
                await asyncio.sleep(1.0)
                continue
            try:
                async with conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    if not first:  # the pool's connections broke with the old server: renew them first
                        await asyncio.to_thread(self.store.renew)
                    self.up = True
                    self.store.mark_up()
                    if not first:
                        await self._back()
                    first = False
                    async for note in conn.notifies():
                        self.heard(note.payload)
            except (psycopg.Error, OSError):
                pass
            except asyncio.CancelledError:  # stopping: not the database's fault
                self.up = False
                raise
            finally:
                if self.up:
                    self.up = False
                    self._lost()
            await asyncio.sleep(0.5)

    def _tell(self, message: dict[str, Any], tables: Callable[[], list[str]] | None = None) -> None:
        text = P.encode(message)
        for conn in list(self.server.open):
            conn.send(text)

    def _lost(self) -> None:
        log.warning("the database %s is unreachable: play waits for it", self.store.path)
        self.store.mark_down(1.0)
        self.held.clear()
        for table in list(self.server.lobby.tables.values()):
            self.server.reschedule(table)  # holds nothing now: bots and timers stop
        self._tell(P.error("database_unavailable", "the game's database is unreachable: moves cannot be "
                           "saved now; play resumes when it is back"))

    async def _back(self) -> None:
        log.warning("the database %s is back", self.store.path)
        self.restate = True
        await self.heartbeat()  # leases and presence first: bots and timers go on where they were
        for table in list(self.server.lobby.tables.values()):
            self.refresh(table)
        self._tell({"type": "notice", "v": P.VERSION, "code": "database_back",
                    "message": "the game's database is back: play on"})
