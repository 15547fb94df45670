"""Every test run keeps solved solutions in a fresh temporary folder, never the user's cache."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

CACHE_ENV = "CHASE_THE_ACE_CACHE"  # chasetheace.solver.cache.CACHE_ENV (the solver is optional)


def pytest_configure(config: pytest.Config) -> None:
    folder = tempfile.mkdtemp(prefix="cta-solutions-")
    os.environ[CACHE_ENV] = folder  # subprocesses (the CLI under test) inherit it
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
