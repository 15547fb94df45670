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

:class:`Server` is built by job, each part in its module on the one below (:mod:`.hub`: the state
and the small questions; :mod:`.telling`: what each client is sent; :mod:`.timers`: bots and turn
timers; :mod:`.seating`: seats taken and left; :mod:`.dispatch`: each client message;
:mod:`.tidying`: idle connections and expired tables); this module holds the connections
themselves (:meth:`Server.serve`) and the ASGI app.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from . import movetrace
from . import protocol as P
from .advice import SOLVES_FOR, record_endpoint, review_endpoint
from .botkinds import WebBots
from .connection import Connection
from .databases import is_url, open_store
from .dispatch import Dispatch
from .guards import LOCAL_HOSTS, Downloads, HostCheck, HttpRateLimit, not_found
from .limits import Limits, client_key
from .lock import DatabaseLock
from .names import skeleton
from .saving import Saver
from .store import Store, StoreConflict, StoreUnavailable
from .tidying import Tidying, housekeeping

__all__ = ["Server", "Connection", "create_app", "RATE", "BURST", "QUEUE"]

STATIC = Path(__file__).parent / "static"
RATE, BURST, QUEUE = Limits.rate, Limits.burst, Limits.queue  # the defaults (see Limits)
log = logging.getLogger("chasetheace.web")
# messages answered whatever state the client's table is in (never held up by its database)
_NOT_ABOUT_A_TABLE = (P.Ping, P.ListTables, P.Create)


class Server(Dispatch, Tidying):
    """The tables, the connections watching each, and the bots and timers that move them."""

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
            conn.send(P.encode(P.error("too_many_connections", self.full_message(client))))
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

    def full_message(self, client: str) -> str:
        """What a person whose connection is refused reads: what happened and what to do."""
        limits = self.limits
        if self.per_client.get(client, 0) >= limits.connections_per_client:
            n = limits.connections_per_client
            return (f"This game server already has {n} page{'s' if n != 1 else ''} open from your "
                    "internet address, the most it takes from one address. Everyone on the same home, "
                    "school or office network shares that address, so the pages may be open on other "
                    "phones or computers there. Close a game page nobody is using (on any device on "
                    "your network) and this page will connect by itself.")
        return (f"This game server is full: {limits.connections} pages are open, the most it takes. "
                "This page will connect by itself when someone leaves; or come back later.")

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
            if isinstance(msg, P.Act):
                movetrace.stamp(msg.act_id, "r", conn.heard)  # (off unless traced: benchmarks)
            at = isinstance(msg, (P.Join, P.Resume, P.Recover, P.Watch))
            wanted = getattr(msg, "table", None) if at else None
            if wanted is not None and self.loader is not None and wanted not in self.lobby.tables:
                return self._load_then_dispatch(conn, msg, wanted)
            target = (None if isinstance(msg, _NOT_ABOUT_A_TABLE) else
                      conn.table if wanted is None else self.lobby.tables.get(wanted))
            if target is not None and target.stale:
                if self.loader is not None:
                    return self._load_then_dispatch(conn, msg, target.id)  # rebuilt off the loop first
                target._reload()  # an in-memory database (tests): no loader thread can read it
            if self.cluster is not None and target is not None:  # on PostgreSQL: moves saved off the loop
                later = self.cluster.receive(conn, msg)
                if later is not None:
                    return cast(Awaitable[None], later)
            if isinstance(msg, P.Ping) and self.cluster is None and self.saver is not None:
                later = self.saver.ping(conn, functools.partial(self.dispatch, conn, msg))
                if later is not None:
                    return cast(Awaitable[None], later)
            if self.saver is not None and not isinstance(msg, P.Ping):
                return cast(Awaitable[None], self.saver.dispatch(conn, msg))  # database calls off the loop
            self.dispatch(conn, msg)
        except P.ProtocolError as exc:
            conn.send(P.encode(P.error(exc.code, str(exc))))
        except StoreConflict as exc:
            table = conn.table
            if table is not None and table.stale and self.loader is not None:
                return self._load_then_dispatch(conn, msg, table.id)  # another process moved first
            self.store_trouble(conn, exc)
        except StoreUnavailable as exc:
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


def writer(store: object) -> dict[str, Any] | None:
    """What ``/healthz`` shows of a SQLite store's writer thread (None: PostgreSQL, or writes made
    on the loop): ``handed``, its calls so far (each made there because the file's lock was held
    elsewhere, or calls before it were still there); ``waiting``, those not answered yet; and
    ``backed_up_s``, the seconds since when it has had calls waiting without a break (0: none)."""
    if not isinstance(store, Store) or store.writer is None:
        return None
    since = store.backed_up_since
    return {"handed": store.handed, "waiting": store.waiting,
            "backed_up_s": 0.0 if since is None else round(time.monotonic() - since, 3)}


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
        await asyncio.to_thread(skeleton, "")  # read Unicode's look-alikes before the first name
        app.state.server = holder["server"] = Server(store, bot_delay=bot_delay, timer_scale=timer_scale,
                                                     limits=limits, bots=bots)
        app.state.loop = asyncio.get_running_loop()
        if store.shared:
            from .cluster import Cluster
            from .pgstore import PgStore

            assert isinstance(store, PgStore)
            app.state.server.saver = app.state.server.cluster = Cluster(app.state.server, store, **cluster)
            app.state.server.cluster.start()
        elif isinstance(store, Store):
            try:
                store.off_the_loop()  # its calls in a writer thread of its own
            except ImportError as exc:
                log.warning("%s: the database's writes wait on the event loop", exc)
            else:
                app.state.server.saver = Saver(app.state.server, store)
        checkpoints = asyncio.create_task(housekeeping(holder["server"], manage_gc))
        try:
            yield
        finally:
            app.state.server.advisor.close()
            downloads.close()
            checkpoints.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await checkpoints
            if app.state.server.saver is not None:
                await app.state.server.saver.stop()
            if holder["server"].loader is not None:
                holder["server"].loader.close()
            store.close()
            held.release()

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-cache"})

    async def health(request: Request) -> Response:
        server = holder["server"]
        # 503 while the database is unreachable or too slow (a load balancer sends no one here)
        up = server.cluster is None or server.cluster.available
        return JSONResponse({"ok": up, "version": P.VERSION, "tables_loaded": len(server.lobby.tables),
                             "leases": None if server.cluster is None else len(server.cluster.held),
                             "cluster": None if server.cluster is None else
                             {**server.cluster.counts, "loop_waits": server.cluster.store.loop_waits,
                              "probe_connects": server.cluster.store.probe_connects,
                              "probe_timeouts": server.cluster.store.probe_timeouts},
                             "database": up, "loop_waits": server.store.loop_waits,
                             "newer_schema": None if server.cluster is None else server.cluster.newer,
                             "tables_watched": len(server.watchers),
                             "connections": server.connections, "writer": writer(server.store)},
                            status_code=200 if up else 503)

    async def socket(ws: WebSocket) -> None:
        await holder["server"].serve(ws)

    async def review_page(request: Request) -> Response:
        return FileResponse(STATIC / "review.html", headers={"cache-control": "no-cache"})

    async def review_data(request: Request) -> Response:
        # a solve this review needs counts against the client that asked first
        SOLVES_FOR.set(client_key(request.client.host if request.client else None))
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
