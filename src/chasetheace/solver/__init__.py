"""Solve one hand of Chase the Ace: equilibrium strategies, their losses, and how to play them.

Needs the ``solve`` extra (numpy, scipy). The exact tree covers 2 to 6 players; two-player hands
with exactly one loser (the ``le-her`` preset) are solved exactly by linear programming; more
players use a sampled method whose NashConv is estimated with its error.

>>> import chasetheace as cta
>>> sol = cta.solve(cta.Rules.preset("le-her"), players=2)
>>> sol.value, sol.nash_conv
(Fraction(10773, 22100), 0.0)
"""

from __future__ import annotations

from typing import Any

from .hand import Deck, Hand, UnsupportedRuleError
from .solution import AUTO_EXACT_PLAYERS, MAX_EXACT_PLAYERS, METHODS, Solution, SolvedBot, cached_solve, solve

__all__ = ["AUTO_EXACT_PLAYERS", "Deck", "Hand", "cached_solve",
           "MAX_EXACT_PLAYERS", "METHODS", "Solution", "SolvedBot", "UnsupportedRuleError",
           "solve", "solved_bot"]


def solved_bot(arg: str, rules: Any, players: int) -> SolvedBot:
    """The ``--bot solved`` factory: ``solved`` solves (once per process); ``solved:FILE`` loads a
    solution saved by ``chase-the-ace solve --save FILE``."""
    if arg:
        sol = Solution.load(arg)
        if sol.rules != rules:
            raise ValueError(f"the solution in {arg} is for other rules than this game's")
        return sol.bot()
    from .cache import solution_for

    return SolvedBot(rules, {players: solution_for(rules, players, progress=_say)})


def _say(text: str, fraction: float) -> None:
    """A first solve says so on stderr (once: the solution is then cached); steps are not shown."""
    import sys

    if text.startswith("solv"):
        print(f"chase-the-ace: {text}", file=sys.stderr, flush=True)


def _register() -> None:
    from ..bots import register_bot

    register_bot("solved", solved_bot, "plays the solver's equilibrium (solved:FILE.json loads a saved one)")


_register()
