"""The browser tests share the web tests' helpers (tests/webtools.py) and report their screenshots."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

try:  # the web extra (uvicorn, starlette, websockets) may be missing: then webtools skips
    from webtools import SCREENSHOTS
except (ImportError, pytest.skip.Exception):
    SCREENSHOTS = None


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """Print where the browser test left its screenshots (the test artifacts)."""
    if SCREENSHOTS is None:
        return
    for line in config.stash.get(SCREENSHOTS, []):
        terminalreporter.write_line(line)
