"""The web server's state, shared by its parts: the tables in memory, the connections watching
each, the automatic moves set, and the small questions every part asks (who is here, who holds
the creator's role, which table a connection plays). The parts build on it, each in its module:
:mod:`.telling` (what each client is sent), :mod:`.timers` (bots and turn timers),
:mod:`.seating` (connections taking and leaving seats), :mod:`.tidying` (idle connections and
expired tables), :mod:`.dispatch` (each client message) and :mod:`.app` (the connections
themselves, and the ASGI app)."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..registry import GAMES
from ..rules import OPTIONS, PRESETS, Preset
from . import protocol as P
from .advice import Advisor
from .botkinds import WebBots
from .connection import Connection
from .limits import Buckets, Limits
from .loading import Loader
from .seats import Guesses
from .store import TableStore
from .tables import Lobby, Table

__all__ = ["TableHub", "Due", "welcome"]


@dataclass
class Due:
    """The automatic move set for a table: for which position, why, and its timer handle."""

    marker: tuple[int, int]
    why: str  # "bot", "absent" or "timer"
    handle: asyncio.TimerHandle


class TableHub:
    """The tables, the connections watching each, and the automatic moves set for them."""

    def __init__(self, store: TableStore, *, bot_delay: float = 0.8, timer_scale: float = 1.0,
                 limits: Limits | None = None, bots: WebBots | None = None) -> None:
        self.store = store
        self.limits = limits or Limits()
        self.bots = bots or WebBots()
        self.lobby = Lobby(store, self.bots)
        self.bot_delay = bot_delay
        self.timer_scale = timer_scale  # tests shrink turn timers; 1.0 means real seconds
        self.watchers: dict[str, set[Connection]] = {}
        self.pending: dict[str, Due] = {}
        self.deadlines: dict[str, float] = {}
        self.turn_ends: dict[str, tuple[tuple[int, int], float]] = {}  # kept across reconnections
        self.per_client: dict[str, int] = {}
        self.open: set[Connection] = set()
        self.connections = 0
        self.created: dict[str, deque[float]] = {}
        self.origins = frozenset(o.rstrip("/").lower() for o in self.limits.origins)
        self.client_rate = Buckets(self.limits.rate_per_client, self.limits.burst_per_client)
        # tables are read and replayed off the event loop (not for an in-memory database, which
        # a second connection cannot see)
        self.loader = None if store.path == ":memory:" else Loader(store)
        # on PostgreSQL, this process's part among several (:mod:`.cluster`); started by the app
        self.cluster: Any = None
        # what handles messages and automatic moves with the store's calls off the event loop
        # (:mod:`.saving`): the cluster on PostgreSQL, a Saver on SQLite; set by the app
        self.saver: Any = None
        self.just_loaded: dict[str, bool] = {}
        self.loading: dict[str, asyncio.Future[None]] = {}
        self.welcome = P.encode(welcome(self.bots, self.limits))
        # hints and reviews from cached solutions, prepared off the loop
        self.advisor = Advisor(solves_per_client=self.limits.solves_per_client,
                               window=self.limits.table_window)
        self.guesses = Guesses()  # wrong recovery codes, by client and by table

    def sync(self, table: Table) -> None:
        """With several processes: bring the table up to what the database holds (their moves);
        a table read from the database for this very message is up to date already."""
        if self.cluster is not None and not self.just_loaded.pop(table.id, None):
            self.cluster.refresh(table)

    def seated(self, conn: Connection) -> tuple[Table, int]:
        """The table and seat this connection plays, or ProtocolError."""
        if conn.table is None or conn.seat is None:
            raise P.ProtocolError("you hold no seat: create, join or resume a table first", "not_seated")
        return conn.table, conn.seat

    def table(self, table_id: str) -> Table:
        """A table, loaded from the store on first use."""
        return self.lobby.get(table_id)

    def present(self, table: Table) -> set[int]:
        """The seats whose person is connected now (to this process or, on PostgreSQL, another)."""
        here = {c.seat for c in self.watchers.get(table.id, ()) if c.seat is not None}
        if self.cluster is not None:
            here |= self.cluster.present_elsewhere(table.id)
        return here

    def creator(self, table: Table, here: set[int] | None = None) -> int:
        """The seat that holds the creator's role (start, rematch): the creator's, or while the
        creator is away, the first seat whose person is here (``here``: :meth:`present`)."""
        here = self.present(table) if here is None else here
        return 0 if 0 in here or not here else min(here)

    def release(self, table: Table) -> None:
        """Let a table go from memory when nobody is at it and nothing is due; it is loaded again
        from the store when asked for (one Table object per table id, always)."""
        if (table.id not in self.watchers and table.id not in self.pending
                and self.lobby.tables.get(table.id) is table):
            del self.lobby.tables[table.id]
            self.turn_ends.pop(table.id, None)


def presets(chosen: Sequence[Preset]) -> list[dict[str, Any]]:
    """Presets as the welcome lists them."""
    return [{"name": p.name, "aliases": list(p.aliases), "description": p.description,
             "options": dict(p.options), "players": p.players} for p in chosen]


def welcome(bots: WebBots, limits: Limits) -> dict[str, Any]:
    """The first message to every client: the protocol version and what the lobby offers."""
    from ..solver.uses.advice import MAX_HINT_PLAYERS
    from .advice import solver_available

    return {
        "type": "welcome", "v": P.VERSION,
        "presets": presets(PRESETS),  # Chase the Ace's (as before there were other games)
        "options": [{"key": o.key, "values": list(o.values), "default": o.default, "meaning": o.meaning,
                     "minimum": o.minimum} for o in OPTIONS.values()],
        "bots": bots.kinds(),
        "games": list(P.GAMES),
        "game_bots": {game: bots.kinds(game) for game in P.GAMES},
        # each game's own presets, and whether its tables may allow hints (the solver's games)
        "game_presets": {game: presets(GAMES[game].presets) for game in P.GAMES},
        "game_hints": {game: GAMES[game].solver for game in P.GAMES},
        "limits": {"max_seats": P.MAX_SEATS, "max_name": P.MAX_NAME, "min_timer": P.MIN_TIMER,
                   "max_timer": P.MAX_TIMER, "max_message_bytes": P.MAX_MESSAGE_BYTES,
                   "rate_per_second": limits.rate, **limits.to_dict(),
                   # the most players of a Chase the Ace game the server reviews (0: no solver here)
                   "review_players": MAX_HINT_PLAYERS if solver_available() else 0},
    }
