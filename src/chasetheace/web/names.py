"""Player names at a web table: normalised, printable, and never a look-alike of another's.

A name is NFKC-normalised (full-width letters read as plain ones) and compared by its *skeleton*:
case folded, accents and invisible marks dropped, letters that look like Latin ones (Cyrillic
A, Greek alpha...) and digits that look like letters read as those letters, and everything
but letters and digits left out. Two names with one skeleton cannot sit at one table, and no one
may take a name that reads as a bot's (``Bot 1``) or carries the page's own marks (``Ann (you)``).

>>> skeleton("\\u0410nn") == skeleton("ann") == skeleton("A n n")  # a Cyrillic A
True
>>> check_name("Bot 1", [])
Traceback (most recent call last):
...
ValueError: the name 'Bot 1' is kept for the table's bots
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

__all__ = ["normalise", "skeleton", "check_name", "RESERVED_CHARS", "LookAlikeError"]


class LookAlikeError(ValueError):
    """The name is taken at the table, or looks like one that is."""

RESERVED_CHARS = "()[]{}<>"
"""Characters a name may not hold: the page marks names with them (``Ann (you)``)."""

# letters of other scripts that look like Latin letters, and digits and signs that look like letters
_LOOKS_LIKE = {
    "\u0430": "a", "\u0432": "b", "\u0435": "e", "\u0451": "e", "\u043a": "k", "\u043c": "m",
    "\u043d": "h", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0442": "t", "\u0443": "y",
    "\u0445": "x", "\u0455": "s", "\u0456": "i", "\u0457": "i", "\u0458": "j", "\u04bb": "h",
    "\u0501": "d", "\u051b": "q", "\u051d": "w", "\u0261": "g", "\u04cf": "l", "\u044c": "b",
    "\u0433": "r", "\u043f": "n", "\u0438": "u", "\u03b1": "a", "\u03b2": "b", "\u03b5": "e",
    "\u03b7": "n", "\u03b9": "i", "\u03ba": "k", "\u03bd": "v", "\u03bf": "o", "\u03c1": "p",
    "\u03c4": "t", "\u03c5": "u", "\u03c7": "x", "\u03c9": "w", "\u03b3": "y", "\u03bc": "u",
    "\u03f2": "c", "\u03f3": "j", "\u0131": "i", "\u0269": "i", "\u0142": "l", "\u00f8": "o",
    "\u0111": "d", "\u0127": "h", "\u0140": "l", "\u00df": "ss", "0": "o", "1": "l", "|": "l",
    "!": "l", "5": "s", "$": "s", "@": "a", "3": "e", "\u20ac": "e",
}
_PAIRS = (("rn", "m"), ("vv", "w"), ("cl", "d"), ("i", "l"))
_BOT = re.compile(r"b[o]t[lo0-9]*")


def normalise(name: str) -> str:
    """NFKC, with runs of white space made one space and the ends trimmed."""
    return " ".join(unicodedata.normalize("NFKC", name).split())


def skeleton(name: str) -> str:
    """What a name looks like, for comparing names: equal skeletons are look-alikes."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name).casefold())
    out = []
    for ch in text:
        if unicodedata.combining(ch):
            continue
        ch = _LOOKS_LIKE.get(ch, ch)
        if ch.isalnum():
            out.append(ch)
    result = "".join(out)
    for pair, single in _PAIRS:
        result = result.replace(pair, single)
    return result


def check_name(name: str, taken: Iterable[str]) -> None:
    """ValueError saying why ``name`` may not join a table where ``taken`` are seated."""
    bad = sorted({ch for ch in name if ch in RESERVED_CHARS})
    if bad:
        raise ValueError(f"the name {name!r} may not contain {' '.join(bad)}")
    mine = skeleton(name)
    if not mine:
        raise ValueError(f"the name {name!r} needs a letter or a digit")
    if _BOT.fullmatch(mine):
        raise ValueError(f"the name {name!r} is kept for the table's bots")
    for other in taken:
        if skeleton(other) == mine:
            raise LookAlikeError(f"the name {name!r} is taken at this table" if other == name else
                                 f"the name {name!r} looks like {other!r}, who sits at this table")
