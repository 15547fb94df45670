"""The hint button and the review page in a real browser (Playwright, Debian's Chromium), at desktop
and phone sizes; the screenshots are kept with the other browser tests' artifacts."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import TEST_TOOL

pytest.importorskip("numpy")
pytest.importorskip("scipy")
pytest.importorskip("playwright.sync_api", reason=TEST_TOOL.format("Playwright"))

from e2e.browsertools import (
    CHROMIUM,
    NO_SIDEWAYS_SCROLL,
    open_page,
    press,
    wait_until,
)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    import chasetheace as cta
    from chasetheace.solver.solutions.cache import solution_for
    from webtools import LiveServer

    for n in (2, 3):  # cached before the table opens: the hint answers at once
        solution_for(cta.Rules(), n)
    live = LiveServer(str(tmp_path_factory.mktemp("e2e-review") / "tables.sqlite3"), bot_delay=0.02)
    yield live
    live.stop()


def _open_table(page: Any, server: Any) -> None:
    page.goto(server.url + "/")
    page.fill("#create-name", "Ann")
    page.fill("#seats", "3")
    page.check("#hints")
    page.click("#create-button")
    page.wait_for_selector("#table:not([hidden])")
    page.click("#start")


def _hint(page: Any) -> str:
    page.wait_for_selector("#hint:not([hidden])")
    page.click("#hint")
    page.wait_for_selector("#hint-text:not([hidden])")
    text: str = page.inner_text("#hint-text")
    return text


def test_the_hint_button_and_the_review_page(browser: Any, server: Any, artifacts: Path) -> None:
    errors: list[str] = []
    ann = open_page(browser, 1100, 900, errors)
    _open_table(ann, server)
    text = _hint(ann)
    assert "Keep: you lose this hand" in text and "Solver:" in text
    ann.screenshot(path=str(artifacts / "7-desktop-hint.png"), full_page=True)
    deadline = time.monotonic() + 60
    while not ann.is_visible("#banner"):
        assert time.monotonic() < deadline, "the game did not end in time"
        if press(ann, "#keep"):
            # a hint never outlives the turn it was for (both read in one step of the page)
            assert ann.evaluate("$('hint-text').hidden || !$('keep').hidden")
        ann.wait_for_timeout(20)
    ann.wait_for_selector("#review-link:not([hidden])")
    ann.click("#review-link")
    ann.wait_for_selector("#review:not([hidden])")
    assert "Accuracy" in ann.inner_text("#summary")
    assert "Ann" in ann.inner_text("#summary")
    assert ann.locator("#decisions li").count() > 1
    ann.screenshot(path=str(artifacts / "8-desktop-review.png"), full_page=True)

    phone = open_page(browser, 390, 844, errors, mobile=True)
    phone.goto(ann.url)
    phone.wait_for_selector("#review:not([hidden])")
    assert phone.evaluate(NO_SIDEWAYS_SCROLL)
    phone.screenshot(path=str(artifacts / "9-phone-review.png"), full_page=True)

    bob = open_page(browser, 390, 844, errors, mobile=True)
    _open_table(bob, server)
    assert "Solver:" in _hint(bob)
    wait_until(bob, "!!(ui.state && ui.state.game)")
    assert bob.evaluate(NO_SIDEWAYS_SCROLL)
    bob.screenshot(path=str(artifacts / "10-phone-hint.png"), full_page=True)
    assert errors == []


def test_no_hint_button_at_a_table_without_hints(browser: Any, server: Any) -> None:
    errors: list[str] = []
    page = open_page(browser, 1000, 800, errors)
    page.goto(server.url + "/")
    page.fill("#create-name", "Cy")
    page.fill("#seats", "3")
    page.click("#create-button")
    page.wait_for_selector("#table:not([hidden])")
    page.click("#start")
    page.wait_for_selector("#keep:not([hidden])")
    assert not page.is_visible("#hint")
    assert errors == []
