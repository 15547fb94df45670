"""Reviews of Ace Chasing games (RULES.md part B): the bets against the odds, the exchanges listed.

There is no equilibrium solver for Ace Chasing. A bet is judged by the odds the seat could know:
:func:`chasetheace.acechasing.bots.knockout_chance` from its own observation (the chance that the
matador is knocked out, the others' unknown cards taken as a random draw). A bettor's offer of
``a`` wins ``a`` when the matador is knocked out and loses ``a`` otherwise, so with chance ``p`` it
is worth ``a * (2p - 1)``; the matador accepting it is worth the opposite. An offer with ``p <
1/2``, or an acceptance with ``p > 1/2``, is *against the odds*; when the bet stands (the
matador accepts) its cost is the money it gives away on average, ``a * |2p - 1|`` (a declined
offer gives nothing away). Declines and ``Offer(0)`` are not judged. Keep/swap decisions in the
exchanges are listed with the card and the odds, not judged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["AceDecision", "AceReview", "review_ace_chasing"]


@dataclass(frozen=True)
class AceDecision:
    """One decision of an Ace Chasing game, with the knockout odds its seat could know."""

    index: int
    round: int
    seat: int
    name: str
    role: str                 # "bettor", "matador" or "exchanger"
    action: str               # "offer", "accept", "decline", "keep" or "swap"
    amount: int               # the offer's amount (0 for no bet), or the amount answered
    card: str | None
    knockout_chance: float
    cost: float               # expected money given away by a bet that stood (0 otherwise)
    judged: bool              # False for the exchanges and for declines and no-bets
    against_the_odds: bool    # an offer with p < 1/2 or an acceptance with p > 1/2

    def to_dict(self) -> dict[str, Any]:
        """The decision as data (``docs/review.md``)."""
        return {"index": self.index, "round": self.round, "seat": self.seat, "name": self.name,
                "role": self.role, "action": self.action, "amount": self.amount, "card": self.card,
                "knockout_chance": round(self.knockout_chance, 6), "cost": round(self.cost, 6),
                "judged": self.judged, "against_the_odds": self.against_the_odds}

    def text(self) -> str:
        """One line for people."""
        betting = self.action in ("offer", "accept", "decline")
        what = f"{self.action} {self.amount}" if betting else self.action
        held = f", holding {self.card}" if self.card else ""
        given = f", gives away {self.cost:.2f} on average" if self.cost else " (declined: nothing lost)"
        verdict = (f"AGAINST THE ODDS{given}" if self.against_the_odds
                   else "fine" if self.judged else "not judged")
        return (f"{self.name} ({self.role}{held}): {what}; knockout chance {self.knockout_chance:.1%}"
                f" - {verdict}")


@dataclass
class AceReview:
    """Every decision of an Ace Chasing game; :meth:`summary` per player."""

    names: list[str]
    decisions: list[AceDecision]
    complete: bool

    def summary(self) -> list[dict[str, Any]]:
        """Per seat: decisions, bets judged, bets against the odds, money given away on average."""
        out = []
        for seat, name in enumerate(self.names):
            mine = [d for d in self.decisions if d.seat == seat]
            judged = [d for d in mine if d.judged]
            bad = [d for d in judged if d.against_the_odds]
            out.append({"seat": seat, "name": name, "decisions": len(mine), "bets_judged": len(judged),
                        "against_the_odds": len(bad),
                        "money_given_away": round(sum(d.cost for d in mine), 6)})
        return out

    def to_dict(self, seat: int | None = None) -> dict[str, Any]:
        """The review as data; ``seat`` keeps one player's part."""
        return {"format": "chase-the-ace/review", "version": 1, "game": "ace-chasing",
                "players": list(self.names), "complete": self.complete,
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
        lines.append("player        decisions  bets judged  against the odds  money given away")
        for s in self.summary():
            if seat is None or s["seat"] == seat:
                lines.append(f"{s['name'][:12]:12}  {s['decisions']:9}  {s['bets_judged']:11}  "
                             f"{s['against_the_odds']:16}  {s['money_given_away']:16.2f}")
        return "\n".join(lines)

    def for_seat(self, seat: int) -> AceReview:
        """Only one seat's decisions (ValueError for a seat not in the game)."""
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.names):
            raise ValueError(f"bad seat {seat!r}: allowed 0..{len(self.names) - 1}")
        return AceReview(self.names, [d for d in self.decisions if d.seat == seat], self.complete)


def review_ace_chasing(record: Mapping[str, Any]) -> AceReview:
    """Judge the bets of an Ace Chasing record against the odds; RecordError if it is not valid."""
    from ..acechasing import AceAction, AceChasingGame, Offer
    from ..acechasing.bots import knockout_chance

    decisions: list[AceDecision] = []

    def visit(game: AceChasingGame, move: Any) -> None:
        seat = game.to_act
        assert seat is not None
        obs = game.observation(seat)
        p = knockout_chance(obs)
        if isinstance(move, Offer):
            amount, role, action = move.amount, "bettor", "offer"
            cost = max(0.0, amount * (1 - 2 * p))  # counted below only if the bet stands
            judged = amount > 0
            bad = judged and p < 0.5
        elif move in (AceAction.ACCEPT, AceAction.DECLINE):
            amount = obs["offer"]["amount"] if obs.get("offer") else 0
            role, action = "matador", str(AceAction(move).value)
            judged = move == AceAction.ACCEPT
            cost = max(0.0, amount * (2 * p - 1)) if judged else 0.0
            bad = judged and p > 0.5
        else:
            amount, role, action = 0, "exchanger", str(AceAction(move).value)
            cost, judged, bad = 0.0, False, False
        decisions.append(AceDecision(len(decisions), obs["round"], seat, game.names[seat], role, action,
                                     amount, obs["card"], p, cost, judged, bad))

    game = AceChasingGame.from_record(record, visit=visit)
    for i, d in enumerate(decisions):  # an offer the matador declined gave nothing away
        answer = decisions[i + 1] if i + 1 < len(decisions) else None
        if d.action == "offer" and d.cost and (answer is None or answer.action != "accept"):
            decisions[i] = replace(d, cost=0.0)
    return AceReview(list(game.names), decisions, game.over)
