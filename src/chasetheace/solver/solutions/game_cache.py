"""Whole-game solutions on disk, and which tables the whole-game solver covers.

:func:`game_solution_for` is to :func:`~chasetheace.solver.methods.whole_game.solve_game` what
:func:`~chasetheace.solver.solutions.cache.solution_for` is to ``solve``: it looks in memory, then in the
same cache folder, and only then solves (and saves). This module needs no numpy until it solves or
reads a solution, so a table outside the solver's reach is refused with one clear line first.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ...rules import Rules
from ..methods.game_limits import check_game
from .cache import cache_folder, rules_key, save_json

if TYPE_CHECKING:
    from ..methods.whole_game import GameSolution

__all__ = ["GAME_VERSION", "game_cache_path", "game_solution_for", "load_game"]

GAME_VERSION = 2
"""Bumped whenever a whole-game solution's content changes (2: the whole game's NashConv saved);
older files are not read."""

_MEMORY: dict[tuple[str, int, int, float], GameSolution] = {}
_LOCK = threading.Lock()


def game_cache_path(rules: Rules, players: int, lives: int, tolerance: float = 1e-5,
                    folder: str | os.PathLike[str] | None = None) -> Path:
    """The file that holds (or will hold) the whole-game solution for this table."""
    text = json.dumps([rules_key(rules), players, lives, tolerance, GAME_VERSION])
    digest = hashlib.sha256(text.encode()).hexdigest()[:20]
    return cache_folder(folder) / f"game-v{GAME_VERSION}-{players}p-{lives}l-{digest}.json"


def load_game(path: str | os.PathLike[str]) -> GameSolution:
    """Read a whole-game solution saved as JSON (ValueError if the file is not one)."""
    from ..methods.whole_game import GameSolution

    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except json.JSONDecodeError:
        raise ValueError(f"{path} is not a whole-game solution (not JSON)") from None
    return GameSolution.from_dict(data)


def game_solution_for(rules: Rules, players: int, lives: int | None = None, *, tolerance: float = 1e-5,
                      folder: str | os.PathLike[str] | None = None,
                      progress: Callable[[str], None] | None = None) -> GameSolution:
    """The whole-game solution for ``players`` starting on ``lives`` (default the rules'): from
    memory, from disk, or solved now and saved. ``progress`` hears about a solve, never a cache hit."""
    lives = rules.lives if lives is None and isinstance(rules, Rules) else lives
    check_game(rules, players, lives)
    assert isinstance(lives, int)
    key = (rules_key(rules), players, lives, tolerance)
    path = game_cache_path(rules, players, lives, tolerance, folder)
    with _LOCK:
        sol = _MEMORY.get(key) or _read(path, rules, players, lives)
        if sol is None:
            from ..methods.whole_game import solve_game

            if progress is not None:
                progress(f"solving the whole game for {players} players on {lives} lives "
                         f"(once: the solution is then cached)")
            sol = solve_game(rules, players, lives=lives, tolerance=tolerance, progress=progress)
            if progress is not None:  # the whole game's own figure, not a hand's
                progress(f"solved the whole game in {sol.seconds:.0f} s: NashConv "
                         f"{sol.nash_conv:.1e} in chance of winning the game (exact: each player "
                         "best responding in every lives state at once)")
            sol.paths.clear()  # a bot needs only the strategies; the hands' models are large
            save_json(sol, path)
        _MEMORY[key] = sol
        return sol


def _read(path: Path, rules: Rules, players: int, lives: int) -> GameSolution | None:
    try:
        sol = load_game(path)
    except (OSError, ValueError):
        return None  # absent, or unreadable: solving again replaces it
    if sol.rules != rules or sol.players != players or sol.lives != lives:
        return None
    return sol
