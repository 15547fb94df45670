"""Brute force: every ordered deal of the pack, every path of play, in exact or float arithmetic.

This is the reference the fast solver is checked against (on small packs, and for two players on
the full pack, where it is also what the linear program is built from). It shares nothing with the
fast tree but the rules of :class:`~chasetheace.solver.model.hand.Hand`: it deals all cards up front and
plays the hand out seat by seat.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction

from .hand import Hand, InfoKey

__all__ = ["Evaluation", "evaluate", "deals", "outcome"]

Number = Fraction | float
Strategy = Callable[[InfoKey], Number]
"""The probability of keeping at an information set."""


@dataclass
class Evaluation:
    """Exact expected results of a strategy profile."""

    lives: list[Number]                       # expected lives lost per position
    losses: list[Number]                      # probability of losing per position
    cfv: dict[InfoKey, list[Number]] = field(default_factory=dict)  # [keep, swap] counterfactual lives

    def gain(self, strategy: Strategy) -> list[Number]:
        """Per position, how many lives a best response would save."""
        out: list[Number] = [0] * len(self.lives)
        for key, (keep, swap) in self.cfv.items():
            p = strategy(key)
            out[key[0]] += p * keep + (1 - p) * swap - min(keep, swap)
        return out

    def nash_conv(self, strategy: Strategy) -> Number:
        """The sum over positions of what a best response would save."""
        return sum(self.gain(strategy), Fraction(0))


def deals(hand: Hand, exact: bool = True) -> Iterator[tuple[list[int], Number]]:
    """Every ordered deal (the seats' cards, then the stock card the dealer would draw) and its chance."""
    copies, size, n = list(hand.deck.copies), hand.deck.size, hand.players + 1
    one: Number = Fraction(1) if exact else 1.0

    def rec(prefix: list[int], p: Number) -> Iterator[tuple[list[int], Number]]:
        if len(prefix) == n:
            yield prefix, p
            return
        left = size - len(prefix)
        for c in range(hand.rank_count):
            if copies[c]:
                copies[c] -= 1
                q = Fraction(copies[c] + 1, left) if exact else (copies[c] + 1) / left
                yield from rec([*prefix, c], p * q)
                copies[c] += 1

    yield from rec([], one)


Leaf = Callable[[tuple[tuple[InfoKey, int], ...], Number, list[Number]], None]
"""Called at every end of a hand with the (information set, action) path, its chance, the lives lost."""


def evaluate(hand: Hand, strategy: Strategy, exact: bool = True, leaf: Leaf | None = None) -> Evaluation:
    """Expected lives and losses per position, and every information set's counterfactual values.

    ``leaf``, if given, sees every path of play of every deal (actions 0 keep, 1 swap).
    """
    n = hand.players
    ev = Evaluation([0] * n, [0] * n)
    for deal, chance in deals(hand, exact):
        lives, losses = outcome(hand, strategy, deal, ev=ev, leaf=leaf, chance=chance)
        for i in range(n):
            ev.lives[i] += chance * lives[i]
            ev.losses[i] += chance * losses[i]
    return ev


def outcome(hand: Hand, strategy: Strategy, deal: list[int], *, ev: Evaluation | None = None,
            leaf: Leaf | None = None, chance: Number = 1) -> tuple[list[Number], list[Number]]:
    """The expected lives lost and chance of losing per position in one ordered deal (as
    :func:`deals` gives it: the seats' cards, then the stock card the dealer would draw); under a
    pure ``strategy``, what happens in that deal. ``ev`` gathers the counterfactual values."""
    n = hand.players
    play = _Play(hand, strategy, deal[-1], Evaluation([0] * n, [0] * n) if ev is None else ev)
    play.leaf, play.chance = leaf, chance
    start = (hand.jerk_token(deal[:-1]),) if hand.jerk else ()
    return play.turn(0, deal[:-1], start, [-1] * n, [False] * n, chance)


class _Play:
    def __init__(self, hand: Hand, strategy: Strategy, stock: int, ev: Evaluation) -> None:
        self.hand, self.strategy, self.stock, self.ev = hand, strategy, stock, ev
        self.leaf: Leaf | None = None
        self.chance: Number = 1
        self.path: tuple[tuple[InfoKey, int], ...] = ()

    def _leaf(self, lives: list[Number]) -> None:
        if self.leaf is not None:
            self.leaf(self.path, self.chance, lives)

    def end(self, cards: list[int], immune: int | None = None) -> tuple[list[Number], list[Number]]:
        hand = self.hand
        losers = hand.showdown(cards, immune)
        lives: list[Number] = [0] * hand.players
        losses: list[Number] = [0] * hand.players
        for i in losers:
            lives[i], losses[i] = hand.lives(cards[i]), 1
        self._leaf(lives)
        return lives, losses

    def turn(self, j: int, cards: list[int], hist: tuple[str, ...], given: list[int], done: list[bool],
             reach: Number) -> tuple[list[Number], list[Number]]:
        hand, n = self.hand, self.hand.players
        while j < n and done[j]:
            j += 1
        if j == n:
            return self.end(cards)
        card = cards[j]
        if card == hand.blocker:
            if hand.stops:
                return self.end(cards)
            return self.turn(j + 1, cards, (*hist, "K"), given, done, reach)
        key = (j, hist, card, given[j])
        p = self.strategy(key)
        path = self.path
        self.path = (*path, (key, 0))
        if j == n - 1:
            keep = self.end(cards)
            self.path = (*path, (key, 1))
            swap = self.dealer_swap(cards)
        else:
            keep = self.turn(j + 1, cards, (*hist, "k"), given, done, reach * p)
            self.path = (*path, (key, 1))
            swap = self.swap(j, cards, hist, given, done, reach * (1 - p))
        self.path = path
        values = self.ev.cfv.setdefault(key, [0, 0])
        values[0] += reach * keep[0][j]
        values[1] += reach * swap[0][j]
        return ([p * a + (1 - p) * b for a, b in zip(keep[0], swap[0])],
                [p * a + (1 - p) * b for a, b in zip(keep[1], swap[1])])

    def swap(self, j: int, cards: list[int], hist: tuple[str, ...], given: list[int], done: list[bool],
             reach: Number) -> tuple[list[Number], list[Number]]:
        hand, nb = self.hand, j + 1
        theirs = cards[nb]
        if theirs == hand.blocker:
            done = done[:]
            done[nb] = True
            if hand.stops:
                return self.end(cards)
            return self.turn(j + 2, cards, (*hist, "b"), given, done, reach)
        cards = cards[:]
        cards[j], cards[nb] = theirs, cards[j]
        given = given[:]
        given[nb] = theirs
        return self.turn(j + 1, cards, (*hist, hand.swap_token(theirs)), given, done, reach)

    def dealer_swap(self, cards: list[int]) -> tuple[list[Number], list[Number]]:
        hand, d = self.hand, self.hand.players - 1
        kind, drawn = hand.dealer_draw(cards[d], self.stock)
        zeros: list[Number] = [0] * hand.players
        if kind == "dl":
            hit = zeros[:]
            hit[d] = 1
            self._leaf(hit)
            return hit, hit
        if kind == "dw":
            rest: list[Number] = [1] * hand.players
            rest[d] = 0
            self._leaf(rest)
            return rest, rest
        cards = cards[:]
        cards[d] = drawn
        return self.end(cards, d if kind == "immune" else None)
