"""Tidying up: closing silent connections, deleting expired tables, and the server's periodic
housekeeping (WAL checkpoints, the garbage collector's frozen survivors)."""

from __future__ import annotations

import asyncio
import gc
import logging
import time

from . import protocol as P
from .hub import TableHub

__all__ = ["Tidying", "housekeeping"]

log = logging.getLogger("chasetheace.web")


class Tidying(TableHub):
    """Idle connections and expired tables."""

    def close_idle(self) -> int:
        """Close the connections that sent nothing for ``idle_seconds``; how many."""
        if not self.limits.idle_seconds:
            return 0
        horizon = time.monotonic() - self.limits.idle_seconds
        idle = [c for c in self.open if c.heard < horizon and not c.closed]
        for conn in idle:
            room = conn.limits.queue - 2  # for the error and the close frame: the latest unsent
            if conn.queue.qsize() > room:  # updates go (what is sent stays in order; it resumes)
                kept = [conn.queue.get_nowait() for _ in range(conn.queue.qsize())][:max(0, room)]
                for text in kept:
                    conn.queue.put_nowait(text)
            conn.send(P.encode(P.error(
                "idle", f"nothing received for {self.limits.idle_seconds:g} s: disconnected")))
            conn.close(1000, "idle")
        return len(idle)

    def expire(self, now: float | None = None, batch: int = 200) -> list[str]:
        """Delete tables nobody is at that had no move for ``table_ttl`` seconds; their ids. ``now``
        is this process's clock, or on PostgreSQL the database's (as last measured: tables and
        moves are dated by it there, whatever each process's own clock says)."""
        if now is None:
            if self.cluster is not None and not self.cluster.clock_read:
                return []  # the database's clock not known yet: next time
            now = time.time() if self.cluster is None else self.cluster.now()
        cutoff = now - self.limits.table_ttl
        gone = []
        for table_id in self.store.idle_tables(cutoff, batch):
            if table_id in self.watchers:
                continue
            due = self.pending.pop(table_id, None)
            if due is not None:
                due.handle.cancel()
            self.lobby.tables.pop(table_id, None)
            self.turn_ends.pop(table_id, None)
            self.store.delete_table(table_id)
            gone.append(table_id)
        horizon = time.monotonic() - self.limits.table_window
        for client in [c for c, made in self.created.items() if not made or made[-1] < horizon]:
            del self.created[client]
        return gone


async def housekeeping(server: Tidying, manage_gc: bool, every: float = 2.0, full_gc: float = 600.0,
                        expire_every: float = 60.0) -> None:
    """Now and then: delete expired tables (every ``expire_every`` seconds, or a tenth of their
    time to live if that is shorter, a batch at a time);
    checkpoint the WAL in a worker thread, so no commit on the loop waits on fsync;
    and freeze the objects that survived so far, so the collector's full passes (which stopped
    the loop for up to half a second with 1,000 players) scan only new objects. Objects freed by
    reference counting still go at once; cyclic garbage among frozen objects waits for the full
    collection every ``full_gc`` seconds. (The collector is the process's: only a server that owns
    its process, as ``serve`` does, should ``manage_gc``.)"""
    store = server.store
    # a short time to live (tests, a demo) is checked more often: within a tenth of it
    expire_every = min(expire_every, max(1.0, server.limits.table_ttl / 10))
    last_full = last_expiry = time.monotonic()
    while True:
        await asyncio.sleep(min(every, server.limits.idle_seconds or every))
        server.close_idle()
        if time.monotonic() - last_expiry >= expire_every:
            last_expiry = time.monotonic()
            try:
                if server.saver is not None:  # its database calls off the loop
                    await server.saver.bridged(server.expire, None)
                else:
                    server.expire()
            except Exception:
                log.exception("expiring tables failed")
        try:
            await asyncio.to_thread(store.checkpoint)
        except Exception:
            log.exception("WAL checkpoint failed")
        if not manage_gc:
            continue
        if time.monotonic() - last_full > full_gc:
            gc.unfreeze()
            gc.collect()
            last_full = time.monotonic()
        gc.freeze()
