"""Seats and places at the table, in the game's own words: default names and turn-order places.

The lowest layer of the package (it imports nothing of it), so every game, bot, solver and
interface names seats and places the same way.

>>> default_names(3)
('Ann', 'Bob', 'Cat')
>>> [position_name(i, 5) for i in range(5)]
['eldest', '2nd', '3rd', '4th', 'dealer']
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["DEFAULT_NAMES", "default_names", "position_name", "table_names"]

DEFAULT_NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kim",
                 "Lou", "Max", "Ned", "Oli", "Pam", "Quin", "Ray", "Sue", "Tom", "Uma", "Vic",
                 "Wes", "Xan", "Yul", "Zoe")

_ORDINALS = ("eldest", "2nd", "3rd")


def default_names(players: int) -> tuple[str, ...]:
    """The names seats get when none are given: Ann, Bob, Cat, ..., then ``Player 27`` and on."""
    return tuple(DEFAULT_NAMES[i] if i < len(DEFAULT_NAMES) else f"Player {i + 1}"
                 for i in range(max(players, 0)))


def position_name(index: int, size: int) -> str:
    """The name of a place in the turn order: ``'eldest'``, ``'2nd'`` .. ``'dealer'`` (last).

    >>> [position_name(i, 30) for i in (10, 11, 20, 21, 22)]
    ['11th', '12th', '21st', '22nd', '23rd']
    """
    if index == size - 1:
        return "dealer"
    if index < len(_ORDINALS):
        return _ORDINALS[index]
    n = index + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def table_names(players: int | Sequence[str]) -> tuple[str, ...]:
    """The seats' names from a count (the default names) or a list of names (checked: non-empty,
    all different). The games check the count against their own limits.

    >>> table_names(["Ann", "Bob"])
    ('Ann', 'Bob')
    >>> table_names(["Ann", "Ann"])
    Traceback (most recent call last):
    ValueError: player names must differ
    """
    if isinstance(players, bool):
        raise ValueError(f"bad players {players!r}: a count or a list of names")
    if isinstance(players, int):
        return default_names(players)
    if not isinstance(players, Sequence) or isinstance(players, str):
        raise ValueError(f"bad players {players!r}: a count or a list of names")
    names = tuple(players)
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"bad player name {name!r}: names are non-empty strings")
    if len(set(names)) != len(names):
        raise ValueError("player names must differ")
    return names
