"""``ChaseTheAceVector-v0``: many tables of ``ChaseTheAce-v0`` stepped together in the kernel.

Each table is a whole game in which the agent holds one seat and kernel policies (``threshold``,
``random``, ``solved``, ``counting`` bot specs) hold the others; the observation is the vector of
:class:`chasetheace.adapters.encoding.Encoder` for the agent's seat, written by the kernel from what
the seat may see (the same numbers as ``ChaseTheAce-v0`` on the same cards and decisions, which the
tests check); rewards are the change in the agent's lives, plus ``win_reward`` (shared by a split
pot) when it wins. An episode ends when the game ends or the agent is out; a game in which the agent
would have no decision is skipped at reset, as in ``ChaseTheAce-v0``. Finished tables are reset on
the next step (Gymnasium's next-step autoreset: that step's action is ignored, its reward is 0).

>>> import gymnasium as gym
>>> envs = gym.make_vec("ChaseTheAceVector-v0", num_envs=4, players=3)
>>> obs, info = envs.reset(seed=1)
>>> obs.shape == (4, envs.single_observation_space.shape[0])
True
>>> obs, rewards, terminated, truncated, info = envs.step(envs.action_space.sample())
>>> rewards.shape, terminated.dtype
((4,), dtype('bool'))
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from sys import getrefcount
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..cards import pack
from ..fast import kernel as K
from ..fast.layout import STANDARD, Counts, Given, Table
from ..fast.policy import Policies, compile_bots
from ..fast.tables import rule_arrays
from ..rules import Rules
from .encoding import Encoder
from .episode import table_options
from .vector_step import BAD_ACTION, Cells, _Agent, _batch, _batch_standard, _Steps

__all__ = ["ChaseTheAceVectorEnv", "ID", "VectorCore", "compile_estimate", "first_step", "say", "warm_up"]

ID = "ChaseTheAceVector-v0"
HANDED = 4  # with copy: how many of the arrays last handed out the env looks at for reuse

COMPILE_CPU_SECONDS = 275.0
"""CPU seconds a first compile of the env's step took where it was measured for this release (the
default rules' step, :func:`chasetheace.adapters.vector_step._batch_standard`; the step of other
rules or bots, ``_batch``, takes about as long): the estimate a compile notice gives until this
machine has compiled the step once; after that, the CPU time measured here (kept beside numba's
cache in :data:`COMPILE_RECORD`). Measured 2026-11-27 on this project's 2-core build machine,
numba 0.68, Python 3.11: 275 s of CPU time (4 min 40 s of waiting) at a load of about 1 (10:26
UTC); 374 s of CPU time and 22 minutes of waiting at a load of 6 to 7 (12:16 to 12:40 UTC)."""

COMPILE_RECORD = "chasetheace-vector.compile.json"
"""The file, beside numba's cache of the env's step, that keeps the last compile's measured times."""

WHAT = f"the step of {ID}"


def say(text: str) -> None:
    """The env's notices (a compile of its step): a line on standard error."""
    print(f"chase-the-ace: {text}", file=sys.stderr, flush=True)


def compile_estimate(load: float | None = None, cores: int | None = None, folder: Path | None = None) -> str:
    """How long a compile of the env's step takes, in words (as
    :func:`chasetheace.fast.sim.compile_estimate` for the kernel): the CPU time the last compile on
    this machine took, else the release's figure (:data:`COMPILE_CPU_SECONDS`), and the wall time
    it comes to at the machine's load."""
    from ..fast.sim import compile_estimate as estimate

    return estimate(load, cores, folder or _record_folder(), record=COMPILE_RECORD,
                    release=COMPILE_CPU_SECONDS)


def _record_folder() -> Path:
    from ..fast.sim import record_folder

    return record_folder(Path(__file__).with_name("vector_step.py"))


def first_step(entry: Any, args: tuple[Any, ...], notice: Callable[[str], None] | None,
               folder: Path | None = None) -> int:
    """``entry(*args)``: the first call of the env's compiled step (a numba dispatcher), which
    loads it from numba's disk cache or compiles it. A compile, and only a compile (numba's own
    ``numba:compile`` event), is told to ``notice`` when it starts, with the time it takes
    (:func:`compile_estimate`), and when it ends; the time a compile of ``entry`` took is kept for
    the next notice (in ``folder``: by default beside numba's cache)."""
    from ..fast.sim import WarmUp, record_compile, watching_compiles

    folder = folder or _record_folder()
    start, cpu = time.perf_counter(), time.process_time()
    compiled_before = sum(entry.stats.cache_misses.values())
    with watching_compiles(notice, WHAT, lambda: compile_estimate(folder=folder)) as watch:
        bad = int(entry(*args))
    done = WarmUp(watch.compiled, time.perf_counter() - start, time.process_time() - cpu)
    if sum(entry.stats.cache_misses.values()) > compiled_before:  # the step itself was compiled
        record_compile(done, folder, COMPILE_RECORD)
    if notice is not None and done.compiled:
        notice(f"compiled {WHAT} in {done.seconds:.1f} s ({done.cpu_seconds:.1f} s of CPU time)")
    return bad


class VectorCore:
    """The tables of a vector env as kernel arrays, with reset, step and encode for each table.

    ``script`` (shuffles, picks) replays given chance in a single table (for tests against the
    engine); otherwise each table draws from its own generator.
    """

    def __init__(self, rules: Rules, players: int, seat: int, policies: Policies, tables: int,
                 *, win_reward: float = 1.0, script: tuple[np.ndarray, np.ndarray] | None = None,
                 notice: Callable[[str], None] | None = say) -> None:
        self.rules, self.players, self.seat, self.tables = rules, players, seat, tables
        self.policies, self.win_reward, self.notice = policies, win_reward, notice
        self.encoder = Encoder(rules, players)
        self.rules_arrays = rule_arrays(rules)
        d = rules.deck
        index = np.zeros(52, np.int64)
        for i, card in enumerate(pack(d)):
            index[card.id] = i
        chips = float(max(1, players * rules.lives))
        pot = float(min(1.0, rules.ante * players / max(1, players * rules.ante)))
        self.agent = _Agent(seat, win_reward, chips, pot, index)
        shuffles, picks = script if script is not None else (np.zeros((0, d), np.int64),
                                                             np.zeros(0, np.int64))
        none = np.zeros(0, np.int64)
        self.given = Given(-1, script is not None, picks, shuffles, False, none, np.zeros(0, np.float64))
        counting = bool((policies.kind == K.P_COUNTING).any())
        self.state = Table(  # every table's arrays, the table first (a Table per table in _batch)
            np.full((tables, K.WS_ROWS + (3 * players if counting else 0), K.RING), -1, np.int64),
            np.zeros((tables, K.ST_SIZE), np.int64),
            np.zeros((tables, 2 * players + 2, K.E_FIELDS), np.int64),
            np.zeros((tables, K.G_SIZE), np.int64), np.zeros((tables, 1), np.uint64))
        sink = np.zeros((players + 1, players), np.int64)  # the counts are not wanted here
        tally = np.zeros(14, np.int64)
        self.counts = Counts(sink, sink, tally, tally, np.zeros((0, 0), np.int64))

        self.cells = Cells.zeros(tables, self.encoder.size, players)
        self.obs = self.cells.obs  # the core's own observations (unless a step writes elsewhere)
        self.rewards = np.zeros(tables, np.float64)
        self.terminated = np.zeros(tables, np.bool_)
        self.finished = np.ones(tables, np.bool_)
        self.actions = np.zeros(tables, np.int64)
        self.hand = np.zeros(tables, np.int64)
        self.lives = np.zeros((tables, players), np.int64)
        self.winners = np.zeros((tables, players + 1), np.int64)
        steps = _Steps(self.actions, self.finished, self.rewards, self.terminated, self.hand, self.lives,
                       self.winners)
        self._args = (steps, self.agent, self.rules_arrays, policies.arrays(), self.given, self.counts,
                      self.state)
        # the default rules with threshold bots get the step compiled for them (constants: faster)
        kinds = policies.kind.tolist()
        standard = (script is None and tuple(self.rules_arrays.vector[1:].tolist()) == STANDARD[1:]
                    and all(kind == K.P_THRESHOLD for s, kind in enumerate(kinds) if s != seat))
        self._entry: Any = _batch_standard if standard else _batch
        self._batch: Any = self._entry
        self._first = True  # the next step is the first (numba loads or compiles the step)
        self._every = np.ones(tables, np.bool_)  # the mask of entries every table has, shared
        self._every.flags.writeable = False

    def seed(self, table: int, seed: int) -> None:
        """Give a table's generator its seed."""
        self.state.rng[table, 0] = np.uint64(seed % 2**64)

    def step(self, actions: npt.NDArray[Any] | None = None, out: Cells | None = None) -> None:
        """Every finished table starts a new game (the first in which the agent has a decision),
        every other table's agent plays its action (0 keep, 1 swap; ``actions``, else those already
        in ``self.actions``) and the others play on; then ``rewards``, ``terminated`` and
        ``finished`` hold the outcome, and the observations are in ``out`` (else ``self.obs``).
        Actions other than 0 and 1 are refused (ValueError) with nothing played."""
        if actions is not None:
            np.copyto(self.actions, actions, casting="same_kind")
        cells = self.cells if out is None else out
        if self._first:  # numba loads the step from its cache, or compiles it (told)
            bad = first_step(self._entry, (cells, *self._args), self.notice)
            self._batch = _compiled(self._entry, (cells, *self._args))
            self._first = False
        else:
            bad = self._batch(cells, *self._args)
        if bad == BAD_ACTION:
            raise ValueError(f"bad actions {self.actions.tolist()!r}: {self.tables} of 0 (keep) or 1 (swap)")
        if bad >= 0:
            raise ValueError(f"the script of table {bad} ran out")

    def reset(self, out: Cells | None = None) -> None:
        """A new game at every table."""
        self.finished[:] = True
        self.actions[:] = 0
        self.step(out=out)

    def info(self) -> dict[str, Any]:
        """Each table's hand number and every seat's lives, and at a table whose game just ended
        its winners in turn order (as ``ChaseTheAce-v0``'s info), with Gymnasium's ``_key`` masks
        saying which tables have each entry."""
        every = self._every
        winners = np.empty(self.tables, dtype=object)  # None everywhere
        ended = self.terminated.nonzero()[0]
        if ended.size:
            for b, row in zip(ended.tolist(), self.winners.take(ended, 0).tolist()):
                winners[b] = row[1:row[0] + 1]
        return {"hand": self.hand.copy(), "_hand": every, "lives": self.lives.copy(), "_lives": every,
                "winners": winners, "_winners": self.terminated.copy()}


def _compiled(dispatcher: Any, args: tuple[Any, ...]) -> Any:
    """The compiled function a numba dispatcher runs for ``args``, called without the dispatcher's
    typing of every argument on every call (measured: 25 us a call, against 2.5 us, for the
    thirty-odd arrays of a step; they keep their types for the core's life), or the dispatcher
    itself if numba does not give it."""
    from numba import typeof

    found = dispatcher.overloads.get(tuple(typeof(a) for a in args))  # type: ignore[no-untyped-call]
    return dispatcher if found is None else found.entry_point


def _refs(cells: Cells) -> int:
    """How many references the observations of ``cells`` have (counted the same way each time)."""
    return getrefcount(cells.obs)


# the count of an array referred to by its Cells alone (measured, not assumed: what getrefcount
# counts of a call's own references differs between Python versions)
_ALONE = _refs([Cells(np.empty(1, np.float32), np.empty(1, np.int64))][0])


class ChaseTheAceVectorEnv(gym.vector.VectorEnv[npt.NDArray[np.float32], npt.NDArray[np.int64],
                                                npt.NDArray[Any]]):
    """``num_envs`` tables of Chase the Ace in the kernel; options as ``ChaseTheAce-v0`` (``players``,
    ``seat``, ``opponents``, ``preset``, rule keys, ``win_reward``) except ``single_hand`` and
    rendering. Opponents must be bots the kernel can play (NotCompilableError otherwise).

    ``copy``, as in Gymnasium's own vector envs: True (the default), the observations ``reset`` and
    ``step`` return are the caller's, never written again by the env while the caller holds them
    (the array, or anything made from it: a view, a memoryview, a tensor sharing its memory); an
    array the caller has let go of is written again (checked by its reference count: no other object
    refers to it), else a new one is made, which saves making and faulting in fresh memory at every
    step. Each is written whole (every row cleared first: the caller may have written to it). False,
    the env's own array, which the next step overwrites (each row clearing only the cells it set: the
    fastest, for a learner that stores what it needs before the next step).

    ``notice``: where a compile of the env's step at its first step is told, when it starts (with
    the time it takes) and ends (by default a line on standard error: :func:`say`; None: nowhere).
    numba keeps the compiled step on disk: it compiles once on a machine (minutes), for the default
    rules ahead with ``make fast`` (:func:`warm_up`)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012 (declared so by gymnasium)

    def __init__(self, num_envs: int = 8, players: int = 3, seat: int = 0,
                 opponents: str | Sequence[str] = "threshold", preset: str = "standard",
                 win_reward: float = 1.0, copy: bool = True,
                 notice: Callable[[str], None] | None = say, **rules: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"bad num_envs {num_envs!r}: an integer >= 1")
        if "single_hand" in rules:
            raise ValueError("the vector env plays whole games: single_hand is not an option here")
        chosen, n = table_options(players, preset, **rules)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"bad seat {seat!r}: allowed 0..{n - 1}")
        specs = [opponents] * (n - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != n - 1:
            raise ValueError(f"bad opponents: {n - 1} bot specs needed, one per other seat, got {len(specs)}")
        bots = list(specs)
        bots.insert(seat, "random")  # the agent's seat: its policy is never consulted
        self.core = VectorCore(chosen, n, seat, compile_bots(bots, chosen), num_envs, win_reward=win_reward,
                               notice=notice)
        self.num_envs, self.copy = num_envs, copy
        self.single_observation_space = spaces.Box(0.0, 1.0, (self.core.encoder.size,), np.float32)
        self.single_action_space = spaces.Discrete(2)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._unknown = np.full((num_envs, 1), -1, np.int64)  # no cell known: a row is written whole
        self._handed: list[Cells] = []  # with copy: the last arrays handed out, to reuse when let go
        self._next = 0  # the oldest of them, replaced when none is free
        self._shape = (num_envs,)

    def _out(self) -> Cells:
        """Where the next observations are written: with ``copy``, one of the last arrays handed out
        that nothing refers to any more but this env (its rows are written whole: every row's cells
        unknown), else a new one; without, the env's own."""
        if not self.copy:
            return self.core.cells
        handed = self._handed
        for cells in handed:
            if _refs(cells) == _ALONE:  # a view, memoryview or tensor of it held anywhere adds one
                return cells
        cells = Cells(np.empty(self.core.obs.shape, np.float32), self._unknown)
        if len(handed) < HANDED:
            handed.append(cells)
        else:  # all still held: the oldest is the caller's alone from now on
            handed[self._next] = cells
            self._next = (self._next + 1) % HANDED
        return cells

    def reset(self, *, seed: int | list[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """New games at every table (``seed``: one for all, or one per table)."""
        if isinstance(seed, int) or seed is None:
            if seed is not None or self._np_random is None:  # no seed: the generator goes on
                self._np_random, self._np_random_seed = gym.utils.seeding.np_random(seed)
            seeds = self._np_random.integers(0, 2**63, self.num_envs).tolist()
        else:
            if len(seed) != self.num_envs:
                raise ValueError(f"bad seed: {self.num_envs} seeds needed, one per table, got {len(seed)}")
            seeds = [int(np.random.SeedSequence(s).generate_state(1, np.uint64)[0]) for s in seed]
        for table, value in enumerate(seeds):
            self.core.seed(table, value)
        out = self._out()
        self.core.reset(out)
        return out.obs, self.core.info()

    def step(self, actions: Any) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float64],
                                          npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]]:
        """Each table's agent keeps (0) or swaps (1); finished tables start a new game instead."""
        acts = np.asarray(actions)
        if acts.dtype.kind not in "biu":  # integers are checked in the kernel, others here
            numeric = acts.dtype.kind == "f"  # compared as they are (np.isin sorts: slower)
            if acts.shape == (self.num_envs,) and (
                    ((acts == 0) | (acts == 1)).all() if numeric else np.isin(acts, (0, 1)).all()):
                acts = acts.astype(np.int64)
        if acts.shape != (self.num_envs,) or acts.dtype.kind not in "biu":
            raise ValueError(f"bad actions {actions!r}: {self.num_envs} of 0 (keep) or 1 (swap)")
        core, out = self.core, self._out()
        core.step(acts, out)
        return (out.obs, core.rewards.copy(), core.terminated.copy(), np.zeros(self.num_envs, np.bool_),
                core.info())


def warm_up(notice: Callable[[str], None] | None = None) -> str:
    """Load the default rules' step of the env (threshold bots, any seat, players and lives: one
    compiled function) from numba's cache, compiling it first if it is not there yet (told to
    ``notice``, with its measured time kept for the next compile's notice). ``make fast`` runs it
    ahead of a first use. Returns what happened, in words (a compile: :data:`COMPILE_CPU_SECONDS`;
    a load from the cache: about a second)."""
    rules = Rules()
    core = VectorCore(rules, 5, 0, compile_bots(("random",) + ("threshold",) * 4, rules), 1, notice=notice)
    start, cpu = time.perf_counter(), time.process_time()
    compiled_before = sum(core._entry.stats.cache_misses.values())
    core.reset()
    compiled = sum(core._entry.stats.cache_misses.values()) > compiled_before
    how = "compiled" if compiled else "loaded from numba's cache"
    return f"{how} in {time.perf_counter() - start:.1f} s ({time.process_time() - cpu:.1f} s of CPU time)"


def make(num_envs: int = 8, **options: Any) -> ChaseTheAceVectorEnv:
    """The vector env (Gymnasium's ``vector_entry_point``)."""
    return ChaseTheAceVectorEnv(num_envs=num_envs, **options)


if ID not in gym.registry:
    gym.register(id=ID, vector_entry_point="chasetheace.adapters.vector:make")
