"""Solutions on disk: solved once per (rules, players, solver version), shared by every command.

``play --hints``, ``review``, ``serve`` and ``simulate --bot solved`` all ask :func:`solution_for`,
which looks in memory, then in the cache folder, and only then solves (and saves). The folder is
the user's cache directory (``platformdirs``), or :data:`CACHE_ENV` when that variable is set
(tests point it at a temporary folder), or the ``folder`` argument.

Up to :data:`~chasetheace.solver.solutions.choice.QUICK_EXACT_PLAYERS` players (5) the solution is
exact (DCFR on the exact tree, NashConv at most ``tolerance``); beyond that it is a strategy to
play, not measured exactly (``solve(method="auto", exact_check=False)``: ``iid`` up to
:data:`TABLE_IID_PLAYERS` players (7; 9 when solving ahead, :data:`AHEAD_IID_PLAYERS`) without
pairing or kings_jerk, else the sampled method trained for :func:`~.choice.sampled_batches`
mini-batches, seed 0: the same solution on any machine at any load), and its NashConv says how far
from an equilibrium it may be. The named presets' tables ship with the package (:data:`PREPARED`),
one file for all the presets whose hands are alike (:func:`hand_rules`). Where the sampled method
never met a situation, its figures are generalised from similar ones
(:meth:`~.solution.Solution.figures`). The files are compact binary (:mod:`.packed`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, Protocol

from ...rules import OPTIONS, Rules
from ..methods.parts import interrupts_held
from .choice import QUICK_EXACT_PLAYERS, check_players, sampled_batches
from .packed import write_npz
from .solution import Solution, perfect_play_text
from .solving import solve

__all__ = ["AHEAD_IID_PLAYERS", "CACHE_ENV", "PREPARED", "SOLVER_VERSION", "TABLE_IID_PLAYERS", "Progress",
           "announce_solving", "cache_folder", "cache_path", "cached", "hand_rules", "is_cached",
           "prepared_path", "rules_key", "save_json", "save_solution", "solution_for", "solve_ahead"]

SOLVER_VERSION = 6
"""Bumped whenever a solution's content changes (2: per-situation chances of losing; 3: warm-started
from the solution without card removal at 3 players and more; 4: the compact binary files, and the
sampled method from :data:`TABLE_IID_PLAYERS` + 1 players for 15 s; 5: the sampled method for a
fixed number of mini-batches, :func:`~.choice.sampled_batches`, not for 15 s of wall clock; 6: one
file per :func:`hand_rules`, and at the table the sampled method from 8 players, ``iid`` up to 8
only ahead, :data:`AHEAD_IID_PLAYERS`, later 9: only the shipped 9-player files changed, the version
stayed); older files are not read."""
CACHE_ENV = "CHASE_THE_ACE_CACHE"
"""An environment variable naming the folder of cached solutions (instead of the user's cache)."""
TABLE_IID_PLAYERS = 7
"""The most players the cache solves without card removal at the table (``iid``, when the rules
allow it); above, the sampled method (:func:`~.choice.sampled_batches`). Measured on the busy 2-core
machine under rules that do not ship (blocker=king, ties=eldest-loses): ``iid`` took 15 CPU seconds
at 7 players, 68 and 1.65 GB at 8 (at 9, standard rules, 342 and 4.9 GB: :data:`AHEAD_IID_PLAYERS`):
too long for a first hint within a minute, where the sampled method takes about 20 at any size."""
AHEAD_IID_PLAYERS = 9
"""The most players solved without card removal when solving ahead (``solution_for(...,
iid_players=AHEAD_IID_PLAYERS)``: the shipped solutions, :mod:`~chasetheace.solver.guide.prepare`):
at 8 players ``iid`` is far nearer an equilibrium than the sampled method (standard rules: 8.2e-4
lives a hand by an exact best response in the true game), and at 9 too, by the bracket of
:func:`~chasetheace.solver.methods.bound.bound_nash_conv` (200,000 hands, seed 0; the sampled
strategies shipped before measured in the same runs, 27 November 2026): standard rules -0.0011 ±
0.0003 to <= 0.021 lives a hand against 0.043 to <= 0.095, cuckoo -0.0004 ± 0.0004 to <= 0.021
against 0.042 to <= 0.093, chase-the-ace 0.0001 ± 0.0002 to <= 0.012 against 0.021 to <= 0.037,
cassell-1882 0.0005 ± 0.0004 to <= 0.014 against 0.025 to <= 0.042. Its cost at 9 (standard rules,
551,052 situations, 110 iterations): 342 CPU seconds and 4.9 GB at its peak, 36 and 0.6 GB without a
blocker (chase-the-ace, 46,423 situations), 316 and 4.9 GB under cuckoo, on 2 cores shared at a load
average of 2 to 39. A table of 10 is not solved ahead: ``iid`` stops at
:data:`~.choice.MAX_IID_PLAYERS` (9), and from 8 to 9 players the standard rules' situations grew
3.0 times (from 183,636), so 10 would take about 1.7 million situations and, if the rest grew alike,
about 15 GB at its peak and a quarter of an hour of CPU or more (an estimate: not run)."""

Progress = Callable[[str, float], None]
"""``progress(text, fraction)``: what the solver is doing, and about how much of it is done (0..1)."""

_MEMORY: dict[tuple[str, int, str, float], Solution] = {}  # the least recently used first
_LOCK = threading.Lock()
MEMORY_LIMIT = 16
"""At most this many solutions are kept in memory (each can take hundreds of MB); the least
recently used goes first. :func:`limit_memory` changes it (the web server keeps fewer)."""


def limit_memory(count: int) -> None:
    """Keep at most ``count`` (at least 1) solutions in memory from now on."""
    global MEMORY_LIMIT
    MEMORY_LIMIT = max(1, count)
    _trim()


def _remember(key: tuple[str, int, str, float], sol: Solution) -> None:
    _MEMORY.pop(key, None)
    _MEMORY[key] = sol
    _trim()


def _trim() -> None:
    while len(_MEMORY) > MEMORY_LIMIT:
        _MEMORY.pop(next(iter(_MEMORY)), None)


def announce_solving(text: str, fraction: float) -> None:
    """A :data:`Progress` that says on stderr when a first solve starts (once: the solution is
    then cached); its steps are not shown."""
    import sys

    if text.startswith("solv"):
        print(f"chase-the-ace: {text}", file=sys.stderr, flush=True)


def cache_folder(folder: str | os.PathLike[str] | None = None) -> Path:
    """Where solutions are kept: ``folder``, else ``$CHASE_THE_ACE_CACHE``, else the user's cache."""
    if folder is not None:
        return Path(folder)
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("chase-the-ace")) / "solutions"


def rules_key(rules: Rules) -> str:
    """The rules as one text, equal for equal rules: the key of a cache in memory (on disk, that of
    their :func:`hand_rules`)."""
    return json.dumps(rules.to_dict(), sort_keys=True)


def hand_rules(rules: Rules) -> Rules:
    """``rules`` with every option the hand solver is ``unaffected`` by (lives, the pot, who deals
    first, the pack between hands...: :data:`~chasetheace.rules.SolverReach`) at its default: equal
    for rule sets whose hands are solved alike, so they share one solution on disk (the standard
    game, ``hoyle``, ``hoffmann-1891``, ``screw-your-neighbour`` and ``knockout`` share theirs).

    >>> hand_rules(Rules.preset("hoffmann-1891")) == hand_rules(Rules.preset("knockout")) == Rules()
    True
    """
    return Rules(**{key: OPTIONS[key].default if OPTIONS[key].solver == "unaffected" else value
                    for key, value in rules.to_dict().items()})


def cache_path(rules: Rules, players: int, method: str = "auto", tolerance: float = 1e-4,
               folder: str | os.PathLike[str] | None = None) -> Path:
    """The file that holds (or will hold) the solution for ``rules`` and ``players``: the compact
    binary form (:mod:`.packed`), named by :func:`hand_rules` (rule sets that differ only in what one
    hand does not see share the file). The files of earlier versions (JSON) are never read: the
    solution is solved again."""
    text = json.dumps([rules_key(hand_rules(rules)), players, method, tolerance, SOLVER_VERSION])
    digest = hashlib.sha256(text.encode()).hexdigest()[:20]
    return cache_folder(folder) / f"v{SOLVER_VERSION}-{players}p-{digest}.npz"


PREPARED = Path(__file__).parent / "prepared"
"""Solutions shipped with the package (package data), named as in the cache: every named preset's
tables of 2 to 20 players, solved ahead exactly as the cache would solve them (``python -m
chasetheace.solver.guide.prepare`` writes them). A file named for another solver version is
never looked at."""


def prepared_path(rules: Rules, players: int, method: str = "auto", tolerance: float = 1e-4) -> Path:
    """Where a shipped solution for ``rules`` and ``players`` is (or would be): :data:`PREPARED`."""
    return PREPARED / cache_path(rules, players, method, tolerance, PREPARED).name


def cached(rules: Rules, players: int, method: str = "auto", tolerance: float = 1e-4,
           folder: str | os.PathLike[str] | None = None) -> Solution | None:
    """The solution if it is in memory, in the cache folder or shipped with the package already
    (never solves); None otherwise."""
    key = (rules_key(rules), players, method, tolerance)
    sol = _MEMORY.get(key)
    if sol is not None:
        _remember(key, sol)  # used just now: the last to go
        return sol
    for path in (cache_path(rules, players, method, tolerance, folder),
                 prepared_path(rules, players, method, tolerance)):
        try:
            sol = Solution.load(str(path))
        except (OSError, ValueError):
            continue  # absent, unreadable or of another format version: solving again replaces it
        if hand_rules(sol.rules) == hand_rules(rules) and sol.players == players:
            sol.rules = rules  # a file shared by rule sets that solve alike: it speaks of these
            _remember(key, sol)
            return sol
    return None


def is_cached(rules: Rules, players: int, method: str = "auto", tolerance: float = 1e-4,
              folder: str | os.PathLike[str] | None = None) -> bool:
    """Whether the solution is in memory or has a file in the cache (without reading it)."""
    return ((rules_key(rules), players, method, tolerance) in _MEMORY
            or cache_path(rules, players, method, tolerance, folder).is_file()
            or prepared_path(rules, players, method, tolerance).is_file())


def solution_for(rules: Rules, players: int, *, method: str = "auto", tolerance: float = 1e-4,
                 folder: str | os.PathLike[str] | None = None, progress: Progress | None = None,
                 iid_players: int = TABLE_IID_PLAYERS) -> Solution:
    """The solution for ``rules`` and ``players``: from memory, from disk, or solved now and saved.

    ``progress`` hears about a solve (never about a cache hit). A folder that cannot be written
    only costs the saving: the solution is still returned. ``iid_players``: up to how many players
    ``method="auto"`` solves without card removal (:data:`TABLE_IID_PLAYERS` at the table,
    :data:`AHEAD_IID_PLAYERS` ahead), the sampled method above.
    """
    sol = cached(rules, players, method, tolerance, folder)
    if sol is not None:
        return sol
    with _LOCK:  # one solve at a time: two threads asking for the same solution wait for one
        sol = cached(rules, players, method, tolerance, folder)
        if sol is not None:
            return sol
        sol = _solve(rules, players, method, tolerance, progress, iid_players)
        _remember((rules_key(rules), players, method, tolerance), sol)
        if progress is not None:  # half a minute at 20 players: the bar says what it waits for
            progress(f"{players} players: saving the solution ({len(sol.infosets):,} situations)", SAVING)
        save_solution(sol, cache_path(rules, players, method, tolerance, folder))
        if progress is not None:
            progress(f"solved {players} players in {sol.seconds:.1f} s: "
                     f"{perfect_play_text(sol.nash_conv, sol.measured)}", 1.0)
        return sol


AHEAD_WORKERS = 2
"""How many processes :func:`solve_ahead` solves in at once (at most): two table sizes side by side
take about half the wall-clock time on a machine with two free cores, and the memory of both (at
most about 2 GB at 8 players without card removal beside a sampled table)."""


def _cost(rules: Rules, players: int) -> float:
    """A rough guess of the seconds a solve takes, to start the longest first."""
    if players <= QUICK_EXACT_PLAYERS:
        return players
    if players <= TABLE_IID_PLAYERS and not (rules.pairing or rules.kings_jerk):
        return 10.0 * 3.0 ** (players - 6)
    # about the CPU seconds of the training and the estimate: measured 11 at 12 players, 12.5 at 20
    return sampled_batches(players) * players * players / 1000


def _solve_one(rules_data: dict[str, Any], players: int, method: str, tolerance: float, folder: str) -> int:
    """In a worker process: solve and save one table size (through the cache, so it is saved as
    :func:`solution_for` saves it)."""
    solution_for(Rules.from_dict(rules_data), players, method=method, tolerance=tolerance, folder=folder)
    return players


def solve_ahead(rules: Rules, sizes: Collection[int], *, method: str = "auto", tolerance: float = 1e-4,
                folder: str | os.PathLike[str] | None = None, progress: Progress | None = None,
                workers: int | None = None) -> list[int]:
    """Solve the table sizes of ``sizes`` not cached yet, up to ``workers`` at once in worker
    processes, the longest first, and save them (a review knows every table size it needs before
    it starts). Returns the sizes solved; with one missing size or ``workers`` 1 it solves here
    (``workers`` None: :data:`AHEAD_WORKERS`).
    ``progress`` hears the start and each table done."""
    missing = sorted((n for n in set(sizes) if not is_cached(rules, n, method, tolerance, folder)),
                     key=lambda n: -_cost(rules, n))
    if method == "auto":
        for n in missing:
            check_players(rules, n)  # a table no method solves: one error, before any work
    workers = min(AHEAD_WORKERS if workers is None else workers, len(missing), os.cpu_count() or 1)
    if workers <= 1:
        for n in missing:
            solution_for(rules, n, method=method, tolerance=tolerance, folder=folder, progress=progress)
        return missing
    import multiprocessing

    where = str(cache_folder(folder))
    if progress is not None:
        progress(f"solving {len(missing)} table sizes ({', '.join(map(str, sorted(missing)))} players), "
                 f"{workers} at a time (once: the solutions are then cached)", 0.0)
    done = 0
    context = multiprocessing.get_context("spawn")  # no threads of this process carried into the workers
    with interrupts_held():  # Ctrl-C is this process's to handle: the workers never see it
        pool = context.Pool(workers)
    with pool:  # leaving it (done, an error, Ctrl-C) terminates the workers at once
        jobs = [(rules.to_dict(), n, method, tolerance, where) for n in missing]
        for n in pool.imap_unordered(_solve_job, jobs):
            done += 1
            if progress is not None:
                progress(f"solved {n} players ({done} of {len(missing)} table sizes)", done / len(missing))
    return missing


def _solve_job(job: tuple[dict[str, Any], int, str, float, str]) -> int:
    return _solve_one(*job)


def _solve(rules: Rules, players: int, method: str, tolerance: float, progress: Progress | None,
           iid_players: int = TABLE_IID_PLAYERS) -> Solution:
    if method == "auto":
        check_players(rules, players)  # a table no method solves: one error, before saying "solving"
    exact = method != "sampled" and (method != "auto" or players <= QUICK_EXACT_PLAYERS)
    if method == "auto" and players > iid_players:
        method = "sampled"
    if progress is not None:
        how = "exactly" if exact else "approximately (a strategy to play, not measured exactly)"
        progress(f"solving {players} players {how} (once: the solution is then cached)", 0.0)
    callback, steps = None, None
    if progress is not None:
        told = progress
        fraction = [0.0]

        def bar(text: str, done: float) -> None:
            fraction[0] = done
            told(text, done)

        def step(text: str) -> None:  # what the solve is doing between two checks, the bar kept
            told(f"{players} players: {text}", fraction[0])

        callback, steps = _cfr_progress(bar, tolerance, "exact" if exact else "abstract"), step
    # beyond the exact tree's default a bot needs the strategy, not its exact measurement
    # the sampled method trains its default budget of mini-batches, never for a time: the same
    # solution on any machine at any load
    return solve(rules, players, method=method, tolerance=tolerance,
                 exact_check=None if exact else False, on_check=callback, progress=steps)


SOLVED = 0.95
"""How far a solve's progress bar goes while it solves (CFR's checks, the sampled method's hands);
what follows (building the solution's tables, then :data:`SAVING` it) takes the rest."""
SAVING = 0.98
"""Where the progress bar stands while the solution is saved."""


def _cfr_progress(progress: Progress, tolerance: float, measured: str) -> Callable[[Any], None]:
    """A solve's ``on_check`` that reports how far it has come: for CFR, how far the NashConv has
    come down towards ``tolerance`` (on a log scale: each tenfold fall is an equal step; short of
    the end, which only the saved solution reaches: what follows CFR takes time too; ``measured``:
    what the NashConv is about); for the sampled method, the hands played, in training and in its
    estimate of the strategy's figures (:class:`~.solving.Batches`)."""
    import math

    from .solving import Batches

    first: list[float] = []

    def report(p: Any) -> None:
        if isinstance(p, Batches):
            progress(p.what, SOLVED * p.done / p.total)
            return
        nc = max(float(p.nash_conv), tolerance)
        if not first:
            first.append(max(nc, tolerance * 10))
        done = math.log(first[0] / nc) / math.log(first[0] / tolerance) if first[0] > tolerance else 1.0
        progress(f"iteration {p.iterations}, {perfect_play_text(p.nash_conv, measured)}",
                 min(SOLVED, max(0.0, done)))

    return report


class Saveable(Protocol):
    """What :func:`save_json` writes: anything with a ``to_dict``."""

    def to_dict(self) -> dict[str, Any]: ...


def save_json(sol: Saveable, path: Path) -> None:
    """Write as JSON atomically (a reader never sees half a file); a failure to write is not an error."""
    _atomically(path, ".json", lambda f: f.write(json.dumps(sol.to_dict()).encode()))


def save_solution(sol: Solution, path: Path, *, compact: bool = False) -> None:
    """Write in the binary form (:mod:`.packed`; ``compact``: float32, as the shipped solutions)
    atomically; a failure to write is not an error."""
    _atomically(path, ".npz", lambda f: write_npz(sol, f, compact=compact))


def _atomically(path: Path, suffix: str, write: Callable[[Any], object]) -> None:
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".solving-", suffix=suffix)
        try:
            with os.fdopen(fd, "wb") as f:
                write(f)
            os.replace(tmp, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
