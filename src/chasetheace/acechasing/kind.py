"""Ace Chasing as a kind of game (:class:`chasetheace.kinds.GameKind`): its bots by spec, its
moves as text, its records and its review, for the interfaces to ask instead of branching.

>>> KIND.parse_move("offer:5"), KIND.move_text(Offer(5))
(Offer(amount=5), 'offer:5')
>>> make_ace_chasing_bot("odds:stake=20,threshold=T")
OddsBot(stake=20, threshold='T', margin=0.0)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import IllegalActionError
from ..kinds import NO_CARRY, BotKind, GameKind, Narrate, Solutions, bot_specs, parse_bot_spec
from ..record import Record
from ..rules import Rules, preset_info
from .bots import AceChasingBot, exact_from_text, odds_from_text, random_from_text, threshold_from_text
from .events import RoundStarted, read_view
from .game import RECORDS, AceChasingGame, Offer
from .render import narrate

__all__ = ["KIND", "NAME", "BOTS", "AceChasingConfig", "make_ace_chasing_bot", "bot_specs", "parse_move",
           "move_text"]

NAME = "ace-chasing"
"""The game's name on the command line and in the web protocol (its records say
:data:`~chasetheace.acechasing.game.FORMAT`)."""


@dataclass(frozen=True)
class AceChasingConfig:
    """What a table or a run of Ace Chasing chooses before the deal: nothing yet, as the game is
    played by one set of rules (RULES.md part B); the interfaces pass it through all the same,
    as they pass Chase the Ace's :class:`~chasetheace.rules.Rules`.

    >>> AceChasingConfig.from_dict(AceChasingConfig().to_dict())
    AceChasingConfig()
    """

    def to_dict(self) -> dict[str, Any]:
        """Its JSON form (a web table stores it)."""
        return {}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AceChasingConfig:
        """Read back from :meth:`to_dict`; a web table stored before Ace Chasing had a config of
        its own holds the standard Chase the Ace rules here, read as the same."""
        if not isinstance(data, Mapping) or (data and dict(data) != Rules().to_dict()):
            raise ValueError(f"Ace Chasing has no rule options, not {data!r}")
        return cls()


def _config_from(preset: str, options: Mapping[str, Any], most: int | None) -> AceChasingConfig:
    if options or preset_info(preset).name != "standard":
        raise ValueError("Ace Chasing has no presets or house rules here: leave them out")
    return AceChasingConfig()


def _config_from_args(preset: str, specs: Sequence[str]) -> AceChasingConfig:
    if specs or preset != "standard":
        raise ValueError("Ace Chasing has no rule options (RULES.md part B): drop --preset and --rule")
    return AceChasingConfig()


def _ace(make: Callable[[str], AceChasingBot]) -> Callable[[str, AceChasingConfig, int], AceChasingBot]:
    return lambda arg, config, players: make(arg)


BOTS: dict[str, BotKind[AceChasingConfig, AceChasingBot]] = {
    "exact": BotKind(_ace(exact_from_text),
                     "exact[:stake=N,threshold=RANK] bets, answers and exchanges by the exact odds "
                     "of its view, the players still to exchange swapping below RANK (defaults 10, 7)"),
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


def make_ace_chasing_bot(spec: str) -> AceChasingBot:
    """An Ace Chasing bot from a short spec: ``odds``, ``odds:stake=20,threshold=9``, ``random``, ..."""
    return parse_bot_spec(BOTS, spec, AceChasingConfig(), 0, "Ace Chasing ")


def parse_move(text: str) -> Any:
    """A move as the web protocol writes it: ``offer:AMOUNT`` is an :class:`Offer`; every other
    word (``accept``, ``decline``, ``keep``, ``swap``) is the game's own and checked by it."""
    word, colon, amount = text.partition(":")
    if word == "offer":
        if not (amount.isascii() and amount.isdigit()):
            raise IllegalActionError(f"bad offer {text!r}")
        return Offer(int(amount))
    if colon:
        raise IllegalActionError(f"{text!r} is not a move of Ace Chasing")
    return text


def move_text(action: Any) -> str:
    """An action as text: ``offer:AMOUNT`` for an offer, else the action's word."""
    if isinstance(action, Offer):
        return f"offer:{action.amount}"
    return str(getattr(action, "value", action))


def _narrator(names: Sequence[str], config: AceChasingConfig, viewer: int | None) -> Narrate:
    matador: list[int | None] = [None]

    def tell(view: Mapping[str, Any]) -> list[str]:
        ev = read_view(view)
        if isinstance(ev, RoundStarted):
            matador[0] = ev.matador
        return narrate(view, names, viewer, matador[0])
    return tell


def _review(record: Record, solutions: Solutions | None,
            progress: Callable[..., None] | None) -> Any:
    from .review import review_ace_chasing  # judged by the odds: no solution to wait for

    return review_ace_chasing(record)


def _absent_move(legal: Sequence[Any]) -> str:
    """No bet as a bettor, decline as the matador, keep in the exchanges."""
    words = [move_text(action) for action in legal]
    return "offer:0" if words == ["offer"] else "decline" if "decline" in words else "keep"


_SERVER_SPECS = frozenset({"exact", "odds", "random", "threshold",
                           *(f"threshold:{r}" for r in "A23456789TJQK")})

KIND: GameKind[AceChasingConfig, None] = GameKind(
    name=NAME, title="Ace Chasing", record_format=RECORDS,
    config_from=_config_from, config_from_args=_config_from_args,
    config_from_dict=AceChasingConfig.from_dict, rules_of=lambda config: None,
    bots=BOTS, stand_in_bot="odds", min_players=4, max_players=lambda config: None,
    new_game=lambda config, names, seed, carry: AceChasingGame(list(names), seed=seed),
    carry=NO_CARRY, from_record=AceChasingGame.from_record,
    parse_move=parse_move, move_text=move_text,
    narrator=_narrator,
    review=_review,
    server_bots={"exact": "bets, answers and exchanges by the exact odds of its view (the players "
                          "still to exchange swapping below 7)",
                 "odds": "bets its stake times the chance the matador is knocked out; accepts bets good "
                         "for it; swaps below 7",
                 "random": "random decisions and offers",
                 "threshold": "threshold[:RANK] never bets, accepts bets good for it, swaps below RANK"},
    server_bot_specs=_SERVER_SPECS,
    make_bot=lambda spec, config, players: make_ace_chasing_bot(spec),
    terminal="chasetheace.cli.acechasing",
    absent_move=_absent_move,
)
"""Ace Chasing, RULES.md part B."""
