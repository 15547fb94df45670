"""Plain code on the event loop whose database calls run in worker threads: the greenlet bridge.

The web table's handling of a message (a join, a start, a move) is plain synchronous code that
calls its store here and there. :meth:`Bridge.run` runs such code on the event loop's thread in
a greenlet of its own; a store call made from it (:meth:`Bridge.call`) is sent to a worker thread
and the greenlet pauses, handing control back to the loop, which serves everyone else (pings,
other tables) until the answer is there; then the greenlet goes on with it, or with the call's
exception. Both stores use it: PostgreSQL (:mod:`.pgstore`, a pool of threads and connections)
and SQLite (:mod:`.store`, one writer thread, so its writes keep their order).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

from ..extras import needs_extra_text

__all__ = ["Bridge"]

T = TypeVar("T")


class Bridge:
    """Greenlets on the event loop's thread whose blocking calls go to worker threads."""

    def __init__(self, what: str, extra: str) -> None:
        try:
            import greenlet
        except ImportError as exc:
            raise ImportError(needs_extra_text(what, extra, missing="greenlet"), name=exc.name) from None
        self._greenlet = greenlet
        self._running: set[Any] = set()  # the greenlets run by :meth:`run`

    def inside(self) -> bool:
        """Whether the code calling this runs in a greenlet of :meth:`run` (so it may pause)."""
        return self._greenlet.getcurrent() in self._running

    def call(self, request: Any) -> Any:
        """From a greenlet of :meth:`run`: pause it with ``request`` (what :meth:`run`'s ``answer``
        awaits: a future of a call submitted to a worker thread) until its answer is there."""
        return self._greenlet.getcurrent().parent.switch(request)

    async def run(self, call: Callable[[], T], answer: Callable[[Any], Awaitable[Any]],
                  paused: Callable[[], None] | None = None, resumed: Callable[[], None] | None = None) -> T:
        """Run ``call`` in a greenlet of its own on the loop's thread; each request it pauses with
        (:meth:`call`) is awaited by ``answer`` while the loop serves others, its result (or
        exception) handed back. ``paused`` and ``resumed`` are called around each pause (to mark
        a table as being saved meanwhile)."""
        glet = self._greenlet.greenlet(call)
        self._running.add(glet)
        try:
            request = glet.switch()
            while not glet.dead:
                if paused is not None:
                    paused()
                try:
                    result = await answer(request)
                except BaseException as exc:
                    if resumed is not None:
                        resumed()
                    request = glet.throw(exc)
                else:
                    if resumed is not None:
                        resumed()
                    request = glet.switch(result)
            return cast(T, request)
        finally:
            self._running.discard(glet)
