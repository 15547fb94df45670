"""Build the solutions shipped with the package: ``python -m chasetheace.solver.guide.prepare``.

A person at a big table should not wait for the solver: the standard rules' tables of
:data:`PLAYERS` seats are solved here, ahead, exactly as the solution cache would solve them
(:func:`~chasetheace.solver.solutions.cache.solution_for`: ``iid`` up to 8 players, the sampled
method above for :func:`~chasetheace.solver.solutions.choice.sampled_batches` mini-batches, seed
0: the same files on any machine), and written to :data:`~chasetheace.solver.solutions.cache.PREPARED`
under the cache's own file names, which name the solver version: after a version bump the old files
are never read, and this tool (run again) removes them. ``tests/test_solver_packed.py`` checks that
the shipped files are those of the current version.

    python -m chasetheace.solver.guide.prepare            # standard rules, 6 to 12 players
    python -m chasetheace.solver.guide.prepare --players 6 8
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ...rules import Rules
from ..solutions import cache

__all__ = ["PLAYERS", "PRESETS", "expected_files", "main", "prepare"]

PRESETS = ("standard",)
PLAYERS = range(6, 13)
"""The shipped tables: 6 to 12 players (below 6 the cache solves exactly in seconds)."""


def expected_files(folder: Path = cache.PREPARED) -> set[str]:
    """The file names the shipped solutions have in this version."""
    return {cache.cache_path(Rules.preset(p), n, folder=folder).name for p in PRESETS for n in PLAYERS}


def _say(text: str, done: float) -> None:
    print(text, flush=True)


def prepare(players: Sequence[int] = PLAYERS, folder: Path = cache.PREPARED) -> list[Path]:
    """Solve and write the shipped solutions (those already there in this version are kept);
    remove the files of other solver versions. Returns the files written or kept."""
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.npz"):
        if not stale.name.startswith(f"v{cache.SOLVER_VERSION}-"):
            stale.unlink()
    out = []
    for preset in PRESETS:
        rules = Rules.preset(preset)
        for n in players:
            start = time.perf_counter()
            cache.solution_for(rules, n, folder=folder, progress=_say)
            path = cache.cache_path(rules, n, folder=folder)
            path.chmod(0o644)  # package data: readable by all (the cache writes private files)
            print(f"{preset}, {n} players: {path.name}, {path.stat().st_size / 1e6:.2f} MB, "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
            out.append(path)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run :func:`prepare` from the command line."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, nargs="*", default=list(PLAYERS))
    args = parser.parse_args(argv)
    files = prepare(args.players)
    total = sum(f.stat().st_size for f in cache.PREPARED.glob("*.npz"))
    print(f"{len(files)} solutions; the folder holds {total / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
