"""Bots for Ace Chasing: players that choose from an observation and the legal actions only.

One bot plays every role a seat meets: bettor, matador and exchanger.

>>> import chasetheace as cta
>>> game = cta.AceChasingGame(6, seed=2)
>>> bots = [cta.make_ace_chasing_bot(s) for s in ("odds", "odds:stake=20", "random", "threshold:9",
...                                                "odds:threshold=5", "odds")]
>>> cta.play_ace_chasing_game(game, bots, seed=2)
>>> game.over, sum(game.money)
(True, 0)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from ..bots import play_game
from ..cards import Card, parse_rank, rank_char
from .exchange import exchange_odds
from .game import AceAction, AceChasingGame, Offer
from .odds import DEFAULT_THRESHOLD, knockout_chance

__all__ = [
    "AceChasingBot", "RandomAceChasingBot", "OddsBot", "ExactBot", "odds_from_text",
    "random_from_text", "threshold_from_text", "exact_from_text", "play_ace_chasing_game",
    "knockout_chance",
]

Observation = Mapping[str, Any]


@runtime_checkable
class AceChasingBot(Protocol):
    """Anything with ``choose(observation, legal, rng) -> AceAction | Offer``."""

    def choose(self, observation: Observation, legal: Sequence[AceAction],
               rng: random.Random) -> AceAction | Offer:
        """Pick a legal action (``Offer(n)`` when ``legal`` is ``[OFFER]``) knowing only ``observation``."""
        ...


class RandomAceChasingBot:
    """Keeps or swaps, accepts or declines at random; offers a random amount in ``0..stake``."""

    name = "random"

    def __init__(self, stake: int = 10) -> None:
        self.stake = _whole(stake, "stake")

    def choose(self, observation: Observation, legal: Sequence[AceAction],
               rng: random.Random) -> AceAction | Offer:
        """A uniformly random legal action."""
        if AceAction.OFFER in legal:
            return Offer(rng.randint(0, self.stake))
        return rng.choice(list(legal))

    def __repr__(self) -> str:
        return f"RandomAceChasingBot(stake={self.stake})"


class OddsBot:
    """Plays by the odds of the matador being knocked out (:func:`knockout_chance`, the players
    still to exchange taken to keep rank ``threshold`` or more, as this bot does).

    As a bettor it offers ``stake`` times that chance (rounded), halving the offer after each
    decline and withdrawing when it reaches 0. As the matador it accepts a bet when its expected
    value, ``amount * (1 - 2 * chance)``, is more than ``margin * amount``. In the exchanges it
    keeps a card of rank ``threshold`` or higher and swaps a lower one.
    """

    name = "odds"

    def __init__(self, stake: int = 10, threshold: int | str = 7, margin: float = 0.0) -> None:
        self.stake = _whole(stake, "stake")
        self.threshold = parse_rank(threshold)
        if not isinstance(margin, int | float) or isinstance(margin, bool) or not -1 <= margin <= 1:
            raise ValueError(f"bad margin {margin!r}: a number from -1 to 1")
        self.margin = float(margin)

    def choose(self, observation: Observation, legal: Sequence[AceAction],
               rng: random.Random) -> AceAction | Offer:
        """Bet, answer or exchange as the class docstring says."""
        if AceAction.KEEP in legal:
            card = Card.parse(observation["card"])
            return AceAction.KEEP if card.rank >= self.threshold else AceAction.SWAP
        chance = knockout_chance(observation, self.threshold)
        if AceAction.ACCEPT in legal:
            good = 1 - 2 * chance > self.margin
            return AceAction.ACCEPT if good else AceAction.DECLINE
        declined = observation["offers_made"][observation["seat"]]
        return Offer(round(self.stake * chance) >> declined)

    def __repr__(self) -> str:
        return f"OddsBot(stake={self.stake}, threshold={rank_char(self.threshold)!r}, margin={self.margin})"


class ExactBot:
    """Bets, answers and exchanges by the exact odds of its view.

    The odds assume that the players still to exchange keep rank ``threshold`` or more and swap
    lower (the ``odds`` bot's rule, default 7) and take the cards this bot has not seen as a
    uniformly random draw (:mod:`chasetheace.acechasing.odds`). As a bettor it offers ``stake``
    when the matador's knockout chance is above 1/2 (the bet is then worth ``amount * (2p - 1)``
    to it), halving after each decline, and bets nothing otherwise. As the matador it accepts
    exactly the bets worth something to it (knockout chance below 1/2). In the exchanges it keeps
    or swaps, whichever gives it the lower chance of being knocked out
    (:func:`~chasetheace.acechasing.exchange.exchange_odds`): the game is won by staying in.
    """

    name = "exact"

    def __init__(self, stake: int = 10, threshold: int | str = DEFAULT_THRESHOLD) -> None:
        self.stake = _whole(stake, "stake")
        self.threshold = parse_rank(threshold)
        if self.threshold < 2:
            raise ValueError(f"bad threshold {threshold!r}: a rank from 2 to K")

    def choose(self, observation: Observation, legal: Sequence[AceAction],
               rng: random.Random) -> AceAction | Offer:
        """Bet, answer or exchange as the class docstring says."""
        if AceAction.KEEP in legal:
            return AceAction(exchange_odds(observation, self.threshold).best)
        chance = knockout_chance(observation, self.threshold)
        if AceAction.ACCEPT in legal:
            return AceAction.ACCEPT if chance < 0.5 else AceAction.DECLINE
        if chance <= 0.5:
            return Offer(0)
        declined = observation["offers_made"][observation["seat"]]
        return Offer(self.stake >> declined)

    def __repr__(self) -> str:
        return f"ExactBot(stake={self.stake}, threshold={rank_char(self.threshold)!r})"


def _whole(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"bad {what} {value!r}: a whole number >= 0")
    return value


def _options(arg: str, allowed: Sequence[str]) -> dict[str, str]:
    """Read ``key=value,key=value``; a bare value sets the first key."""
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in arg.split(","))):
        key, eq, value = part.partition("=")
        if not eq:
            key, value = allowed[0], part
        if key not in allowed or key in out:
            raise ValueError(f"bad bot option {part!r}: allowed {', '.join(allowed)} (each once)")
        out[key] = value.strip()
    return out


def _int_option(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"bad {what} {text!r}: a whole number >= 0") from None


def random_from_text(arg: str) -> AceChasingBot:
    """The bot of the spec ``random:ARG`` (ARG: ``key=value,...``)."""
    opts = _options(arg, ["stake"])
    return RandomAceChasingBot(_int_option(opts.get("stake", "10"), "stake"))


def odds_from_text(arg: str) -> AceChasingBot:
    """The bot of the spec ``odds:ARG`` (ARG: ``key=value,...``)."""
    opts = _options(arg, ["stake", "threshold", "margin"])
    try:
        margin = float(opts.get("margin", "0"))
    except ValueError:
        raise ValueError(f"bad margin {opts['margin']!r}: a number from -1 to 1") from None
    return OddsBot(_int_option(opts.get("stake", "10"), "stake"), opts.get("threshold", "7"), margin)


def threshold_from_text(arg: str) -> AceChasingBot:
    """The bot of the spec ``threshold:ARG`` (ARG: ``key=value,...``)."""
    opts = _options(arg, ["threshold"])
    return OddsBot(0, opts.get("threshold", "7"))


def exact_from_text(arg: str) -> AceChasingBot:
    """The bot of the spec ``exact:ARG`` (ARG: ``key=value,...``)."""
    opts = _options(arg, ["stake", "threshold"])
    return ExactBot(_int_option(opts.get("stake", "10"), "stake"), opts.get("threshold", "7"))


def play_ace_chasing_game(game: AceChasingGame, bots: Sequence[AceChasingBot], *,
                          seed: int | None = None, rng: random.Random | None = None) -> None:
    """Let ``bots`` (one per seat) play ``game`` to the end, each seeing only its observation."""
    play_game(game, bots, seed=seed, rng=rng)
