"""One WebSocket client of the web table: the seat it holds (or spectates), what it was sent, and its
own limits (a bounded send queue, a rate limit)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from starlette.websockets import WebSocket

from .limits import Limits

if TYPE_CHECKING:
    from .tables import Table

__all__ = ["Connection"]


class Connection:
    """One WebSocket client: the seat it holds (or spectates), what it was sent, its limits."""

    def __init__(self, ws: WebSocket, client: str = "unknown", limits: Limits | None = None) -> None:
        limits = limits or Limits()
        self.ws, self.client, self.limits = ws, client, limits
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(limits.queue)
        self.table: Table | None = None
        self.seat: int | None = None
        self.seated_at = 0.0  # when it took its seat, on the database's clock (several processes)
        # several processes: the announcement of its seat (``SEAT@WHEN``) and whether this process
        # has heard it back from the database (only a seat announced after that one takes it away)
        self.announcing: str | None = None
        self.announced = True
        self.held: list[str] | None = None  # messages kept back until its seat is announced
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
        if self.held is not None:
            self.held.append(text)
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.abort = True
            self.close()
            if self.on_overflow is not None:
                self.on_overflow(self)

    def hold(self) -> None:
        """Keep the messages back (in order) until :meth:`release`."""
        if self.held is None:
            self.held = []

    def release(self) -> None:
        """Send the messages kept back, and go on sending at once."""
        held, self.held = self.held, None
        for text in held or ():
            self.send(text)

    def close(self, code: int = 1008, reason: str = "") -> None:
        """Stop taking messages: what is queued is sent, then a close frame with ``code``."""
        if not self.closed:
            self.release()  # what was kept back goes first
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
