"""The page that finds its address's share of connections taken (issue 31, item 7): it says in
words what happened and what to do, and gets in by itself once a place is free, in a real browser."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import TEST_TOOL

pytest.importorskip("uvicorn")
pytest.importorskip("playwright.sync_api", reason=TEST_TOOL.format("Playwright"))

from e2e.browsertools import (
    CHROMIUM,
    open_page,
    wait_until,
)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Any]:
    from webtools import TEST_LIMITS, LiveServer

    live = LiveServer(str(tmp_path / "tables.sqlite3"),
                      limits=dataclasses.replace(TEST_LIMITS, connections_per_client=1))
    yield live
    live.stop()


def test_a_page_past_the_addresss_connections_says_why_and_gets_in_later(
        browser: Any, server: Any) -> None:
    errors: list[str] = []
    first = open_page(browser, 1280, 800, errors)
    first.goto(server.url + "/")
    wait_until(first, "!!ui.welcome")
    second = open_page(browser, 390, 844, errors, mobile=True)
    second.goto(server.url + "/")
    second.wait_for_selector("#notice:not([hidden])")
    text = second.inner_text("#notice-text")
    assert "already has 1 page open from your internet address" in text
    assert "other phones or computers" in text and "will connect by itself" in text
    assert second.evaluate("ui.welcome") is None
    first.context.close()  # a place is free: the second page gets in by itself
    wait_until(second, "!!ui.welcome", timeout=30)
    assert second.is_hidden("#notice")
    assert not [e for e in errors if "WebSocket" not in e], errors
