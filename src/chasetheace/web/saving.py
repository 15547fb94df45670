"""Client messages and automatic moves whose database calls run off the event loop.

The handling of a message is plain code that calls the store (:mod:`.tables`); here it runs in a
greenlet of its own on the loop's thread (:class:`.bridge.Bridge`, through the store's
``bridged``): a store call that may wait goes to a worker thread (PostgreSQL: a pool; SQLite:
one writer thread, so the writes keep their order, taking a call that met the file's lock held
elsewhere and those that come after it; the others, which cannot wait, commit at once on the
loop: :class:`.store.Store`) while the loop serves everyone else, so a slow database or a
database lock never holds up a ping or another table. While such a call is under way its table
counts as being saved (:attr:`.tables.Table.saving`): nobody is told of it until the change is
in. On SQLite (:class:`Saver`) the messages and automatic moves about one table are handled one
after another, in the order they came; on PostgreSQL :class:`~.cluster.Cluster` builds on this
with its own ordering (moves numbered in the database).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol

from . import protocol as P
from .store import StoreConflict, StoreUnavailable
from .tables import Table

__all__ = ["Saver"]

log = logging.getLogger("chasetheace.web")


class _Client(Protocol):
    table: Table | None
    seat: int | None

    def send(self, text: str) -> None: ...


class _Store(Protocol):
    async def bridged(self, call: Callable[[], Any], paused: Callable[[], None] | None = None,
                      resumed: Callable[[], None] | None = None) -> Any: ...


def target(conn: _Client, msg: P.ClientMessage, tables: dict[str, Table]) -> Table | None:
    """The table in memory a message is about (None: none, or a new one)."""
    if isinstance(msg, (P.Create, P.ListTables, P.Ping)):
        return None
    if isinstance(msg, (P.Join, P.Resume, P.Recover, P.Watch)):
        return tables.get(msg.table)
    return conn.table


class Saver:
    """Messages and automatic moves handled in greenlets, their store calls off the loop."""

    def __init__(self, server: Any, store: _Store) -> None:
        self.server, self.store = server, store
        self.saves: dict[str, asyncio.Future[None]] = {}  # table -> its change being saved
        # table -> the last message or automatic move waiting for its turn there (SQLite)
        self.queued: dict[str, asyncio.Future[None]] = {}
        self.working: set[asyncio.Task[None]] = set()  # automatic moves under way

    def dispatch(self, conn: _Client, msg: P.ClientMessage) -> Awaitable[None]:
        """Handle a message after those about its table that came first; what went wrong is told
        to this client only. Its connection reads its next message once this one is handled (a
        ping after a move is answered after the move: a client's messages keep their order);
        the other connections are served meanwhile."""
        table = target(conn, msg, self.server.lobby.tables)
        return self._answering(conn, self._in_turn(table, functools.partial(self.server.dispatch, conn, msg)))

    def ping(self, conn: _Client, answer: Callable[[], None]) -> Awaitable[None] | None:
        """A ping from a client at a table with changes under way (SQLite): answered once those
        that came before it are in, so its pong still says that everything the client's table
        did before it has been told (a ping elsewhere is answered at once); None: answer now."""
        table = conn.table
        before = None if table is None else self.queued.get(table.id)
        if before is None:
            return None

        async def then() -> None:
            await asyncio.shield(before)
            answer()
        return then()

    def inside(self) -> bool:
        """Whether the caller runs in a greenlet of :meth:`bridged` (its store calls off the loop)."""
        bridge = getattr(self.store, "bridge", None)
        return bridge is not None and bool(bridge.inside())

    def later(self, table: Table, call: Callable[[], None]) -> None:
        """Run ``call`` (an automatic move: it checks the position again) in its turn at the table."""
        async def run() -> None:
            try:
                await self._in_turn(table, call)
            except Exception:  # an automatic move must never take the server down
                log.exception("automatic move failed at table %s", table.id)
        self._keep(asyncio.ensure_future(run()))

    def _keep(self, task: asyncio.Task[None]) -> None:
        self.working.add(task)
        task.add_done_callback(self.working.discard)

    async def _in_turn(self, table: Table | None, call: Callable[[], Any]) -> None:
        """``call`` in a greenlet once what came before at the table is done. Once started, it
        runs to its end even if its caller is cancelled (a connection dropped): a change is never
        left half made between the store and the table in memory."""
        before = mine = None
        if table is not None:
            before = self.queued.get(table.id)
            mine = self.queued[table.id] = asyncio.get_running_loop().create_future()

        def finish(task: asyncio.Future[Any] | None = None) -> None:
            if task is not None and not task.cancelled():
                task.exception()  # retrieved here too: the caller may be gone
            if table is None or mine is None or mine.done():
                return
            mine.set_result(None)
            if self.queued.get(table.id) is mine:
                del self.queued[table.id]

        try:
            if before is not None:
                await asyncio.shield(before)
        except BaseException:
            finish()
            raise
        change = asyncio.ensure_future(self.bridged(call, table))
        change.add_done_callback(finish)
        await asyncio.shield(change)

    async def bridged(self, call: Callable[[], Any], table: Table | None) -> Any:
        """Run ``call`` (code that may call the store) with each of its store calls made in a
        worker thread, the event loop free meanwhile. While one is under way, ``table`` counts as
        being saved, as during a move's save: nobody is told of it, and (on PostgreSQL) other
        messages about it wait, notified moves are held, reads are put off."""
        done: list[asyncio.Future[None]] = []

        def paused() -> None:
            if table is None or table.saving:
                return
            table.saving = True
            done.append(asyncio.get_running_loop().create_future())
            self.saves[table.id] = done[-1]

        def resumed() -> None:
            if not done:
                return
            assert table is not None
            table.saving = False
            future = done.pop()
            if self.saves.get(table.id) is future:
                del self.saves[table.id]
            future.set_result(None)

        try:
            return await self.store.bridged(call, paused, resumed)
        finally:
            if table is not None and not table.saving:
                self.saved(table)

    def saved(self, table: Table) -> None:
        """After a change at ``table`` is in (nothing here; the cluster applies what it held)."""

    async def _answering(self, conn: _Client, work: Coroutine[Any, Any, None]) -> None:
        """Run a message's handling; what went wrong is told to this client only."""
        try:
            await work
        except P.ProtocolError as exc:
            conn.send(P.encode(P.error(exc.code, str(exc))))
        except (StoreUnavailable, StoreConflict) as exc:
            self.server.store_trouble(conn, exc)
        except Exception:
            log.exception("failed to handle a message")
            conn.send(P.encode(P.error("internal", "the server could not handle this message")))

    async def stop(self) -> None:
        for task in list(self.working):
            task.cancel()
        for task in list(self.working):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
