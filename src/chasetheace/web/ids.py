"""How a table and a game are named in a URL or a message: one definition each.

A table id is 1 to 64 of ``A-Z a-z 0-9 _ -`` (what the lobby makes, and all a store looks up); a
game number is ASCII digits, 1 to 999,999,999 (``str.isdigit()`` would take ``'²'`` and ``'①'``).
Anything else names no table or game: the client's mistake, never a server fault.

>>> game_number("12"), game_number("0"), game_number("①"), game_number("1000000000")
(12, None, None, None)
>>> table_id_ok("a-Table_1"), table_id_ok("../x"), table_id_ok("")
(True, False, False)
"""

from __future__ import annotations

import re

__all__ = ["TABLE_ID", "GAME_NUMBER", "table_id_ok", "game_number"]

TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A table id, matched whole (``fullmatch``)."""
GAME_NUMBER = re.compile(r"[1-9][0-9]{0,8}")
"""A game number as text, matched whole (``fullmatch``)."""


def table_id_ok(text: str) -> bool:
    """Whether ``text`` is a table id a store may look up."""
    return TABLE_ID.fullmatch(text) is not None


def game_number(text: str) -> int | None:
    """The game number ``text`` names (``"1"`` .. ``"999999999"``), or None."""
    return int(text) if GAME_NUMBER.fullmatch(text) else None
