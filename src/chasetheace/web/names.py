"""Player names at a web table: normalised, printable, and never a look-alike of another's.

A name is NFKC-normalised (full-width letters read as plain ones) and compared by its *skeleton*,
after Unicode Technical Standard #39 (Unicode Security Mechanisms), whose data file
``confusables.txt`` maps each character that looks like another to its prototype: ``\u0430``
(Cyrillic a) to ``a``, ``\u03c3`` (Greek sigma) to ``o``, ``m`` to ``rn``. The data comes from the
``confusable-homoglyphs`` package (the ``web`` extra), which ships ``confusables.txt`` as JSON. The
skeleton reads every character as its prototype, folds case and reads again (a lower-case letter
whose capital is a look-alike reads as that capital's prototype), drops accents and keeps only
letters and digits; two names with one skeleton cannot sit at one table. Latin small capitals,
which the data keeps as prototypes of their own, read as their letters (by their Unicode names:
``\u1d00`` is LATIN LETTER SMALL CAPITAL A). A handful of characters
seen passing for Latin letters are not in the data yet (:data:`BEYOND_TR39`, each tested to be
missing from it, so the list shrinks as the data grows).

No one may take a name that reads as a bot's (``Bot 1``), holds a bracket of any kind (the page
writes ``Ann (you)``: ``Ann \u2768you\u2769`` must not look like it), holds an invisible letter
(the Hangul fillers, the Braille blank: a name that shows as nothing), or stacks more than
:data:`MAX_MARKS` combining marks on one letter (they draw a streak across the page).

>>> skeleton("\u0410nn") == skeleton("ann") == skeleton("A n n")  # a Cyrillic A
True
>>> check_name("Bot 1", [])
Traceback (most recent call last):
...
ValueError: the name 'Bot 1' is kept for the table's bots
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

__all__ = ["normalise", "skeleton", "check_name", "stacked_marks", "RESERVED_CHARS", "BRACKET_LOOKALIKES",
           "INVISIBLE", "BEYOND_TR39", "MAX_MARKS", "LookAlikeError"]


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

BEYOND_TR39 = {"\u1952": "n"}
"""Characters that pass for Latin letters in names but that the Unicode data (as shipped by the
package) does not map yet: Tai Le letter nga, seen for ``n``."""
MAX_MARKS = 3
"""Combining marks on one letter at most (Vietnamese stacks two, some scripts three)."""
_BOT = re.compile(r"b[o]t[lo0-9]*")


def normalise(name: str) -> str:
    """NFKC, with runs of white space made one space and the ends trimmed."""
    return " ".join(unicodedata.normalize("NFKC", name).split())


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each look-alike character's prototype, from Unicode's ``confusables.txt``.

    The package stores each line ``source ; prototype`` both ways (each character lists its
    partners); a source is one code point with exactly one partner, its prototype, which is a
    sequence, or has several partners, or (a prototype with one source) comes after its source
    in the file's order."""
    from confusable_homoglyphs.confusables import confusables_data

    # the package keeps the direction marks that confusables.txt's comments put around
    # right-to-left text: they are not part of the characters
    data = {_unmarked(key): [_unmarked(p["c"]) for p in partners]
            for key, partners in confusables_data.items()}
    order = {key: i for i, key in enumerate(data)}
    found = dict(BEYOND_TR39)
    for char, partners in data.items():
        if len(char) != 1 or len(partners) != 1:
            continue
        prototype = partners[0]
        if len(prototype) != 1 or len(data.get(prototype, ())) > 1 or order[char] < order.get(prototype, -1):
            found[char] = prototype
    # a small capital is a capital to the eye; confusables.txt keeps them apart (its prototypes
    # include LATIN LETTER SMALL CAPITAL A): read each as its letter, by its Unicode name
    small = {}
    for prototype in set(found.values()) | {chr(c) for c in range(0x1D00, 0x1D2C)} | {"\u0280", "\u029f"}:
        if len(prototype) != 1:
            continue
        letter = unicodedata.name(prototype, "").removeprefix("LATIN LETTER SMALL CAPITAL ")
        if len(letter) == 1:
            small[prototype] = letter.lower()
    return {**{k: small.get(v, v) for k, v in found.items()}, **small}


def _unmarked(text: str) -> str:
    return text.replace("\u200e", "").replace("\u200f", "")


def _read(text: str, capitals: bool = False) -> str:
    """Each character (after NFD) as its prototype; with ``capitals``, a character that is not a
    look-alike as its capital's prototype, if its capital is one (after case folding: ``i`` reads
    as ``I``, which looks like ``l``; Coptic small ni as its capital, which looks like ``N``)."""
    table = _prototypes()
    out = []
    for ch in unicodedata.normalize("NFD", text):
        prototype = table.get(ch)
        if prototype is None and capitals:
            capital = ch.upper()
            prototype = table.get(capital) if capital != ch and len(capital) == 1 else None
        out.append(ch if prototype is None else prototype)
    return "".join(out)


def skeleton(name: str) -> str:
    """What a name looks like, for comparing names: equal skeletons are look-alikes."""
    text = _read(_read(unicodedata.normalize("NFKC", name)).casefold(), capitals=True)
    text = unicodedata.normalize("NFD", text.casefold())
    return "".join(ch for ch in text if not unicodedata.combining(ch) and ch.isalnum())


def stacked_marks(name: str) -> int:
    """The most combining marks on one letter of ``name`` (after NFD)."""
    most = run = 0
    for ch in unicodedata.normalize("NFD", name):
        run = run + 1 if unicodedata.category(ch) in ("Mn", "Me") else 0
        most = max(most, run)
    return most


def check_name(name: str, taken: Iterable[str]) -> None:
    """ValueError saying why ``name`` may not join a table where ``taken`` are seated."""
    bad = sorted({ch for ch in name if ch in RESERVED_CHARS or ch in BRACKET_LOOKALIKES
                  or unicodedata.category(ch) in ("Ps", "Pe")})  # not quotes: a phone types O\u2019Brien
    if bad:
        raise ValueError(f"the name {name!r} may not contain {' '.join(bad)} (brackets mark names on "
                         "the page)")
    if any(ch in INVISIBLE for ch in name):
        raise ValueError(f"the name {name!r} holds a letter that shows as nothing: use visible letters")
    if stacked_marks(name) > MAX_MARKS:
        raise ValueError(f"the name {name!r} stacks more than {MAX_MARKS} marks on one letter: use plain "
                         "letters")
    mine = skeleton(name)
    if not mine:
        raise ValueError(f"the name {name!r} needs a letter or a digit")
    if _BOT.fullmatch(mine):
        raise ValueError(f"the name {name!r} is kept for the table's bots")
    for other in taken:
        if skeleton(other) == mine:
            raise LookAlikeError(f"the name {name!r} is taken at this table" if other == name else
                                 f"the name {name!r} looks like {other!r}, who sits at this table")
