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

import functools
import math
import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from ..bots import play_game
from ..cards import Card, pack, parse_rank, rank_char
from .game import AceAction, AceChasingGame, Offer

__all__ = [
    "AceChasingBot", "RandomAceChasingBot", "OddsBot", "odds_from_text", "random_from_text",
    "threshold_from_text", "play_ace_chasing_game", "knockout_chance",
]

Observation = Mapping[str, Any]
PACK = tuple(pack(52))


@runtime_checkable
class AceChasingBot(Protocol):
    """Anything with ``choose(observation, legal, rng) -> AceAction | Offer``."""

    def choose(self, observation: Observation, legal: Sequence[AceAction],
               rng: random.Random) -> AceAction | Offer:
        """Pick a legal action (``Offer(n)`` when ``legal`` is ``[OFFER]``) knowing only ``observation``."""
        ...


def knockout_chance(observation: Observation) -> float:
    """The chance that this round's matador is knocked out, from what the observing seat knows.

    The matador is out when no other player shows a card. With the matador holding rank ``r >= 2``
    that means every other card ranks ``r`` or more; with an ace, that no other card is of its
    suit. Cards the seat does not know are taken as a uniformly random draw from the cards it has
    not seen, as if nobody would exchange again.

    >>> obs = {"order": [1, 2, 3, 0], "matador": 0, "cards": [None, "Qd", None, None]}
    >>> round(knockout_chance(obs), 4)
    0.3188
    """
    order, m = observation["order"], observation["matador"]
    known = {s: Card.parse(c) for s, c in enumerate(observation["cards"]) if c is not None and s in order}
    others = [s for s in order if s != m]
    unknown = sum(1 for s in others if s not in known)
    seen = tuple(sorted(known[s] for s in others if s in known))
    return _chance(unknown, seen, known.get(m))


@functools.lru_cache(maxsize=4096)
def _chance(unknown: int, seen: tuple[Card, ...], matador: Card | None) -> float:
    """:func:`knockout_chance` given the others' known cards and the matador's, if known."""
    pool = [c for c in PACK if c not in seen and c is not matador]
    at_least = [0] * 15  # at_least[r]: cards of the pool of rank r or more
    by_suit = dict.fromkeys("cdhs", 0)
    for c in pool:
        at_least[c.rank] += 1
        by_suit[c.suit] += 1
    for r in range(13, 0, -1):
        at_least[r] += at_least[r + 1]
    candidates = [matador] if matador is not None else pool
    drawn = 0 if matador is not None else 1  # an unknown matador's card comes from the pool
    total = 0.0
    for top in candidates:
        if not all(_safe(c, top) for c in seen):
            continue
        safe = len(pool) - by_suit[top.suit] if top.rank == 1 else at_least[top.rank] - drawn
        total += math.comb(safe, unknown) / math.comb(len(pool) - drawn, unknown)
    return total / len(candidates)


def _safe(card: Card, top: Card) -> bool:
    """Whether ``card`` stays hidden when it and the matador's ``top`` alone decide."""
    return card.suit != top.suit if top.rank == 1 else card.rank >= top.rank


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
    """Plays by the odds of the matador being knocked out (:func:`knockout_chance`).

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
        chance = knockout_chance(observation)
        if AceAction.ACCEPT in legal:
            good = 1 - 2 * chance > self.margin
            return AceAction.ACCEPT if good else AceAction.DECLINE
        declined = observation["offers_made"][observation["seat"]]
        return Offer(round(self.stake * chance) >> declined)

    def __repr__(self) -> str:
        return f"OddsBot(stake={self.stake}, threshold={rank_char(self.threshold)!r}, margin={self.margin})"


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


def play_ace_chasing_game(game: AceChasingGame, bots: Sequence[AceChasingBot], *,
                          seed: int | None = None, rng: random.Random | None = None) -> None:
    """Let ``bots`` (one per seat) play ``game`` to the end, each seeing only its observation."""
    play_game(game, bots, seed=seed, rng=rng)
