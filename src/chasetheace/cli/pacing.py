"""The pace of a game at the terminal: bots move at a human pace, and nothing scrolls past unread.

A :class:`Pace` pauses ``delay`` seconds before each bot's move (through an injected ``sleep``,
so tests never wait), asks for Enter at the end of a hand in which the person had nothing to
decide (holding a king, or watching once out), and, once the person is out, offers to watch the
rest of the game or skip to its end.

>>> slept = []
>>> pace = Pace(delay=0.5, sleep=slept.append, ask=lambda prompt: "")
>>> pace.before_bot_move(); pace.before_bot_move(); slept
[0.5, 0.5]
>>> pace.hand_started(); pace.hand_over()   # the person was never asked: wait for Enter
True
>>> pace.asked(); pace.hand_over()
False
>>> waits = []
>>> pace = Pace(delay=0, ask=lambda prompt: waits.append(prompt) or "")
>>> pace.hand_started(); pace.hand_started(); waits   # hand 1 needed no decision: Enter first
['Press Enter for the next hand ']
>>> Pace(delay=0, ask=lambda prompt: "q").wait_for_next_hand()
Traceback (most recent call last):
chasetheace.cli.pacing.QuitGame
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Pace", "QuitGame", "QUIT_WORDS", "DEFAULT_DELAY", "NEXT_HAND_PROMPT", "WATCH_PROMPT",
           "parse_delay"]

DEFAULT_DELAY = 0.6
"""Seconds between moves at the table, about the pace of people playing."""
NEXT_HAND_PROMPT = "Press Enter for the next hand "
WATCH_PROMPT = "Watch the rest of the game, or skip to the end? [W/s] "
QUIT_WORDS = {"q", "quit", "exit"}
"""The answers that leave the table, at any question of the game."""


class QuitGame(Exception):
    """The person asked to leave the table."""


def parse_delay(text: str) -> float:
    """A ``--delay`` in seconds: a number from 0 (no pause) to 10.

    >>> parse_delay("0.25"), parse_delay("0")
    (0.25, 0.0)
    >>> parse_delay("-1")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: seconds from 0 (no pause) to 10, got '-1'
    """
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 10:
        raise argparse.ArgumentTypeError(f"seconds from 0 (no pause) to 10, got {text!r}")
    return value


@dataclass
class Pace:
    """When to pause and what to ask between moves; ``ask(prompt)`` reads one line."""

    delay: float = DEFAULT_DELAY
    sleep: Callable[[float], None] = field(default=lambda seconds: time.sleep(seconds), repr=False)
    ask: Callable[[str], str] = input
    skipping: bool = False
    unit: str = "hand"  # what the game calls one deal: "hand", or "round" in Ace Chasing
    _asked_this_hand: bool = field(default=False, repr=False)
    _offered: bool = field(default=False, repr=False)
    _in_hand: bool = field(default=False, repr=False)

    def before_bot_move(self) -> None:
        """Pause before a bot moves (not while skipping to the end)."""
        if self.delay > 0 and not self.skipping:
            self.sleep(self.delay)

    def hand_started(self) -> None:
        """A new hand: wait for Enter first if the person sat the last one out; then nothing is
        asked in the new hand yet."""
        if self._in_hand and self.hand_over():
            self.wait_for_next_hand()
        self._in_hand = True
        self._asked_this_hand = False

    def asked(self) -> None:
        """The person made a decision in this hand."""
        self._asked_this_hand = True

    def hand_over(self) -> bool:
        """The hand ended: True if the person should press Enter before the next one."""
        return not self._asked_this_hand and not self.skipping

    def wait_for_next_hand(self) -> None:
        """Wait for Enter (any line) before the next hand; QuitGame if the answer is ``q``."""
        if self.ask(NEXT_HAND_PROMPT.replace("hand", self.unit)).strip().lower() in QUIT_WORDS:
            raise QuitGame

    def out(self) -> bool:
        """The person is out: offer (once) to watch or skip; True if they watch."""
        if not self._offered:
            self._offered = True
            answer = self.ask(WATCH_PROMPT).strip().lower()
            if answer in QUIT_WORDS:
                raise QuitGame
            self.skipping = answer in ("s", "skip")
        return not self.skipping
