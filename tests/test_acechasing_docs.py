"""docs/acechasing.md: its examples run, and it names every event type and bot kind."""

from __future__ import annotations

import doctest
from pathlib import Path

from chasetheace.acechasing.events import ACE_CHASING_EVENTS
from chasetheace.registry import ACE_CHASING_BOTS

DOC = Path(__file__).parent.parent / "docs" / "acechasing.md"


def test_the_examples_run() -> None:
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10 and result.failed == 0


def test_every_event_and_bot_is_described() -> None:
    text = DOC.read_text(encoding="utf-8")
    for kind in ACE_CHASING_EVENTS:
        assert f"`{kind}`" in text
    for kind in ACE_CHASING_BOTS:
        assert f"`{kind}" in text
