"""The HTTP side of the web table facing the internet, as strict as the WebSocket side.

- :class:`HostCheck`: only the host names the operator allows (``serve --allow-host``) are
  answered, for HTTP requests and WebSocket handshakes alike, so a hostile domain that resolves
  to the server (DNS rebinding) gets nothing: a refused handshake is answered HTTP 400 before
  it is accepted. Starlette's ``TrustedHostMiddleware`` does the check.
- :class:`HttpRateLimit`: HTTP requests (and WebSocket handshakes) per client address, a token
  bucket as for WebSocket messages; over it, HTTP 429 with ``Retry-After``.
- A game number in a URL is ASCII digits, 1 to 999,999,999, and a table id what the lobby makes
  (:mod:`.ids`); anything else is no such game (404), never a server fault.
- :class:`Downloads`: the one cache of finished games' downloads: a record and a review are each
  built once, off the event loop and one at a time (one lock), then served as the stored bytes
  with an ``ETag`` (``If-None-Match`` gets 304 Not Modified) and caching headers.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import Headers
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from .ids import game_number, table_id_ok
from .limits import Buckets, Limits, client_key

__all__ = ["HostCheck", "HttpRateLimit", "Downloads", "Download", "game_number", "allowed_hosts",
           "LOCAL_HOSTS", "not_found"]

LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]")
"""The host names a server answers to when the operator names none: loopback's."""
NO_GAME = "no such game at this table: a game is numbered 1, 2, 3 and so on"


def allowed_hosts(names: Iterable[str]) -> list[str]:
    """Host names as the check compares them: lower case, an IPv6 address in brackets, a port
    dropped (the check is of the name: a rebinding page's name is never the server's own).
    ValueError for a name that is no host name."""
    hosts = []
    for name in names:
        host = name.strip().lower()
        if host == "*":
            hosts.append(host)
            continue
        if host.count(":") >= 2 and not host.startswith("["):
            host = f"[{host}]"  # a bare IPv6 address
        match = re.fullmatch(r"(\*\.)?([a-z0-9_.-]+|\[[0-9a-f:.]+\])(:\d{1,5})?", host)
        if match is None or ".." in host:
            raise ValueError(f"bad --allow-host {name!r}: give a host name (cards.example.org), an IP "
                             "address, *.example.org for its subdomains, or * for any")
        hosts.append((match.group(1) or "") + match.group(2))
    return list(dict.fromkeys(hosts))


class HostCheck(TrustedHostMiddleware):
    """Answer only requests and handshakes whose ``Host`` is one of ``hosts`` (``*``: any)."""

    def __init__(self, app: ASGIApp, hosts: Sequence[str] = LOCAL_HOSTS) -> None:
        super().__init__(app, allowed_hosts=allowed_hosts(hosts), www_redirect=False)


class HttpRateLimit:
    """At most ``http_rate`` HTTP requests a second from one client address (``http_burst`` at
    once), WebSocket handshakes included; over it, 429 with ``Retry-After``. The address is the
    one the server already counts connections by (behind a trusted proxy, the forwarded one)."""

    def __init__(self, app: ASGIApp, limits: Limits | None = None) -> None:
        self.app = app
        self.limits = limits or Limits()
        self.buckets = Buckets(self.limits.http_rate, self.limits.http_burst)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        wait = self.buckets.take(client_key(client[0] if client else None))
        if not wait:
            await self.app(scope, receive, send)
            return
        after = Buckets.retry_after(wait)
        response = JSONResponse(
            {"error": f"too many requests from your address: at most {self.limits.http_rate:g} a second; "
                      f"try again in {after} s"},
            status_code=429, headers={"retry-after": after, "cache-control": "no-store"})
        await response(scope, receive, send)  # a handshake too: answered before it is accepted


async def not_found(request: Request, exc: Exception) -> Response:
    """Any path the server does not serve: 404 with one sentence."""
    return JSONResponse({"error": "no such page on this server"}, status_code=404,
                        headers={"cache-control": "no-store"})


@dataclass(frozen=True)
class Download:
    """One answer as sent: its status, its JSON bytes and (for a finished game's) its ETag."""

    status: int
    body: bytes
    etag: str | None = None

    def response(self, request: Request) -> Response:
        """The HTTP response to ``request``: 304 when it already holds these bytes."""
        if self.etag is None:  # an error, or a review the solver is still preparing (503)
            headers = {"cache-control": "no-store", **({"retry-after": "2"} if self.status == 503 else {})}
            return Response(self.body, self.status, media_type="application/json", headers=headers)
        headers = {"etag": self.etag, "cache-control": "private, max-age=86400"}
        if _matches(request.headers, self.etag):
            return Response(status_code=304, headers=headers)
        return Response(self.body, self.status, media_type="application/json", headers=headers)


def _matches(headers: Headers, etag: str) -> bool:
    wanted = headers.get("if-none-match")
    if wanted is None:
        return False
    tags = [t.strip().removeprefix("W/") for t in wanted.split(",")]
    return "*" in tags or etag in tags


def _encode(status: int, data: Any) -> Download:
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
    if status != 200:
        return Download(status, body)
    return Download(status, body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"')


Builder = Callable[[Any, str, str], Awaitable[tuple[int, dict[str, Any]]]]


class Downloads:
    """Finished games' records and reviews as the bytes sent, each built once (kept up to
    ``max_bytes`` in all, the least recently asked for let go first).

    A build (reading the table, replaying the game, encoding) runs off the event loop and one at
    a time however many ask, and many asking for one game share its build. Only a finished
    game's answer (200) is kept: it never changes.
    """

    def __init__(self, max_bytes: int = 64 * 2**20) -> None:
        self.max_bytes = max_bytes
        self.kept: OrderedDict[tuple[str, str, int], Download] = OrderedDict()
        self.size = 0
        self.building: dict[tuple[str, str, int], asyncio.Future[Download]] = {}
        self.lock: asyncio.Lock | None = None
        self.builds = 0  # how many were built (tests count them)
        self.executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="cta-downloads")

    async def get(self, what: str, server: Any, table_id: str, game: str, build: Builder) -> Download:
        """The answer for ``what`` (``record`` or ``review``) of game ``game`` of a table."""
        number = game_number(game)
        if number is None or not table_id_ok(table_id):
            return _encode(404, {"error": NO_GAME})
        key = (what, table_id, number)
        done = self.kept.get(key)
        if done is not None:
            self.kept.move_to_end(key)
            return done
        future = self.building.get(key)
        if future is None:
            future = self.building[key] = asyncio.ensure_future(self._build(key, server, build))
            future.add_done_callback(lambda _: self.building.pop(key, None))
        return await asyncio.shield(future)

    async def _build(self, key: tuple[str, str, int], server: Any, build: Builder) -> Download:
        if self.lock is None:
            self.lock = asyncio.Lock()
        async with self.lock:
            self.builds += 1
            status, data = await build(server, key[1], str(key[2]))
            done = await asyncio.get_running_loop().run_in_executor(self.executor, _encode, status, data)
        if done.etag is not None and len(done.body) <= self.max_bytes:
            self.kept[key] = done
            self.size += len(done.body)
            while self.size > self.max_bytes:
                _, old = self.kept.popitem(last=False)
                self.size -= len(old.body)
        return done

    def close(self) -> None:
        """Stop the worker thread."""
        self.executor.shutdown(wait=False, cancel_futures=True)
