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

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .acechasing.kind import BOTS as ACE_CHASING_BOTS
from .acechasing.kind import KIND as ACE_CHASING
from .acechasing.kind import make_ace_chasing_bot
from .bots import Bot, CountingBot, RandomBot, ThresholdBot
from .errors import IllegalActionError
from .extras import needs_solver_text, solver_missing
from .game import Action, Game
from .kinds import BotKind, Carry, GameKind, Narrate, Solutions, parse_bot_spec
from .record import CHASE_THE_ACE as CHASE_THE_ACE_RECORDS
from .record import Record
from .render import Narrator
from .rules import OPTIONS, PRESETS, Rules, rules_from_args
from .solver import Solution, SolvedBot
from .solver.methods.game_limits import check_game
from .solver.solutions.cache import announce_solving, solution_for
from .solver.solutions.game_cache import game_solution_for, load_game

__all__ = ["BotKind", "GameKind", "GAMES", "CHASE_THE_ACE", "ACE_CHASING", "BOTS", "ACE_CHASING_BOTS",
           "BOT_KINDS", "make_bot", "make_ace_chasing_bot", "bot_kinds", "register_bot", "game_kind",
           "kind_of_record"]


def _no_arg(cls: Callable[[], Bot]) -> Callable[[str, Rules, int], Bot]:
    def make(arg: str, rules: Rules, players: int) -> Bot:
        if arg:
            raise ValueError(f"the {getattr(cls, '__name__', cls)} takes no argument, got {arg!r}")
        return cls()
    return make


def _need_solver(what: str) -> None:
    """One line naming the command that adds the solver, before a light install meets numpy."""
    if solver_missing():
        raise ValueError(needs_solver_text(what))


def _solved(arg: str, rules: Rules, players: int) -> Bot:
    """``solved`` takes the solution from the disk cache (solving once, and saying so on
    stderr); ``solved:FILE`` loads a solution saved by ``chase-the-ace solve --save FILE``."""
    _need_solver("The solved bot")
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
    _need_solver("The solved-game bot")
    from .solver.methods.whole_game import GameBot

    if arg:
        sol = load_game(arg)
        if sol.rules != rules or players > sol.players:
            raise ValueError(f"the whole-game solution in {arg} is for other rules or fewer players "
                             f"than this game's")
        return GameBot(sol)

    def say(text: str) -> None:
        announce_solving(text, 0.0)

    return GameBot(game_solution_for(rules, players, progress=say))


BOTS: dict[str, BotKind[Rules, Bot]] = {
    "random": BotKind(_no_arg(RandomBot), "keeps or swaps at random"),
    "threshold": BotKind(lambda arg, rules, players: ThresholdBot(arg or 8),
                         "threshold:RANK swaps below RANK (default 8)"),
    "counting": BotKind(_no_arg(CountingBot), "counts every card it may know"),
    "solved": BotKind(_solved, "plays the solver's equilibrium (solved:FILE loads one saved by solve "
                               "--save, .npz or .json)"),
    "solved-game": BotKind(_solved_game, "plays the whole game's equilibrium with lives, 2-5 players, "
                           "up to 4 lives (3 at 5 players; solved-game:FILE.json loads a saved one)"),
}
"""The bots of Chase the Ace (RULES.md part A), by kind."""


def _rules_from(preset: str, options: Mapping[str, Any], most: int | None) -> Rules:
    """The rules of ``preset`` with ``options`` (JSON values) applied, a count above ``most``
    refused; ValueError naming the bad option."""
    rules = Rules.preset(preset)
    for key, value in options.items():
        if key not in OPTIONS:
            raise ValueError(f"unknown rule {key!r}: allowed {', '.join(OPTIONS)}")
        if most is not None and OPTIONS[key].minimum is not None and isinstance(value, int) and value > most:
            raise ValueError(f"bad value {value!r} for rule {key!r}: at most {most} at a web table")
        rules = rules.replace(**{key: value})
    return rules


def _parse_move(text: str) -> Action:
    """A move as text: ``keep`` or ``swap``; IllegalActionError otherwise."""
    if text not in ("keep", "swap"):
        raise IllegalActionError(f"{text!r} is not a move of Chase the Ace: keep or swap")
    return Action(text)


def _narrator(names: Sequence[str], rules: Rules, viewer: int | None) -> Narrate:
    return Narrator(names, rules, viewer).tell


class _NotReady(Exception):
    """A solution the review needs is not ready yet."""


def _review(record: Record, solutions: Solutions | None,
            progress: Callable[..., None] | None) -> Any:
    """The solver's review of a Chase the Ace record (one replay); None as soon as ``solutions``
    has no solution ready for a table size it needs."""
    from .solver.uses.advice import review

    if solutions is None:
        return review(record, progress=progress)
    ready: Solutions = solutions

    def lookup(rules: Rules, players: int) -> Any:
        sol = ready(rules, players)
        if sol is None:
            raise _NotReady
        return sol

    try:
        return review(record, solutions=lookup)
    except _NotReady:
        return None


_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")

CHASE_THE_ACE: GameKind[Rules, int] = GameKind(
    name="chase-the-ace", title="Chase the Ace", record_format=CHASE_THE_ACE_RECORDS,
    config_from=_rules_from, config_from_args=rules_from_args, config_from_dict=Rules.from_dict,
    rules_of=lambda rules: rules,
    bots=BOTS, stand_in_bot="counting", min_players=2, max_players=lambda rules: rules.max_players,
    new_game=lambda rules, names, seed, carry: Game(rules, list(names), seed=seed, carry=carry),
    carry=Carry(first=0, of=lambda game: int(game.pot), to_int=int, from_int=int),
    from_record=Game.from_record,
    parse_move=_parse_move, move_text=lambda action: str(getattr(action, "value", action)),
    narrator=_narrator, review=_review,
    server_bots={"random": "keeps or swaps at random",
                 "threshold": "threshold:RANK swaps below RANK (A, 2..9, T, J, Q, K; default 8)",
                 "counting": "counts every card it may know"},
    server_bot_specs=frozenset({"random", "counting", "threshold", *(f"threshold:{r}" for r in _RANKS),
                                *(f"threshold:{n}" for n in range(1, 14))}),
    make_bot=lambda spec, rules, players: make_bot(spec, rules, players),
    terminal="chasetheace.cli.command",
    solver=True,
    presets=PRESETS,
)
"""Chase the Ace, RULES.md part A."""

GAMES: dict[str, GameKind[Any, Any]] = {kind.name: kind for kind in (CHASE_THE_ACE, ACE_CHASING)}
"""The games, by the name the command line and the web protocol use."""

BOT_KINDS = tuple(BOTS)
"""The kinds of Chase the Ace bot, in the order help lists them."""


def make_bot(spec: str, rules: Rules | None = None, players: int = 5) -> Bot:
    """A Chase the Ace bot from a short spec: ``random``, ``threshold:8``, ``counting``, ``solved``,
    ``solved-game``.

    >>> make_bot("counting")
    CountingBot()
    >>> make_bot("clever")
    Traceback (most recent call last):
    ValueError: unknown bot 'clever': allowed random, threshold, counting, solved, solved-game
    """
    return parse_bot_spec(BOTS, spec, Rules() if rules is None else rules, players)


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


def game_kind(name: str) -> GameKind[Any, Any]:
    """The game called ``name``; ValueError naming the games there are otherwise."""
    kind = GAMES.get(name) if isinstance(name, str) else None
    if kind is None:
        raise ValueError(f"unknown game {name!r}: allowed {', '.join(GAMES)}")
    return kind


def kind_of_record(record: Any) -> GameKind[Any, Any]:
    """The game whose record ``record`` (parsed JSON) says it is; Chase the Ace when it says no
    game of the family (its replay then names what is wrong with the record)."""
    for kind in GAMES.values():
        if kind.holds(record):
            return kind
    return CHASE_THE_ACE
