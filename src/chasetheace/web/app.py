"""The web server: a Starlette app with one WebSocket endpoint, the page, and the table runner.

Every client message is validated by :mod:`.protocol`, applied to a :class:`~.tables.Table`
(the engine judges it, the store saves it), and then each client at the table gets a ``state``
message built from ``game.observation(its seat)`` alone; spectators get ``observation(None)``.
A state message carries only the events the client has not had (at most
``Limits.history_on_wire`` past ones when it (re)joins); the page keeps its own log.

Bots and turn timers run on the event loop, and only while a person is seated and connected at
the table; an absent person's turn is played for them at once (keep, or the stand-in bot). No
client message starts unbounded work: bot kinds come from a fixed list and the solved bot only
from solutions the operator loaded at start. Each connection has a bounded send queue, a
message size limit, a rate limit and an idle timeout; each client (IP address) a number of
connections and of new tables, a message rate over all its connections and an HTTP request rate;
each table a number of spectators (:class:`~.limits.Limits`). Only the host names the operator
allows are answered, and finished games' records and reviews are built once (:mod:`.guards`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import gc
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..rules import OPTIONS, PRESETS
from . import protocol as P
from .advice import Advisor, hint_request, record_endpoint, review_endpoint
from .botkinds import WebBots
from .databases import is_url, open_store
from .guards import LOCAL_HOSTS, Downloads, HostCheck, HttpRateLimit, not_found
from .limits import Buckets, Limits, client_key
from .lock import DatabaseLock
from .seats import Guesses
from .store import Store, StoreConflict, StoreUnavailable, TableStore
from .tables import _ID, AnyGame, Lobby, Table

__all__ = ["Server", "Connection", "create_app", "RATE", "BURST", "QUEUE"]

STATIC = Path(__file__).parent / "static"
RATE, BURST, QUEUE = Limits.rate, Limits.burst, Limits.queue  # the defaults (see Limits)
# observation keys sent once in the table's public part rather than in every seat's view
_IN_TABLE = frozenset({"history", "rules", "names"})
log = logging.getLogger("chasetheace.web")


class Connection:
    """One WebSocket client: the seat it holds (or spectates), what it was sent, its limits."""

    def __init__(self, ws: WebSocket, client: str = "unknown", limits: Limits | None = None) -> None:
        limits = limits or Limits()
        self.ws, self.client, self.limits = ws, client, limits
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(limits.queue)
        self.table: Table | None = None
        self.seat: int | None = None
        self.game_no = 0  # the game whose events this client has, up to ``sent``
        self.sent = 0
        self.tokens, self.stamp, self.strikes = limits.burst, time.monotonic(), 0
        self.closed = False
        self.abort = False  # too slow to take its messages: drop it without waiting
        self.close_code, self.close_reason = 1008, ""
        self.heard = time.monotonic()  # when the client last sent something
        # told at once when the send queue overflows: the server counts this client as gone
        self.on_overflow: Callable[[Connection], None] | None = None

    def send(self, text: str) -> None:
        """Queue a message; a client too slow to take its messages is disconnected."""
        if self.closed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.abort = True
            self.close()
            if self.on_overflow is not None:
                self.on_overflow(self)

    def close(self, code: int = 1008, reason: str = "") -> None:
        """Stop taking messages: what is queued is sent, then a close frame with ``code``."""
        if not self.closed:
            self.closed = True
            self.close_code, self.close_reason = code, reason
            try:
                self.queue.put_nowait(None)
            except asyncio.QueueFull:
                self.abort = True

    def allow(self) -> bool:
        """Take one token from the rate-limit bucket, if there is one."""
        now = time.monotonic()
        self.tokens = min(self.limits.burst, self.tokens + (now - self.stamp) * self.limits.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.strikes += 1
        return False

    async def writer(self) -> None:
        """Send queued messages in order; at the end, the close frame."""
        while True:
            text = await self.queue.get()
            if text is None:
                with contextlib.suppress(Exception):
                    await self.ws.close(self.close_code, self.close_reason)
                return
            await self.ws.send_text(text)


@dataclass
class _Due:
    """The automatic move set for a table: for which position, why, and its timer handle."""

    marker: tuple[int, int]
    why: str  # "bot", "absent" or "timer"
    handle: asyncio.TimerHandle


class Server:
    """The tables, the connections watching each, and the bots and timers that move them."""

    def __init__(self, store: TableStore, *, bot_delay: float = 0.8, timer_scale: float = 1.0,
                 limits: Limits | None = None, bots: WebBots | None = None) -> None:
        self.store = store
        self.limits = limits or Limits()
        self.bots = bots or WebBots()
        self.lobby = Lobby(store, self.bots)
        self.bot_delay = bot_delay
        self.timer_scale = timer_scale  # tests shrink turn timers; 1.0 means real seconds
        self.watchers: dict[str, set[Connection]] = {}
        self.pending: dict[str, _Due] = {}
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
        self.loader = None if store.path == ":memory:" else _Loader(store)
        # on PostgreSQL, this process's part among several (:mod:`.cluster`); started by the app
        self.cluster: Any = None
        self.just_loaded: dict[str, bool] = {}
        self.loading: dict[str, asyncio.Future[None]] = {}
        self.welcome = P.encode(_welcome(self.bots, self.limits))
        self.advisor = Advisor()  # hints and reviews from cached solutions, prepared off the loop
        self.guesses = Guesses()  # wrong recovery codes, by client and by table

    # --- one connection -------------------------------------------------------------------------

    def origin_allowed(self, origin: str | None, host: str | None) -> bool:
        """A browser's page may open the socket only from this server's origin or an allowed one."""
        if origin is None:
            return True  # not a browser: the check protects browsers, it is not authentication
        origin = origin.rstrip("/").lower()
        if "*" in self.origins or origin in self.origins:
            return True
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and bool(host) and parts.netloc == (host or "").lower()

    async def serve(self, ws: WebSocket) -> None:
        """Run one client's connection until it closes."""
        if not self.origin_allowed(ws.headers.get("origin"), ws.headers.get("host")):
            await ws.close(1008)  # before the handshake completes: the browser sees HTTP 403
            return
        client = client_key(ws.client.host if ws.client else None)
        await ws.accept()
        conn = Connection(ws, client, self.limits)
        writer = asyncio.create_task(conn.writer())
        limits = self.limits
        if (self.per_client.get(client, 0) >= limits.connections_per_client
                or self.connections >= limits.connections):
            which = ("from your address" if self.per_client.get(client, 0) >= limits.connections_per_client
                     else "on this server")
            conn.send(P.encode(P.error("too_many_connections", f"too many connections {which}: "
                                       "close another tab or try again later")))
            conn.close(1008, "too many connections")
            with contextlib.suppress(asyncio.CancelledError, TimeoutError, Exception):
                await asyncio.wait_for(writer, 5)
            return
        self.per_client[client] = self.per_client.get(client, 0) + 1
        self.connections += 1
        self.open.add(conn)
        task = asyncio.current_task()

        def overflowed(c: Connection) -> None:
            asyncio.get_running_loop().call_soon(self.overflowed, c, task)

        conn.on_overflow = overflowed
        conn.send(self.welcome)
        gone = False
        try:
            while not conn.closed:
                message = await ws.receive()
                conn.heard = time.monotonic()
                if message["type"] == "websocket.disconnect":
                    gone = True
                    break
                loading = self.receive(conn, message)
                if loading is not None:  # this connection waits for its table; the others go on
                    await loading
        except (WebSocketDisconnect, RuntimeError):
            gone = True
        except asyncio.CancelledError:
            if not conn.abort or task is None:  # the server is stopping: let it
                raise
            task.uncancel()  # cancelled by :meth:`overflowed`: this client is gone
            gone = True
        finally:
            conn.on_overflow = None
            self.connections -= 1
            self.open.discard(conn)
            left_count = self.per_client.get(client, 1) - 1
            if left_count > 0:
                self.per_client[client] = left_count
            else:
                self.per_client.pop(client, None)
            left = self.unbind(conn)
            if left is not None:
                self.release(left)
            if gone or conn.abort:
                conn.closed = True
                writer.cancel()
            else:
                conn.close()  # the queued replies go first, then the close frame
            with contextlib.suppress(asyncio.CancelledError, TimeoutError, Exception):
                await asyncio.wait_for(writer, 5)

    def overflowed(self, conn: Connection, task: asyncio.Task[Any] | None) -> None:
        """A client too slow to take its messages is gone at once: its seat counts as absent (its
        turn is played for it), and its connection ends without waiting for it to speak."""
        left = self.unbind(conn)
        if left is not None:
            self.release(left)
        if task is not None and conn.on_overflow is not None and not task.done():
            task.cancel()

    def receive(self, conn: Connection, message: Message) -> Awaitable[None] | None:
        """Handle one frame: limits, validation, then the change; errors answer only this client.
        A message about a table not in memory returns an awaitable: the table is read and replayed
        in the loader thread, then the message is handled."""
        refused = self.rate_refusal(conn)
        if refused is not None:
            if conn.strikes >= self.limits.strikes:
                conn.send(P.encode(P.error("rate_limited", "too many messages: disconnected")))
                conn.close(1008, "rate limited")
            else:
                conn.send(P.encode(P.error("rate_limited", refused)))
            return None
        data = message.get("text")
        if data is None:
            data = message.get("bytes") or b""
        try:
            msg = P.parse_message(data)
            at = isinstance(msg, (P.Join, P.Resume, P.Recover, P.Watch))
            wanted = getattr(msg, "table", None) if at else None
            if wanted is not None and self.loader is not None and wanted not in self.lobby.tables:
                return self._load_then_dispatch(conn, msg, wanted)
            self.dispatch(conn, msg)
        except P.ProtocolError as exc:
            conn.send(P.encode(P.error(exc.code, str(exc))))
        except (StoreUnavailable, StoreConflict) as exc:
            self.store_trouble(conn, exc)
        except Exception:  # a bug or a failing disk: say so, keep the connection, log the details
            log.exception("failed to handle a message")
            conn.send(P.encode(P.error("internal", "the server could not handle this message")))
        return None

    def rate_refusal(self, conn: Connection) -> str | None:
        """Why a message is refused for the rate (a strike for its connection), or None: each
        connection has its bucket, and each client address one over all its connections."""
        if not conn.allow():
            return f"too many messages: at most {self.limits.rate:g} a second; this one was ignored"
        if self.client_rate.take(conn.client):
            conn.strikes += 1
            return (f"too many messages from your address: at most {self.limits.rate_per_client:g} a "
                    "second over all its connections; this one was ignored")
        return None

    async def _load_then_dispatch(self, conn: Connection, msg: P.ClientMessage, table_id: str) -> None:
        try:
            await self.load(table_id)
            if not conn.closed:
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
        share its load). A table not found is left for :meth:`table` to refuse."""
        task = self.loading.get(table_id)
        if task is None:
            task = self.loading[table_id] = asyncio.ensure_future(self._load(table_id))
            task.add_done_callback(lambda _: self.loading.pop(table_id, None))
        await asyncio.shield(task)

    def store_trouble(self, conn: Connection, exc: Exception) -> None:
        """The database could not take a change: it was unreachable, or (several processes) another
        process changed the table first; nothing was saved, and this client is told."""
        if isinstance(exc, StoreUnavailable):
            conn.send(P.encode(P.error("database_unavailable", "the game's database is unreachable: "
                                       "nothing was saved; try again in a moment")))
            return
        if conn.table is not None and self.cluster is not None:
            self.cluster.refresh(conn.table)
        conn.send(P.encode(P.error("conflict", "the table changed meanwhile: look again and try again")))

    def sync(self, table: Table) -> None:
        """With several processes: bring the table up to what the database holds (their moves);
        a table read from the database for this very message is up to date already."""
        if self.cluster is not None and not self.just_loaded.pop(table.id, None):
            self.cluster.refresh(table)

    async def _load(self, table_id: str) -> None:
        assert self.loader is not None
        loop = asyncio.get_running_loop()
        table = await loop.run_in_executor(self.loader.executor, self.loader.restore, table_id,
                                           self.store, self.bots)
        if table is not None and table_id not in self.lobby.tables:
            self.lobby.tables[table_id] = table
            if self.cluster is not None:
                self.just_loaded[table_id] = True

    def dispatch(self, conn: Connection, msg: P.ClientMessage) -> None:
        """Apply one valid message."""
        if isinstance(msg, P.Ping):
            conn.send(P.encode({"type": "pong", "v": P.VERSION}))
        elif isinstance(msg, P.ListTables):
            conn.send(P.encode({"type": "tables", "v": P.VERSION, "tables": self.open_tables()}))
        elif isinstance(msg, P.Create):
            self.check_quota(conn.client)
            table, seat, token = self.lobby.create(msg)
            self.created.setdefault(conn.client, deque()).append(time.monotonic())
            if table.options.hints:
                self.advisor.prepare(table.options.rules, table.options.seats)
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
                self.sync(table)
                self.retried(table, lambda: table.start(seat, self.creator(table)))
            elif isinstance(msg, P.Replace):
                table.replace(msg.seat, seat, self.creator(table), self.present(table))
            else:
                self.retried(table, lambda: table.rematch(seat, self.creator(table)))
            self.changed(table)

    def player_act(self, conn: Connection, table: Table, seat: int, msg: P.Act) -> bool:
        """A person's move; False if it was applied already (an act sent again with the same
        ``act_id``, to this process or another): then only this client is sent the state. With
        several processes, a move refused because this copy of the table is behind is tried again
        once the copy has caught up (the notification of the move before it may be on its way)."""
        try:
            self.retried(table, lambda: self.human_act(table, seat, msg.move, msg.act_id))
        except (P.ProtocolError, StoreConflict) as exc:
            if msg.act_id is not None and self.store.applied(table.id, msg.act_id):
                self.sync(table)
                self.broadcast(table, only=conn)
                return False
            if (self.cluster is None or not isinstance(exc, P.ProtocolError)
                    or exc.code not in ("out_of_turn", "not_now") or not self.cluster.refresh(table)):
                raise
            self.retried(table, lambda: self.human_act(table, seat, msg.move, msg.act_id))
        return True

    def retried(self, table: Table, change: Callable[[], Any]) -> Any:
        """Make a change; with several processes, if another process changed the table first
        (a conflict), read the table again and try once more (the change may no longer apply:
        then the engine says why)."""
        try:
            return change()
        except StoreConflict:
            if self.cluster is None:
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
        if table.game is not None and table.game.to_act is not None and table.game.to_act != seat:
            raise P.ProtocolError(f"it is not your turn: seat {table.game.to_act} is to act", "out_of_turn")
        table.act(seat, action, act_id=act_id)

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

    def creator(self, table: Table) -> int:
        """The seat that holds the creator's role (start, rematch): the creator's, or while the
        creator is away, the first seat whose person is here."""
        here = self.present(table)
        return 0 if 0 in here or not here else min(here)

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
                self.cluster.seated(table.id, seat, True)
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

    def replace_seat(self, table: Table, seat: int) -> None:
        """A person took their seat on another server process: a connection of theirs here loses it."""
        for other in list(self.watchers.get(table.id, ())):
            if other.seat == seat:
                other.send(P.encode(P.error("replaced", "this seat was resumed by another connection")))
                self.unbind(other)

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

    def release(self, table: Table) -> None:
        """Let a table go from memory when nobody is at it and nothing is due; it is loaded again
        from the store when asked for (one Table object per table id, always)."""
        if (table.id not in self.watchers and table.id not in self.pending
                and self.lobby.tables.get(table.id) is table):
            del self.lobby.tables[table.id]
            self.turn_ends.pop(table.id, None)

    # --- telling clients ------------------------------------------------------------------------

    def changed(self, table: Table) -> None:
        """After any change: set the next bot move or turn timer, then tell every client."""
        self.schedule(table)
        self.broadcast(table)

    def broadcast(self, table: Table, only: Connection | None = None) -> None:
        """Send each client at the table (or ``only`` that one) what its own seat may know, and
        only that: the events it has not had yet (at most ``history_on_wire`` past ones when it
        has had none)."""
        conns = self.watchers.get(table.id) if only is None else {only}
        if not conns:
            return
        info = table.public(self.creator(table))
        info["connected"] = sorted(self.present(table))
        deadline = self.deadlines.get(table.id)
        if deadline is None and self.cluster is not None and table.game is not None and not table.game.over:
            deadline = self.cluster.turn_ends(table.id, (table.game_no, len(table.game.events)))
        info["turn_ms_left"] = (None if deadline is None
                                else max(0, round((deadline - time.monotonic()) * 1000)))
        head = f'{{"type":"state","v":{P.VERSION},"table":{P.encode(info)},'
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

    # --- bots and timers ------------------------------------------------------------------------

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
                    shared = None if self.cluster is None else self.cluster.turn_ends(table.id, marker)
                    ends = self.turn_ends[table.id] = (
                        marker, now + table.options.timer * self.timer_scale if shared is None else shared)
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
        self.pending[table.id] = _Due(marker, why, handle)

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
        seat = game.to_act
        try:
            if stand_in is None:
                table.act(seat, table.bot_action(seat), "bot")
            elif stand_in == "keep":
                table.act(seat, table.default_action(seat), "timer")
            else:
                table.act(seat, table.bot_action(seat, stand_in), "timer")
        except StoreConflict:  # another process moved first (a lease changed hands): read it again
            self.sync(table)
            return
        except StoreUnavailable:
            log.warning("automatic move at table %s waits for the database", table.id)
            return
        except Exception:  # an automatic move must never take the server down
            log.exception("automatic move failed at table %s", table.id)
            return
        self.changed(table)
        self.release(table)

    # --- tidying up -----------------------------------------------------------------------------

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
        """Delete tables nobody is at that had no move for ``table_ttl`` seconds; their ids."""
        cutoff = (time.time() if now is None else now) - self.limits.table_ttl
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


class _Loader:
    """One worker thread with its own read-only connection to the database: it reads a table's
    log and replays its game, so a long game never stalls the event loop (the replay is pure
    Python, but the loop gets the interpreter back every few milliseconds)."""

    def __init__(self, store: TableStore) -> None:
        self.source = store
        self.executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="cta-loader")
        self._store: TableStore | None = None

    def restore(self, table_id: str, store: TableStore, bots: WebBots) -> Table | None:
        """In the worker thread: the table rebuilt from its log (bound to the server's ``store``
        for its writes), or None if there is no such table."""
        if not _ID.fullmatch(table_id):
            return None
        if self._store is None:
            self._store = self.source.reader()
        saved = self._store.load_table(table_id)
        return None if saved is None else Table.restore(saved, store, bots)

    def close(self) -> None:
        """Stop the thread and close its connection."""
        def shut() -> None:
            if isinstance(self._store, Store):
                self._store.db.close()
            self._store = None
        with contextlib.suppress(RuntimeError):
            self.executor.submit(shut).result(10)
        self.executor.shutdown(wait=True)


def _view(game: AnyGame | None, seat: int | None) -> tuple[str, Sequence[Mapping[str, Any]]]:
    """A seat's observation as JSON (less what the table part already says) and its history."""
    if game is None:
        return "null", []
    obs = game.observation(seat)
    return P.encode({k: v for k, v in obs.items() if k not in _IN_TABLE}), obs["history"]


def _welcome(bots: WebBots, limits: Limits) -> dict[str, Any]:
    """The first message to every client: the protocol version and what the lobby offers."""
    from ..solver.uses.advice import MAX_HINT_PLAYERS
    from .advice import solver_available

    return {
        "type": "welcome", "v": P.VERSION,
        "presets": [{"name": p.name, "aliases": list(p.aliases), "description": p.description,
                     "options": dict(p.options), "players": p.players} for p in PRESETS],
        "options": [{"key": o.key, "values": list(o.values), "default": o.default, "meaning": o.meaning,
                     "minimum": o.minimum} for o in OPTIONS.values()],
        "bots": bots.kinds(),
        "games": list(P.GAMES),
        "game_bots": {game: bots.kinds(game) for game in P.GAMES},
        "limits": {"max_seats": P.MAX_SEATS, "max_name": P.MAX_NAME, "min_timer": P.MIN_TIMER,
                   "max_timer": P.MAX_TIMER, "max_message_bytes": P.MAX_MESSAGE_BYTES,
                   "rate_per_second": limits.rate, **limits.to_dict(),
                   # the most players of a Chase the Ace game the server reviews (0: no solver here)
                   "review_players": MAX_HINT_PLAYERS if solver_available() else 0},
    }


async def _housekeeping(server: Server, manage_gc: bool, every: float = 2.0, full_gc: float = 600.0,
                        expire_every: float = 60.0) -> None:
    """Now and then: delete expired tables (every ``expire_every`` seconds, a batch at a time);
    checkpoint the WAL in a worker thread, so no commit on the loop waits on fsync;
    and freeze the objects that survived so far, so the collector's full passes (which stopped
    the loop for up to half a second with 1,000 players) scan only new objects. Objects freed by
    reference counting still go at once; cyclic garbage among frozen objects waits for the full
    collection every ``full_gc`` seconds. (The collector is the process's: only a server that owns
    its process, as ``serve`` does, should ``manage_gc``.)"""
    store = server.store
    last_full = last_expiry = time.monotonic()
    while True:
        await asyncio.sleep(min(every, server.limits.idle_seconds or every))
        server.close_idle()
        if time.monotonic() - last_expiry >= expire_every:
            last_expiry = time.monotonic()
            try:
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


_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; connect-src 'self'; img-src 'self' data:; "
                                 b"frame-ancestors 'none'; base-uri 'none'; form-action 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class _SecurityHeaders:
    """Add a strict content security policy and friends to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + _HEADERS
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(db: str = "chase-the-ace.sqlite3", *, bot_delay: float = 0.8,
               timer_scale: float = 1.0, manage_gc: bool = False, limits: Limits | None = None,
               bots: WebBots | None = None, lock: bool = True,
               hosts: Sequence[str] = LOCAL_HOSTS, cluster: Mapping[str, float] | None = None) -> Starlette:
    """The ASGI app: the page at ``/`` and ``/t/{table}``, the socket at ``/ws``, ``/healthz``.

    The running :class:`Server` is ``app.state.server``. ``manage_gc`` lets the server freeze the
    garbage collector's survivors now and then (for a process of its own, as ``serve`` runs it).
    ``lock`` takes the database's lock at start (:class:`~.lock.DatabaseLock`): a second server on
    the same database fails to start (``serve`` takes the lock itself, before it listens).
    ``hosts`` are the host names it answers to (:class:`~.guards.HostCheck`; ``*``: any).
    ``db`` may be a ``postgresql://`` URL: then any number of processes share it (no lock), and
    ``cluster`` may set the lease's ``lease`` and ``beat`` seconds (:class:`~.cluster.Cluster`).
    """
    cluster = dict(cluster or {})
    holder: dict[str, Server] = {}
    downloads = Downloads()  # finished games' records and reviews, built once

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        held = DatabaseLock(":memory:" if is_url(db) else db)  # many processes share PostgreSQL
        if lock:
            held.acquire()
        store = open_store(db)
        app.state.server = holder["server"] = Server(store, bot_delay=bot_delay, timer_scale=timer_scale,
                                                     limits=limits, bots=bots)
        app.state.loop = asyncio.get_running_loop()
        if store.shared:
            from .cluster import Cluster
            from .pgstore import PgStore

            assert isinstance(store, PgStore)
            app.state.server.cluster = Cluster(app.state.server, store, **cluster)
            app.state.server.cluster.start()
        checkpoints = asyncio.create_task(_housekeeping(holder["server"], manage_gc))
        try:
            yield
        finally:
            app.state.server.advisor.close()
            downloads.close()
            checkpoints.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await checkpoints
            if app.state.server.cluster is not None:
                await app.state.server.cluster.stop()
            if holder["server"].loader is not None:
                holder["server"].loader.close()
            store.close()
            held.release()

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-cache"})

    async def health(request: Request) -> Response:
        server = holder["server"]
        return JSONResponse({"ok": True, "version": P.VERSION, "tables_loaded": len(server.lobby.tables),
                             "leases": None if server.cluster is None else len(server.cluster.held),
                             "cluster": None if server.cluster is None else server.cluster.counts,
                             "database": server.cluster is None or server.cluster.up,
                             "tables_watched": len(server.watchers),
                             "connections": server.connections})

    async def socket(ws: WebSocket) -> None:
        await holder["server"].serve(ws)

    async def review_page(request: Request) -> Response:
        return FileResponse(STATIC / "review.html", headers={"cache-control": "no-cache"})

    async def review_data(request: Request) -> Response:
        done = await downloads.get("review", holder["server"], request.path_params["table"],
                                   request.path_params["game"], review_endpoint)
        return done.response(request)

    async def record_data(request: Request) -> Response:
        done = await downloads.get("record", holder["server"], request.path_params["table"],
                                   request.path_params["game"], record_endpoint)
        return done.response(request)

    app = Starlette(routes=[
        Route("/", page), Route("/t/{table}", page), Route("/healthz", health),
        Route("/t/{table}/review/{game}", review_page), Route("/api/review/{table}/{game}", review_data),
        Route("/api/record/{table}/{game}", record_data),
        WebSocketRoute("/ws", socket), Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ], lifespan=lifespan)
    app.state.downloads = downloads
    app.add_exception_handler(404, not_found)
    app.add_middleware(HttpRateLimit, limits=limits)  # the innermost of these three
    app.add_middleware(HostCheck, hosts=hosts)
    app.add_middleware(_SecurityHeaders)
    return app
