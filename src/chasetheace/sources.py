"""The source texts of RULES.md, cited in words; the rules and presets name them by number.

>>> SOURCES["003"]
'"Ace Chasing", contributed by Matthew Allen to pagat.com, John McLeod\\'s card games website (undated)'
>>> cited("001, Cassell's")
['001']
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["SOURCES", "cited", "print_sources"]

SOURCES: dict[str, str] = {
    "000": '"Ranter-Go-Round", Wikipedia, the free encyclopedia, an earlier revision (undated): the '
           "variants; it cites Hoyle's Games by Edmond Hoyle, revised by R. F. Foster, 1926",
    "001": '"Ranter-Go-Round", Wikipedia, the free encyclopedia, a revision of 2023 or later: the '
           "rules of Phillips & Westall (1945) and the history, after Cassell's Book of Sports and "
           "Pastimes (1882), Hoffmann (1891), Parlett (2008), Arnold (2009) and others",
    "002": '"Cuckoo", a rules page ("Objective of Cuckoo", "Number of players"); author and year not given',
    "003": '"Ace Chasing", contributed by Matthew Allen to pagat.com, John McLeod\'s card games website '
           "(undated)",
    "004": '"Chase the Ace Card Game", a family rules sheet; author and year not given',
}
"""Each numbered source text of RULES.md, in words: title, author or publisher, year."""


def cited(source: str) -> list[str]:
    """The numbered sources a source note cites, in order of first mention."""
    found: list[str] = []
    for number in re.findall(r"\b00\d\b", source):
        if number in SOURCES and number not in found:
            found.append(number)
    return found


def print_sources(console: Console, notes: Sequence[str]) -> None:
    """Below a table whose source column cites numbers: each number cited in ``notes``, in words."""
    numbers = sorted({n for note in notes for n in cited(note)})
    if not numbers:
        return
    console.print("[dim]Sources (numbered as in RULES.md):[/dim]")
    for number in numbers:
        console.print(f"[dim]{number}: {SOURCES[number]}[/dim]", highlight=False)
