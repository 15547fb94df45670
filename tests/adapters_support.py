"""What the adapter tests share: cards named in the adapters' strings."""

from __future__ import annotations

from helpers import CARD


def cards_named(text: str) -> set[str]:
    """The cards written in a string."""
    return set(CARD.findall(text))
