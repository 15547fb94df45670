"""The rules of one hand as the solver needs them: strengths, blocker, tokens, losers.

Suits never matter in part A, so a card is a *strength* ``0..K-1`` (weakest first) with its
multiplicity in the pack. A seat's public history is a tuple of tokens, one per turn taken:
``"k"`` kept, ``"s"`` swapped (``"sA"``/``"s2"`` when announce_low made the neighbour announce),
``"b"`` was blocked by its neighbour, ``"K"`` showed the blocker. With kings_jerk the history
starts with one more token, ``"J"`` and a ``0``/``1`` per position (eldest first): who showed the
strongest rank at the deal.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, assert_never

from ...cards import PIQUET_RANKS, Card, rank_char
from ...events import (
    Blocked,
    CollectedSeen,
    CutDraw,
    DealerChosen,
    DealerDraw,
    DealerDrewBlocker,
    DealerExchangeSeen,
    DealerSameRank,
    DealtSeen,
    Eliminated,
    FinalTie,
    GameOver,
    HandStarted,
    Keep,
    KingJerk,
    LivesLost,
    Pick,
    ShowBlocker,
    Showdown,
    ShuffleSeen,
    SwapSeen,
    read_view,
)
from ...rules import OPTIONS, Rules

__all__ = ["Deck", "Hand", "InfoKey", "deck_of", "infoset_of"]

InfoKey = tuple[int, tuple[str, ...], int, int]
"""An information set: (position, public history, own card, card given to the right neighbour or -1)."""


@dataclass(frozen=True)
class Deck:
    """The pack as the solver sees it: the multiplicity of each strength, weakest first."""

    copies: tuple[int, ...]
    ranks: tuple[int, ...]          # the engine rank (1..13) of each strength
    blocker: int | None             # the blocker's strength, or None

    @property
    def size(self) -> int:
        """How many cards the pack has."""
        return sum(self.copies)

    @property
    def rank_count(self) -> int:
        """How many distinct strengths (ranks) the pack has (K)."""
        return len(self.copies)

    @property
    def kinds(self) -> int:
        """The old name of :attr:`rank_count` (until 0.3.0, with a DeprecationWarning)."""
        warnings.warn("Deck.kinds is now Deck.rank_count (kinds goes in 0.3.0)", DeprecationWarning,
                      stacklevel=2)
        return self.rank_count

    def name(self, strength: int) -> str:
        """The rank's one-character name (``'A'``, ``'T'``, ``'K'``)."""
        return rank_char(self.ranks[strength])

    def strength_of_rank(self, rank: int) -> int:
        """The strength of an engine rank (1..13)."""
        return self.ranks.index(rank)


def deck_of(rules: Rules) -> Deck:
    """The solver's deck for ``rules``: the pack's ranks ordered by ``ranking``, four of each."""
    present = range(1, 14) if rules.deck == 52 else PIQUET_RANKS
    ranks = tuple(sorted(present, key=rules.strength))
    blocker = rules.blocker_rank
    return Deck((4,) * len(ranks), ranks, None if blocker is None else ranks.index(blocker))


class Hand:
    """The decision-relevant rules of one hand with ``players`` seats (position 0 eldest)."""

    def __init__(self, rules: Rules, players: int, deck: Deck | None = None) -> None:
        for key, value in rules.changes().items():
            if OPTIONS[key].solver == "refuses":
                raise ValueError(f"the solver does not model the rule {key}={value}: solve with "
                                 f"{key}={OPTIONS[key].default} instead")
        self.rules = rules
        self.deck = deck = deck if deck is not None else deck_of(rules)
        if not (isinstance(players, int) and 2 <= players <= deck.size - 1):
            raise ValueError(f"bad number of players {players!r}: allowed 2..{deck.size - 1}")
        self.players = players
        self.rank_count = deck.rank_count
        self.blocker = -1 if deck.blocker is None else deck.blocker
        self.ace = deck.strength_of_rank(1) if 1 in deck.ranks else -1
        self.announced = ({s for s in range(deck.rank_count) if deck.ranks[s] <= 2}
                          if rules.announce_low else set())
        self.stops = rules.king_stops_play
        self.pairing = rules.pairing  # then ties does not apply
        self.shift = 1 if rules.ties == "latest-loses" and not self.pairing else 0
        self.jerk = rules.kings_jerk
        self.top = deck.rank_count - 1  # the strongest strength: shown at the deal under kings_jerk

    @property
    def kinds(self) -> int:
        """The old name of :attr:`rank_count` (until 0.3.0, with a DeprecationWarning)."""
        warnings.warn("Hand.kinds is now Hand.rank_count (kinds goes in 0.3.0)", DeprecationWarning,
                      stacklevel=2)
        return self.rank_count

    def jerk_token(self, cards: list[int] | tuple[int, ...]) -> str:
        """The kings_jerk token for the dealt cards (eldest first): which positions show the top rank."""
        return "J" + "".join("1" if c == self.top else "0" for c in cards)

    def jerk_patterns(self) -> list[tuple[tuple[bool, ...], Fraction]]:
        """Every possible kings_jerk pattern (whether each position is dealt the top rank), and its chance."""
        n, t, size = self.players, self.deck.copies[self.top], self.deck.size
        out: list[tuple[tuple[bool, ...], Fraction]] = []
        for code in range(1 << n):
            pattern = tuple(bool(code >> i & 1) for i in range(n))
            m = sum(pattern)
            p = Fraction(1)
            for i in range(m):
                p *= Fraction(t - i, size - i)
            for i in range(n - m):
                p *= Fraction(size - t - i, size - m - i)
            if p > 0:
                out.append((pattern, p))
        return out

    def swap_token(self, received: int) -> str:
        """The public token of a swap in which the neighbour gave ``received``."""
        return "s" + self.deck.name(received) if received in self.announced else "s"

    def lives(self, card: int) -> int:
        """Lives a loser holding ``card`` pays at a showdown."""
        return 2 if self.rules.ace_pays_double and card == self.ace else 1

    def loses(self, card: int, low_before: int, low_after: int) -> bool:
        """Whether a seat holding ``card`` loses the showdown, given the weakest card of the seats
        before it and after it in turn order (``K`` where there is none); not for pairing."""
        ties = self.rules.ties
        before = card < low_before if ties == "eldest-loses" else card <= low_before
        after = card < low_after if ties == "latest-loses" else card <= low_after
        return before and after

    def dealer_draw(self, card: int, drawn: int) -> tuple[str, int]:
        """What happens when the dealer holding ``card`` draws ``drawn`` from the stock.

        ``("card", c)``: the dealer ends with c; ``("dl", _)``: the dealer alone loses;
        ``("dw", _)``: every other player loses; ``("immune", _)``: the dealer cannot lose.
        """
        rules = self.rules
        if drawn == self.blocker and rules.dealer_draws_blocker == "void":
            return "card", card
        if drawn == self.blocker and rules.dealer_draws_blocker == "dealer-loses":
            return "dl", drawn
        if drawn == card and rules.dealer_same_rank == "dealer-wins":
            return "dw", drawn
        if drawn == card and rules.dealer_same_rank == "dealer-immune":
            return "immune", drawn
        return "card", drawn

    def showdown(self, finals: list[int], immune: int | None = None) -> list[int]:
        """The losing positions for the final cards, in turn order."""
        seats = [i for i in range(len(finals)) if i != immune]
        if self.pairing:  # the weakest group: fewest cards, then the weaker rank
            groups: dict[int, list[int]] = {}
            for i in seats:
                groups.setdefault(finals[i], []).append(i)
            return groups[min(groups, key=lambda f: (len(groups[f]), f))]
        low = min(finals[i] for i in seats)
        tied = [i for i in seats if finals[i] == low]
        if self.rules.ties == "eldest-loses":
            return tied[:1]
        if self.rules.ties == "latest-loses":
            return tied[-1:]
        return tied


# --- a seat's view of a game's hand ------------------------------------------------------------------

def infoset_of(observation: Mapping[str, Any], deck: Deck, *, kings_jerk: bool = False) -> InfoKey:
    """The solver's information set for the seat of ``observation`` (from ``game.observation``).

    Reads only what the seat may know: its card, the public actions of this hand (with
    ``kings_jerk``, who showed the top rank at the deal), and the card it gave when its right
    neighbour swapped with it.
    """
    seat = observation.get("seat")
    card = observation.get("card")
    if seat is None or card is None:
        raise ValueError("the observation must be a seat's own view during a hand")
    seen = [read_view(view) for view in observation["history"]]
    start = max((i for i, ev in enumerate(seen) if isinstance(ev, HandStarted)), default=-1)
    if start < 0:
        raise ValueError("the observation has no hand in progress")
    started = seen[start]
    assert isinstance(started, HandStarted)
    order = list(started.order)
    tokens: list[str] = []
    jerked = ["0"] * len(order)
    given = -1
    for ev in seen[start + 1:]:
        match ev:
            case KingJerk(seat=who):
                jerked[order.index(who)] = "1"
            case Keep():
                tokens.append("k")
            case SwapSeen(neighbour=neighbour, announced=announced, received=received):
                tokens.append("s" if announced is None else "s" + rank_char(announced))
                if neighbour == seat and received is not None:
                    given = deck.strength_of_rank(received.rank)
            case Blocked():
                tokens.append("b")
            case ShowBlocker():
                tokens.append("K")
            case (ShuffleSeen() | Pick() | DealerDraw() | DealerChosen() | HandStarted() | DealtSeen()
                  | DealerExchangeSeen() | DealerDrewBlocker() | DealerSameRank() | Showdown()
                  | LivesLost() | FinalTie() | CutDraw() | Eliminated() | CollectedSeen() | GameOver()):
                pass  # no public token of the hand's play
            case other:
                assert_never(other)
    if kings_jerk:
        tokens.insert(0, "J" + "".join(jerked))
    return order.index(seat), tuple(tokens), deck.strength_of_rank(Card.parse(card).rank), given
