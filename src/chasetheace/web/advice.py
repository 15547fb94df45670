"""The solver at the web table: hints (a house rule chosen when the table opens) and game reviews.

Nothing here ever solves on the event loop. A hint or a review uses only solutions already in the
cache (:func:`chasetheace.solver.solutions.cache.cached`); a missing one is prepared by :class:`Advisor` in
one worker process at a time (the exact solver, up to
:data:`~chasetheace.solver.uses.advice.MAX_HINT_PLAYERS` players), and the client is told to ask
again. A larger table gets hints and reviews where its solutions are ready without solving: shipped
with the package (the standard rules from 6 to 12 players) or put in the cache by the operator
(``chase-the-ace play --hints`` or ``review`` under the same rules); else none. A table with hints
asks for its solutions as soon as it opens.
Without the ``solve`` extra, hints and reviews answer that they are not available.
"""

from __future__ import annotations

import concurrent.futures
import concurrent.futures.process
import contextlib
import contextvars
import json
import logging
import math
import multiprocessing
import threading
import time
from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..rules import Rules
from ..solver.uses.advice import MAX_HINT_PLAYERS  # the exact tree's seconds; more would take minutes
from .ids import game_number, table_id_ok
from .protocol import VERSION, ProtocolError

if TYPE_CHECKING:
    from ..kinds import GameKind
    from ..record import Record

__all__ = ["Advisor", "prepare", "hint_request", "review_endpoint", "record_endpoint", "solver_available",
           "SOLVES_FOR"]

log = logging.getLogger("chasetheace.web")
MAX_KEPT_SOLUTIONS = 4
"""Solutions the server keeps in memory for hints and reviews (each up to a few hundred MB); the
least recently used is let go first and read again from the cache folder when next asked for."""
MAX_QUEUED_SOLVES = 4
"""At most this many rule sets wait for the worker process; more are not queued (their hints
answer ``hint_not_ready`` until the queue has room), so clients cannot pile up solving work."""


SOLVES_FOR: contextvars.ContextVar[str | None] = contextvars.ContextVar("cta_solves_for", default=None)
"""The client (address) a review is built for, set by the HTTP endpoint: its new solves count
against that client's share (:attr:`Advisor.solves_per_client`)."""


def prepare(rules_dict: dict[str, Any], counts: list[int], folder: str | None) -> None:
    """In a worker process: solve and cache the solutions for each player count (largest first)."""
    from ..solver.solutions.cache import solution_for

    rules = Rules.from_dict(rules_dict)
    for n in counts:
        solution_for(rules, n, folder=folder)


def solver_available() -> bool:
    """Whether the solver's packages (the ``solve`` extra) are installed (without importing them)."""
    import importlib.util

    try:
        return all(importlib.util.find_spec(name) is not None for name in ("numpy", "scipy"))
    except (ImportError, ValueError):
        return False


def _available() -> bool:
    try:
        import numpy  # noqa: F401
        import scipy  # noqa: F401
    except ImportError:
        return False
    return True


class Advisor:
    """Answers hint requests and reviews from cached solutions; prepares missing ones off the loop.

    ``folder`` is the solution cache (default: the user's, or ``$CHASE_THE_ACE_CACHE``). One client
    (address) starts at most ``solves_per_client`` new solves in ``window`` seconds (a rule set
    already solved or under way costs nothing); past that its hints and reviews under new rules
    answer ``too_many_solves``, saying when it may ask again.
    """

    def __init__(self, folder: str | None = None, keep: int = MAX_KEPT_SOLUTIONS, *,
                 solves_per_client: int = 3, window: float = 3600.0) -> None:
        self.folder = folder
        self.solves_per_client, self.window = solves_per_client, window
        self.solves: dict[str, deque[float]] = {}  # by client: when each of its solves started
        self.closing = False  # the server is stopping: the worker is stopped on purpose
        self.keep = keep  # the server's memory holds at most this many solutions
        self.available = _available()
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._pending: dict[tuple[str, int], concurrent.futures.Future[None]] = {}
        self._lock = threading.Lock()
        self.tasks: set[Any] = set()  # hint answers under way (kept referenced until done)

    def _solution(self, rules: Rules, players: int, client: str | None = None) -> Any:
        """The cached solution, or None after asking for it to be prepared; ProtocolError
        (``hint_unavailable``) for a table above :data:`MAX_HINT_PLAYERS` whose solution is not
        ready (it is never solved here)."""
        from ..solver.solutions.cache import MEMORY_LIMIT, cached, limit_memory

        if self.keep != MEMORY_LIMIT:
            limit_memory(self.keep)
        sol = cached(rules, players, folder=self.folder)
        if sol is None:
            if players > MAX_HINT_PLAYERS:
                raise ProtocolError(f"hints and reviews at the web table are for at most {MAX_HINT_PLAYERS} "
                                    f"players in a hand, or tables whose solutions are ready (the standard "
                                    f"rules up to 12 players)", "hint_unavailable")
            self.prepare(rules, players, client if client is not None else SOLVES_FOR.get())
        return sol

    def prepare(self, rules: Rules, players: int, client: str | None = None) -> None:
        """Solve (in the worker process) every count from ``players`` (at most
        :data:`MAX_HINT_PLAYERS`) down to 2 not cached yet. ProtocolError (``too_many_solves``)
        if that is a new solve and ``client`` started its share of them lately."""
        if not self.available:
            return
        players = min(players, MAX_HINT_PLAYERS)
        from ..solver.solutions.cache import is_cached

        key = (json.dumps(rules.to_dict(), sort_keys=True), players)
        with self._lock:  # reviews ask from a thread
            job = self._pending.get(key)
            if job is not None and not job.done():
                return
            for done in [k for k, f in self._pending.items() if f.done()]:
                del self._pending[done]
            if len(self._pending) >= MAX_QUEUED_SOLVES:
                log.warning("hint solutions: %d rule sets already queued; not queuing another",
                            len(self._pending))
                return
            # no file is read here: this runs on the event loop when a table opens
            counts = [n for n in range(players, 1, -1) if not is_cached(rules, n, folder=self.folder)]
            if not counts:
                return
            self._charge(client)
            if self._pool is None:  # spawn: a clean process, whatever threads the server runs;
                # a fresh one for each rule set, so what a solve took is given back when it ends
                self._pool = concurrent.futures.ProcessPoolExecutor(
                    1, mp_context=multiprocessing.get_context("spawn"), max_tasks_per_child=1)
            future = self._pool.submit(prepare, rules.to_dict(), counts, self.folder)
            future.add_done_callback(self._report)
            self._pending[key] = future

    def _charge(self, client: str | None) -> None:
        """Count one new solve against ``client``, or ProtocolError if it had its share."""
        if client is None:
            return
        now = time.monotonic()
        started = self.solves.setdefault(client, deque())
        while started and started[0] <= now - self.window:
            started.popleft()
        if len(started) >= self.solves_per_client:
            minutes = max(1, math.ceil((started[0] + self.window - now) / 60))
            raise ProtocolError(
                f"your address had the solver work out {len(started)} new rule sets in the last "
                f"{self.window / 60:g} minutes, the most one address may: hints and reviews under rules "
                f"not solved yet come again in about {minutes} minutes (rules already solved answer at "
                "once)", "too_many_solves")
        started.append(now)
        for other in [c for c, times in self.solves.items() if not times or times[-1] <= now - self.window]:
            del self.solves[other]

    def check(self, table: Any, seat: int) -> dict[str, Any]:
        """The seat's observation if it may have a hint now; ProtocolError says why not."""
        if not table.options.hints:
            raise ProtocolError("hints are off at this table (a house rule chosen when it opened)",
                                "hints_off")
        game = table.game
        if game is None or game.to_act != seat:
            raise ProtocolError("a hint is for your own turn", "not_now")
        if not self.available:
            raise ProtocolError("this server has no solver (the solve extra)", "hint_unavailable")
        obs: dict[str, Any] = game.observation(seat)
        return obs

    def hint(self, observation: dict[str, Any], client: str | None = None) -> dict[str, Any]:
        """The ``hint`` message for the seat of ``observation`` (its own view, nothing else);
        a solve it starts counts against ``client``."""
        from ..solver.uses.advice import hint

        players = len(observation["order"])
        sol = self._solution(Rules.from_dict(observation["rules"]), players, client)
        if sol is None:
            raise ProtocolError(f"the solver is preparing hints for {players} players: ask again in a "
                                f"moment", "hint_not_ready")
        try:
            h = hint(observation, sol)
        except ValueError as exc:
            raise ProtocolError(str(exc), "hint_unavailable") from None
        return {"type": "hint", "v": VERSION, "hint": h.to_dict(), "text": h.text()}

    def review(self, record: Record | Mapping[str, Any],
               kind: GameKind[Any, Any] | None = None) -> dict[str, Any] | None:
        """The review of a finished game's record (of the game ``kind``; None: the game the record
        says), or None while its solutions are prepared.

        Cheap once the solutions are cached (one replay and a lookup per decision): the app still
        runs it in a thread. Finished games' reviews are kept by the app's downloads
        (:class:`~chasetheace.web.guards.Downloads`), not here.
        """
        from ..registry import kind_of_record

        kind = kind_of_record(record) if kind is None else kind
        typed = kind.read_record(record)
        if not kind.solver:  # judged without solutions (Ace Chasing: by the odds)
            return dict(kind.review(typed, None, None).to_dict())
        # one replay, then the review asks for each table size's solution in turn, and is None
        # (asking for it to be prepared) at the first one not ready; above MAX_HINT_PLAYERS, one
        # not ready is a ValueError (never solved here)
        try:
            done = kind.review(typed, self._solution, None)
        except ProtocolError as exc:
            raise ValueError(str(exc)) from None
        return None if done is None else dict(done.to_dict())

    def close(self) -> None:
        """Stop the worker process at once: a solve under way is abandoned (its solution is written
        only when complete), so the server exits without waiting for it."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        self.closing = True
        # the pool has no public way to stop a running task before Python 3.14: its workers are
        # ended, and the pipe they answer on closed, so the interpreter's exit never waits on it
        from ..solver.methods.parts import end_workers

        with contextlib.suppress(Exception):
            end_workers(pool)
        pool.shutdown(wait=False, cancel_futures=True)

    def _report(self, future: concurrent.futures.Future[None]) -> None:
        exc = None if future.cancelled() else future.exception()
        stopped = self.closing and isinstance(exc, concurrent.futures.process.BrokenProcessPool)
        if exc is not None and not stopped:
            log.error("preparing solutions failed: %s", exc)


# --- the server's hooks (kept here so that the server only calls them) ---------------------------------

def hint_request(server: Any, conn: Any, table: Any, seat: int) -> None:
    """Answer a ``hint`` message: checked on the loop, computed in a thread, sent to ``conn`` only.

    The loop only checks the house rule and the turn and takes the seat's observation; loading the
    solution and reading it happen in a worker thread, and solving never happens here at all.
    """
    import asyncio

    from . import protocol as P

    advisor: Advisor = server.advisor
    obs = advisor.check(table, seat)

    async def answer() -> None:
        try:
            msg = await asyncio.to_thread(advisor.hint, obs, conn.client)
        except ProtocolError as exc:
            msg = P.error(exc.code, str(exc))
        except Exception:
            log.exception("a hint failed")
            msg = P.error("internal", "the server could not compute this hint")
        conn.send(P.encode(msg))

    task = asyncio.get_running_loop().create_task(answer())
    advisor.tasks.add(task)
    task.add_done_callback(advisor.tasks.discard)


class _Refused(Exception):
    """A download the server does not give: its HTTP status and the error in words."""

    def __init__(self, status: int, error: str) -> None:
        super().__init__(error)
        self.status, self.error = status, error


async def _finished_record(server: Any, table_id: str, game: str) -> tuple[GameKind[Any, Any], Record]:
    """The game kind and the record of a finished game of a table, read once (no replay); _Refused
    (404: no such game, 409: not over) otherwise."""
    import asyncio

    from ..registry import game_kind

    number = game_number(game)
    saved = await asyncio.to_thread(server.store.load_table, table_id) if table_id_ok(table_id) else None
    if saved is None or number is None or not number <= max((g.game_no for g in saved.games), default=0):
        raise _Refused(404, "no such game at this table")
    kind = game_kind(saved.options.get("game", "chase-the-ace"))
    record: Record = await asyncio.to_thread(server.store.game_record, table_id, number,
                                             saved.options["rules"], kind.name)
    if not record.finished:  # the record holds every card: never while the game is played
        raise _Refused(409, "the game is not over yet")
    return kind, record


async def record_endpoint(server: Any, table_id: str, game: str) -> tuple[int, dict[str, Any]]:
    """``GET /api/record/{table}/{game}``: the game record of a finished game (for ``replay`` and
    ``review`` at the command line), checked by one replay before it is sent."""
    import asyncio

    try:
        kind, record = await _finished_record(server, table_id, game)
    except _Refused as no:
        return no.status, {"error": no.error}
    await asyncio.to_thread(kind.from_record, record)
    return 200, record.to_json()


async def review_endpoint(server: Any, table_id: str, game: str) -> tuple[int, dict[str, Any]]:
    """``GET /api/review/{table}/{game}``: (status, JSON) for a finished game of a table, from
    one replay of its record. The app's :class:`~chasetheace.web.guards.Downloads` builds it
    once, one build at a time, and keeps what it answers for a finished game."""
    import asyncio

    try:
        kind, record = await _finished_record(server, table_id, game)
    except _Refused as no:
        return no.status, {"error": no.error}
    try:
        data = await asyncio.to_thread(server.advisor.review, record, kind)
    except ValueError as exc:
        return 409, {"error": str(exc)}
    if data is None:
        return 503, {"error": "the solver is preparing this review: try again in a moment", "retry": True}
    return 200, data
