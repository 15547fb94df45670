"""Bots and turn timers: the next automatic move of a table (a bot's, an absent person's, or a
present person's turn that timed out), set on the event loop while a person is at the table."""

from __future__ import annotations

import asyncio
import logging
import time

from .hub import Due
from .store import StoreConflict, StoreUnavailable
from .tables import Table
from .telling import Telling

__all__ = ["Timers"]

log = logging.getLogger("chasetheace.web")


class Timers(Telling):
    """Automatic moves: bots, absent players and turn timers."""

    def changed(self, table: Table) -> None:
        """After any change: set the next bot move or turn timer, then tell every client."""
        self.schedule(table)
        self.broadcast(table)

    def schedule(self, table: Table) -> None:
        """Arrange the next automatic move: a bot's, an absent person's, or the timer of a present
        person's turn. Nothing is set while no person is connected at the table (its bots and
        timers wait for someone to come back), and a move already set for the same position and
        reason is left alone, so people coming and going never reset a turn timer."""
        game = table.game
        plan: tuple[tuple[int, int], str, float, str | None] | None = None
        marker = (table.game_no, len(game.events) if game is not None else 0)
        if game is not None and game.to_act is not None and (self.cluster is None
                                                             or self.cluster.holds(table.id)):
            here = self.present(table)
            stand_in = table.options.stand_in if table.options.on_timeout == "bot" else "keep"
            now = time.monotonic()
            if not here:
                plan = None
            elif table.bot_to_act() is not None:
                plan = (marker, "bot", self.bot_delay, None)
            elif game.to_act not in here:
                plan = (marker, "absent", max(self.bot_delay, self.limits.absent_grace), stand_in)
            elif table.options.timer is not None:
                ends = self.turn_ends.get(table.id)
                if ends is None or ends[0] != marker:
                    # with several processes, the deadline another process set for this turn holds
                    longest = table.options.timer * self.timer_scale
                    shared = (None if self.cluster is None
                              else self.cluster.turn_ends(table.id, marker, longest))
                    ends = self.turn_ends[table.id] = (
                        marker, now + longest if shared is None else shared)
                    if self.cluster is not None and shared is None:
                        self.cluster.share_turn(table.id, marker, ends[1])
                plan = (marker, "timer", max(0.0, ends[1] - now), stand_in)
        due = self.pending.get(table.id)
        if due is not None and plan is not None and (due.marker, due.why) == plan[:2]:
            return
        if due is not None:
            due.handle.cancel()
            del self.pending[table.id]
        self.deadlines.pop(table.id, None)
        if plan is None:
            return
        _, why, delay, kind = plan
        if why == "timer":
            self.deadlines[table.id] = time.monotonic() + delay
        handle = asyncio.get_running_loop().call_later(delay, self.automatic, table, marker, kind)
        self.pending[table.id] = Due(marker, why, handle)

    def reschedule(self, table: Table) -> None:
        """:meth:`schedule`, and tell the clients if a turn timer was set or stopped (a lease
        taken over or given up, with several processes)."""
        before = self.deadlines.get(table.id)
        self.schedule(table)
        if self.deadlines.get(table.id) != before:
            self.broadcast(table)

    def automatic(self, table: Table, marker: tuple[int, int], stand_in: str | None) -> None:
        """Play a bot's move, or for a person who timed out or is away (keep, or a stand-in bot)."""
        self.pending.pop(table.id, None)
        self.deadlines.pop(table.id, None)
        game = table.game
        if game is None or game.to_act is None or marker != (table.game_no, len(game.events)):
            return
        if table.stale:  # rebuilt first; the move is set again then
            self.rebuild_soon(table)
            return
        if table.saving:  # set again once the move being saved is in
            return
        if self.cluster is None and self.saver is not None and not self.saver.inside():
            # SQLite: in its turn at the table, its write off the loop (the position checked again)
            self.saver.later(table, lambda: self.automatic(table, marker, stand_in))
            return
        seat = game.to_act
        try:
            if stand_in is None:
                move, actor = table.bot_action(seat), "bot"
            elif stand_in == "keep":
                move, actor = table.default_action(seat), "timer"
            else:
                move, actor = table.bot_action(seat, stand_in), "timer"
            if self.cluster is not None:  # saved off the loop
                self.cluster.automatic(table, seat, move, actor)
                return
            table.act(seat, move, actor)
        except StoreConflict:  # another process moved first (a lease changed hands): read it again
            self.rebuild_soon(table)
            return
        except StoreUnavailable:
            log.warning("automatic move at table %s waits for the database", table.id)
            self.rebuild_soon(table)
            return
        except Exception:  # an automatic move must never take the server down
            log.exception("automatic move failed at table %s", table.id)
            return
        self.changed(table)
        self.release(table)

    def rebuild_soon(self, table: Table) -> None:
        """Rebuild a stale copy of a table (a move played but not saved) off the event loop, in
        the loader thread, then tell its clients; retried at its next use if that fails."""
        if self.loader is None or table.id in self.loading:
            return
        task = self.loading[table.id] = asyncio.ensure_future(self.rebuild(table))
        task.add_done_callback(lambda t: self.loading.pop(table.id, None) and None)
        task.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def rebuild(self, table: Table) -> None:
        """:meth:`rebuild_soon`, awaited."""
        assert self.loader is not None
        again = await asyncio.get_running_loop().run_in_executor(self.loader.executor, self.loader.rebuild,
                                                                 table)
        if again is not None and table.stale and self.lobby.tables.get(table.id) is table:
            table.become(again)
            if self.cluster is not None:
                self.just_loaded[table.id] = True
            self.changed(table)
