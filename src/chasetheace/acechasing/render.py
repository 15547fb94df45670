"""Ace Chasing in words: each event as a seat sees it (the game's narrator).

>>> narrate({"type": "round_started", "round": 1, "matador": 1, "order": [0, 1]}, ["Ann", "Bob"], 0)
['Round 1: Bob is the matador.']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, assert_never

from ..cards import Card
from ..events import DealtSeen, Eliminated, GameOver, Keep, ShuffleSeen, SwapSeen
from ..render import card_text
from .events import BetAccepted, BetDeclined, BettingClosed, Offered, RoundStarted, Settled, Shown, read_view

__all__ = ["narrate"]


def narrate(view: Mapping[str, Any], names: Sequence[str], viewer: int | None = None,
            matador: int | None = None) -> list[str]:
    """One event, as a seat sees it (a dict from ``observation(seat)["history"]``), in words.

    ``matador`` is this round's matador, if known (a viewer who is the matador is "you"). Told
    to nobody in particular (``viewer`` None: a whole record), a player named "You" (the default
    name at the terminal) is still spoken of as you.

    >>> narrate({"type": "shown", "step": 2, "cards": [[2, "Ah"]]}, ["Ann", "Bob", "Cat"], 0)
    ['Lower than the matador: Cat shows A♥.']
    >>> narrate({"type": "round_started", "round": 2, "matador": 0, "order": [1, 0]}, ["You", "Bob"])
    ['Round 2: You are the matador.']
    """
    whole_record = viewer is None
    if viewer is None and "You" in names:
        viewer = list(names).index("You")
    def who(seat: int) -> str:
        return "You" if seat == viewer else names[seat]

    def whom(seat: int) -> str:
        return "you" if seat == viewer else names[seat]

    def shown(pairs: Sequence[tuple[int, Card]]) -> str:
        return ", ".join(f"{who(s)} show{'' if s == viewer else 's'} {card_text(c)}" for s, c in pairs)

    match read_view(view):
        case RoundStarted(round=number, matador=m):
            return [f"Round {number}: {who(m)} {'are' if m == viewer else 'is'} the matador."]
        case DealtSeen(cards=cards):
            if whole_record and cards:  # a whole record, told after the game
                return ["Dealt: " + ", ".join(f"{who(s)} {card_text(c)}" for s, c in cards) + "."]
            return [f"You are dealt {card_text(c)}." for s, c in cards if s == viewer]
        case Offered(seat=s, amount=amount, number=number):
            if amount:
                return [f"{who(s)} offer{'' if s == viewer else 's'} to bet {amount} that the matador "
                        "is knocked out."]
            return [f"{who(s)} {'bet' if s == viewer else 'bets'} nothing." if number == 1
                    else f"{who(s)} withdraw{'' if s == viewer else 's'}."]
        case BetAccepted(seat=s, amount=amount) | BetDeclined(seat=s, amount=amount) as ev:
            verdict = "accepted" if isinstance(ev, BetAccepted) else "declined"
            by = "You" if viewer is not None and viewer == matador else "The matador"
            return [f"{by} {verdict} {who(s)}'s offer of {amount}.".replace("You's", "your")]
        case BettingClosed(bets=bets):
            standing = ", ".join(f"{who(s)} {a}" for s, a in bets) or "none"
            return [f"The betting is closed. Bets standing: {standing}."]
        case Keep(seat=s):
            return [f"{who(s)}: Keep."]
        case SwapSeen(seat=a, neighbour=b, given=given, received=received):
            line = f"{who(a)}: Swap with {whom(b)}."
            if given is not None and viewer in (a, b):
                mine = a == viewer
                gave, got = (given, received) if mine else (received, given)
                line += f" You gave {card_text(gave)} and got {card_text(got)}."
            elif given is not None:
                line += f" ({card_text(given)} for {card_text(received)})"
            return [line]
        case Shown(step=step, cards=cards):
            head = {1: "The matador", 2: "Lower than the matador", 3: "Of a face-up ace's suit"}
            if step == 1:
                s, c = cards[0]
                if s == viewer:
                    return [f"You, the matador, show {card_text(c)}."]
                return [f"{head[1]}, {who(s)}, shows {card_text(c)}."]
            return [f"{head[step]}: {shown(cards)}."]
        case Settled(matador=m, survived=survived, payments=payments):
            es = "" if m == viewer else "s"
            total = sum(abs(a) for s, a in payments if s != m)
            if survived:
                return [f"{who(m)} survive{es}" + (f" and collect{es} {total}." if total else ".")]
            return [f"Nobody else showed: {who(m)} {'are' if es == '' else 'is'} knocked out"
                    + (f" and pay{es} {total}." if total else ".")]
        case Eliminated(seats=seats):
            out = [who(s) for s in sorted(seats, key=lambda s: s != viewer)]  # "You and Bob"
            return [f"{' and '.join(out)} {'are' if len(out) > 1 or out == ['You'] else 'is'} out."]
        case GameOver(winners=winners):
            return [f"{who(s)} win{'' if s == viewer else 's'} the game." for s in winners]
        case ShuffleSeen():
            return []  # a shuffle: nothing to say
        case other:
            assert_never(other)
