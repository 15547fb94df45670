"""Telling clients: each client at a table is sent what its own seat may know, and only that."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from . import protocol as P
from .connection import Connection
from .hub import TableHub
from .tables import AnyGame, Table

__all__ = ["Telling"]

# observation keys sent once in the table's public part rather than in every seat's view
_IN_TABLE = frozenset({"history", "rules", "names"})


class Telling(TableHub):
    """Sending each client its seat's view of a table."""

    def broadcast(self, table: Table, only: Connection | None = None) -> None:
        """Send each client at the table (or ``only`` that one) what its own seat may know, and
        only that: the events it has not had yet (at most ``history_on_wire`` past ones when it
        has had none)."""
        conns = self.watchers.get(table.id) if only is None else {only}
        if not conns or table.saving or table.stale:  # told once the move is in, or the copy rebuilt
            return
        here = self.present(table)
        deadline = self.deadlines.get(table.id)
        if deadline is None and self.cluster is not None and table.game is not None and not table.game.over:
            timer = table.options.timer
            deadline = self.cluster.turn_ends(table.id, (table.game_no, len(table.game.events)),
                                              None if timer is None else timer * self.timer_scale)
        left = None if deadline is None else max(0, round((deadline - time.monotonic()) * 1000))
        # the table's public part (its JSON kept while it does not change), then who is connected
        # and the time left
        info = table.public_text(self.creator(table, here))
        head = (f'{{"type":"state","v":{P.VERSION},"table":{info[:-1]},"connected":{P.encode(sorted(here))},'
                f'"turn_ms_left":{P.encode(left)}}},')
        game = table.game
        total = len(game.events) if game is not None else 0
        views: dict[int | None, tuple[str, Sequence[Mapping[str, Any]]]] = {}
        texts: dict[tuple[int | None, int], str] = {}
        for conn in list(conns):
            seat = conn.seat
            if conn.game_no != table.game_no:
                conn.game_no, conn.sent = table.game_no, 0
            if conn.sent == 0:
                conn.sent = max(0, total - self.limits.history_on_wire)
            key = (seat, conn.sent)
            text = texts.get(key)
            if text is None:
                view = views.get(seat)
                if view is None:
                    view = views[seat] = _view(game, seat)
                body, history = view
                # the parts are JSON already: the table's facts are encoded once for every reader
                text = texts[key] = (f'{head}"you":{{"seat":{P.encode(seat)}}},"game":{body},'
                                     f'"events_from":{conn.sent},"events":{P.encode(history[conn.sent:])}}}')
            conn.send(text)
            conn.sent = total


def _view(game: AnyGame | None, seat: int | None) -> tuple[str, Sequence[Mapping[str, Any]]]:
    """A seat's observation as JSON (less what the table part already says) and its history."""
    if game is None:
        return "null", []
    obs = game.observation(seat)
    return P.encode({k: v for k, v in obs.items() if k not in _IN_TABLE}), obs["history"]
