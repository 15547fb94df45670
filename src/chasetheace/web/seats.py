"""Taking a seat back: recovery codes are guessed at most a few times per address.

A recovery code (shown once when a seat is taken, see :meth:`~.tables.Table.issue_recovery`) is
long enough that guessing is hopeless; this bounds the tries anyway, so a client cannot spend
the server's time on it, and says when to try again. (Not per table: then anyone could lock a
player out of their own seat by guessing wrong on purpose.)
"""

from __future__ import annotations

import time
from collections import deque

from .protocol import ProtocolError

__all__ = ["Guesses", "GUESSES", "GUESS_WINDOW"]

GUESSES = 10
"""Wrong recovery codes allowed per client (IP address) in :data:`GUESS_WINDOW`."""
GUESS_WINDOW = 600.0
"""The window of :data:`GUESSES`, in seconds."""


class Guesses:
    """Wrong recovery codes by client, in a sliding window."""

    def __init__(self, allowed: int = GUESSES, window: float = GUESS_WINDOW) -> None:
        self.allowed, self.window = allowed, window
        self.wrong: dict[str, deque[float]] = {}

    def check(self, client: str) -> None:
        """ProtocolError (``too_many_guesses``) if ``client`` has had its wrong codes lately."""
        now = time.monotonic()
        seen = self.wrong.get(client)
        while seen and seen[0] < now - self.window:
            seen.popleft()
        if seen is not None and not seen:
            del self.wrong[client]
        elif seen is not None and len(seen) >= self.allowed:
            wait = max(1, round(seen[0] + self.window - now))
            raise ProtocolError(f"too many wrong recovery codes: try again in {wait} s", "too_many_guesses")

    def missed(self, client: str) -> None:
        """Count one wrong code against ``client``."""
        self.wrong.setdefault(client, deque()).append(time.monotonic())
        if len(self.wrong) > 100_000:  # many addresses at once: forget the oldest
            for key in list(self.wrong)[:50_000]:
                del self.wrong[key]
