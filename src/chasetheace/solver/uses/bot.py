"""The solver as a player: :class:`SolvedBot`, and solving once per process (:func:`cached_solve`)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from ...game import Action
from ...rules import Rules
from ..model.hand import infoset_of
from ..solutions.cache import solution_for
from ..solutions.solution import Solution

__all__ = ["SolvedBot", "cached_solve"]


class SolvedBot:
    """Plays the solver's equilibrium; solves for other player counts when players are knocked out.

    Where a solution has no entry for a situation (the sampled method never met it), it keeps when
    the position keeps that card more often than not on average.
    """

    name = "solved"

    def __init__(self, rules: Rules, solutions: Mapping[int, Solution] | None = None, *,
                 method: str = "auto", tolerance: float = 1e-4) -> None:
        self.rules = rules
        self.solutions: dict[int, Solution] = dict(solutions or {})
        self.method = "auto" if method == "lp" else method
        self.tolerance = tolerance
        self.fallbacks = 0

    @classmethod
    def of(cls, solution: Solution) -> SolvedBot:
        """A bot playing ``solution`` (other player counts solved on demand, as the solution was).

        >>> import chasetheace as cta
        >>> SolvedBot.of(cta.solve(cta.Rules.preset("le-her"), players=2))
        SolvedBot([2] players)
        """
        return cls(solution.rules, {solution.players: solution}, method=solution.method)

    def solution(self, players: int) -> Solution:
        """The solution for ``players`` seats (solved now if needed, and kept)."""
        sol = self.solutions.get(players)
        if sol is None:
            sol = self.solutions[players] = cached_solve(self.rules, players, self.method, self.tolerance)
        return sol

    def choose(self, observation: Mapping[str, Any], legal: Sequence[Action], rng: random.Random) -> Action:
        """Keep with the equilibrium's probability for this information set."""
        sol = self.solution(len(observation["order"]))
        key = infoset_of(observation, sol.deck, kings_jerk=sol.rules.kings_jerk)
        if not sol.knows(key):
            self.fallbacks += 1
        p = sol.played_keep(key)
        return Action.KEEP if rng.random() < p else Action.SWAP

    def __repr__(self) -> str:
        return f"SolvedBot({sorted(self.solutions)} players)"


def cached_solve(rules: Rules, players: int, method: str = "auto", tolerance: float = 1e-4) -> Solution:
    """:func:`~chasetheace.solver.solutions.solution.solve`, remembered in memory and in the cache folder
    (:func:`chasetheace.solver.solutions.cache.solution_for`)."""
    return solution_for(rules, players, method=method, tolerance=tolerance)
