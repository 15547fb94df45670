"""Player names at a web table: normalised, printable, and never a look-alike of another's.

A name is NFKC-normalised (full-width letters read as plain ones) and compared by its *skeleton*,
after Unicode TR39's (a built-in table of the confusables that matter for names, not all of
confusables.txt): letters that look like Latin ones (Cyrillic, Greek, Armenian, Cherokee and Lisu
letters, Latin small capitals...) and digits that look like letters read as those letters, case
folded, accents dropped, and everything but letters and digits left out. Two names with one
skeleton cannot sit at one table. No one may take a name that reads as a bot's (``Bot 1``), holds
a bracket of any kind (the page writes ``Ann (you)``: ``Ann \\u2768you\\u2769`` must not look
like it), or holds an invisible letter (the Hangul fillers, the Braille blank: a name that shows
as nothing).

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

__all__ = ["normalise", "skeleton", "check_name", "RESERVED_CHARS", "BRACKET_LOOKALIKES", "INVISIBLE",
           "LookAlikeError"]


class LookAlikeError(ValueError):
    """The name is taken at the table, or looks like one that is."""

RESERVED_CHARS = "()[]{}<>"
"""Characters a name may not hold: the page marks names with them (``Ann (you)``); nor may it
hold any other open or close bracket (``\\u2768``, ``\\u27e8``...), nor the characters in
:data:`BRACKET_LOOKALIKES` (angle quotation marks, modifier arrowheads...)."""
BRACKET_LOOKALIKES = "\u02c2\u02c3\u1438\u1433\u144a\u1431\u3008\u3009\u2039\u203a\u00ab\u00bb\u276c\u276d"
INVISIBLE = frozenset(
    "\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f\u2060\u200b"
    "\u200c\u200d\u00ad\ufeff" + "".join(chr(c) for c in range(0xFE00, 0xFE10))
    + "".join(chr(c) for c in range(0xE0100, 0xE01F0)))
"""Letters and marks that show as nothing (the Hangul fillers are letters to Unicode)."""

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
    # capitals of other scripts that look like Latin ones (read before case folding, which would
    # turn Greek H into eta, read as n)
    "\u0391": "a", "\u0392": "b", "\u0395": "e", "\u0396": "z", "\u0397": "h", "\u0399": "l",
    "\u039a": "k", "\u039c": "m", "\u039d": "n", "\u039f": "o", "\u03a1": "p", "\u03a4": "t",
    "\u03a5": "y", "\u03a7": "x", "\u0410": "a", "\u0412": "b", "\u0415": "e", "\u041a": "k",
    "\u041c": "m", "\u041d": "h", "\u041e": "o", "\u0420": "p", "\u0421": "c", "\u0422": "t",
    "\u0425": "x", "\u0423": "y", "\u0405": "s", "\u0406": "l", "\u0408": "j", "\u051a": "q",
    "\u051c": "w", "\u04ae": "y", "\u04c0": "l", "\u0555": "o", "\u054f": "s", "\u054d": "u",
    # Armenian small letters
    "\u0561": "w", "\u0563": "q", "\u0566": "q", "\u0570": "h", "\u0578": "n", "\u057c": "n",
    "\u057d": "u", "\u0581": "g", "\u0585": "o",
    # Cherokee (case folding maps its small letters to these capitals)
    "\u13aa": "a", "\u13f4": "b", "\u13df": "c", "\u13a0": "d", "\u13ac": "e", "\u13c0": "g",
    "\u13bb": "h", "\u13a5": "i", "\u13ab": "j", "\u13e6": "k", "\u13de": "l", "\u13b7": "m",
    "\u13e2": "p", "\u13d2": "r", "\u13da": "s", "\u13a2": "t", "\u13d9": "v", "\u13b3": "w",
    "\u13a9": "y", "\u13bd": "y", "\u13c3": "z", "\u13be": "o", "\u13d0": "o",
    # Lisu
    "\ua4ee": "a", "\ua4d0": "b", "\ua4da": "c", "\ua4d3": "d", "\ua4f0": "e", "\ua4dd": "f",
    "\ua4d6": "g", "\ua4e7": "h", "\ua4f2": "l", "\ua4d9": "j", "\ua4d7": "k", "\ua4e1": "l",
    "\ua4df": "m", "\ua4e0": "n", "\ua4f3": "o", "\ua4d1": "p", "\ua4e3": "r", "\ua4e2": "s",
    "\ua4d4": "t", "\ua4f4": "u", "\ua4e6": "v", "\ua4ea": "w", "\ua4eb": "x", "\ua4ec": "y",
    "\ua4dc": "z",
    # Latin small capitals and other Latin letters that look like plain ones
    "\u0251": "a", "\u1d00": "a", "\u0299": "b", "\u1d04": "c", "\u1d05": "d", "\u1d07": "e",
    "\u0262": "g", "\u029c": "h", "\u026a": "l", "\u1d0a": "j", "\u1d0b": "k", "\u029f": "l",
    "\u1d0d": "m", "\u0274": "n", "\u1d0f": "o", "\u1d18": "p", "\u0280": "r", "\ua731": "s",
    "\u1d1b": "t", "\u1d1c": "u", "\u1d20": "v", "\u1d21": "w", "\u028f": "y", "\u1d22": "z",
    "\u0237": "j", "\u029d": "j", "\u027e": "r", "\u028b": "u", "\u01c0": "l", "\u01c3": "l",
    "\u0966": "o", "\u0be6": "o", "\u0d20": "o", "\u06f0": "o", "\u0665": "o",
}
_PAIRS = (("rn", "m"), ("vv", "w"), ("cl", "d"), ("i", "l"))
_BOT = re.compile(r"b[o]t[lo0-9]*")


def normalise(name: str) -> str:
    """NFKC, with runs of white space made one space and the ends trimmed."""
    return " ".join(unicodedata.normalize("NFKC", name).split())


def skeleton(name: str) -> str:
    """What a name looks like, for comparing names: equal skeletons are look-alikes."""
    text = "".join(_LOOKS_LIKE.get(ch, ch) for ch in unicodedata.normalize("NFKC", name))
    text = unicodedata.normalize("NFKD", text.casefold())
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
    bad = sorted({ch for ch in name if ch in RESERVED_CHARS or ch in BRACKET_LOOKALIKES
                  or unicodedata.category(ch) in ("Ps", "Pe")})  # not quotes: a phone types O\u2019Brien
    if bad:
        raise ValueError(f"the name {name!r} may not contain {' '.join(bad)} (brackets mark names on "
                         "the page)")
    if any(ch in INVISIBLE for ch in name):
        raise ValueError(f"the name {name!r} holds a letter that shows as nothing: use visible letters")
    mine = skeleton(name)
    if not mine:
        raise ValueError(f"the name {name!r} needs a letter or a digit")
    if _BOT.fullmatch(mine):
        raise ValueError(f"the name {name!r} is kept for the table's bots")
    for other in taken:
        if skeleton(other) == mine:
            raise LookAlikeError(f"the name {name!r} is taken at this table" if other == name else
                                 f"the name {name!r} looks like {other!r}, who sits at this table")
