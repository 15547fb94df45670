"""The web server: a Starlette app with one WebSocket endpoint, the page, and the table runner.

Every client message is validated by :mod:`.protocol`, applied to a :class:`~.tables.Table`
(the engine judges it, the store saves it), and then each client at the table gets a ``state``
message built from ``game.observation(its seat)`` alone; spectators get ``observation(None)``.
Bots and turn timers run on the event loop. Each connection has a bounded send queue, a message
size limit and a rate limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..game import Game
from ..registry import bot_kinds
from ..rules import OPTIONS, PRESETS
from . import protocol as P
from .advice import Advisor, hint_request, record_endpoint, review_endpoint
from .store import Store
from .tables import Lobby, Table

__all__ = ["Server", "Connection", "create_app", "RATE", "BURST", "QUEUE"]

STATIC = Path(__file__).parent / "static"
RATE, BURST = 10.0, 30.0  # messages per second per connection, and the burst allowed
MAX_STRIKES = 50  # refused-for-rate messages before the connection is closed
QUEUE = 512  # server messages waiting for a slow client before it is dropped
# observation keys sent once in the table's public part rather than in every seat's view
_IN_TABLE = frozenset({"history", "rules", "names"})
log = logging.getLogger("chasetheace.web")


class Connection:
    """One WebSocket client: the seat it holds (or spectates), what it was sent, its limits."""

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE)
        self.table: Table | None = None
        self.seat: int | None = None
        self.game_no = 0  # the game whose events this client has, up to ``sent``
        self.sent = 0
        self.tokens, self.stamp, self.strikes = BURST, time.monotonic(), 0
        self.closed = False

    def send(self, text: str) -> None:
        """Queue a message; a client too slow to take its messages is disconnected."""
        if self.closed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.close()

    def close(self) -> None:
        """Stop sending and end the connection."""
        if not self.closed:
            self.closed = True
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.put_nowait(None)

    def allow(self) -> bool:
        """Take one token from the rate-limit bucket, if there is one."""
        now = time.monotonic()
        self.tokens = min(BURST, self.tokens + (now - self.stamp) * RATE)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.strikes += 1
        return False

    async def writer(self) -> None:
        """Send queued messages in order until closed."""
        while True:
            text = await self.queue.get()
            if text is None:
                with contextlib.suppress(Exception):
                    await self.ws.close(1008)
                return
            await self.ws.send_text(text)


class Server:
    """The tables, the connections watching each, and the bots and timers that move them."""

    def __init__(self, store: Store, *, bot_delay: float = 0.8, timer_scale: float = 1.0) -> None:
        self.store = store
        self.lobby = Lobby(store)
        self.bot_delay = bot_delay
        self.timer_scale = timer_scale  # tests shrink turn timers; 1.0 means real seconds
        self.watchers: dict[str, set[Connection]] = {}
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.deadlines: dict[str, float] = {}
        self.welcome = P.encode(_welcome())
        self.advisor = Advisor()  # hints and reviews from cached solutions, prepared off the loop

    # --- one connection -------------------------------------------------------------------------

    async def serve(self, ws: WebSocket) -> None:
        """Run one client's connection until it closes."""
        await ws.accept()
        conn = Connection(ws)
        writer = asyncio.create_task(conn.writer())
        conn.send(self.welcome)
        try:
            while not conn.closed:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                self.receive(conn, message)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            left = self.unbind(conn)
            if left is not None:
                self.release(left)
            conn.close()
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer

    def receive(self, conn: Connection, message: Message) -> None:
        """Handle one frame: limits, validation, then the change; errors answer only this client."""
        if not conn.allow():
            if conn.strikes >= MAX_STRIKES:
                conn.send(P.encode(P.error("rate_limited", "too many messages: disconnected")))
                conn.close()
            else:
                conn.send(P.encode(P.error(
                    "rate_limited", f"too many messages: at most {RATE:g} a second; this one was ignored")))
            return
        data = message.get("text")
        if data is None:
            data = message.get("bytes") or b""
        try:
            self.dispatch(conn, P.parse_message(data))
        except P.ProtocolError as exc:
            conn.send(P.encode(P.error(exc.code, str(exc))))
        except Exception:  # a bug or a failing disk: say so, keep the connection, log the details
            log.exception("failed to handle a message")
            conn.send(P.encode(P.error("internal", "the server could not handle this message")))

    def dispatch(self, conn: Connection, msg: P.ClientMessage) -> None:
        """Apply one valid message."""
        if isinstance(msg, P.Ping):
            conn.send(P.encode({"type": "pong", "v": P.VERSION}))
        elif isinstance(msg, P.Create):
            table, seat, token = self.lobby.create(msg)
            if table.options.hints:
                self.advisor.prepare(table.options.rules, table.options.seats)
            self.bind(conn, table, seat, token)
        elif isinstance(msg, P.Join):
            table = self.table(msg.table)
            seat, token = table.join(msg.name)
            self.bind(conn, table, seat, token)
        elif isinstance(msg, P.Resume):
            table = self.table(msg.table)
            self.bind(conn, table, table.seat_of(msg.token))
        elif isinstance(msg, P.Watch):
            self.bind(conn, self.table(msg.table), None)
        else:
            table, seat = self.seated(conn)
            if isinstance(msg, P.HintRequest):
                hint_request(self, conn, table, seat)  # answers this client only, changes nothing
                return
            if isinstance(msg, P.Act):
                self.human_act(table, seat, msg.action)
            elif isinstance(msg, P.Start):
                table.start(seat)
            else:
                table.rematch(seat)
            self.changed(table)

    def human_act(self, table: Table, seat: int, action: str) -> None:
        """A person's decision: checked against the engine, which names what was wrong."""
        if table.game is not None and table.game.to_act is not None and table.game.to_act != seat:
            raise P.ProtocolError(f"it is not your turn: seat {table.game.to_act} is to act", "out_of_turn")
        table.act(seat, action)

    def seated(self, conn: Connection) -> tuple[Table, int]:
        """The table and seat this connection plays, or ProtocolError."""
        if conn.table is None or conn.seat is None:
            raise P.ProtocolError("you hold no seat: create, join or resume a table first", "not_seated")
        return conn.table, conn.seat

    def table(self, table_id: str) -> Table:
        """A table, loaded from the store on first use (and its bots or timer set going)."""
        fresh = table_id not in self.lobby.tables
        table = self.lobby.get(table_id)
        if fresh:
            self.schedule(table)
        return table

    def bind(self, conn: Connection, table: Table, seat: int | None, token: str | None = None) -> None:
        """Attach a connection to a seat (or as a spectator) and send it the whole state."""
        left = self.unbind(conn)
        if seat is not None:
            for other in list(self.watchers.get(table.id, ())):
                if other.seat == seat:
                    other.send(P.encode(P.error("replaced", "this seat was resumed by another connection")))
                    self.unbind(other)
        conn.table, conn.seat, conn.game_no, conn.sent = table, seat, 0, 0
        self.watchers.setdefault(table.id, set()).add(conn)
        joined: dict[str, Any] = {"type": "joined", "v": P.VERSION, "table": table.id, "seat": seat,
                                  "role": "spectator" if seat is None else "player"}
        if token is not None:
            joined["token"] = token
        conn.send(P.encode(joined))
        self.broadcast(table)
        if left is not None and left is not table:
            self.release(left)

    def unbind(self, conn: Connection) -> Table | None:
        """Detach a connection from its table; returns the table it left."""
        table = conn.table
        if table is None:
            return None
        conn.table = conn.seat = None
        watchers = self.watchers.get(table.id)
        if watchers is not None:
            watchers.discard(conn)
            if not watchers:
                del self.watchers[table.id]
        self.broadcast(table)
        return table

    def release(self, table: Table) -> None:
        """Let a table go from memory when nobody is at it and nothing is due; it is loaded again
        from the store when asked for (one Table object per table id, always)."""
        if (table.id not in self.watchers and table.id not in self.pending
                and self.lobby.tables.get(table.id) is table):
            del self.lobby.tables[table.id]

    # --- telling clients ------------------------------------------------------------------------

    def changed(self, table: Table) -> None:
        """After any change: tell every client, then set the next bot move or turn timer."""
        self.schedule(table)
        self.broadcast(table)

    def broadcast(self, table: Table) -> None:
        """Send each client at the table what its own seat may know, and only that."""
        conns = self.watchers.get(table.id)
        if not conns:
            return
        info = table.public()
        connected = sorted({c.seat for c in conns if c.seat is not None})
        info["connected"] = connected
        deadline = self.deadlines.get(table.id)
        info["turn_ms_left"] = (None if deadline is None
                                else max(0, round((deadline - time.monotonic()) * 1000)))
        head = f'{{"type":"state","v":{P.VERSION},"table":{P.encode(info)},'
        game = table.game
        views: dict[int | None, tuple[str, Sequence[Mapping[str, Any]]]] = {}
        texts: dict[tuple[int | None, int], str] = {}
        for conn in conns:
            seat = conn.seat
            if conn.game_no != table.game_no:
                conn.game_no, conn.sent = table.game_no, 0
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
            conn.sent = len(game.events) if game is not None else 0

    # --- bots and timers ------------------------------------------------------------------------

    def schedule(self, table: Table) -> None:
        """Arrange the next automatic move: a bot's, or the timer of a person's turn."""
        handle = self.pending.pop(table.id, None)
        if handle is not None:
            handle.cancel()
        self.deadlines.pop(table.id, None)
        game = table.game
        if game is None or game.to_act is None:
            return
        loop = asyncio.get_running_loop()
        marker = (table.game_no, len(game.events))
        if table.bot_to_act() is not None:
            self.pending[table.id] = loop.call_later(self.bot_delay, self.automatic, table, marker, None)
        elif table.options.timer is not None:
            kind = table.options.stand_in if table.options.on_timeout == "bot" else "keep"
            delay = table.options.timer * self.timer_scale
            self.deadlines[table.id] = time.monotonic() + delay
            self.pending[table.id] = loop.call_later(delay, self.automatic, table, marker, kind)

    def automatic(self, table: Table, marker: tuple[int, int], stand_in: str | None) -> None:
        """Play a bot's move, or a timed-out person's (keep, or a stand-in bot's choice)."""
        self.pending.pop(table.id, None)
        game = table.game
        if game is None or game.to_act is None or marker != (table.game_no, len(game.events)):
            return
        seat = game.to_act
        try:
            if stand_in is None:
                table.act(seat, table.bot_action(seat), "bot")
            elif stand_in == "keep":
                table.act(seat, "keep", "timer")
            else:
                table.act(seat, table.bot_action(seat, stand_in), "timer")
        except Exception:  # an automatic move must never take the server down
            log.exception("automatic move failed at table %s", table.id)
            return
        self.changed(table)
        self.release(table)


def _view(game: Game | None, seat: int | None) -> tuple[str, Sequence[Mapping[str, Any]]]:
    """A seat's observation as JSON (less what the table part already says) and its history."""
    if game is None:
        return "null", []
    obs = game.observation(seat)
    return P.encode({k: v for k, v in obs.items() if k not in _IN_TABLE}), obs["history"]


def _welcome() -> dict[str, Any]:
    """The first message to every client: the protocol version and what the lobby offers."""
    return {
        "type": "welcome", "v": P.VERSION,
        "presets": [{"name": p.name, "aliases": list(p.aliases), "description": p.description,
                     "options": dict(p.options), "players": p.players} for p in PRESETS],
        "options": [{"key": o.key, "values": list(o.values), "default": o.default, "meaning": o.meaning,
                     "minimum": o.minimum} for o in OPTIONS.values()],
        "bots": bot_kinds(),
        "limits": {"max_seats": P.MAX_SEATS, "max_name": P.MAX_NAME, "min_timer": P.MIN_TIMER,
                   "max_timer": P.MAX_TIMER, "max_message_bytes": P.MAX_MESSAGE_BYTES,
                   "rate_per_second": RATE},
    }


async def _housekeeping(store: Store, manage_gc: bool, every: float = 2.0, full_gc: float = 600.0) -> None:
    """Now and then: checkpoint the WAL in a worker thread, so no commit on the loop waits on fsync;
    and freeze the objects that survived so far, so the collector's full passes (which stopped
    the loop for up to half a second with 1,000 players) scan only new objects. Objects freed by
    reference counting still go at once; cyclic garbage among frozen objects waits for the full
    collection every ``full_gc`` seconds. (The collector is the process's: only a server that owns
    its process, as ``serve`` does, should ``manage_gc``.)"""
    last_full = time.monotonic()
    while True:
        await asyncio.sleep(every)
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
               timer_scale: float = 1.0, manage_gc: bool = False) -> Starlette:
    """The ASGI app: the page at ``/`` and ``/t/{table}``, the socket at ``/ws``, ``/healthz``.

    The running :class:`Server` is ``app.state.server``. ``manage_gc`` lets the server freeze the
    garbage collector's survivors now and then (for a process of its own, as ``serve`` runs it).
    """
    holder: dict[str, Server] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = Store(db)
        app.state.server = holder["server"] = Server(store, bot_delay=bot_delay, timer_scale=timer_scale)
        checkpoints = asyncio.create_task(_housekeeping(store, manage_gc))
        try:
            yield
        finally:
            app.state.server.advisor.close()
            checkpoints.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await checkpoints
            store.close()

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-cache"})

    async def health(request: Request) -> Response:
        server = holder["server"]
        return JSONResponse({"ok": True, "version": P.VERSION, "tables_loaded": len(server.lobby.tables),
                             "tables_watched": len(server.watchers),
                             "connections": sum(len(w) for w in server.watchers.values())})

    async def socket(ws: WebSocket) -> None:
        await holder["server"].serve(ws)

    async def review_page(request: Request) -> Response:
        return FileResponse(STATIC / "review.html", headers={"cache-control": "no-cache"})

    async def review_data(request: Request) -> Response:
        status, data = await review_endpoint(holder["server"], request.path_params["table"],
                                             request.path_params["game"])
        return JSONResponse(data, status_code=status)

    async def record_data(request: Request) -> Response:
        status, data = await record_endpoint(holder["server"], request.path_params["table"],
                                             request.path_params["game"])
        return JSONResponse(data, status_code=status)

    app = Starlette(routes=[
        Route("/", page), Route("/t/{table}", page), Route("/healthz", health),
        Route("/t/{table}/review/{game}", review_page), Route("/api/review/{table}/{game}", review_data),
        Route("/api/record/{table}/{game}", record_data),
        WebSocketRoute("/ws", socket), Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ], lifespan=lifespan)
    app.add_middleware(_SecurityHeaders)
    return app
