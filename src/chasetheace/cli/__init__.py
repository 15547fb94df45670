"""The ``chase-the-ace`` command (also ``python -m chasetheace``): the terminal interfaces.

:mod:`.command` parses the command line and runs a subcommand; :mod:`.play` is the terminal game
(Rich, the ``[cli]`` extra, imported only when a command needs it). Ace Chasing's terminal game is
:mod:`.acechasing`, which builds on :mod:`.play`.
"""

from __future__ import annotations

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 fine, 2 a user's mistake)."""
    from .command import main as run  # the commands import the games: not on ``import chasetheace.cli``

    return run(argv)
