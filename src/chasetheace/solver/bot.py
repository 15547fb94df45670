"""The solver as a player: :class:`SolvedBot`, and solving once per process (:func:`cached_solve`)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from ..game import Action
from ..rules import Rules
from .solution import Solution, infoset_of, solve

__all__ = ["SAMPLED_SECONDS", "SolvedBot", "cached_solve", "solved_bot"]


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


_CACHE: dict[tuple[Any, ...], Solution] = {}


SAMPLED_SECONDS = 30.0
"""How long :func:`cached_solve` (hence the ``solved`` bot) trains the sampled method."""


def cached_solve(rules: Rules, players: int, method: str = "auto", tolerance: float = 1e-4) -> Solution:
    """:func:`solve`, remembered for the life of the process (the sampled method trains for
    :data:`SAMPLED_SECONDS`; a bot needs the strategy, not its measurement: no exact check)."""
    key = (tuple(sorted(rules.to_dict().items())), players, method, tolerance)
    sol = _CACHE.get(key)
    if sol is None:
        sol = _CACHE[key] = solve(rules, players, method=method, tolerance=tolerance,
                                  time_limit=SAMPLED_SECONDS, exact_check=False)
    return sol


def solved_bot(arg: str, rules: Any, players: int) -> SolvedBot:
    """The ``--bot solved`` factory: ``solved`` solves (once per process); ``solved:FILE`` loads a
    solution saved by ``chase-the-ace solve --save FILE``."""
    if arg:
        sol = Solution.load(arg)
        if sol.rules != rules:
            raise ValueError(f"the solution in {arg} is for other rules than this game's")
        return sol.bot()
    return SolvedBot(rules, {players: cached_solve(rules, players)})
