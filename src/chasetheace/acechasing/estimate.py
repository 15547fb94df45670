"""The odds of a round against any strategies of the players still to exchange: a sampled estimate
with its standard error.

:func:`~chasetheace.acechasing.odds.knockout_chance` and
:func:`~chasetheace.acechasing.exchange.exchange_odds` are exact, for players after the seat who
keep rank ``threshold`` or more and swap lower (the ``odds`` and ``threshold`` bots). When the
players still to act play otherwise (``exact`` bots, ``random`` ones, any bot) the figures are
those of that model, not of the table. :func:`estimate` gives the table's own figure: it deals
the cards the seat has not seen at random (each unseen card equally likely anywhere it has not
seen, the same assumption as the exact figures), lets each player still to act choose with its
bot, exactly as the engine would ask it, and resolves the round by RULES.md part B; ``samples``
such rounds give the chance and its standard error. All chance comes from the ``rng`` it is given,
so the same seed gives the same estimate.

The players still to act see, at their turn, what the engine would show them of this round: their
own card, the card they gave away if their right neighbour swapped with them, the public record
of the round (order, bets, money, who is in) and an empty ``history``: a bot that reads the
history of earlier rounds is not modelled.

>>> import random
>>> import chasetheace as cta
>>> game = cta.AceChasingGame(5, stack=["2d", "3d", "4d", "5d", "Jc"])
>>> view = game.observation(0)          # the matador on J♣, before any bet
>>> odds = estimate(view, cta.make_ace_chasing_bot("odds"), rng=random.Random(1), samples=4000)
>>> abs(odds.matador_out - 0.4965) < 4 * odds.matador_error
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..cards import Card, pack
from .game import AceAction, Offer

__all__ = ["Estimate", "estimate"]

PACK = tuple(pack(52))


class _Bot(Protocol):
    def choose(self, observation: Mapping[str, Any], legal: Sequence[AceAction],
               rng: random.Random) -> AceAction | Offer: ...


@dataclass(frozen=True)
class Estimate:
    """Sampled chances of this round with their standard errors (``samples`` rounds)."""

    matador_out: float
    matador_error: float
    seat_out: float | None      # the observing seat's own chance of being knocked out (a player)
    seat_error: float | None
    samples: int

    def text(self) -> str:
        """One line for people."""
        mine = ("" if self.seat_out is None else
                f"; you are knocked out {self.seat_out:.1%} (+- {self.seat_error:.1%})")
        return (f"the matador is knocked out {self.matador_out:.1%} (+- {self.matador_error:.1%}, "
                f"{self.samples:,} sampled rounds){mine}")


def estimate(observation: Mapping[str, Any], bots: _Bot | Mapping[int, _Bot], *, rng: random.Random,
             samples: int = 2000, action: str | None = None) -> Estimate:
    """The chance that the matador, and the observing seat, are knocked out this round, from the
    observing seat's view, the players still to act choosing with ``bots`` (one bot for them all,
    or a bot per seat).

    ``action`` (``"keep"`` or ``"swap"``): the observing seat, to act in the exchanges, makes that
    choice (else its own bot, when ``bots`` has one for it, chooses). ValueError for a view with
    no round in play, a bad ``action`` or ``samples`` below 1.
    """
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ValueError(f"bad samples {samples!r}: a whole number >= 1")
    order, m, seat = list(observation["order"]), observation["matador"], observation["seat"]
    if len(order) < 2 or order[-1] != m:
        raise ValueError("no round in play in this observation: the matador must be last in order")
    start = 0
    if observation.get("phase") == "exchanges":
        to_act = observation.get("to_act")
        start = order.index(to_act) if to_act in order[:-1] else len(order) - 1
    if action is not None:
        if action not in ("keep", "swap"):
            raise ValueError(f"bad action {action!r}: allowed keep, swap")
        if start >= len(order) - 1 or order[start] != seat:
            raise ValueError(f"seat {seat!r} has no keep/swap decision to make in this observation")
    known = {s: Card.parse(c) for s, c in enumerate(observation["cards"]) if c is not None and s in order}
    unseen = [c for c in PACK if c not in known.values()]
    hidden = [s for s in order if s not in known]
    matador_out = seat_out = 0
    for _ in range(samples):
        hands = dict(known)
        hands.update(zip(hidden, rng.sample(unseen, len(hidden))))
        _exchange(observation, order, start, hands, bots, rng, action)
        out = _resolve(order, hands)
        matador_out += m in out
        seat_out += seat in out
    mine = seat is not None and seat != m and seat in order
    p, q = matador_out / samples, seat_out / samples
    return Estimate(p, _error(p, samples), q if mine else None, _error(q, samples) if mine else None,
                    samples)


def _error(p: float, n: int) -> float:
    return math.sqrt(p * (1 - p) / n)


def _exchange(observation: Mapping[str, Any], order: list[int], start: int, hands: dict[int, Card],
              bots: _Bot | Mapping[int, _Bot], rng: random.Random, action: str | None) -> None:
    """Play the exchanges from place ``start`` on, each player asked with the view it would have."""
    given: Card | None = None  # the card the player to act gave its right neighbour, if swapped
    for k in range(start, len(order) - 1):
        s, left = order[k], order[k + 1]
        if k == start and action is not None:
            move = AceAction(action)
        else:
            bot = bots.get(s) if isinstance(bots, Mapping) else bots
            if bot is None:
                raise ValueError(f"no bot for seat {s}, still to act")
            choice = bot.choose(_view(observation, order, s, hands[s], given, k), _LEGAL, rng)
            if not isinstance(choice, AceAction | str) or choice not in ("keep", "swap"):
                raise ValueError(f"the bot of seat {s} chose {choice!r}: a keep or swap was asked")
            move = AceAction(choice)
        if move is AceAction.SWAP:
            given = hands[left]  # the next player gives this card away and knows where it went
            hands[s], hands[left] = hands[left], hands[s]
        else:
            given = None


_LEGAL = [AceAction.KEEP, AceAction.SWAP]


def _view(observation: Mapping[str, Any], order: list[int], seat: int, card: Card, given: Card | None,
          k: int) -> dict[str, Any]:
    """What the engine would show ``seat`` at its turn in the exchanges of this round."""
    cards: list[str | None] = [None] * len(observation["cards"])
    cards[seat] = str(card)
    if given is not None:
        cards[order[k - 1]] = str(given)
    return {**observation, "seat": seat, "phase": "exchanges", "to_act": seat,
            "legal": ["keep", "swap"], "card": str(card), "cards": cards, "offer": None,
            "history": []}


def _resolve(order: list[int], hands: Mapping[int, Card]) -> set[int]:
    """Who is knocked out: RULES.md part B's five steps."""
    m = order[-1]
    top = hands[m]
    shown = {m} | {s for s in order[:-1] if hands[s].rank < top.rank}
    aces = {hands[s].suit for s in shown if hands[s].rank == 1}
    shown |= {s for s in order if hands[s].suit in aces}
    out = {s for s in shown if s != m}
    return out or {m}
