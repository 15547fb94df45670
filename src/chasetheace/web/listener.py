"""The HTTP listener's own limits, applied before a request reaches the app.

uvicorn's parser (httptools) has no limit on a request's head: it takes any number of header
lines, joins the pieces of a long one by repeated concatenation (a 32 MB header sent in 4 KB
pieces held the event loop for seconds), and waits for a head's end for ever (partial requests
held sockets until the process ran out of file descriptors). :func:`guarded_protocol` gives uvicorn
a protocol that, for each request's head (its request line and headers):

- refuses more than ``Limits.head_bytes`` bytes or ``Limits.head_fields`` header lines with
  ``431 Request Header Fields Too Large``, before the parser sees the bytes over the limit;
- answers ``408 Request Timeout`` and closes when the head is not complete ``Limits.head_seconds``
  after its first byte (or after the connection opened);
- and answers ``503`` at once to an address that already has ``Limits.sockets_per_client`` sockets
  open in HTTP (a WebSocket, once upgraded, is counted by the app instead), unless the address is a
  trusted proxy (``--forwarded-allow-ips``), whose sockets carry many clients.

:func:`uvicorn_config` adds uvicorn's own knobs: the keep-alive timeout and the concurrency limit
(``503`` past ``Limits.sockets`` connections and tasks). docs/deploy.md says what a proxy in front
should still do.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Iterable
from typing import Any

from .limits import Limits, client_key

__all__ = ["guarded_protocol", "uvicorn_config", "trusted"]


def trusted(ips: str | Iterable[str]) -> frozenset[str] | None:
    """The trusted proxies' addresses from ``--forwarded-allow-ips`` (``*``: None, every one)."""
    items = [s.strip() for s in (ips.split(",") if isinstance(ips, str) else ips) if s.strip()]
    if "*" in items:
        return None
    out = set()
    for item in items:
        try:
            out.add(str(ipaddress.ip_address(item)))
        except ValueError:
            out.add(item)  # a network or a socket path: uvicorn's own check knows them
    return frozenset(out)


def _response(status: int, reason: str, text: str) -> bytes:
    body = (text + "\n").encode("utf-8")
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n").encode("ascii") + body


class _QuietRefusals:
    """uvicorn's logger for one connection, but for its warning "Invalid HTTP request received.",
    said at debug level when the request is one refused 431 here for too many header lines (the
    refusal is the answer; a client sending such requests would otherwise fill the log)."""

    def __init__(self, logger: Any, refused: Any) -> None:
        self._logger, self._refused = logger, refused

    def __getattr__(self, name: str) -> Any:
        return getattr(self._logger, name)

    def warning(self, msg: str, *args: Any, **kwargs: Any) -> None:
        if self._refused() and msg == "Invalid HTTP request received.":
            self._logger.debug("a request refused 431: too many header lines")
            return
        self._logger.warning(msg, *args, **kwargs)


def guarded_protocol(limits: Limits, proxies: frozenset[str] | None = frozenset()) -> type[Any]:
    """A subclass of uvicorn's httptools protocol that holds each request's head to ``limits``
    (see the module's text); ``proxies`` are the trusted proxies' addresses (None: every address),
    which the per-address socket limit spares."""
    import httptools
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    open_by_client: dict[str, int] = {}  # sockets in HTTP (not yet upgraded) by client address

    class GuardedHttpProtocol(HttpToolsProtocol):
        """uvicorn's protocol with limits on each request's head."""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            # bytes and header lines since the last request's head was complete: the next request's
            # head, even pipelined behind a response under way (the app takes no request bodies)
            self._head = self._fields = 0
            self._refusal: bytes | None = None
            self.logger = _QuietRefusals(self.logger, lambda: self._refusal is not None)  # type: ignore[assignment]
            self._timer: asyncio.TimerHandle | None = None
            host = self.client[0] if self.client else None
            self._key: str | None = None
            if len(self.connections) > limits.sockets:
                self._refuse(503, "Service Unavailable", "the server is full: try again in a moment")
                return
            if proxies is not None and host not in proxies:
                key = client_key(host)
                if open_by_client.get(key, 0) >= limits.sockets_per_client:
                    self._refuse(503, "Service Unavailable",
                                 "too many connections from your address (at most "
                                 f"{limits.sockets_per_client} at once): close some pages or try again later")
                    return
                self._key = key
                open_by_client[key] = open_by_client.get(key, 0) + 1
            self._start_timer()

        def _start_timer(self) -> None:
            self._timer = self.loop.call_later(limits.head_seconds, self._too_slow)

        def _stop_timer(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def _forget(self) -> None:
            self._stop_timer()
            key, self._key = self._key, None
            if key is not None:
                left = open_by_client.get(key, 1) - 1
                if left > 0:
                    open_by_client[key] = left
                else:
                    open_by_client.pop(key, None)

        def _too_slow(self) -> None:
            self._timer = None
            if not self.transport.is_closing():
                self._refuse(408, "Request Timeout",
                             f"the request's headers did not arrive within {limits.head_seconds:g} s")

        def _refuse(self, status: int, reason: str, text: str) -> None:
            self.transport.write(_response(status, reason, text))
            self.transport.close()

        def data_received(self, data: bytes) -> None:
            if self.transport.is_closing():
                return
            if self._timer is None and (self.cycle is None or self.cycle.response_complete):
                self._start_timer()  # the next request on a kept-alive connection
            self._head += len(data)
            if self._head > limits.head_bytes:
                self._refuse(431, "Request Header Fields Too Large",
                             f"the request's headers are over {limits.head_bytes} bytes")
                return
            super().data_received(data)

        def on_header(self, name: bytes, value: bytes) -> None:
            self._fields += 1
            if self._fields > limits.head_fields:
                self._refusal = _response(431, "Request Header Fields Too Large",
                                          f"the request has over {limits.head_fields} header lines")
                raise httptools.HttpParserError("too many header lines")
            super().on_header(name, value)

        def send_400_response(self, msg: str) -> None:
            if self._refusal is None:
                super().send_400_response(msg)
                return
            self.transport.write(self._refusal)
            self.transport.close()

        def on_headers_complete(self) -> None:
            self._head = self._fields = 0
            self._stop_timer()
            super().on_headers_complete()

        def handle_websocket_upgrade(self) -> None:
            self._forget()  # a WebSocket is the app's to count (connections_per_client)
            super().handle_websocket_upgrade()

        def connection_lost(self, exc: Exception | None) -> None:
            self._forget()
            super().connection_lost(exc)

    return GuardedHttpProtocol


def uvicorn_config(app: Any, limits: Limits, *, forwarded_allow_ips: str = "127.0.0.1",
                   **options: Any) -> Any:
    """The ``uvicorn.Config`` of the web table: the guarded protocol, the keep-alive timeout, the
    concurrency limit and the WebSocket settings; ``options`` are passed on (``log_level``...)."""
    import uvicorn

    return uvicorn.Config(app, http=guarded_protocol(limits, trusted(forwarded_allow_ips)),
                          limit_concurrency=limits.sockets, timeout_keep_alive=limits.keep_alive_seconds,
                          ws_max_size=65536, ws_per_message_deflate=False, server_header=False,
                          proxy_headers=True, forwarded_allow_ips=forwarded_allow_ips,
                          **{"lifespan": "on", **options})
