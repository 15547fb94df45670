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
import json
import logging
import multiprocessing
import re
import threading
from typing import Any

from ..rules import Rules
from ..solver.uses.advice import MAX_HINT_PLAYERS  # the exact tree's seconds; more would take minutes
from .protocol import VERSION, ProtocolError

__all__ = ["Advisor", "prepare", "hint_request", "review_endpoint", "record_endpoint", "solver_available"]

_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_GAME = re.compile(r"[1-9][0-9]{0,8}")
log = logging.getLogger("chasetheace.web")
MAX_KEPT_REVIEWS = 64
"""Reviews of finished games kept in memory (the oldest is let go first)."""
MAX_KEPT_SOLUTIONS = 4
"""Solutions the server keeps in memory for hints and reviews (each up to a few hundred MB); the
least recently used is let go first and read again from the cache folder when next asked for."""
MAX_QUEUED_SOLVES = 4
"""At most this many rule sets wait for the worker process; more are not queued (their hints
answer ``hint_not_ready`` until the queue has room), so clients cannot pile up solving work."""


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

    ``folder`` is the solution cache (default: the user's, or ``$CHASE_THE_ACE_CACHE``).
    """

    def __init__(self, folder: str | None = None, keep: int = MAX_KEPT_SOLUTIONS) -> None:
        self.folder = folder
        self.keep = keep  # the server's memory holds at most this many solutions
        self.available = _available()
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._pending: dict[tuple[str, int], concurrent.futures.Future[None]] = {}
        self._lock = threading.Lock()
        self.tasks: set[Any] = set()  # hint answers under way (kept referenced until done)
        self.reviews: dict[tuple[str, str], dict[str, Any]] = {}  # finished games' reviews, oldest first
        self.review_lock: Any = None  # an asyncio.Lock, made on the event loop at the first review

    def _solution(self, rules: Rules, players: int) -> Any:
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
            self.prepare(rules, players)
        return sol

    def prepare(self, rules: Rules, players: int) -> None:
        """Solve (in the worker process) every count from ``players`` (at most
        :data:`MAX_HINT_PLAYERS`) down to 2 not cached yet."""
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
            if self._pool is None:  # spawn: a clean process, whatever threads the server runs;
                # a fresh one for each rule set, so what a solve took is given back when it ends
                self._pool = concurrent.futures.ProcessPoolExecutor(
                    1, mp_context=multiprocessing.get_context("spawn"), max_tasks_per_child=1)
            future = self._pool.submit(prepare, rules.to_dict(), counts, self.folder)
            future.add_done_callback(_report)
            self._pending[key] = future

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

    def hint(self, observation: dict[str, Any]) -> dict[str, Any]:
        """The ``hint`` message for the seat of ``observation`` (its own view, nothing else)."""
        from ..solver.uses.advice import hint

        players = len(observation["order"])
        sol = self._solution(Rules.from_dict(observation["rules"]), players)
        if sol is None:
            raise ProtocolError(f"the solver is preparing hints for {players} players: ask again in a "
                                f"moment", "hint_not_ready")
        try:
            h = hint(observation, sol)
        except ValueError as exc:
            raise ProtocolError(str(exc), "hint_unavailable") from None
        return {"type": "hint", "v": VERSION, "hint": h.to_dict(), "text": h.text()}

    def review(self, record: dict[str, Any]) -> dict[str, Any] | None:
        """The review of a finished game's record, or None while its solutions are prepared.

        Cheap once the solutions are cached (a replay and a lookup per decision): the app still
        runs it in a thread.
        """
        from ..registry import kind_of_record

        kind = kind_of_record(record)
        if not kind.solver:  # judged without solutions (Ace Chasing: by the odds)
            return dict(kind.review(record, None, None).to_dict())
        # one replay: the review asks for each table size's solution as it meets it, and is None
        # (asking for it to be prepared) at the first one not ready; above MAX_HINT_PLAYERS, one
        # not ready is a ValueError (never solved here)
        try:
            done = kind.review(record, self._solution, None)
        except ProtocolError as exc:
            raise ValueError(str(exc)) from None
        return None if done is None else dict(done.to_dict())

    def close(self) -> None:
        """Stop the worker process (a solve under way is abandoned)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def _report(future: concurrent.futures.Future[None]) -> None:
    exc = None if future.cancelled() else future.exception()
    if exc is not None:
        log.error("preparing solutions failed: %s", exc)


# --- the app's hooks (kept here so that app.py only calls them) ----------------------------------------

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
            msg = await asyncio.to_thread(advisor.hint, obs)
        except ProtocolError as exc:
            msg = P.error(exc.code, str(exc))
        except Exception:
            log.exception("a hint failed")
            msg = P.error("internal", "the server could not compute this hint")
        conn.send(P.encode(msg))

    task = asyncio.get_running_loop().create_task(answer())
    advisor.tasks.add(task)
    task.add_done_callback(advisor.tasks.discard)


async def _finished_record(server: Any, table_id: str, game: str) -> tuple[int, dict[str, Any]]:
    """(200, the game record) of a finished game of a table, or (404 or 409, an error)."""
    import asyncio

    from ..registry import game_kind

    saved = await asyncio.to_thread(server.store.load_table, table_id) if _ID.fullmatch(table_id) else None
    # ASCII digits only (str.isdigit() takes '²'), at most nine: a client's mistake is a 404
    if saved is None or not _GAME.fullmatch(game) or not int(game) <= max((g.game_no for g in saved.games),
                                                                           default=0):
        return 404, {"error": "no such game at this table"}
    rules, kind = saved.options["rules"], saved.options.get("game", "chase-the-ace")
    record: dict[str, Any] = await asyncio.to_thread(server.store.game_record, table_id, int(game), rules,
                                                     kind)
    replayed = await asyncio.to_thread(game_kind(kind).from_record, record)
    if not replayed.over:  # the record holds every card: never while the game is played
        return 409, {"error": "the game is not over yet"}
    return 200, record


async def record_endpoint(server: Any, table_id: str, game: str) -> tuple[int, dict[str, Any]]:
    """``GET /api/record/{table}/{game}``: the game record of a finished game (for ``replay`` and
    ``review`` at the command line)."""
    return await _finished_record(server, table_id, game)


async def review_endpoint(server: Any, table_id: str, game: str) -> tuple[int, dict[str, Any]]:
    """``GET /api/review/{table}/{game}``: (status, JSON) for a finished game of a table."""
    import asyncio

    advisor = server.advisor
    done = advisor.reviews.get((table_id, game))
    if done is not None:  # a finished game's review never changes: each is worked out once
        return 200, done
    if advisor.review_lock is None:
        advisor.review_lock = asyncio.Lock()
    async with advisor.review_lock:  # one review at a time, off the loop, however many ask
        done = advisor.reviews.get((table_id, game))
        if done is not None:
            return 200, done
        status, record = await _finished_record(server, table_id, game)
        if status != 200:
            return status, record
        try:
            data = await asyncio.to_thread(advisor.review, record)
        except ValueError as exc:
            return 409, {"error": str(exc)}
        if data is None:
            return 503, {"error": "the solver is preparing this review: try again in a moment", "retry": True}
        advisor.reviews[(table_id, game)] = data
        while len(advisor.reviews) > MAX_KEPT_REVIEWS:
            advisor.reviews.pop(next(iter(advisor.reviews)))
        return 200, data
