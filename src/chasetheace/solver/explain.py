"""The strategy in players' words: per position and situation, the card to start keeping at."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..rules import PRESETS, Rules
from .hand import Deck, InfoKey

if TYPE_CHECKING:
    from .solution import Solution

__all__ = ["Rule", "situation", "rules_of_thumb", "hardest_cards", "render_text", "rank_name",
           "rules_text"]

MIXED = 0.01  # a keep probability within this of 0 or 1 is shown as pure


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


def _seat(i: int, players: int) -> str:
    from .solution import position_name

    return position_name(i, players)


def situation(key: InfoKey, deck: Deck, players: int) -> str:
    """What the seat of ``key`` knows besides its card, in words."""
    position, hist, _, given = key
    words = []
    seat = 0
    for token in hist:
        name = _seat(seat, players)
        if token.startswith("J"):
            shown = [_seat(i, players) for i, b in enumerate(token[1:]) if b == "1"]
            words.append(f"{', '.join(shown)} showed {rank_name(deck, deck.kinds - 1)} at the deal" if shown
                         else f"nobody showed {rank_name(deck, deck.kinds - 1)} at the deal")
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
        words.append(f"you were swapped with and gave away {rank_name(deck, given)}")
    elif position > 0:
        words.append("nobody swapped with you")
    return "; ".join(words) if words else "you are first to act"


@dataclass
class Rule:
    """The equilibrium in one situation: keep from ``threshold`` up, with the mixed cards listed."""

    position: int
    history: tuple[str, ...]
    given: int
    chance: float                       # how often the situation arises (any card)
    threshold: int | None               # the weakest card from which on the seat keeps; None: never
    mixed: list[tuple[int, float]]      # (card, keep probability) where the equilibrium mixes
    exceptions: list[int]               # cards below the threshold that are kept anyway

    def text(self, deck: Deck, players: int) -> str:
        """One line for people."""
        key = (self.position, self.history, 0, self.given)
        keep = "never keep" if self.threshold is None else f"keep {rank_name(deck, self.threshold)} or better"
        extra = "".join(f", keep {rank_name(deck, c)} with p={p:.3f}" for c, p in self.mixed)
        extra += "".join(f", also keep {rank_name(deck, c)}" for c in self.exceptions)
        return f"{situation(key, deck, players)}: {keep}{extra}"


def rules_of_thumb(sol: Solution) -> list[Rule]:
    """One :class:`Rule` per situation (position, public history, card given), most frequent first."""
    groups: dict[tuple[int, tuple[str, ...], int], list[tuple[int, float, float]]] = {}
    for key, p, r in zip(sol.infosets, sol.keep, sol.reach):
        groups.setdefault((key[0], key[1], key[3]), []).append((key[2], p, r))
    rules = []
    for (position, hist, given), cards in groups.items():
        seen = sorted(c for c in cards if c[2] > 1e-12)
        if not seen:
            continue
        threshold = None
        for card, p, _ in reversed(seen):
            if p < 1 - MIXED:
                break
            threshold = card
        mixed = [(c, p) for c, p, _ in seen if MIXED < p < 1 - MIXED]
        exceptions = [c for c, p, _ in seen if p >= 1 - MIXED and (threshold is None or c < threshold)]
        rules.append(Rule(position, hist, given, sum(c[2] for c in cards), threshold, mixed, exceptions))
    rules.sort(key=lambda r: (r.position, -r.chance))
    return rules


def hardest_cards(sol: Solution) -> list[tuple[int, float]]:
    """Per position, the card whose decision matters least on average: the smallest mean gap in
    expected lives lost between keeping and swapping (a coin-flip decision), and that gap."""
    out = []
    for position in range(sol.players):
        gap: dict[int, float] = {}
        mass: dict[int, float] = {}
        for key, r, (k, s) in zip(sol.infosets, sol.reach, sol.values):
            if key[0] == position and r > 0:
                gap[key[2]] = gap.get(key[2], 0.0) + r * abs(k - s)
                mass[key[2]] = mass.get(key[2], 0.0) + r
        if not gap:
            out.append((-1, float("nan")))
            continue
        card = min(gap, key=lambda c: gap[c] / mass[c])
        out.append((card, gap[card] / mass[card]))
    return out


def keep_by_card(sol: Solution) -> list[list[float]]:
    """Per position and card, how often the seat keeps, averaged over the situations it meets."""
    k = sol.deck.kinds
    num = [[0.0] * k for _ in range(sol.players)]
    den = [[0.0] * k for _ in range(sol.players)]
    for key, p, r in zip(sol.infosets, sol.keep, sol.reach):
        num[key[0]][key[2]] += r * p
        den[key[0]][key[2]] += r
    return [[n / d if d > 0 else float("nan") for n, d in zip(nr, dr)] for nr, dr in zip(num, den)]


def render_text(sol: Solution, situations: int = 6) -> str:
    """The whole strategy as text: losses by seat, then the most frequent situations of each position."""
    from .solution import position_name

    deck, n = sol.deck, sol.players
    error = "" if sol.nash_conv_error is None else f" +- {sol.nash_conv_error:.1e} (sampled estimate)"
    title = next((p.title for p in PRESETS if p.rules == sol.rules), "Chase the Ace")
    lines = [f"{title}, one hand, {n} players, rules: {rules_text(sol.rules)}",
             f"method {sol.method}, NashConv {sol.nash_conv:.2e}{error} lives, {sol.seconds:.1f} s"]
    if sol.value is not None:
        lines.append(f"exact value: the eldest loses with probability {sol.value} (= {float(sol.value):.6f})")
    lines.append("")
    lines.append("position  P(lose)  E[lives lost]  hardest card (mean |keep - swap| in lives)")
    for i, (card, gap) in enumerate(hardest_cards(sol)):
        hard = "-" if card < 0 else f"{rank_name(deck, card)} ({gap:.4f})"
        lines.append(f"{position_name(i, n):8}  {sol.loss_probabilities[i]:.4f}   "
                     f"{sol.expected_lives_lost[i]:.4f}         {hard}")
    rules = rules_of_thumb(sol)
    for position in range(n):
        mine = [r for r in rules if r.position == position]
        if not mine:
            continue
        lines.append("")
        lines.append(f"{position_name(position, n)}:")
        for r in mine[:situations]:
            lines.append(f"  [{r.chance:6.1%}] {r.text(deck, n)}")
        if len(mine) > situations:
            rest = sum(r.chance for r in mine[situations:])
            lines.append(f"  ... {len(mine) - situations} rarer situations ({rest:.1%} of hands)")
    return "\n".join(lines)
