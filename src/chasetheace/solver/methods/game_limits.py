"""Which tables the whole-game solver covers (no numpy needed to ask)."""

from __future__ import annotations

from ...rules import Rules

__all__ = ["MAX_GAME_LIVES", "MAX_GAME_PLAYERS", "MAX_LIVES_AT_5", "MAX_PAIRING_PLAYERS", "check_game",
           "max_lives"]

MAX_GAME_PLAYERS = 5
"""The most players the whole game is solved for: a 5-player hand's merged tree has 2.4 M nodes and
takes 2.6 GB to build; the one-hand tree grows about tenfold per player."""
MAX_PAIRING_PLAYERS = 4
"""The most players under pairing, whose hands are listed path by path (150 M paths at 5)."""
MAX_GAME_LIVES = 4
"""The most lives the whole game is solved for (up to 4 players: 4 players on 4 lives took 72 s of
CPU; 5 players on 3 lives 22 minutes, so 5 players stop at :data:`MAX_LIVES_AT_5`)."""
MAX_LIVES_AT_5 = 3
"""The most lives at 5 players (4 lives would be 1,360 lives states, 1,024 of them 5-player hands)."""


def max_lives(players: int) -> int:
    """The most lives the whole game is solved for with ``players``."""
    return MAX_LIVES_AT_5 if players >= 5 else MAX_GAME_LIVES


def check_game(rules: Rules, players: int, lives: int) -> None:
    """ValueError (one line, naming what is outside) unless the whole-game solver covers this table."""
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a Rules, not {type(rules).__name__}")
    top = MAX_PAIRING_PLAYERS if rules.pairing else MAX_GAME_PLAYERS
    if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= top:
        why = " under pairing" if rules.pairing else ""
        raise ValueError(f"bad number of players {players!r}: the whole game is solved for 2..{top}{why}")
    top = max_lives(players)
    if not isinstance(lives, int) or isinstance(lives, bool) or not 1 <= lives <= top:
        raise ValueError(f"bad lives {lives!r}: the whole game is solved for 1..{top} lives at "
                         f"{players} players")
    if rules.last_chance:
        raise ValueError("last_chance is not modelled by the whole-game solver (a player on no lives "
                         "stays in)")
