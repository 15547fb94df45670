"""A progress line for work that runs a long time with nothing else on screen.

:class:`Ticker` says what is being done and, on a terminal, counts the seconds on one line,
rewritten in place; on a file or pipe it writes the line once and the time taken at the end.

>>> import io
>>> out = io.StringIO()
>>> with Ticker("solving", out, clock=iter([0.0, 2.5]).__next__):
...     pass
>>> print(out.getvalue(), end="")
solving ...
solving: done in 2.5 s
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import TextIO

__all__ = ["Ticker"]


class Ticker:
    """Shows ``words`` on ``stream`` while the ``with`` block runs (nothing if ``show`` is false).

    Nothing appears for the first ``delay`` seconds, so work that ends at once (or fails at
    once on bad input) prints no progress at all. ``interval`` is the seconds between updates on
    a terminal; ``clock`` gives the time.
    """

    def __init__(self, words: str, stream: TextIO, *, show: bool = True, delay: float = 0.0,
                 interval: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.words = words
        self.stream = stream
        self.show = show
        self.delay = delay
        self.interval = interval
        self.clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._start = 0.0
        self._live = False
        self._shown = False

    def __enter__(self) -> Ticker:
        if not self.show:
            return self
        self._start = self.clock()
        self._live = self.stream.isatty()
        if self.delay <= 0:
            self._begin()
        if self.delay > 0 or self._live:
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        return self

    def _begin(self) -> None:
        self._shown = True
        self._write(f"\r{self.words}: 0 s" if self._live else f"{self.words} ...\n")

    def _tick(self) -> None:
        if self.delay > 0:
            if self._stop.wait(self.delay):
                return
            with self._lock:
                if self._stop.is_set():
                    return
                self._begin()
        while self._live and not self._stop.wait(self.interval):
            with self._lock:
                if not self._stop.is_set():
                    self._write(f"\r{self.words}: {self.clock() - self._start:.0f} s")

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if not self.show:
            return
        with self._lock:
            self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if not self._shown:
            return
        end = f"done in {self.clock() - self._start:.1f} s" if kind is None else "stopped"
        self._write(f"\r{self.words}: {end}\n" if self._live else f"{self.words}: {end}\n")
