"""Seating: a connection taking a seat (or watching), leaving it, or losing it to another
connection of the same person; and the public list of open tables."""

from __future__ import annotations

from typing import Any

from . import protocol as P
from .connection import Connection
from .tables import Table
from .timers import Timers

__all__ = ["Seating", "LATE_ANNOUNCEMENT"]

LATE_ANNOUNCEMENT = 2.0
"""Seconds: a seat announced by another process this much later (on the database's clock) than a
connection here took it replaces that connection even before its own announcement was heard back."""


class Seating(Timers):
    """Connections at seats and as spectators."""

    def open_tables(self) -> list[dict[str, Any]]:
        """The public list: tables whose creator chose to list them, not started, with a free
        seat and someone at them."""
        found = []
        for table in self.lobby.tables.values():
            if (table.options.public and table.status == "waiting" and table.id in self.watchers
                    and len(table.people) < table.options.seats and self.present(table)):
                found.append({"id": table.id, "preset": table.options.preset, "seats": table.options.seats,
                              "taken": len(table.people), "host": table.people[0].name,
                              "bots": table.options.bots, "timer": table.options.timer})
                if len(found) >= self.limits.public_tables:
                    break
        if self.cluster is not None and len(found) < self.limits.public_tables:
            found += self.cluster.open_tables(self.limits.public_tables - len(found),
                                              {t["id"] for t in found})
        return found

    def bind(self, conn: Connection, table: Table, seat: int | None, token: str | None = None,
             recovery: str | None = None) -> None:
        """Attach a connection to a seat (or as a spectator) and send it the whole state."""
        left = self.unbind(conn)
        if seat is not None:
            for other in list(self.watchers.get(table.id, ())):
                if other.seat == seat:
                    other.send(P.encode(P.error("replaced", "this seat was resumed by another connection")))
                    self.unbind(other)
        if seat is not None:
            table.reclaim(seat)  # back at a seat a bot played for them: it is theirs again
            if self.cluster is not None:
                conn.seated_at = self.cluster.seated(table.id, seat, True, conn)
        conn.table, conn.seat, conn.game_no, conn.sent = table, seat, 0, 0
        self.watchers.setdefault(table.id, set()).add(conn)
        joined: dict[str, Any] = {"type": "joined", "v": P.VERSION, "table": table.id, "seat": seat,
                                  "role": "spectator" if seat is None else "player"}
        if token is not None:
            joined["token"] = token
        if recovery is not None:  # shown once: the way back to this seat if the token is lost
            joined["recovery"] = recovery
        conn.send(P.encode(joined))
        if seat is None:  # a spectator changes nothing the players see: only it is told
            self.broadcast(table, only=conn)
        else:
            self.schedule(table)
            self.broadcast(table)
        if left is not None and left is not table:
            self.release(left)

    def replace_seat(self, table: Table, seat: int, at: float | None = None) -> None:
        """A person took their seat on another server process (at ``at`` on the database's clock,
        if said): a connection of theirs here loses it if its own announcement of the seat was
        heard back before that one (the database orders them: the other took the seat after).
        One whose announcement was not heard yet took the seat after (the other process's
        connection is told ``replaced`` by this one's); but for a notice more than
        :data:`LATE_ANNOUNCEMENT` seconds younger than it (its own announcement lost with a
        dropped listening connection)."""
        replaced = False
        for other in list(self.watchers.get(table.id, ())):
            if other.seat == seat and (other.announced or at is None
                                       or at > other.seated_at + LATE_ANNOUNCEMENT):
                other.send(P.encode(P.error("replaced", "this seat was resumed by another connection")))
                self.unbind(other)
                replaced = True
        if replaced:  # as when a connection closes: nobody left here, its moves are not applied here
            self.release(table)

    def unbind(self, conn: Connection) -> Table | None:
        """Detach a connection from its table; returns the table it left."""
        table, seat = conn.table, conn.seat
        if table is None:
            return None
        conn.table = conn.seat = None
        watchers = self.watchers.get(table.id)
        if watchers is not None:
            watchers.discard(conn)
            if not watchers:
                del self.watchers[table.id]
        if (seat is not None and self.cluster is not None
                and not any(c.seat == seat for c in self.watchers.get(table.id, ()))):
            self.cluster.seated(table.id, seat, False)
        if seat is not None:  # a spectator leaving changes nothing the players see
            self.schedule(table)
            self.broadcast(table)
        return table
