"""Cards and packs: the 52-card pack and the 32-card piquet pack.

A card is written as rank + suit: ``A 2 3 4 5 6 7 8 9 T J Q K`` and ``c d h s``
(``"Th"`` is the ten of hearts; ``"10h"`` is accepted on input too).

>>> Card.parse("10h")
Card('Th')
>>> Card('Th') is Card(10, 'h')
True
>>> Card('Th') is Card(10, 'h')
True
>>> str(Card.parse("as")), Card.parse("Kd").rank
('As', 13)
>>> [str(c) for c in pack(32)][:5]
['Ac', 'Ad', 'Ah', 'As', '7c']
"""

from __future__ import annotations

from collections.abc import Sequence

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "cdhs"
RANK_NAMES = {
    1: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
    8: "eight", 9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king",
}
SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
PIQUET_RANKS = (1, 7, 8, 9, 10, 11, 12, 13)


class Card:
    """One playing card. Instances are interned: there is one object per card.

    ``Card.parse`` reads a card; ``str(card)`` (or ``card.text``, without a call: the observations'
    hot path) writes it back the same way.
    ``card.id`` is a small integer (``(rank - 1) * 4 + suit index``) used for speed.
    """

    __slots__ = ("id", "rank", "suit", "text")

    id: int
    rank: int
    suit: str
    text: str

    def __new__(cls, rank: int | str, suit: str | None = None) -> Card:
        if suit is None and isinstance(rank, str):
            return cls.parse(rank)  # Card('Th'), so that repr() is valid code
        if not (isinstance(rank, int) and 1 <= rank <= 13) or not isinstance(suit, str) \
                or len(suit) != 1 or suit not in SUIT_CHARS:
            raise ValueError(f"no such card: rank {rank!r}, suit {suit!r}")
        return CARDS[(rank - 1) * 4 + SUIT_CHARS.index(suit)]

    @classmethod
    def _make(cls, card_id: int) -> Card:
        card = object.__new__(cls)
        rank, suit = card_id // 4 + 1, SUIT_CHARS[card_id % 4]
        object.__setattr__(card, "id", card_id)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "suit", suit)
        object.__setattr__(card, "text", RANK_CHARS[rank - 1] + suit)
        return card

    @classmethod
    def parse(cls, text: str | Card) -> Card:
        """Read a card such as ``"Th"``, ``"10h"`` or ``"as"``; raise ValueError otherwise."""
        if type(text) is str:
            card = _BY_TEXT.get(text)
            if card is not None:  # the usual case: a card as the engine writes it
                return card
        elif isinstance(text, Card):
            return text
        if not isinstance(text, str):
            raise ValueError(f"a card is written like 'Th' or 'As', not {text!r}")
        t = text.strip()
        if len(t) == 3 and t[:2] == "10":
            t = "T" + t[2]
        if len(t) != 2 or t[0].upper() not in RANK_CHARS or t[1].lower() not in SUIT_CHARS:
            raise ValueError(
                f"not a card: {text!r} (write rank A 2-9 T J Q K, then suit c d h s, e.g. 'Th')"
            )
        return CARDS[RANK_CHARS.index(t[0].upper()) * 4 + SUIT_CHARS.index(t[1].lower())]

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({self.text!r})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Card.parse, (self.text,))

    def __hash__(self) -> int:
        return self.id

    def __lt__(self, other: Card) -> bool:
        return self.id < other.id

    def name(self) -> str:
        """The card in words: ``'ten of hearts'``."""
        return f"{RANK_NAMES[self.rank]} of {SUIT_NAMES[self.suit]}"


CARDS: tuple[Card, ...] = tuple(Card._make(i) for i in range(52))
_BY_TEXT: dict[str, Card] = {str(c): c for c in CARDS}


def pack(size: int = 52) -> list[Card]:
    """A new pack in a fixed order (ranks A, 2..K; suits c d h s): 52 cards, or 32 for piquet."""
    if size == 52:
        return list(CARDS)
    if size == 32:
        return [c for c in CARDS if c.rank in PIQUET_RANKS]
    raise ValueError(f"no such pack: {size!r} (allowed: 52, 32)")


def stacked_pack(stack: Sequence[str | Card], full: Sequence[Card]) -> list[Card]:
    """The pack ``full`` stacked: the cards of ``stack`` on top (top first), then the rest of
    ``full`` in its order. ValueError names a card that is not in the pack or comes twice.

    >>> [str(c) for c in stacked_pack(["Kd", "2c"], pack(52))[:4]]
    ['Kd', '2c', 'Ac', 'Ad']
    """
    if isinstance(stack, str) or not isinstance(stack, Sequence):
        raise ValueError("a stacked pack is a list of cards, top first")
    cards = [Card.parse(c) for c in stack]
    allowed = set(full)
    seen: set[Card] = set()
    for c in cards:
        if c not in allowed:
            raise ValueError(f"card {c} is not in the {len(full)}-card pack")
        if c in seen:
            raise ValueError(f"card {c} appears twice in the stacked pack")
        seen.add(c)
    return cards + [c for c in full if c not in seen]


def rank_char(rank: int) -> str:
    """The one-character name of a rank: 1 -> 'A', 10 -> 'T'."""
    return RANK_CHARS[rank - 1]


def parse_rank(text: str | int) -> int:
    """Read a rank: ``'A'``, ``'10'``, ``'T'``, ``'k'``, ``'king'`` or an int 1..13."""
    if isinstance(text, bool):
        raise ValueError(f"not a rank: {text!r}")
    if isinstance(text, int):
        if 1 <= text <= 13:
            return text
        raise ValueError(f"not a rank: {text!r} (1..13)")
    t = str(text).strip()
    if t == "10":
        return 10
    if len(t) == 1 and t.upper() in RANK_CHARS:
        return RANK_CHARS.index(t.upper()) + 1
    for value, word in RANK_NAMES.items():
        if t.lower() == word:
            return value
    if t.isdigit() and 2 <= int(t) <= 10:
        return int(t)
    raise ValueError(f"not a rank: {text!r} (write A 2-10 J Q K)")
