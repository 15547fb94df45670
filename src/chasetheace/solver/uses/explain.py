"""The strategy in players' words: per position and situation, the card to start keeping at."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...rules import PRESETS
from ...seats import position_name
from ..model.hand import Deck
from ..model.words import rank_name, rules_text, situation
from ..solutions.solution import perfect_play_text

if TYPE_CHECKING:
    from ..solutions.solution import Solution

__all__ = ["Rule", "nash_conv_text", "rules_of_thumb", "hardest_cards", "render_text"]

MIXED = 0.01  # a keep probability within this of 0 or 1 is shown as pure
RARE = 0.01   # a situation's advice ignores the cards the seat holds in less than this share of it


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
    cards: list[tuple[int, float, float]] = field(default_factory=list)  # (card, keep probability, chance)

    def text(self, deck: Deck, players: int) -> str:
        """One line for people. Where the seat almost never holds a card it would keep (or one it
        would swap) in this situation, the advice says so plainly: "always swap", "always keep"."""
        key = (self.position, self.history, 0, self.given)
        total = sum(r for _, _, r in self.cards)
        if total > 0:
            held = [c for c, _, r in self.cards if r > RARE * total] or [c for c, _, _ in self.cards]
            span = rank_name(deck, min(held)) if min(held) == max(held) else \
                f"{rank_name(deck, min(held))} to {rank_name(deck, max(held))}"
            if sum(r * p for _, p, r in self.cards) <= RARE * total:
                return f"{situation(key, deck, players)}: always swap (you hold {span} here)"
            if sum(r * (1 - p) for _, p, r in self.cards) <= RARE * total:
                return f"{situation(key, deck, players)}: always keep (you hold {span} here)"
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
        rules.append(Rule(position, hist, given, sum(c[2] for c in cards), threshold, mixed, exceptions,
                          seen))
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


def nash_conv_text(sol: Solution) -> str:
    """How far from an equilibrium the strategy is, and what kind of figure that is about the true
    game (:attr:`~..solutions.solution.Solution.nash_conv_kind`): exact, a sampled estimate (not a
    bound), or a figure of the model without card removal only."""
    kind = sol.nash_conv_kind
    if kind == "model-only":
        return (f"NashConv {sol.nash_conv:.2e} lives in the hand without card removal only (exact "
                f"there; model-only: not measured in the true game, neither exact nor a bound there)")
    if kind == "exact":
        return (f"{perfect_play_text(sol.nash_conv)}: NashConv {sol.nash_conv:.2e}, exact, a best "
                f"response in the true game")
    low = "" if sol.nash_conv_low is None else f"{sol.nash_conv_low:.1e} (cross-fitted) to "
    error = "" if sol.nash_conv_error is None else f", +- {sol.nash_conv_error:.0e} lives"
    return (f"NashConv about {low}{sol.nash_conv:.1e} (plain, biased upwards{error}): estimates "
            f"from sampled hands in the true game, neither exact nor a proved bound (a bound that "
            f"holds with 95 % confidence: chasetheace.solver.methods.bound.bound_nash_conv)")


def render_text(sol: Solution, situations: int = 6) -> str:
    """The whole strategy as text: losses by seat, then the most frequent situations of each position."""
    deck, n = sol.deck, sol.players
    title = next((p.title for p in PRESETS if p.rules == sol.rules), "Chase the Ace")
    lines = [f"{title}, one hand, {n} players, rules: {rules_text(sol.rules)}",
             f"method {sol.method_text}, {nash_conv_text(sol)}, {sol.seconds:.1f} s"]
    lines += [f"note: {c}" for c in sol.caveats]
    if sol.value is not None:
        lines.append(f"exact value: the eldest loses with probability {sol.value} (= {float(sol.value):.6f})")
    lines.append("")
    lines.append("position  P(lose)  E[lives lost]  hardest card (where keeping and swapping differ "
                 "least, in lives)")
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
