"""The Rich console every terminal command draws on (the ``[cli]`` extra, imported when used)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["make_console"]


def make_console(*, stderr: bool = False) -> Console:
    """A Rich console that colours cards by suit and the words of the game."""
    from rich.console import Console
    from rich.highlighter import RegexHighlighter
    from rich.theme import Theme

    class GameHighlighter(RegexHighlighter):
        """Red and black suits, calls, losses and wins."""

        base_style = "cta."
        highlights = [  # noqa: RUF012 (rich's own API is a class attribute list)
            r"(?P<red>(?:10|[AKQJ2-9])[♥♦])",
            r"(?P<black>(?:10|[AKQJ2-9])[♣♠])",
            r"(?P<call>Change!|Stand\.|(?:King|Ace|Queen|Jack)!)",
            r"(?P<bad>\blos(?:e|es) (?:a life|\d+ lives)|\b(?:is|are) out\b|Lowest:)",
            r"(?P<good>\bwins? the game\b|\bshare the pot\b)",
        ]

    theme = Theme({
        "cta.red": "bold red", "cta.black": "bold", "cta.call": "bold cyan",
        "cta.bad": "yellow", "cta.good": "bold green",
    })
    return Console(highlighter=GameHighlighter(), theme=theme, stderr=stderr)
