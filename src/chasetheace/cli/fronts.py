"""Each game's terminal front end, as its :class:`~chasetheace.kinds.GameKind` names it.

A game's kind says where its front end lives (``GameKind.terminal``, a module of ``cli/``: the
front ends sit above the games, so a kind names the module rather than importing it); that
module's ``TERMINAL`` plays, simulates and replays the game. ``play --game``, ``simulate --game``
and ``replay`` ask the kind of the game or of the record, never which game it is.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..kinds import GameKind

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["Terminal", "terminal_of"]


@dataclass(frozen=True)
class Terminal:
    """A game at the terminal: each takes the parsed command line (``play`` and ``simulate`` also
    the game's config, from ``--preset`` and ``--rule`` by
    :attr:`~chasetheace.kinds.GameKind.config_from_args`) and returns the exit status."""

    play: Callable[[argparse.Namespace, Console, Any], int]
    """``play --game NAME``: you against bots (``--rules-help``: the rules in force, and stop)."""
    simulate: Callable[[argparse.Namespace, Any], int]
    """``simulate --game NAME``: bots against bots; refuses the options it has no use for."""
    replay: Callable[[argparse.Namespace], int]
    """``replay FILE`` of a record of this game: checked, and told unless ``--check``."""


def terminal_of(kind: GameKind[Any, Any]) -> Terminal:
    """The terminal front end of ``kind`` (its module imported on first use)."""
    found = getattr(importlib.import_module(kind.terminal), "TERMINAL", None)
    if not isinstance(found, Terminal):
        raise TypeError(f"{kind.terminal} has no TERMINAL for {kind.name}")
    return found
