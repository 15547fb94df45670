"""The one registry of games and bots: which games there are, and the bots each can seat.

Every interface (``simulate``, the terminal game, the web lobby, the adapters) names games and
bots through this module, so a bot kind is known everywhere at once and the lists cannot drift.
It sits above the games, bots and solver it lists and below every interface that uses it.

>>> sorted(GAMES)
['ace-chasing', 'chase-the-ace']
>>> list(BOT_KINDS)
['random', 'threshold', 'counting', 'solved', 'solved-game']
>>> make_bot("threshold:T")
ThresholdBot('T')
>>> make_ace_chasing_bot("threshold:9")
OddsBot(stake=0, threshold='9', margin=0.0)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .acechasing.bots import AceChasingBot, odds_from_text, random_from_text, threshold_from_text
from .bots import Bot, CountingBot, RandomBot, ThresholdBot
from .rules import Rules
from .solver import Solution, SolvedBot
from .solver.cache import announce_solving, solution_for
from .solver.game_cache import game_solution_for, load_game
from .solver.game_limits import check_game

__all__ = ["BotKind", "GameKind", "GAMES", "BOTS", "ACE_CHASING_BOTS", "BOT_KINDS", "make_bot",
           "make_ace_chasing_bot", "bot_kinds", "register_bot"]

B = TypeVar("B")


@dataclass(frozen=True)
class BotKind(Generic[B]):
    """A kind of bot: ``make(arg, rules, players)`` builds one from the text after the colon of a
    spec (``threshold:8`` gives ``"8"``), the rules in force and the table size."""

    make: Callable[[str, Rules, int], B]
    help: str


@dataclass(frozen=True)
class GameKind:
    """A game of the family: its command-line name, its title, its bots and the default one."""

    name: str
    title: str
    bots: Mapping[str, BotKind[Any]]
    default_bot: str


def _no_arg(cls: Callable[[], Bot]) -> Callable[[str, Rules, int], Bot]:
    def make(arg: str, rules: Rules, players: int) -> Bot:
        if arg:
            raise ValueError(f"the {getattr(cls, '__name__', cls)} takes no argument, got {arg!r}")
        return cls()
    return make


def _solved(arg: str, rules: Rules, players: int) -> Bot:
    """``solved`` takes the solution from the disk cache (solving once, and saying so on
    stderr); ``solved:FILE`` loads a solution saved by ``chase-the-ace solve --save FILE``."""
    if arg:
        sol = Solution.load(arg)
        if sol.rules != rules:
            raise ValueError(f"the solution in {arg} is for other rules than this game's")
        return SolvedBot.of(sol)
    return SolvedBot(rules, {players: solution_for(rules, players, progress=announce_solving)})


def _solved_game(arg: str, rules: Rules, players: int) -> Bot:
    """``solved-game`` plays the whole-game equilibrium of this table (players, the rules' lives),
    solved once and cached on disk; ``solved-game:FILE`` loads one saved as JSON."""
    check_game(rules, players, rules.lives)  # one line, before any solving
    try:
        import numpy  # noqa: F401
        import scipy  # noqa: F401
    except ImportError:
        raise ValueError("the solved-game bot needs numpy and scipy: "
                         "pip install 'chase-the-ace[solve]'") from None
    from .solver.whole import GameBot

    if arg:
        sol = load_game(arg)
        if sol.rules != rules or players > sol.players:
            raise ValueError(f"the whole-game solution in {arg} is for other rules or fewer players "
                             f"than this game's")
        return GameBot(sol)

    def say(text: str) -> None:
        announce_solving(text, 0.0)

    return GameBot(game_solution_for(rules, players, progress=say))


def _ace(make: Callable[[str], AceChasingBot]) -> Callable[[str, Rules, int], AceChasingBot]:
    return lambda arg, rules, players: make(arg)


BOTS: dict[str, BotKind[Bot]] = {
    "random": BotKind(_no_arg(RandomBot), "keeps or swaps at random"),
    "threshold": BotKind(lambda arg, rules, players: ThresholdBot(arg or 8),
                         "threshold:RANK swaps below RANK (default 8)"),
    "counting": BotKind(_no_arg(CountingBot), "counts every card it may know"),
    "solved": BotKind(_solved, "plays the solver's equilibrium (solved:FILE.json loads a saved one)"),
    "solved-game": BotKind(_solved_game, "plays the whole game's equilibrium with lives, 2-5 players, "
                           "up to 4 lives (3 at 5 players; solved-game:FILE.json loads a saved one)"),
}
"""The bots of Chase the Ace (RULES.md part A), by kind."""

ACE_CHASING_BOTS: dict[str, BotKind[AceChasingBot]] = {
    "odds": BotKind(_ace(odds_from_text),
                    "odds[:stake=N,threshold=RANK,margin=X] bets stake x the knockout chance, "
                    "accepts bets good for it, swaps below RANK (defaults 10, 7, 0)"),
    "threshold": BotKind(_ace(threshold_from_text),
                         "threshold[:RANK] never bets, accepts bets good for it, "
                         "swaps below RANK (default 7)"),
    "random": BotKind(_ace(random_from_text),
                      "random[:stake=N] random decisions, random offers in 0..N (default 10)"),
}
"""The bots of Ace Chasing (RULES.md part B), by kind."""

GAMES: dict[str, GameKind] = {
    "chase-the-ace": GameKind("chase-the-ace", "Chase the Ace", BOTS, "threshold:8"),
    "ace-chasing": GameKind("ace-chasing", "Ace Chasing", ACE_CHASING_BOTS, "odds"),
}
"""The games, by the name the command line and records use."""

BOT_KINDS = tuple(BOTS)
"""The kinds of Chase the Ace bot, in the order help lists them."""


def _make(table: Mapping[str, BotKind[B]], spec: str, rules: Rules, players: int, what: str) -> B:
    if not isinstance(spec, str):
        raise ValueError(f"a bot spec is a string like 'threshold:8', not {spec!r}")
    kind, _, arg = spec.strip().lower().partition(":")
    if kind not in table:
        raise ValueError(f"unknown {what}bot {spec!r}: allowed {', '.join(table)}")
    return table[kind].make(arg, rules, players)


def make_bot(spec: str, rules: Rules | None = None, players: int = 5) -> Bot:
    """A Chase the Ace bot from a short spec: ``random``, ``threshold:8``, ``counting``, ``solved``,
    ``solved-game``.

    >>> make_bot("counting")
    CountingBot()
    >>> make_bot("clever")
    Traceback (most recent call last):
    ValueError: unknown bot 'clever': allowed random, threshold, counting, solved, solved-game
    """
    return _make(BOTS, spec, Rules() if rules is None else rules, players, "")


def make_ace_chasing_bot(spec: str) -> AceChasingBot:
    """An Ace Chasing bot from a short spec: ``odds``, ``odds:stake=20,threshold=9``, ``random``, ...

    >>> make_ace_chasing_bot("odds:stake=20,threshold=T")
    OddsBot(stake=20, threshold='T', margin=0.0)
    """
    return _make(ACE_CHASING_BOTS, spec, Rules(), 0, "Ace Chasing ")


def bot_kinds(game: str = "chase-the-ace") -> dict[str, str]:
    """The bot kinds of ``game``, each with its line of help."""
    return {kind: entry.help for kind, entry in GAMES[game].bots.items()}


def register_bot(kind: str, make: Callable[[str, Rules, int], Bot], help: str) -> None:
    """Add a Chase the Ace bot kind of your own: ``make_bot``, the CLI and the adapters know it.

    The web table offers only the bots it was started with (see docs/deploy.md), never a kind
    registered at run time by a client.
    """
    if not kind or ":" in kind or kind != kind.strip().lower():
        raise ValueError(f"bad bot kind {kind!r}: lower-case, no colon")
    BOTS[kind] = BotKind(make, help)
