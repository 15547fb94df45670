"""The exact tree evaluated in parts, in worker processes: for trees too large to hold at once.

From 7 players the exact tree (true card removal) has about 80 million nodes, ten times more per
player, and does not fit in memory. The deals split it: one part per tuple of the three weakest
strengths dealt to the first ``n - 2`` seats (455 tuples with 13 strengths, the impossible ones
left out: :func:`parts_of`), each an ordinary :class:`~..model.tree.Tree` built with ``low`` (and,
where numba is, ``closed_three``: the last three positions in closed form, see :mod:`..model.tail`
and :data:`EVALUATION`). Reaches, counterfactual values, lives and losses are sums over the deals,
so the parts' figures add up to the whole tree's exactly. The nodes of position ``n - 3`` (and
later) hold every card of those seats, so each is in one part only and the last positions, the
costly ones, are evaluated once; a node of an earlier position may be in several parts (each
with the deals that end in it) and its reach counts in the one that owns it. Before (the pairs of
strengths dealt to the eldest and the 2nd: 91 parts), a node holding several such pairs was built
and evaluated in each of their parts: at 9 players five times over on average. :class:`PartsEngine`
offers the part of :class:`~.cfr.Engine` that :func:`~.cfr.run_cfr` uses, so discounted CFR runs
on the true game from 7 players, and :func:`~.measure.measure` uses it for exact best responses.

Every pass rebuilds each part's tree (the parts together are larger than memory), so a pass costs
about as much as building them all, shared by the ``workers`` processes, each holding one part at
a time (figures in :data:`..solutions.choice.MAX_PARTS_PLAYERS`).

Who runs the parts is a :class:`Runner`: by default :class:`LocalRunner`, a pool of processes on
this machine; :class:`.cluster.RayRunner` sends them to a Ray cluster. The parts are summed in one
fixed order whichever finishes first, so the figures are the same, bit for bit, whoever ran them.
With a :class:`.checkpoint.Checkpoint`, each finished part is saved as it comes in, and a pass run
again (after a kill) takes the parts it finished from there.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing import get_context
from typing import TYPE_CHECKING, Any, Protocol

from ...rules import Rules
from ..model.hand import Hand, InfoKey

if TYPE_CHECKING:
    from .checkpoint import Checkpoint

__all__ = ["EVALUATION", "EVALUATIONS", "ONE_THREAD", "LocalRunner", "PartResult", "PartsEngine",
           "PartsPasses", "Runner", "end_workers", "evaluate_part", "interrupts_held", "part_size",
           "parts_of", "run_part"]

Array = Any  # numpy arrays


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """SIGINT held back (blocked) while worker processes start: they inherit it blocked, so a
    Ctrl-C at the terminal, which reaches the whole process group, interrupts only this process
    (no worker prints a traceback, even one still importing), and one pressed meanwhile reaches
    this process as soon as the workers are started."""
    if not hasattr(signal, "pthread_sigmask"):  # not on POSIX: the workers hear it as they did
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def parts_of(hand: Hand) -> list[tuple[int, ...]]:
    """The parts: the three weakest strengths dealt to the first ``n - 2`` seats, ascending (two
    at 4 players, one at 3, four at 10; 455 tuples with 13 strengths, less the ones no deal makes:
    364 at 9 players); see ``low`` in :class:`~..model.tree.Tree` and
    :func:`~..model.dealing.low_parts`."""
    from ..model.dealing import low_parts

    if hand.players < 3:
        raise ValueError("the exact tree is evaluated in parts from 3 players")
    return low_parts(tuple(hand.deck.copies), hand.players)


def part_size(hand: Hand, part: tuple[int, ...]) -> int:
    """How many multisets of cards the first ``n - 2`` seats may hold in ``part``: about how large
    its tree is (the passes start the largest parts first)."""
    copies = list(hand.deck.copies)
    for v in part:
        copies[v] -= 1
    counts = [1] + [0] * (hand.players - 2 - len(part))
    for v in range(part[-1], len(copies)):  # the other cards: the part's strongest or above
        nxt = [0] * len(counts)
        for have, ways in enumerate(counts):
            for extra in range(min(copies[v], len(counts) - 1 - have) + 1):
                nxt[have + extra] += ways
        counts = nxt
    return counts[-1]


@dataclass
class PartResult:
    """One part's figures, with its information sets as keys (they are summed by key)."""

    keys: list[InfoKey]
    cfv: Array          # (infosets, 2) counterfactual lives lost, keep and swap
    cfp: Array          # (infosets, 2) counterfactual chance of losing, keep and swap
    reach: Array        # chance that each information set arises (within this part)
    lives: Array        # per position
    losses: Array       # per position
    nodes: int


EVALUATIONS = ("closed_dealer", "closed_three")
"""How a part's tree is evaluated where the rules allow a closed form (:func:`closed_ok`):
``"closed_dealer"`` builds the nodes up to the dealer's right neighbour and evaluates the last two
positions in closed form; ``"closed_three"`` builds them up to the position before and evaluates
the last three from its groups (:mod:`..model.tail`: the same figures, about a tenth of the nodes)."""
EVALUATION = "closed_three"
"""The evaluation the parts use by default (one of :data:`EVALUATIONS`)."""


def evaluate_part(hand: Hand, part: tuple[int, ...] | None, keep: Callable[[InfoKey], float],
                  precise: bool = True, evaluation: str | None = None) -> PartResult | None:
    """Evaluate the strategy ``keep`` (probability of keeping per information set) on the part of
    the exact tree where the weakest cards of the first ``n - 2`` seats are ``part`` (see
    :func:`parts_of`; ``None``: the whole tree); ``None`` if the part is empty. ``evaluation``: one
    of :data:`EVALUATIONS` (default :data:`EVALUATION`; where the rules allow no closed form, the
    whole part's tree is built whichever is asked)."""
    import numpy as np

    from ..model.tree import Tree
    from .cfr import Engine

    evaluation = EVALUATION if evaluation is None else evaluation
    if evaluation not in EVALUATIONS:
        raise ValueError(f"unknown evaluation {evaluation!r}: allowed {', '.join(EVALUATIONS)}")
    closed = closed_ok(hand)
    tree = Tree(hand, low=part, closed_dealer=closed, closed_three=closed and evaluation == "closed_three")
    if not tree.node_count:
        return None
    engine = Engine(tree)
    here = np.array([keep(key) for key in tree.infosets], dtype=float)
    passes = engine.evaluate(np.c_[here, 1 - here], table=True, precise=precise)
    if part is None:
        reach = engine.info_reach(passes)
    else:
        # a node of the first positions may be in several parts (each with the deals that end in
        # it): its reach counts in the one part that owns it
        owned = passes.reach.copy()
        for level in tree.levels:
            if level.owned is not None:
                owned[level.offset:level.offset + len(level.card)] *= level.owned
        reach = engine.info_reach(owned)
        if passes.dealer_reach is not None:
            reach += passes.dealer_reach
    return PartResult(list(tree.infosets), passes.cfv, passes.cfp, reach,
                      passes.lives, passes.losses, tree.node_count)


def closed_ok(hand: Hand) -> bool:
    """Whether the parts are built with ``closed_dealer`` (the dealer's nodes never built: about a
    tenth of the nodes and memory): where the rules allow it and its loop is compiled (numba)."""
    from ..model.kernels import available

    return not (hand.pairing or hand.jerk) and hand.players >= 3 and available()


# --- worker processes ----------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _init(rules: dict[str, Any], players: int, keys: list[InfoKey]) -> None:
    os.environ.update(ONE_THREAD)  # for a process the pool starts again (numpy is not imported yet)
    threading.Thread(target=_orphaned, daemon=True).start()
    _WORKER["hand"] = Hand(Rules.from_dict(rules), players)
    _WORKER["index"] = {key: i for i, key in enumerate(keys)}


def _orphaned() -> None:
    """In a worker: end the process when the solve that started it dies (``kill -9`` gives it no
    chance to stop its workers, which would otherwise wait forever to send a part back, holding
    the part's memory)."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(1)


def _task(dealt: tuple[int, ...], keep: Array, precise: bool) -> tuple[Array, PartResult] | None:
    """In a worker of the pool: :func:`run_part` with the hand and keys it was started with."""
    return run_part(_WORKER["hand"], _WORKER["index"], dealt, keep, precise)


def run_part(hand: Hand, index: dict[InfoKey, int], dealt: tuple[int, ...], keep: Array,
             precise: bool = True) -> tuple[Array, PartResult] | None:
    """One part under the strategy ``keep`` (indexed by ``index``: the engine's keys); the part's
    information sets come back as indices into them (``None``: an empty part). What a worker does,
    in the pool or on a cluster."""
    import numpy as np

    result = evaluate_part(hand, dealt, lambda key: float(keep[index[key]]), precise)
    if result is None:
        return None
    idx = np.array([index[key] for key in result.keys], dtype=np.int64)
    result.keys = []  # the indices say it, and cost less to send back
    return idx, result


Got = tuple[Array, PartResult] | None
"""What a part gives back (see :func:`run_part`)."""


class Runner(Protocol):
    """Who evaluates the parts of a pass: :class:`LocalRunner`, or :class:`.cluster.RayRunner`."""

    def start(self, hand: Hand, keys: list[InfoKey]) -> None:
        """Get ready to evaluate the parts of ``hand`` with the information sets ``keys``."""

    def run(self, parts: list[tuple[int, ...]], keep: Array) -> Iterator[tuple[int, Got]]:
        """Evaluate ``parts`` under ``keep``; yield ``(position in parts, result)`` as each finishes,
        in any order, each once."""

    def close(self) -> None:
        """Release the workers."""


ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""The environment of a worker: numpy's BLAS on one thread. A sum over threads depends on their
number in its last bits; on one thread a part's figures are the same in every worker, local or on
a cluster (and a worker is one process per core already)."""


def _ready() -> None:
    """A task that does nothing: the pool's processes are started by the first tasks."""


class LocalRunner:
    """The parts in ``workers`` processes of this machine (a process pool, started with ``spawn``,
    each with :data:`ONE_THREAD`)."""

    def __init__(self, workers: int = 1) -> None:
        if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
            raise ValueError(f"bad workers {workers!r}: an integer >= 1")
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._interrupted = False  # a pass left before all its parts came back

    def start(self, hand: Hand, keys: list[InfoKey]) -> None:
        self._pool = ProcessPoolExecutor(self.workers, mp_context=get_context("spawn"), initializer=_init,
                                         initargs=(hand.rules.to_dict(), hand.players, keys))
        self._interrupted = False
        saved = {key: os.environ.get(key) for key in ONE_THREAD}
        os.environ.update(ONE_THREAD)  # the processes start now, under this environment
        # and with SIGINT blocked, which they inherit: a Ctrl-C at the terminal reaches the whole
        # process group, and only this process is to handle it (no traceback from every worker)
        try:
            with interrupts_held():
                for future in [self._pool.submit(_ready) for _ in range(self.workers)]:
                    future.result()
        except BaseException:  # Ctrl-C as they started (held until then): no pool left behind
            self._interrupted = True
            self.close()
            raise
        finally:
            for key, value in saved.items():
                if value is None:
                    del os.environ[key]
                else:
                    os.environ[key] = value

    def run(self, parts: list[tuple[int, ...]], keep: Array) -> Iterator[tuple[int, Got]]:
        assert self._pool is not None, "start first"
        futures: dict[Future[Got], int] = {self._pool.submit(_task, dealt, keep, True): i
                                           for i, dealt in enumerate(parts)}
        left = len(futures)
        try:
            for future in as_completed(futures):
                got = future.result()
                left -= 1
                yield futures[future], got
        finally:
            for future in futures:
                future.cancel()
            self._interrupted = self._interrupted or left > 0

    def close(self) -> None:
        if self._pool is None:
            return
        if self._interrupted:  # left early (Ctrl-C, an error): end the parts still running at once
            # (the pool would wait for them: a part at 9 players takes a minute)
            end_workers(self._pool)
        self._pool.shutdown(cancel_futures=True)
        self._pool = None


def end_workers(pool: ProcessPoolExecutor) -> None:
    """End a pool's workers at once (a part still running is abandoned), so that neither the
    pool's shutdown nor the interpreter's exit can wait forever. Three ways CPython 3.11's
    ``ProcessPoolExecutor`` (3.11.7 checked) hangs when its workers are simply terminated, each
    shown by a test in ``tests/test_solver_parts.py``:

    - the workers die before the pool is told it is shutting down: its manager thread then fails
      on a future already cancelled (``InvalidStateError`` in ``terminate_broken``) and dies
      before it closes the queue of calls, whose feeder thread, blocked writing the next call to
      a pipe no one reads, is then waited for at exit. So the pool is shut down first (told,
      not waited for), then its workers are ended;
    - that feeder is left to the exit, not waited for (``cancel_join_thread``);
    - a worker ended half-way through sending a result (a part's figures are more than a pipe
      holds) leaves the manager thread reading the rest forever, as this process still holds a
      writing end of that pipe: it is closed once the workers are gone, so the read ends.

    Then the manager thread, which now marks the pool broken and winds it up, is waited for."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    calls = getattr(pool, "_call_queue", None)
    results = getattr(pool, "_result_queue", None)
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    if calls is not None:
        calls.cancel_join_thread()
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(5)
        if process.exitcode is None:
            process.kill()
            process.join()
    writer = getattr(results, "_writer", None)
    if writer is not None:
        writer.close()
    if manager is not None:
        manager.join(10)


@dataclass
class PartsPasses:
    """The summed figures of one pass over all parts (as :class:`~.cfr.Passes`, per information set)."""

    cfv: Array
    cfp: Array
    info_reach: Array
    lives: Array
    losses: Array
    present: Array      # whether the information set arises in the true game (in some part's tree)


class PartsEngine:
    """Evaluates strategy profiles (``sigma[infoset] = (keep, swap)``) on the exact tree in parts.

    ``infosets`` fixes the rows of ``sigma`` (every information set of the true game must be among
    them: those of the hand without card removal are, see :class:`~..model.tree.Tree`); ``workers``
    processes evaluate the parts side by side, or the ``runner`` given (e.g. a Ray cluster, see
    :mod:`.cluster`); the result depends on neither. With a ``checkpoint``, every finished part
    is saved, and a pass over a strategy whose parts were saved before takes them from there. Use
    it as a context manager, or call :meth:`close`.
    """

    def __init__(self, hand: Hand, infosets: list[InfoKey], workers: int = 1,
                 progress: Callable[[str], None] | None = None, *, runner: Runner | None = None,
                 checkpoint: Checkpoint | None = None) -> None:
        if hand.jerk:
            raise ValueError("the exact tree under kings_jerk is not evaluated in parts")
        import numpy as np

        self.runner: Runner = LocalRunner(workers) if runner is None else runner
        self.hand = hand
        self.infosets = list(infosets)
        self.n_info = len(self.infosets)
        self.owner = np.array([key[0] for key in self.infosets], dtype=np.int64)
        self.workers = workers
        self.progress = progress
        self.checkpoint = checkpoint
        self.passes = 0
        self.computed = 0  # parts evaluated by the runner (not taken from the checkpoint)
        self.last: PartsPasses | None = None
        # the runner (its processes, or the keys sent to the cluster) starts with the first part
        # to compute: a pass read whole from the checkpoint (a finished solve run again) needs none
        self._started = False

    def __enter__(self) -> PartsEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the worker processes (or let go of the cluster's)."""
        if self._started:
            self.runner.close()
            self._started = False

    def evaluate(self, sigma: Array, precise: bool = True, table: bool = True) -> PartsPasses:
        """One pass over every part: the summed counterfactual values. Always in double precision
        (``precise`` and ``table`` are accepted for the engine's interface: the loss tables always
        come along), as CFR's checks here are the figures reported."""
        import numpy as np

        start = time.perf_counter()
        keep = np.ascontiguousarray(np.asarray(sigma, dtype=float)[:, 0])
        m = self.n_info
        out = PartsPasses(np.zeros((m, 2)), np.zeros((m, 2)), np.zeros(m), np.zeros(self.hand.players),
                          np.zeros(self.hand.players), np.zeros(m, dtype=bool))
        # the largest parts first (the weakest strengths: the most deals), so the workers finish
        # together
        parts = sorted(parts_of(self.hand), key=lambda p: (-part_size(self.hand, p), p))
        # the parts are summed in this order whichever finishes first (floating-point sums depend
        # on their order); those that finish early wait in ``ready`` for their turn
        ready: dict[int, Got] = {}
        summed = 0

        def take(i: int, got: Got) -> None:
            nonlocal summed
            ready[i] = got
            while summed in ready:
                _add(out, ready.pop(summed))
                summed += 1
            if self.progress is not None and (summed % 13 == 0 or summed == len(parts)):
                self.progress(f"pass {self.passes + 1} over the exact tree: part {summed} of {len(parts)}, "
                              f"{time.perf_counter() - start:.0f} s")

        saved = None if self.checkpoint is None else self.checkpoint.pass_name(keep)
        todo = []
        for i, dealt in enumerate(parts):
            had = None
            if self.checkpoint is not None and saved is not None:
                had = self.checkpoint.load_part(saved, dealt)
            if had is None:
                todo.append(i)
            else:
                take(i, _from_arrays(had))
        if todo and not self._started:
            self.runner.start(self.hand, self.infosets)
            self._started = True
        computed: Iterator[tuple[int, Got]] = (self.runner.run([parts[i] for i in todo], keep) if todo
                                               else iter(()))
        for j, got in computed:
            i = todo[j]
            if self.checkpoint is not None and saved is not None:
                self.checkpoint.save_part(saved, parts[i], **_to_arrays(got))
            self.computed += 1
            take(i, got)
        assert summed == len(parts), "a part did not come back"
        self.passes += 1
        self.last = out
        return out

    def gains(self, sigma: Array, cfv: Array) -> Array:
        """Per position, the lives a best response would save against ``sigma``."""
        import numpy as np

        here = (np.asarray(sigma) * cfv).sum(axis=1) - cfv.min(axis=1)
        return np.bincount(self.owner, here, minlength=self.hand.players)


def _add(out: PartsPasses, got: Got) -> None:
    """Add one part's figures to the pass's sums."""
    import numpy as np

    if got is None:
        return
    idx, part = got
    np.add.at(out.cfv, idx, part.cfv)
    np.add.at(out.cfp, idx, part.cfp)
    np.add.at(out.info_reach, idx, part.reach)
    out.present[idx] = True
    out.lives += part.lives
    out.losses += part.losses


def _to_arrays(got: Got) -> dict[str, Array]:
    """A part's result as arrays, to save (an empty part: ``empty`` only)."""
    import numpy as np

    if got is None:
        return {"empty": np.array(True)}
    idx, part = got
    return {"empty": np.array(False), "idx": idx, "cfv": part.cfv, "cfp": part.cfp, "reach": part.reach,
            "lives": part.lives, "losses": part.losses, "nodes": np.array(part.nodes)}


def _from_arrays(data: dict[str, Array]) -> Got:
    """A part's result from the arrays saved by :func:`_to_arrays`."""
    if bool(data["empty"]):
        return None
    return data["idx"], PartResult([], data["cfv"], data["cfp"], data["reach"], data["lives"], data["losses"],
                                   int(data["nodes"]))
