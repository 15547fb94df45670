"""The errors the package raises: each a ValueError naming what was wrong."""

from __future__ import annotations

__all__ = ["IllegalActionError", "NotCompilableError", "RecordError"]


class IllegalActionError(ValueError):
    """An action that is not legal now: out of turn, unknown, or after the game ended."""


class RecordError(ValueError):
    """A game record that is malformed or does not replay; ``index`` is the first bad event."""

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message if index is None else f"event {index}: {message}")
        self.index = index


class NotCompilableError(ValueError):
    """A bot the compiled kernel (:mod:`chasetheace.fast`) cannot play; ``simulate --engine auto``
    falls back to the engine."""
