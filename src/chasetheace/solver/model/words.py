"""The solver's situations in words: a rank as the game writes it, rules, an information set.

These need only the hand's model (:mod:`.hand`), never a solution, so the solution and every
explanation of it can use them.
"""

from __future__ import annotations

from ...rules import PRESETS, Rules
from ...seats import position_name
from .hand import Deck, InfoKey

__all__ = ["rank_name", "rules_text", "situation", "describe_key"]


def rank_name(deck: Deck, strength: int) -> str:
    """A rank as the game writes it (``'10'``, not the solver's one-character ``'T'``)."""
    name = deck.name(strength)
    return "10" if name == "T" else name


def rules_text(rules: Rules) -> str:
    """The rules in words: the preset they equal, if any, then the options that differ from standard.

    >>> rules_text(Rules.preset("le-her"))
    'le-her (lives=1, dealer_draws_blocker=void, ties=eldest-loses)'
    >>> rules_text(Rules().replace(lives=2))
    'standard with lives=2'
    """
    changes = ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                        for k, v in rules.changes().items())
    preset = next((p.name for p in PRESETS if p.rules == rules), None)
    if preset is not None:
        return f"{preset} ({changes})" if changes else preset
    return f"standard with {changes}"


def situation(key: InfoKey, deck: Deck, players: int, *, person: str = "you") -> str:
    """What the seat of ``key`` knows besides its card, in words: spoken to the seat's player
    (``person="you"``, a hint), or about them (``"they"``, a review of anyone's decisions)."""
    if person not in ("you", "they"):
        raise ValueError(f"person must be 'you' or 'they', not {person!r}")
    them = "you" if person == "you" else "them"
    position, hist, _, given = key
    words = []
    seat = 0
    for token in hist:
        name = position_name(seat, players)
        if token.startswith("J"):
            shown = [position_name(i, players) for i, b in enumerate(token[1:]) if b == "1"]
            top = rank_name(deck, deck.rank_count - 1)
            words.append(f"{', '.join(shown)} showed {top} at the deal" if shown
                         else f"nobody showed {top} at the deal")
            continue
        if token == "k":
            words.append(f"{name} kept")
        elif token == "K":
            words.append(f"{name} showed the blocker")
        elif token == "b":
            words.append(f"{name} was blocked")
            seat += 1
        else:
            text = f"{name} swapped"
            if len(token) > 1:
                text += f" (got an announced {token[1:]})"
            words.append(text)
        seat += 1
    if given >= 0:
        words.append(f"{person} were swapped with and gave away {rank_name(deck, given)}")
    elif position > 0:
        words.append(f"nobody swapped with {them}")
    return "; ".join(words) if words else f"{person} are first to act"


def describe_key(key: InfoKey, deck: Deck, players: int) -> str:
    """An information set in words."""
    where = situation(key, deck, players)
    return f"{position_name(key[0], players)} holding {rank_name(deck, key[2])}: {where}"
