"""Every limit of the web server in one place: each has a default, a meaning and a ``serve`` flag.

docs/deploy.md lists them with advice on setting them. A limit reached answers the client one
error with a stable code (shown in brackets below) and changes nothing.
"""

from __future__ import annotations

import ipaddress
import math
import time
from dataclasses import dataclass, fields
from typing import Any

__all__ = ["Limits", "client_key", "Buckets"]

_AT_LEAST_ONE = frozenset({"connections_per_client", "connections", "queue", "rate", "burst", "strikes",
                           "rate_per_client", "burst_per_client", "http_rate", "http_burst", "head_bytes",
                           "head_fields", "keep_alive_seconds", "sockets_per_client",
                           "sockets"})
_POSITIVE = frozenset({"head_seconds"})


@dataclass(frozen=True)
class Limits:
    """The server's limits. A *client* is one IP address (an IPv6 client: its /64 network)."""

    connections_per_client: int = 20
    """Open WebSocket connections from one client (``too_many_connections``)."""
    connections: int = 5000
    """Open WebSocket connections in all (``too_many_connections``)."""
    tables_per_client: int = 30
    """Tables one client may open in ``table_window`` seconds (``too_many_tables``)."""
    table_window: float = 3600.0
    """The window of ``tables_per_client``, in seconds."""
    solves_per_client: int = 3
    """New rule sets one client may have the solver work out (for hints and reviews) per
    ``table_window`` seconds (``too_many_solves``); rules already solved cost nothing."""
    spectators_per_table: int = 50
    """Spectators watching one table at once (``too_many_spectators``)."""
    public_tables: int = 50
    """Open tables shown in the public list at most."""
    idle_seconds: float = 300.0
    """A connection that sends nothing for this long is closed (the page pings every 30 s)."""
    table_ttl: float = 86400.0
    """A table with nobody connected and no move for this long is deleted from the database."""
    absent_grace: float = 2.0
    """Seconds before an absent player's turn is played for them (keep, or the stand-in bot)."""
    history_on_wire: int = 300
    """At most this many past events go to a client that (re)joins; later updates carry only
    the new events."""
    rate: float = 10.0
    """Messages per second per connection (``rate_limited``)."""
    burst: float = 30.0
    """Messages allowed at once above the rate."""
    rate_per_client: float = 40.0
    """Messages per second from one client over all its connections (``rate_limited``): with
    ``connections_per_client`` connections, one client may not send that many times ``rate``."""
    burst_per_client: float = 120.0
    """Messages allowed at once above ``rate_per_client``."""
    http_rate: float = 10.0
    """HTTP requests per second from one client: the page, its files, records and reviews
    (HTTP 429 with ``Retry-After``)."""
    http_burst: float = 60.0
    """HTTP requests allowed at once above ``http_rate`` (a page load asks for a handful)."""
    head_bytes: int = 16384
    """Bytes of a request's line and headers (HTTP 431); the page sends under 2,000. Counted from
    the end of the last request's headers (the server takes no request bodies), so requests
    pipelined behind a response under way are held to it too."""
    head_fields: int = 100
    """Header lines in one request (HTTP 431)."""
    head_seconds: float = 10.0
    """Seconds for a request's line and headers to arrive, from its first byte or from the
    connection's start (HTTP 408, then the connection is closed): a slow sender holds no socket."""
    keep_alive_seconds: int = 5
    """Seconds an idle HTTP connection is kept open for another request."""
    sockets_per_client: int = 60
    """Connections in HTTP (not WebSockets, counted by ``connections_per_client``) from one client
    at once (HTTP 503); a trusted proxy's address (``--forwarded-allow-ips``) is spared."""
    sockets: int = 6000
    """Connections and requests under way in all, WebSockets included (HTTP 503): keep it under
    the process's file limit (``ulimit -n``), which ``serve`` raises to its hard limit."""
    strikes: int = 50
    """Messages refused for the rate before the connection is closed (WebSocket code 1008)."""
    queue: int = 512
    """Server messages waiting for a slow client before it is disconnected."""
    origins: tuple[str, ...] = ()
    """Web page origins (``https://cards.example.org``) whose pages may open the WebSocket,
    besides the server's own; ``*`` allows any. Clients that send no Origin (not browsers) are
    let in: the check protects people's browsers, it is not authentication."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            least = 1 if f.name in _AT_LEAST_ONE else 0
            if f.name in _POSITIVE and not value > 0:
                raise ValueError(f"bad limit --{f.name.replace('_', '-')} {value}: allowed > 0")
            if isinstance(value, (int, float)) and not isinstance(value, bool) and not value >= least:
                raise ValueError(f"bad limit --{f.name.replace('_', '-')} {value}: allowed >= {least}")

    def to_dict(self) -> dict[str, Any]:
        """The limits a client may know of (sent in the welcome)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "origins"}


def client_key(host: str | None) -> str:
    """Who a connection counts against: its IP address, or an IPv6 address's /64 network."""
    if not host:
        return "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class Buckets:
    """Token buckets by key (a client): ``rate`` tokens a second, at most ``burst`` held. Memory is
    bounded by the clients active lately: a bucket that has refilled is forgotten."""

    def __init__(self, rate: float, burst: float, *, clock: Any = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.held: dict[str, tuple[float, float]] = {}  # key: (tokens, when counted)
        self.swept = clock()

    def take(self, key: str) -> float:
        """Take one token for ``key``: 0.0 if there was one, else the seconds until there is."""
        now = self.clock()
        tokens, stamp = self.held.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - stamp) * self.rate)
        wait = 0.0
        if tokens >= 1:
            tokens -= 1
        else:
            wait = (1 - tokens) / self.rate
        self.held[key] = (tokens, now)
        if now - self.swept > self.burst / self.rate:
            self.sweep(now)
        return wait

    def sweep(self, now: float) -> None:
        """Forget the buckets that are full again (their clients are as if new)."""
        self.swept = now
        full = now - self.burst / self.rate
        for key in [k for k, (tokens, stamp) in self.held.items()
                    if stamp <= full or tokens + (now - stamp) * self.rate >= self.burst]:
            del self.held[key]

    @staticmethod
    def retry_after(wait: float) -> str:
        """A ``Retry-After`` value: whole seconds, at least 1."""
        return str(max(1, math.ceil(wait)))
