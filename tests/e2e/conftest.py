"""The browser tests share the web tests' helpers (tests/webtools.py) and report their screenshots."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from webtools import SCREENSHOTS


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """Print where the browser test left its screenshots (the test artifacts)."""
    for line in config.stash.get(SCREENSHOTS, []):
        terminalreporter.write_line(line)
