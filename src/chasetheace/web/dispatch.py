"""Each client message, once it passed the limits and validation: loading its table if needed,
then the change it asks for (create, join, resume, recover, watch, act, start, replace, rematch,
hint), with the database's troubles answered to the client that sent it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from . import movetrace
from . import protocol as P
from .advice import hint_request
from .connection import Connection
from .seating import Seating
from .store import StoreConflict, StoreUnavailable
from .tables import AlreadyApplied, Table

__all__ = ["Dispatch"]

log = logging.getLogger("chasetheace.web")


class Dispatch(Seating):
    """Applying valid client messages to tables."""

    async def _load_then_dispatch(self, conn: Connection, msg: P.ClientMessage, table_id: str) -> None:
        try:
            await self.load(table_id)
            if conn.closed:
                pass
            elif self.saver is not None:  # its database calls off the loop
                await self.saver.dispatch(conn, msg)
            else:
                self.dispatch(conn, msg)
        except P.ProtocolError as exc:
            conn.send(P.encode(P.error(exc.code, str(exc))))
        except (StoreUnavailable, StoreConflict) as exc:
            self.store_trouble(conn, exc)
        except Exception:
            log.exception("failed to load table %s", table_id)
            conn.send(P.encode(P.error("internal", "the server could not handle this message")))
        finally:  # loaded for a message that was refused, or for a client gone meanwhile: let it go
            self.just_loaded.pop(table_id, None)
            table = self.lobby.tables.get(table_id)
            if table is not None:
                self.release(table)

    async def load(self, table_id: str) -> None:
        """Bring a table into memory without holding up the event loop: its log is read and its
        game replayed in the loader thread (one load at a time; two clients asking for one table
        share its load). A table not found is left for :meth:`table` to refuse. A table in memory
        whose copy is :attr:`~.tables.Table.stale` (a move played but not saved) is rebuilt the
        same way."""
        task = self.loading.get(table_id)
        if task is None:
            task = self.loading[table_id] = asyncio.ensure_future(self._load(table_id))
            task.add_done_callback(lambda _: self.loading.pop(table_id, None))
        await asyncio.shield(task)

    def store_trouble(self, conn: Connection, exc: Exception) -> None:
        """The database could not take a change: it was unreachable, or (several processes) another
        process changed the table first; nothing was saved, and this client is told."""
        if conn.table is not None and conn.table.stale:
            self.rebuild_soon(conn.table)
        if isinstance(exc, StoreUnavailable):
            conn.send(P.encode(P.error("database_unavailable", "the game's database is unreachable: "
                                       "nothing was saved; try again in a moment")))
            return
        if conn.table is not None and self.cluster is not None:
            self.cluster.refresh_soon(conn.table)  # read off the loop
        conn.send(P.encode(P.error("conflict", "the table changed meanwhile: look again and try again")))

    async def _load(self, table_id: str) -> None:
        assert self.loader is not None
        loop = asyncio.get_running_loop()
        held = self.lobby.tables.get(table_id)
        if held is not None:
            if held.stale:
                await self.rebuild(held)
            return
        if self.cluster is not None:  # hear every write after the read
            await self.cluster.follow(table_id)
        table = await loop.run_in_executor(self.loader.executor, self.loader.restore, table_id,
                                           self.store, self.bots)
        if table is not None and table_id not in self.lobby.tables:
            self.lobby.tables[table_id] = table
            if self.cluster is not None:
                self.just_loaded[table_id] = True
                # who is connected elsewhere and the turn timer, before the first state is sent
                await self.cluster.refresh_off_loop(table)

    def dispatch(self, conn: Connection, msg: P.ClientMessage) -> None:
        """Apply one valid message."""
        if isinstance(msg, P.Ping):
            conn.send(P.encode({"type": "pong", "v": P.VERSION}))
        elif isinstance(msg, P.ListTables):
            conn.send(P.encode({"type": "tables", "v": P.VERSION, "tables": self.open_tables()}))
        elif isinstance(msg, P.Create):
            self.check_quota(conn.client)
            if self.cluster is not None:
                self.cluster.check_create()  # not while a newer server's schema is in the database
            table, seat, token = self.lobby.create(msg)
            if self.cluster is not None:  # hear the other processes' writes there (it is read once then)
                self.cluster.follow_soon(table.id)
            self.created.setdefault(conn.client, deque()).append(time.monotonic())
            rules = table.options.rules
            if table.options.hints and rules is not None:
                with contextlib.suppress(P.ProtocolError):  # over its share: its hints will say so
                    self.advisor.prepare(rules, table.options.seats, conn.client)
            self.bind(conn, table, seat, token, table.issue_recovery(seat))
        elif isinstance(msg, P.Join):
            table = self.table(msg.table)
            self.sync(table)
            seat, token = self.retried(table, lambda: table.join(msg.name))
            self.bind(conn, table, seat, token, table.issue_recovery(seat))
        elif isinstance(msg, P.Recover):
            table = self.table(msg.table)
            self.sync(table)
            try:
                self.guesses.check(conn.client)
                seat, token, code = table.recover(msg.code)
            except P.ProtocolError as exc:
                if exc.code == "bad_recovery":
                    self.guesses.missed(conn.client)
                self.release(table)
                raise
            self.bind(conn, table, seat, token, code)
        elif isinstance(msg, P.Resume):
            table = self.table(msg.table)
            self.sync(table)
            self.bind(conn, table, table.seat_of(msg.token))
        elif isinstance(msg, P.Watch):
            table = self.table(msg.table)
            watching = sum(1 for c in self.watchers.get(table.id, ()) if c.seat is None and c is not conn)
            if watching >= self.limits.spectators_per_table:
                self.release(table)
                raise P.ProtocolError(f"this table has {watching} spectators, the most it takes",
                                      "too_many_spectators")
            self.bind(conn, table, None)
        else:
            table, seat = self.seated(conn)
            if isinstance(msg, P.HintRequest):
                hint_request(self, conn, table, seat)  # answers this client only, changes nothing
                return
            if isinstance(msg, P.Act):
                if not self.player_act(conn, table, seat, msg):
                    return
            elif isinstance(msg, P.Start):
                # with several processes the copy is not read first: a seat taken on another
                # process that it does not know of yet makes the start a conflict (the database
                # checks), and then it is read (:meth:`retried`)
                self.just_loaded.pop(table.id, None)
                self.retried(table, lambda: table.start(seat, self.creator(table)))
            elif isinstance(msg, P.Replace):
                table.replace(msg.seat, seat, self.creator(table), self.present(table))
            else:
                self.retried(table, lambda: table.rematch(seat, self.creator(table)))
            self.changed(table)
            if isinstance(msg, P.Act):
                movetrace.stamp(msg.act_id, "b")

    def player_act(self, conn: Connection, table: Table, seat: int, msg: P.Act) -> bool:
        """A person's move; False if it was applied already (an act sent again with the same
        ``act_id``, to this process or another): then only this client is sent the state. With
        several processes, a move refused because this copy of the table is behind is tried again
        once the copy has caught up (the notification of the move before it may be on its way)."""
        try:
            try:
                self.retried(table, lambda: self.human_act(table, seat, msg.move, msg.act_id))
            except P.ProtocolError as exc:
                if (self.cluster is None or isinstance(exc, AlreadyApplied)
                        or exc.code not in ("out_of_turn", "not_now") or not self.cluster.refresh(table)):
                    raise
                self.retried(table, lambda: self.human_act(table, seat, msg.move, msg.act_id))
        except AlreadyApplied:  # known from the act ids the table holds: nothing is read or replayed
            self.broadcast(table, only=conn)
            return False
        return True

    def retried(self, table: Table, change: Callable[[], Any]) -> Any:
        """Make a change; with several processes, if another process changed the table first
        (a conflict), read the table again and try once more (the change may no longer apply:
        then the engine says why)."""
        try:
            return change()
        except StoreConflict:
            if self.cluster is None or table.stale:  # a stale copy is rebuilt off the loop first
                raise
            self.cluster.refresh(table)
            return change()

    def check_quota(self, client: str) -> None:
        """ProtocolError (``too_many_tables``) if ``client`` opened its share of tables lately."""
        made = self.created.get(client)
        if made is None:
            return
        horizon = time.monotonic() - self.limits.table_window
        while made and made[0] < horizon:
            made.popleft()
        if len(made) >= self.limits.tables_per_client:
            raise P.ProtocolError(
                f"you opened {len(made)} tables in the last {self.limits.table_window / 60:g} minutes, "
                "the most allowed: play at one of them, or try again later", "too_many_tables")

    def human_act(self, table: Table, seat: int, action: str, act_id: str | None = None) -> None:
        """A person's decision: checked against the engine, which names what was wrong."""
        self.human_check(table, seat, act_id)
        table.act(seat, action, act_id=act_id)

    def human_check(self, table: Table, seat: int, act_id: str | None) -> None:
        """Before a person's move is played: a move sent again is known by its act id (whoever's
        turn it is now), then it must be their turn."""
        if act_id is not None and act_id in table.act_ids:
            raise AlreadyApplied(act_id)
        if table.game is not None and table.game.to_act is not None and table.game.to_act != seat:
            raise P.ProtocolError(f"it is not your turn: seat {table.game.to_act} is to act", "out_of_turn")
