"""The browser tests' shared fixtures: a screenshots folder, one Chromium per module (Playwright
driving Debian's /usr/bin/chromium), and a live server on a SQLite file (a test module needing
another server defines its own ``server``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from e2e.browsertools import ARGS, CHROMIUM


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[Path]:
    """The screenshots' folder ($CTA_ARTIFACTS, or a temporary one); its path is printed at the end."""
    folder = Path(os.environ.get("CTA_ARTIFACTS") or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    yield folder
    shots = sorted(p.name for p in folder.glob("*.png"))
    from helpers import SCREENSHOTS  # tests/conftest.py prints these lines at the end

    request.config.stash.setdefault(SCREENSHOTS, []).append(
        f"browser test screenshots in {folder}: {', '.join(shots)}")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from webtools import LiveServer

    live = LiveServer(str(tmp_path_factory.mktemp("e2e") / "tables.sqlite3"), bot_delay=0.02)
    yield live
    live.stop()
