from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent))  # the helpers below, and each test's `from helpers import`

from helpers import SCREENSHOTS
from pgtools import pg, pg_url  # noqa: F401  (fixtures: a throwaway PostgreSQL server)

for _name, _examples in (("ci", 60), ("dev", 30), ("long", 1000)):
    settings.register_profile(_name, max_examples=_examples, deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# `play` keeps your stats in your data directory: never the real one from the tests
os.environ["CHASE_THE_ACE_STATS"] = str(Path(tempfile.mkdtemp(prefix="cta-stats-")) / "stats.sqlite3")


SLOW = ("e2e", "test_web_postgres.py", "test_solver_ray.py")
"""Tests marked ``slow`` by where they are (each starts a browser, a PostgreSQL server or a Ray
cluster), beside those marked in their own module: ``make test-fast`` leaves them out."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        parts = item.path.relative_to(here).parts if item.path.is_relative_to(here) else ()
        if parts and parts[0] in SLOW:
            item.add_marker(pytest.mark.slow)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """Print where the browser tests (tests/e2e) left their screenshots (the test artifacts)."""
    for line in config.stash.get(SCREENSHOTS, []):
        terminalreporter.write_line(line)
