"""``simulate`` on the kernel: the same config, tally and result as the engine's simulation.

The work is cut into chunks of a fixed size (:data:`CHUNK_HANDS` hands or :data:`CHUNK_GAMES`
games), each with a seed derived from the run's seed and the chunk's number only, so the numbers do
not depend on the number of workers. Each chunk returns its counts, so memory does not grow with the
number of hands. The kernel's chance is its own generator: for one seed the kernel and the engine
give different (equally distributed) numbers.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import sim as engine_sim
from ..errors import NotCompilableError
from ..extras import needs_extra_text
from ..sim import Job, SimConfig, SimResult, Tally

if TYPE_CHECKING:
    from ..rules import Rules
    from .policy import Policies

__all__ = ["CHUNK_HANDS", "CHUNK_GAMES", "ENGINES", "choose_engine", "simulate", "simulate_fast", "warm_up",
           "WarmUp", "CompileWatch", "watching_compiles", "compile_estimate", "check_fast_specs",
           "last_compile", "record_compile", "record_folder"]

CHUNK_HANDS = 1_000_000
"""Hands per chunk of a run counted in hands (fixed: results do not depend on the workers)."""
CHUNK_GAMES = 50_000
"""Games per chunk of a run counted in games."""
ENGINES = ("python", "auto", "fast")


def simulate(config: SimConfig, *, workers: int = 1, progress: Callable[[int, int], None] | None = None,
             engine: str = "auto", notice: Callable[[str], None] | None = None) -> SimResult:
    """:func:`chasetheace.sim.simulate` on the engine chosen: ``"fast"`` or ``"auto"`` (the
    compiled kernel when every bot can be played there, else the Python engine, telling ``notice``
    why) or ``"python"``. The numbers depend only on the config and the engine, never on ``workers``.
    """
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"bad workers {workers!r}: at least 1")
    if choose_engine(config, engine, notice) == "fast":
        return simulate_fast(config, workers=workers, progress=progress, notice=notice)
    return engine_sim.simulate(config, workers=workers, progress=progress)


def choose_engine(config: SimConfig, engine: str, notice: Callable[[str], None] | None = None) -> str:
    """``"fast"`` or ``"python"``: the kernel when asked (``fast`` or ``auto``, the default) and
    able to play every seat. Otherwise ``auto`` gives the engine, telling ``notice`` why in one
    line, and ``fast`` (asked for by name) is a ValueError naming what the kernel plays."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}: allowed {', '.join(ENGINES)}")
    if engine == "python":
        return "python"
    reason = _why_not(config)
    if reason is None:
        return "fast"
    if engine == "fast":  # asked for by name: it cannot be had, so nothing runs
        raise ValueError(f"--engine fast: {reason}; the kernel plays {KERNEL_BOTS} "
                         "(--engine auto plays the Python engine instead)")
    if notice is not None:
        notice(f"{reason}; using the Python engine")
    return "python"


KERNEL_BOTS = "threshold, random, counting and solved bots (solved up to 10 players)"
"""The bots the kernel plays, in words."""


KERNEL_KINDS = ("threshold", "random", "counting", "solved")
"""The bot kinds (the part of a spec before its colon) the kernel plays."""


def check_fast_specs(specs: Sequence[str]) -> None:
    """For ``--engine fast``: ValueError naming the first bot spec the kernel has no table for,
    before any bot is made (making a ``solved-game`` bot solves)."""
    for spec in specs:
        kind = spec.strip().lower().partition(":")[0]
        if kind not in KERNEL_KINDS:
            raise ValueError(f"--engine fast: the kernel cannot play {spec!r}; the kernel plays "
                             f"{KERNEL_BOTS} (--engine auto plays the Python engine instead)")


def _why_not(config: SimConfig) -> str | None:
    try:
        import numba  # noqa: F401
    except ImportError:
        return needs_extra_text("the fast engine", "fast", missing="numba")
    try:
        _policies(config)
    except NotCompilableError as exc:
        return str(exc)
    return None


_POLICIES: dict[SimConfig, Policies] = {}


def _policies(config: SimConfig) -> Policies:
    """The config's policies, made once per process (a solved bot may have to solve first)."""
    from .policy import compile_bots

    pol = _POLICIES.get(config)
    if pol is None:
        pol = _POLICIES[config] = compile_bots(config.bots, config.rules)
    return pol


FastJob = Job
"""One chunk of a kernel run: the engine's :class:`chasetheace.sim.Job` (the kernel seeds it
with :func:`chasetheace.fast.run.chunk_seed`, not its ``rng``)."""


COMPILE_CPU_SECONDS = 170.0
"""CPU seconds a first compile of the kernel took where it was measured for this release: the
estimate a compile notice gives until this machine has compiled the kernel once; after that it
gives the CPU time measured here (:func:`last_compile`). Measured 2026-11-27 by ``make fast``'s
warm-up from an empty cache: 169.4 s of CPU time (172 s of wall-clock time) at a load of about 2
on 2 cores, numba 0.68, Python 3.11 (192.7 s of CPU time and 2,348 s of wall-clock time at a load
of 25 to 35; the kernel before the turn order was kept between hands: 109.8 s at a load of about
1). It compiles the game twice (:func:`chasetheace.fast.kernel.run`: the default rules with
threshold bots, every option a constant, and any rules and bots). Measure it again when the kernel
changes much: ``NUMBA_CACHE_DIR=$(mktemp -d) make fast`` prints it."""

COMPILE_RECORD = "chasetheace-fast.compile.json"
"""The file, beside numba's cache of the kernel, that keeps the last compile's measured times."""


def record_folder(source: Path | None = None) -> Path:
    """Where numba caches the compiled functions of the module file ``source`` (the kernel's by
    default): ``NUMBA_CACHE_DIR`` when set, else the module's ``__pycache__`` (a compile's record
    goes there; if that folder cannot be written, nowhere)."""
    from numba.core import config

    folder = getattr(config, "CACHE_DIR", "")  # set by numba from the environment
    return Path(folder) if folder else (source or Path(__file__)).parent / "__pycache__"


def record_compile(done: WarmUp, folder: Path | None = None, record: str = COMPILE_RECORD) -> None:
    """Keep the measured times of a compile (``done``; of the kernel, unless ``record`` names
    another file) for the next compile's notice; a folder that cannot be written is left alone
    (the notice then gives the release's figure)."""
    path = (folder or record_folder()) / record
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"cpu_seconds": round(done.cpu_seconds, 1),
                                    "seconds": round(done.seconds, 1)}))
    except OSError:
        pass


def last_compile(folder: Path | None = None, record: str = COMPILE_RECORD) -> float | None:
    """The CPU seconds the last compile of the kernel (or of what ``record`` names) took on this
    machine (kept by :func:`warm_up`), or None if it has not been measured here (or the record is
    unreadable)."""
    try:
        cpu = json.loads(((folder or record_folder()) / record).read_text())["cpu_seconds"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return float(cpu) if isinstance(cpu, int | float) and cpu > 0 else None


@dataclass(frozen=True)
class WarmUp:
    """What :func:`warm_up` did: ``compiled`` (numba compiled a kernel function: nothing usable was
    in its disk cache) or only loaded it, and how long that took (wall clock and this process's CPU)."""

    compiled: bool
    seconds: float
    cpu_seconds: float

    def __str__(self) -> str:
        how = "compiled" if self.compiled else "loaded from numba's cache"
        return f"{how} in {self.seconds:.1f} s ({self.cpu_seconds:.1f} s of CPU time)"


def compile_estimate(load: float | None = None, cores: int | None = None, folder: Path | None = None,
                     *, record: str = COMPILE_RECORD, release: float = COMPILE_CPU_SECONDS) -> str:
    """How long a compile takes, in words: the CPU time measured, by the last compile on this
    machine (:func:`last_compile`, kept in ``folder``: by default beside numba's cache) or else for
    the release (:data:`COMPILE_CPU_SECONDS`; for another compiled function than the kernel, its own
    ``record`` and ``release`` figure), and the wall time it comes to at the machine's ``load``
    (one-minute load average) on its ``cores``, when the load is known: the compile gets about
    ``cores / (load + 1)`` of a core."""
    measured = last_compile(folder, record)
    cpu = release if measured is None else measured
    source = "as measured for this release" if measured is None else "as the last compile here took"
    text = f"about {cpu:.0f} s of CPU time {source}"
    if load is None:
        try:
            load = os.getloadavg()[0]
        except OSError:  # not on this system
            return text
    cores = cores or os.cpu_count() or 1
    share = min(1.0, cores / (load + 1))
    if share < 0.9:
        text += f", about {cpu / share:.0f} s at this machine's load ({load:.1f} on {cores} cores)"
    return text


class CompileWatch:
    """Whether numba compiled (``compiled``) within :func:`watching_compiles`; ``notice`` is told
    once, when the first compile starts, that ``what`` compiles and how long it takes
    (``estimate()``: by default the kernel's, :func:`compile_estimate`)."""

    def __init__(self, notice: Callable[[str], None] | None, what: str = "the fast engine",
                 estimate: Callable[[], str] | None = None) -> None:
        self.notice, self.what, self.estimate = notice, what, estimate or compile_estimate
        self.compiled = False

    def started(self) -> None:
        if not self.compiled:
            self.compiled = True
            if self.notice is not None:
                self.notice(f"compiling {self.what} (once on this machine: numba keeps it on disk; "
                            f"{self.estimate()})...")


@contextmanager
def watching_compiles(notice: Callable[[str], None] | None = None, what: str = "the fast engine",
                      estimate: Callable[[], str] | None = None) -> Iterator[CompileWatch]:
    """Within the block, ``notice`` is told when numba starts compiling (``what``, and how long it
    takes: ``estimate()``, by default the kernel's): numba's ``numba:compile`` event, which it
    sends only when it compiles, never when it loads from its disk cache."""
    from numba.core import event

    watch = CompileWatch(notice, what, estimate)

    class Listener(event.Listener):
        def on_start(self, ev: object) -> None:
            watch.started()

        def on_end(self, ev: object) -> None:
            pass

    with event.install_listener("numba:compile", Listener()):
        yield watch


def warm_up(rules: Rules | None = None, policies: Policies | None = None,
            notice: Callable[[str], None] | None = None) -> WarmUp:
    """Load the kernel, compiling it first if numba has not cached it on this machine yet (a hand
    of ``rules`` with ``policies``: the defaults, then a threshold bot at 5 seats). A compile (and
    only a compile: numba tells) is told to ``notice`` when it starts and when it ends, and the time
    a compile of the kernel's game took is kept for the next notice (:func:`record_compile`).
    ``make fast`` runs it ahead of a first run."""
    from ..rules import Rules
    from .policy import compile_bots
    from .run import play_chunk

    rules = Rules() if rules is None else rules
    policies = compile_bots(("threshold:8",) * 5, rules) if policies is None else policies
    from . import kernel as K

    game: Any = K.run  # numba's dispatcher: its stats count the compiles (cache misses)
    start, cpu = time.perf_counter(), time.process_time()
    compiled_before = sum(game.stats.cache_misses.values())
    with watching_compiles(notice) as watch:
        play_chunk(rules, policies, seed=0, hands=1)
    done = WarmUp(watch.compiled, time.perf_counter() - start, time.process_time() - cpu)
    if sum(game.stats.cache_misses.values()) > compiled_before:  # numba compiled the kernel's game:
        record_compile(done)  # its time measured, for the next compile's notice
    if notice is not None and done.compiled:
        notice(f"compiled the fast engine in {done.seconds:.1f} s ({done.cpu_seconds:.1f} s of CPU time); "
               "the rate below leaves it out")
    return done


def _jobs(config: SimConfig) -> list[Job]:
    total = config.games if config.games is not None else config.hands
    assert total is not None
    step = CHUNK_GAMES if config.games is not None else CHUNK_HANDS
    return [Job(config, i, min(step, total - start) if config.games is not None else None,
                min(step, total - start) if config.hands is not None else None)
            for i, start in enumerate(range(0, total, step))]


def _run(job: Job) -> Tally:
    from .run import chunk_seed, play_chunk

    config = job.config
    return play_chunk(config.rules, _policies(config), seed=chunk_seed(config.game, config.seed, job.index),
                      games=job.games, hands=job.hands)


def _results(jobs: list[Job], workers: int) -> Iterator[tuple[Job, Tally]]:
    return engine_sim.run_chunks(jobs, _run, workers)


def simulate_fast(config: SimConfig, *, workers: int = 1,
                  progress: Callable[[int, int], None] | None = None,
                  notice: Callable[[str], None] | None = None) -> SimResult:
    """Run ``config`` in the kernel over ``workers`` processes (NotCompilableError if a bot cannot
    be played there); ``progress(done, total)`` follows the chunks. Compiling the kernel (the
    first run on a machine, some seconds) is told to ``notice`` and left out of the run's time,
    so the rate is the kernel's own."""
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"bad workers {workers!r}: at least 1")
    policies = _policies(config)  # made (and any solving done) once, before the workers fork
    warm_up(config.rules, policies, notice)  # loaded (or compiled) before the clock and the fork
    start = time.perf_counter()
    jobs = _jobs(config)
    total = sum(job.size for job in jobs)
    tally = Tally(config.players)
    done = 0
    for job, part in _results(jobs, workers):
        tally.merge(part)
        done += job.size
        if progress is not None:
            progress(done, total)
    return SimResult(config, tally, time.perf_counter() - start, workers, engine="fast")
