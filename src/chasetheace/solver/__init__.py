"""Solve one hand of Chase the Ace: equilibrium strategies, their losses, and how to play them.

Needs the ``solve`` extra (numpy, scipy). ``solve(method="auto")`` picks its method from one
table of player counts (:data:`~.solutions.choice.AUTO`): the exact LP for two-player hands with
exactly one loser (the ``le-her`` preset), DCFR on the exact tree up to 5 players and at 6 without
pairing or kings_jerk, DCFR without card removal (``iid``) up to 9, and a sampled method whose
NashConv is estimated with its error above (or under pairing or kings_jerk from 6 players).

The solver's rooms, each importing only those below it: :mod:`.model` (one hand: its rules, its
trees, its situations in words), :mod:`.methods` (CFR, the LP, the sampled method, measuring, the
whole game with lives), :mod:`.solutions` (which method, ``solve()``, :class:`Solution`, the
caches), :mod:`.uses` (hints, reviews, the solved bot, reports, plots) and :mod:`.guide` (the
generators of the strategy guide, build tools). This module is their one face; the old module
paths (``chasetheace.solver.solution``, ``.cache``, ``.advice``...) forward to the new ones with a
DeprecationWarning until 0.3.0.

>>> import chasetheace as cta
>>> sol = cta.solve(cta.Rules.preset("le-her"), players=2)
>>> sol.value, sol.nash_conv
(Fraction(10773, 22100), 0.0)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..rules import Rules
from .model.hand import Deck, Hand
from .solutions.choice import AUTO, AUTO_EXACT_PLAYERS, MAX_EXACT_PLAYERS, METHODS
from .solutions.solution import Solution
from .solutions.solving import solve
from .uses.bot import SolvedBot, cached_solve

if TYPE_CHECKING:
    from .methods.whole_game import GameSolution


def solve_game(rules: Rules | None = None, players: int = 3, *, lives: int | None = None,
               tolerance: float = 1e-5, iterations: int = 5000,
               progress: Callable[[str], None] | None = None) -> GameSolution:
    """An equilibrium of the whole game with lives (2 to 5 players, up to 4 lives, 3 at 5 players): see
    :func:`chasetheace.solver.methods.whole_game.solve_game` (imported here on first use: it needs numpy)."""
    from .methods.whole_game import solve_game as solve_whole

    return solve_whole(rules, players, lives=lives, tolerance=tolerance, iterations=iterations,
                       progress=progress)

__all__ = ["AUTO", "AUTO_EXACT_PLAYERS", "Deck", "Hand", "MAX_EXACT_PLAYERS", "METHODS", "Solution",
           "SolvedBot", "cached_solve", "solve", "solve_game"]
