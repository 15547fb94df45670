"""Ace Chasing in words: each event as a seat sees it (the game's narrator).

>>> narrate({"type": "round_started", "round": 1, "matador": 1}, ["Ann", "Bob"], 0)
['Round 1: Bob is the matador.']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..render import card_text

__all__ = ["narrate"]


def narrate(view: Mapping[str, Any], names: Sequence[str], viewer: int | None = None,
            matador: int | None = None) -> list[str]:
    """One event, as a seat sees it (a dict from ``observation(seat)["history"]``), in words.

    ``matador`` is this round's matador, if known (a viewer who is the matador is "you").

    >>> narrate({"type": "shown", "step": 2, "cards": [[2, "Ah"]]}, ["Ann", "Bob", "Cat"], 0)
    ['Lower than the matador: Cat shows A♥.']
    """
    def who(seat: int) -> str:
        return "You" if seat == viewer else names[seat]

    def whom(seat: int) -> str:
        return "you" if seat == viewer else names[seat]

    def shown(pairs: Sequence[Sequence[Any]]) -> str:
        return ", ".join(f"{who(s)} show{'' if s == viewer else 's'} {card_text(c)}" for s, c in pairs)

    kind = view["type"]
    if kind == "round_started":
        m = view["matador"]
        return [f"Round {view['round']}: {who(m)} {'are' if m == viewer else 'is'} the matador."]
    if kind == "dealt":
        if viewer is None and view["cards"]:  # a whole record, told after the game
            return ["Dealt: " + ", ".join(f"{who(s)} {card_text(c)}" for s, c in view["cards"]) + "."]
        return [f"You are dealt {card_text(c)}." for s, c in view["cards"] if s == viewer]
    if kind == "offered":
        s, amount = view["seat"], view["amount"]
        if amount:
            return [f"{who(s)} offer{'' if s == viewer else 's'} to bet {amount} that the matador "
                    "is knocked out."]
        return [f"{who(s)} {'bet' if s == viewer else 'bets'} nothing." if view["number"] == 1
                else f"{who(s)} withdraw{'' if s == viewer else 's'}."]
    if kind in ("bet_accepted", "bet_declined"):
        verdict = "accepted" if kind == "bet_accepted" else "declined"
        by = "You" if viewer is not None and viewer == matador else "The matador"
        return [f"{by} {verdict} {who(view['seat'])}'s offer of {view['amount']}."
                .replace("You's", "your")]
    if kind == "betting_closed":
        bets = ", ".join(f"{who(s)} {a}" for s, a in view["bets"]) or "none"
        return [f"The betting is closed. Bets standing: {bets}."]
    if kind == "keep":
        return [f"{who(view['seat'])}: Keep."]
    if kind == "swap":
        line = f"{who(view['seat'])}: Swap with {whom(view['neighbour'])}."
        if "given" in view and viewer in (view["seat"], view["neighbour"]):
            mine = view["seat"] == viewer
            gave, got = (view["given"], view["received"]) if mine else (view["received"], view["given"])
            line += f" You gave {card_text(gave)} and got {card_text(got)}."
        elif "given" in view:
            line += f" ({card_text(view['given'])} for {card_text(view['received'])})"
        return [line]
    if kind == "shown":
        head = {1: "The matador", 2: "Lower than the matador", 3: "Of a face-up ace's suit"}
        if view["step"] == 1:
            s, c = view["cards"][0]
            if s == viewer:
                return [f"You, the matador, show {card_text(c)}."]
            return [f"{head[1]}, {who(s)}, shows {card_text(c)}."]
        return [f"{head[view['step']]}: {shown(view['cards'])}."]
    if kind == "settled":
        m, es = view["matador"], "" if view["matador"] == viewer else "s"
        total = sum(abs(a) for s, a in view["payments"] if s != m)
        if view["survived"]:
            return [f"{who(m)} survive{es}" + (f" and collect{es} {total}." if total else ".")]
        return [f"Nobody else showed: {who(m)} {'are' if es == '' else 'is'} knocked out"
                + (f" and pay{es} {total}." if total else ".")]
    if kind == "eliminated":
        out = [who(s) for s in sorted(view["seats"], key=lambda s: s != viewer)]  # "You and Bob"
        return [f"{' and '.join(out)} {'are' if len(out) > 1 or out == ['You'] else 'is'} out."]
    if kind == "game_over":
        return [f"{who(s)} win{'' if s == viewer else 's'} the game." for s in view["winners"]]
    return []  # a shuffle: nothing to say
