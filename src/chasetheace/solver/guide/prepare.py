"""Build the solutions shipped with the package: ``python -m chasetheace.solver.guide.prepare``.

A person at any table should not wait for the solver: for every named preset (``rules.PRESETS``)
and every table of 2 to 20 seats it allows (a preset meant for a fixed count, ``le-her``, at that
count only), the hand is solved here, ahead, exactly as the solution cache would solve it
(:func:`~chasetheace.solver.solutions.cache.solution_for`: exactly up to 5 players, ``iid`` up to 9
without pairing or kings_jerk, :data:`~chasetheace.solver.solutions.cache.AHEAD_IID_PLAYERS`, where
the table solves up to 7; the sampled method above for
:func:`~chasetheace.solver.solutions.choice.sampled_batches` mini-batches, seed 0: the same files on
any machine, at any load), except at :data:`TRUE_PLAYERS` (8 and 9) players where the rules allow
``iid``: there the ``iid`` strategy is only the start of :data:`TRUE_ITERATIONS` iterations of
discounted CFR on the exact tree of the true game, evaluated in parts in ``--workers`` processes,
and the file's NashConv is an exact best response's in the true game (every finished part kept in
a checkpoint folder under the cache, ``prepare-<file name>-dcfr<iterations>``: a run stopped
resumes there; :data:`TRUE_AGAIN` names the tables that still ship their ``iid`` strategy), and
from
:data:`~chasetheace.solver.solutions.choice.SUMMARY_PLAYERS` (10) players, where the summary
learner (method ``summary``, :class:`~chasetheace.solver.methods.sampled.SummarySolver`) trains
:func:`~chasetheace.solver.solutions.choice.summary_batches` mini-batches, seed 0, by hands played,
never by the clock, then refines its strategy in
:func:`~chasetheace.solver.solutions.choice.refine_passes` passes of
:data:`~chasetheace.solver.solutions.choice.REFINE_HANDS` hands
(:meth:`~chasetheace.solver.methods.sampled.SummarySolver.refine`; the file says so: ``refined``,
``method_text``), its state kept every few mini-batches and after each pass in a checkpoint folder
under the cache (``prepare-<file name>-refine<passes>x<hands>``): a run stopped (even by ``kill -9``)
and started again resumes there and writes the same strategy and figures (only the seconds differ).
It is written compact (:func:`~chasetheace.solver.solutions.packed.write_npz`, ``compact``) to
:data:`~chasetheace.solver.solutions.cache.PREPARED` under the cache's own file names. Presets
whose hands are alike (they differ only in lives or other options one hand does not see:
:func:`~chasetheace.solver.solutions.cache.hand_rules`) share one file. The names carry the solver
version: after a version bump the old files are never read, and this tool (run again)
removes them. ``tests/test_solver_packed.py`` checks that the shipped files are those of the
current version, for every preset and size.

The full solutions are first saved in the solution cache (``--cache``, by default the user's, or
``$CHASE_THE_ACE_CACHE``): a run that is stopped resumes from there, and files already shipped in
this version are kept (unless solved by another method than the one solving ahead now chooses).
``--again`` solves the tables named afresh all the same, reading neither the shipped file nor the
cache's: for a change to the solve that keeps the version (the final ``agree`` step of a CFR or
``iid`` solve, :func:`~chasetheace.solver.solutions.solving.agree`, reached the 6-9 player tables
of every preset so).
One solve at a time, CPU-bound: run it with ``nice`` (at 9 players, standard rules, ``iid`` takes
about 6 CPU minutes and 4.9 GB at its peak; then each pass over the parts about 1,600 CPU seconds,
a worker up to 4.7 GB).

    python -m chasetheace.solver.guide.prepare                     # every preset, 2 to 20 players
    python -m chasetheace.solver.guide.prepare --preset cuckoo --players 9 12
    nice python -m chasetheace.solver.guide.prepare --players 10 11 12 13 14 15 16 17 18 19 20
    nice python -m chasetheace.solver.guide.prepare --again --preset cuckoo --players 6 7
    nice python -m chasetheace.solver.guide.prepare --again --preset cuckoo --players 8 9 --workers 2
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ...rules import PRESETS as NAMED
from ...rules import Rules
from ..solutions import cache
from ..solutions.choice import (
    QUICK_EXACT_PLAYERS,
    REFINE_HANDS,
    SUMMARY_PLAYERS,
    refine_passes,
    summary_batches,
)
from ..solutions.solution import Solution

__all__ = ["PENDING", "PLAYERS", "PRESETS", "REFINED_NOW", "REFINE_AGAIN", "TRUE_AGAIN", "TRUE_GAME",
           "TRUE_ITERATIONS", "TRUE_NOW", "TRUE_PLAYERS", "expected_files", "main", "prepare", "tables"]

PRESETS = tuple(p.name for p in NAMED)
"""The presets whose tables ship: every named one."""
PLAYERS = range(2, 21)
"""The shipped table sizes (a preset's own count where it names one)."""
PENDING: frozenset[tuple[str, int]] = frozenset()
"""The (preset, players) of :func:`tables` not shipped yet (solved at the table on first use):
:func:`prepare` solves them too; once shipped, remove them here. None in this version."""


def tables(presets: Sequence[str] = PRESETS, players: Sequence[int] = PLAYERS) -> list[tuple[str, int]]:
    """The (preset, players) to ship, one per distinct hand (the first preset that has it)."""
    out: list[tuple[str, int]] = []
    seen: set[tuple[str, int]] = set()
    for name in presets:
        info = next(p for p in NAMED if p.name == name)
        for n in players if info.players is None else [info.players]:
            key = (cache.rules_key(cache.hand_rules(info.rules)), n)
            if key not in seen and n in players:
                seen.add(key)
                out.append((name, n))
    return out


TRUE_PLAYERS = range(8, 10)
"""The table sizes whose shipped files are solved in the true game, where the rules let the exact
tree start from the hand without card removal (no pairing, no kings_jerk): :data:`TRUE_ITERATIONS`
iterations of discounted CFR on the exact tree, evaluated in parts
(:mod:`~chasetheace.solver.methods.parts`), started from the ``iid`` strategy, then measured by an
exact best response in the true game (``measured == "exact"``: the NashConv a hint quotes is the true
game's). The ``iid`` strategy alone is up to 1.37e-3 lives a hand from an equilibrium there (standard
rules, 9 players; 8.0e-4 at 8)."""
TRUE_ITERATIONS = 2
"""The CFR iterations of a :data:`TRUE_PLAYERS` table (each a pass over the parts; one more for the
check): at 9 players, standard rules, a pass is about 1,600 CPU seconds."""
TRUE_GAME: frozenset[tuple[str, int]] = frozenset(
    (p, n) for p, n in tables(players=TRUE_PLAYERS)
    if not (Rules.preset(p).pairing or Rules.preset(p).kings_jerk))
"""The (preset, players) that :func:`prepare` solves in the true game (:data:`TRUE_PLAYERS`)."""
TRUE_NOW: frozenset[tuple[str, int]] = frozenset(
    {("standard", 8), ("standard", 9), ("chase-the-ace", 8), ("cuckoo", 9)})
"""The tables of :data:`TRUE_GAME` shipped so in this version; the others of :data:`TRUE_GAME`
(:data:`TRUE_AGAIN`) still ship their ``iid`` strategy, solved without card removal."""
TRUE_AGAIN: frozenset[tuple[str, int]] = TRUE_GAME - TRUE_NOW
"""The tables of :data:`TRUE_GAME` that ship the ``iid`` strategy for now: ``prepare --again`` solves
them in the true game; once shipped so, move them to :data:`TRUE_NOW`."""

REFINED_NOW: frozenset[tuple[str, int]] = frozenset(
    (preset, n) for preset in ("standard", "chase-the-ace", "cuckoo") for n in range(10, 16))
"""The (preset, players) from :data:`~chasetheace.solver.solutions.choice.SUMMARY_PLAYERS` whose
shipped file is refined by the current default schedule
(:func:`~chasetheace.solver.solutions.choice.refine_passes` passes of
:data:`~chasetheace.solver.solutions.choice.REFINE_HANDS` hands, moving all the way where sure to a
standard error)."""
REFINE_AGAIN: frozenset[tuple[str, int]] = frozenset(
    tables(players=range(SUMMARY_PLAYERS, PLAYERS.stop))) - REFINED_NOW
"""The other big tables: their shipped file was made before the current refinement schedule, refined
with the earlier one (6 passes of 200,000 hands moving half way where sure to two standard errors:
standard, chase-the-ace and cuckoo 16-20 players, cassell-1882 10-13) or trained only
(cassell-1882 14-20). They are played as shipped; :func:`prepare` solves them again with the
current schedule (about 4 CPU hours for all of them, extrapolated); once shipped so, move them to
:data:`REFINED_NOW`."""


def expected_files(folder: Path = cache.PREPARED, pending: bool = False) -> set[str]:
    """The file names the shipped solutions have in this version (``pending``: with those of
    :data:`PENDING`, as :func:`prepare` writes them)."""
    return {cache.cache_path(Rules.preset(p), n, folder=folder).name for p, n in tables()
            if pending or (p, n) not in PENDING}


def _say(text: str, done: float) -> None:
    print(text, flush=True)


def prepare(presets: Sequence[str] = PRESETS, players: Sequence[int] = PLAYERS,
            folder: Path = cache.PREPARED, solved: str | None = None, again: bool = False,
            workers: int = 1) -> list[Path]:
    """Solve (into the cache folder ``solved``) and write compact into ``folder`` the shipped
    solutions of ``presets`` and ``players`` (those already there in this version are kept, unless
    ``again``: then they are solved again, neither the shipped file nor a cached solution read);
    remove the files that are not shipped in this version. Returns the files written or kept.
    ``workers``: the processes that evaluate the parts of a :data:`TRUE_GAME` table (the result
    does not depend on it)."""
    folder.mkdir(parents=True, exist_ok=True)
    expected = expected_files(folder, pending=True)
    for stale in folder.glob("*.npz"):
        if stale.name not in expected:
            stale.unlink()
    out = []
    for preset, n in tables(presets, players):
        rules = Rules.preset(preset)
        path = cache.cache_path(rules, n, folder=folder)
        start = time.perf_counter()
        if again or not _ships(path, rules, n):
            if n >= SUMMARY_PLAYERS:  # its checkpoint holds a finished training: only the figures again
                sol = _summary(rules, n, path, solved)
            elif (preset, n) in TRUE_GAME:  # its checkpoint holds the finished parts: resumed there
                sol = _true(rules, n, path, solved, workers)
            elif again:
                sol = _again(rules, n, solved)
            else:
                sol = cache.solution_for(rules, n, folder=solved, progress=_say,
                                         iid_players=cache.AHEAD_IID_PLAYERS)
            cache.save_solution(sol, path, compact=True)
            path.chmod(0o644)  # package data: readable by all (the cache writes private files)
        print(f"{preset}, {n} players: {path.name}, {path.stat().st_size / 1e6:.2f} MB, "
              f"{time.perf_counter() - start:.0f} s", flush=True)
        out.append(path)
    return out


def _summary(rules: Rules, players: int, path: Path, solved: str | None) -> Solution:
    """The summary learner's solution for ``rules`` and ``players`` (shipped as ``path``), trained
    with a checkpoint in the cache folder ``solved``, resumed from it if a run stopped there."""
    from ..solutions.solving import solve

    passes = refine_passes(players)
    # a folder of its own per refinement: the checkpoint of a training without it is another solve
    folder = cache.cache_folder(solved) / (f"prepare-{path.stem}" + (f"-refine{passes}x{REFINE_HANDS}"
                                                                       if passes else ""))

    def say(text: str) -> None:
        if not text.startswith("sampled batch") or text.split()[2].rstrip("0") != text.split()[2]:
            print(f"{players} players: {text}", flush=True)  # every 10th batch

    return solve(rules, players, method="summary", iterations=summary_batches(players), seed=0,
                 exact_check=False, checkpoint=folder, progress=say, refine=passes, refine_hands=REFINE_HANDS)


def _true(rules: Rules, players: int, path: Path, solved: str | None, workers: int) -> Solution:
    """The solution of ``rules`` and ``players`` (shipped as ``path``) in the true game: discounted
    CFR on the exact tree in parts, :data:`TRUE_ITERATIONS` iterations from the ``iid`` strategy,
    then an exact best response; every finished part kept in a checkpoint folder of the cache
    ``solved`` (``prepare-<file name>-dcfr<iterations>``), so that a run stopped resumes there."""
    from ..model.hand import Hand
    from ..solutions.solving import AGREE_GAP, AGREE_PASSES, agree_in_parts, open_checkpoint, solve

    def say(text: str) -> None:
        print(f"{players} players: {text}", flush=True)

    folder = cache.cache_folder(solved) / f"prepare-{path.stem}-dcfr{TRUE_ITERATIONS}"
    sol = solve(rules, players, method="dcfr", iterations=TRUE_ITERATIONS, workers=workers,
                checkpoint=folder, progress=say)
    # then the situations where it mostly plays the action its own figures call worse
    store = open_checkpoint(folder.with_name(folder.name + "-agree"), Hand(rules, players), "agree",
                            passes=AGREE_PASSES, gap=AGREE_GAP)
    agreed, counts = agree_in_parts(sol, workers, checkpoint=store, progress=say)
    say(f"situations that disagree with their own figures: {' -> '.join(map(str, counts))}; "
        f"NashConv {sol.nash_conv:.3e} -> {agreed.nash_conv:.3e} (exact)")
    return agreed


def _again(rules: Rules, players: int, solved: str | None) -> Solution:
    """The solution of ``rules`` and ``players`` solved now as solving ahead solves it (the
    solution cache's :func:`~chasetheace.solver.solutions.cache.solution_for` with
    :data:`~chasetheace.solver.solutions.cache.AHEAD_IID_PLAYERS`), saved in the cache folder
    ``solved`` in place of whatever it held."""
    from ..solutions.solving import solve

    # as cache.solution_for solves a size it has not got (``method="auto"``): exact up to
    # QUICK_EXACT_PLAYERS, then iid up to AHEAD_IID_PLAYERS where the rules allow it, else sampled
    sol = solve(rules, players, exact_check=None if players <= QUICK_EXACT_PLAYERS else False,
                progress=lambda text: print(f"{players} players: {text}", flush=True))
    cache.save_solution(sol, cache.cache_path(rules, players, folder=solved))
    return sol


def _ships(path: Path, rules: Rules, players: int) -> bool:
    """Whether ``path`` holds a solution of this version for the hands of ``rules`` and ``players``,
    solved by the method solving ahead now chooses (a table solved by the sampled method before
    :data:`~chasetheace.solver.solutions.cache.AHEAD_IID_PLAYERS` reached it is solved again, and
    the summary learner's with another budget or refinement than now)."""
    try:
        sol = Solution.load(str(path))
    except (OSError, ValueError):
        return False
    iid = players <= cache.AHEAD_IID_PLAYERS and not (rules.pairing or rules.kings_jerk)
    method = "summary" if players >= SUMMARY_PLAYERS else "iid" if iid else "sampled"
    true = players in TRUE_PLAYERS and iid
    if true:
        method = "dcfr"
    return (cache.hand_rules(sol.rules) == cache.hand_rules(rules) and sol.players == players
            and (players <= QUICK_EXACT_PLAYERS or sol.method == method)
            and (not true or (sol.iterations == TRUE_ITERATIONS and sol.measured == "exact"))
            and (method != "summary" or (sol.iterations == summary_batches(players)
                                         and sol.refined == _refinement(players))))


def _refinement(players: int) -> tuple[int, int] | None:
    """The (passes, hands a pass) of refinement the summary learner's shipped file records now."""
    passes = refine_passes(players)
    return (passes, REFINE_HANDS) if passes else None


def main(argv: Sequence[str] | None = None) -> int:
    """Run :func:`prepare` from the command line."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", action="append", choices=PRESETS, metavar="NAME",
                        help="only this preset (repeatable; default every one)")
    parser.add_argument("--players", type=int, nargs="*", default=list(PLAYERS))
    parser.add_argument("--cache", help="the solution cache folder the full solutions go to first "
                                        "(default the user's, or $CHASE_THE_ACE_CACHE)")
    parser.add_argument("--again", action="store_true",
                        help="solve the tables named again even where this version's file ships "
                             "(after a change to the solve that keeps the version, such as the agree step)")
    parser.add_argument("--workers", type=int, default=1,
                        help="processes evaluating the parts of the tables solved in the true game "
                             f"({TRUE_PLAYERS.start} to {TRUE_PLAYERS.stop - 1} players; default 1: at 9 "
                             "players a worker peaks at about 4.7 GB)")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error(f"--workers {args.workers}: at least 1")
    outside = [n for n in args.players if n not in PLAYERS]
    if outside:  # one line and exit 2, before any work
        parser.error(f"--players {outside[0]}: the shipped sizes are {PLAYERS.start} to {PLAYERS.stop - 1}")
    files = prepare(args.preset or PRESETS, args.players, solved=args.cache, again=args.again,
                    workers=args.workers)
    total = sum(f.stat().st_size for f in cache.PREPARED.glob("*.npz"))
    print(f"{len(files)} solutions; the folder holds {total / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
