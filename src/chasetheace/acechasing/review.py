"""Reviews of Ace Chasing games (RULES.md part B): the bets against the odds, the exchanges by the
chance of being knocked out.

There is no equilibrium solver for Ace Chasing: every decision is judged from what its seat could
know (its observation alone). Every figure makes the same two assumptions, and says so in the
review's text and data:

- the cards the seat has not seen are a uniformly random draw from the cards it has not seen
  (what the others bet, answered or exchanged before is not read as evidence about their cards);
- the players still to exchange, the deciding seat included for the matador's chance, keep a card
  of rank ``threshold`` or more and swap a lower one (``threshold`` 7: the ``odds`` bot's rule).

**Bets.** A bet is judged by :func:`chasetheace.acechasing.odds.knockout_chance`: the chance ``p``
that the matador is knocked out, counting the exchanges that follow the bets (the matador ends
with whatever its right neighbour passes on). A bettor's offer of ``a`` wins ``a`` when the
matador is knocked out and loses ``a`` otherwise, so it is worth ``a * (2p - 1)``; the matador
accepting it is worth the opposite. An offer with ``p < 1/2``, or an acceptance with ``p > 1/2``,
is *against the odds*; when the bet stands (the matador accepts) its cost is the money it gives
away on average, ``a * |2p - 1|`` (a declined offer gives nothing away). Declines and
``Offer(0)`` are not judged.

**Exchanges.** A keep/swap decision is judged by the chance that the deciding player is knocked
out this round if it keeps and if it swaps (:func:`chasetheace.acechasing.exchange.exchange_odds`:
exact under the same assumptions). The best choice is the one with the lower chance; the cost of
a choice is its chance minus the best one's (in knockouts: the chance of being knocked out it
gives away). The money of the bets is not weighed here: the game is won by staying in.

A decision is a *mistake* when its cost is above :data:`MISTAKE` (0.001, in its own unit:
money for a bet, knockout chance for an exchange).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..cards import rank_char
from ..record import Record
from .exchange import MISTAKE, exchange_odds
from .odds import DEFAULT_THRESHOLD, knockout_chance

__all__ = ["AceDecision", "AceReview", "judge_exchange", "review_ace_chasing", "odds_hint",
           "stake_call", "exchange_call", "MISTAKE"]


@dataclass(frozen=True)
class AceDecision:
    """One decision of an Ace Chasing game, with the odds its seat could know."""

    index: int
    round: int
    seat: int
    name: str
    role: str                 # "bettor", "matador" or "exchanger"
    action: str               # "offer", "accept", "decline", "keep" or "swap"
    amount: int               # the offer's amount (0 for no bet), or the amount answered
    card: str | None
    knockout_chance: float    # the chance that the matador is knocked out, from this seat's view
    cost: float               # a bet: money given away if it stood; an exchange: knockout chance
    judged: bool              # False for declines and no-bets
    against_the_odds: bool    # an offer with p < 1/2, an acceptance with p > 1/2, a costly exchange
    out_if_keep: float | None = None  # an exchange: the chance of being knocked out if it keeps
    out_if_swap: float | None = None  # ... and if it swaps
    call: str | None = None           # an exchange: keep, swap, or either (within MISTAKE)

    @property
    def exchange(self) -> bool:
        """Whether this is a keep/swap decision."""
        return self.role == "exchanger"

    @property
    def mistake(self) -> bool:
        """Against the odds with a cost above :data:`MISTAKE`."""
        return self.against_the_odds and self.cost > MISTAKE

    @property
    def best(self) -> str | None:
        """An exchange's choice with the lower chance of being knocked out (None for a bet)."""
        if self.out_if_keep is None or self.out_if_swap is None:
            return None
        return "swap" if self.out_if_swap < self.out_if_keep else "keep"

    def to_dict(self) -> dict[str, Any]:
        """The decision as data (``docs/review.md``)."""
        def rounded(x: float | None) -> float | None:
            return None if x is None else round(x, 6)

        return {"index": self.index, "round": self.round, "seat": self.seat, "name": self.name,
                "role": self.role, "action": self.action, "amount": self.amount, "card": self.card,
                "knockout_chance": round(self.knockout_chance, 6), "cost": round(self.cost, 6),
                "cost_unit": "knockout chance" if self.exchange else "money",
                "judged": self.judged, "against_the_odds": self.against_the_odds,
                "mistake": self.mistake, "out_if_keep": rounded(self.out_if_keep),
                "out_if_swap": rounded(self.out_if_swap), "call": self.call, "best": self.best}

    def text(self) -> str:
        """One line for people."""
        held = f", holding {self.card}" if self.card else ""
        if self.exchange:
            verdict = (f"MISTAKE: gives away {self.cost:.3f} of a knockout" if self.mistake
                       else "best" if self.call != "either" else "fine (close call)")
            return (f"{self.name} ({self.role}{held}): {self.action}; knocked out "
                    f"{self.out_if_keep:.1%} if it keeps, {self.out_if_swap:.1%} if it swaps; "
                    f"call: {self.call} - {verdict}")
        what = f"{self.action} {self.amount}"
        given = f", gives away {self.cost:.2f} on average" if self.cost else " (declined: nothing lost)"
        p = self.knockout_chance
        worth = self.amount * abs(2 * p - 1)  # on the right side of 1/2: what it is worth to it
        fine = f"fine: worth {worth:+.2f} on average" + (" if it stands" if self.role == "bettor" else "")
        if worth < 0.005 * max(self.amount, 1):
            fine = "fine, but a coin toss"
        verdict = (f"AGAINST THE ODDS{given}" if self.against_the_odds
                   else fine if self.judged else "not judged")
        return (f"{self.name} ({self.role}{held}): {what}; knockout chance {self.knockout_chance:.1%}"
                f" - {verdict}")


@dataclass
class AceReview:
    """Every decision of an Ace Chasing game; :meth:`summary` per player."""

    names: list[str]
    decisions: list[AceDecision]
    complete: bool
    threshold: int = DEFAULT_THRESHOLD

    def summary(self) -> list[dict[str, Any]]:
        """Per seat: decisions and mistakes; the bets judged, against the odds and the money they
        gave away; the exchanges judged, their mistakes and the knockouts those gave away."""
        out = []
        for seat, name in enumerate(self.names):
            mine = [d for d in self.decisions if d.seat == seat]
            bets = [d for d in mine if d.judged and not d.exchange]
            swaps = [d for d in mine if d.exchange]
            out.append({"seat": seat, "name": name, "decisions": len(mine),
                        "mistakes": sum(d.mistake for d in mine), "bets_judged": len(bets),
                        "against_the_odds": sum(d.against_the_odds for d in bets),
                        "money_given_away": round(sum(d.cost for d in bets), 6),
                        "exchanges_judged": len(swaps),
                        "exchange_mistakes": sum(d.mistake for d in swaps),
                        "knockouts_given_away": round(sum(d.cost for d in swaps if d.mistake), 6)})
        return out

    @property
    def assumes(self) -> str:
        """What every figure of the review assumes, in words."""
        return (f"Every chance assumes that the players still to exchange keep a card of rank "
                f"{rank_char(self.threshold)} or more and swap a lower one, and that the cards a "
                "player had not seen were equally likely to be anywhere it had not seen (bets and "
                "earlier exchanges are not read as evidence). Knockout chance: the matador's, after "
                "the exchanges to come; keep/swap: the deciding player's own.")

    def to_dict(self, seat: int | None = None) -> dict[str, Any]:
        """The review as data; ``seat`` keeps one player's part."""
        return {"format": "chase-the-ace/review", "version": 1, "game": "ace-chasing",
                "players": list(self.names), "complete": self.complete,
                "mistake_threshold": MISTAKE, "exchange_threshold": self.threshold,
                "assumes": self.assumes,
                "decisions": [d.to_dict() for d in self.decisions if seat is None or d.seat == seat],
                "summary": [s for s in self.summary() if seat is None or s["seat"] == seat]}

    def text(self, seat: int | None = None) -> str:
        """The review for people."""
        lines = []
        current = None
        for d in self.decisions:
            if seat is not None and d.seat != seat:
                continue
            if d.round != current:
                current = d.round
                lines.append(f"Round {current}")
            lines.append("  " + d.text())
        if not self.complete:
            lines.append("(the record stops before the end of the game)")
        lines.append("")
        lines.append(self.assumes)
        lines.append("player        decisions  mistakes  bets judged  against the odds  money given away"
                     "  exchanges  exchange mistakes  knockouts given away")
        for s in self.summary():
            if seat is None or s["seat"] == seat:
                lines.append(f"{s['name'][:12]:12}  {s['decisions']:9}  {s['mistakes']:8}  "
                             f"{s['bets_judged']:11}  {s['against_the_odds']:16}  "
                             f"{s['money_given_away']:16.2f}  {s['exchanges_judged']:9}  "
                             f"{s['exchange_mistakes']:17}  {s['knockouts_given_away']:20.3f}")
        return "\n".join(lines)

    def for_seat(self, seat: int) -> AceReview:
        """Only one seat's decisions (ValueError for a seat not in the game)."""
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.names):
            raise ValueError(f"bad seat {seat!r}: allowed 0..{len(self.names) - 1}")
        return AceReview(self.names, [d for d in self.decisions if d.seat == seat], self.complete,
                         self.threshold)


def judge_exchange(observation: Mapping[str, Any], action: str,
                   threshold: int = DEFAULT_THRESHOLD) -> AceDecision:
    """One keep/swap decision judged from the deciding seat's observation alone (``index`` 0)."""
    seat = observation["seat"]
    odds = exchange_odds(observation, threshold)
    cost = odds.cost(action)
    return AceDecision(0, observation["round"], seat, observation["names"][seat], "exchanger", action,
                       0, observation["card"], knockout_chance(observation, threshold), cost, True,
                       cost > MISTAKE, odds.keep, odds.swap, odds.call)


def review_ace_chasing(record: Record | Mapping[str, Any], threshold: int = DEFAULT_THRESHOLD) -> AceReview:
    """Judge the bets and the exchanges of an Ace Chasing record (a
    :class:`~chasetheace.record.Record` or its JSON form), in one replay; RecordError if it is not
    valid.

    ``threshold``: the rank from which the players still to act are taken to keep their card.
    """
    from .game import AceAction, AceChasingGame, Offer

    decisions: list[AceDecision] = []
    replay = AceChasingGame.replaying(record)
    for game, move in replay:
        seat = game.to_act
        assert seat is not None
        obs = game.observation(seat)
        if move in (AceAction.KEEP, AceAction.SWAP):
            decisions.append(replace(judge_exchange(obs, AceAction(move).value, threshold),
                                     index=len(decisions)))
            continue
        p = knockout_chance(obs, threshold)
        if isinstance(move, Offer):
            amount, role, action = move.amount, "bettor", "offer"
            cost = max(0.0, amount * (1 - 2 * p))  # counted below only if the bet stands
            judged = amount > 0
            bad = judged and p < 0.5
        else:
            amount = obs["offer"]["amount"] if obs.get("offer") else 0
            role, action = "matador", str(AceAction(move).value)
            judged = move == AceAction.ACCEPT
            cost = max(0.0, amount * (2 * p - 1)) if judged else 0.0
            bad = judged and p > 0.5
        decisions.append(AceDecision(len(decisions), obs["round"], seat, game.names[seat], role, action,
                                     amount, obs["card"], p, cost, judged, bad))
    game = replay.game
    for i, d in enumerate(decisions):  # an offer the matador declined gave nothing away
        answer = decisions[i + 1] if i + 1 < len(decisions) else None
        if d.action == "offer" and d.cost and (answer is None or answer.action != "accept"):
            decisions[i] = replace(d, cost=0.0)
    return AceReview(list(game.names), decisions, game.over, threshold)


def odds_hint(observation: Mapping[str, Any], threshold: int = DEFAULT_THRESHOLD, *,
              call: bool = True) -> str:
    """The odds of the decision in front of ``observation["seat"]``, in words, with the call they
    make (as the ``exact`` bot decides), from that observation alone: a hint for a person.
    ``call=False``: the figures alone (when another figure, against the table's own bots, makes
    the call: :func:`stake_call`, :func:`exchange_call`).

    >>> import chasetheace as cta
    >>> game = cta.AceChasingGame(5, stack=["2d", "9d", "4d", "5d", "Jc"])
    >>> _ = game.act(cta.Offer(10))
    >>> odds_hint(game.observation(0))
    'You are knocked out 49.6% of the time; accepting 10 is worth +0.07 to you on average: accept.'
    >>> odds_hint(game.observation(0), call=False)
    'You are knocked out 49.6% of the time.'
    """
    legal = observation["legal"]
    if "keep" in legal:
        odds = exchange_odds(observation, threshold)
        figures = f"You are knocked out {odds.keep:.1%} if you keep, {odds.swap:.1%} if you swap"
        return f"{figures}: {'either' if odds.call == 'either' else odds.best}." if call else figures + "."
    if "accept" not in legal and "offer" not in legal:
        return "Nothing to decide now."
    p = knockout_chance(observation, threshold)
    matador = observation["names"][observation["matador"]]
    who = "You are" if "accept" in legal else f"{matador} (the matador) is"
    figures = f"{who} knocked out {p:.1%} of the time"
    if not call:
        return figures + "."
    return f"{figures}{';' if 'accept' in legal else ':'} {stake_call(observation, p)}"


def stake_call(observation: Mapping[str, Any], matador_out: float) -> str:
    """The call that a chance ``matador_out`` of the matador being knocked out makes at a bet:
    the matador's accept or decline, a bettor's bet or not (a bet of 10), with its worth.

    >>> stake_call({"legal": ["offer"]}, 0.61)
    'a bet of 10 is worth +2.20 to you on average: bet.'
    """
    if "accept" in observation["legal"]:
        amount = observation["offer"]["amount"]
        worth = amount * (1 - 2 * matador_out)
        return (f"accepting {amount} is worth {worth:+.2f} to you on average: "
                f"{'accept' if worth > 0 else 'decline'}.")
    return (f"a bet of 10 is worth {10 * (2 * matador_out - 1):+.2f} to you on average: "
            f"{'bet' if matador_out > 0.5 else 'do not bet'}.")


def exchange_call(keep: float, swap: float) -> str:
    """The call of an exchange from the chances of being knocked out if you keep and if you swap.

    >>> exchange_call(0.30, 0.45), exchange_call(0.5, 0.2), exchange_call(0.4, 0.4)
    ('keep', 'swap', 'either')
    """
    return "keep" if keep < swap else "swap" if swap < keep else "either"
