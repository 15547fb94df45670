"""The review page of an Ace Chasing game in a real browser (Playwright, Debian's Chromium), at
desktop and phone sizes: its bets judged by the odds, its keeps and swaps by the chance of being
knocked out. The screenshots are kept with the other browser tests' artifacts."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from helpers import TEST_TOOL

pytest.importorskip("uvicorn")
pytest.importorskip("playwright.sync_api", reason=TEST_TOOL.format("Playwright"))

from e2e.browsertools import (
    CHROMIUM,
    NO_SIDEWAYS_SCROLL,
    open_page,
    play_turn,
    wait_until,
)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
FITS = ("(() => { const w = document.querySelector('.review-wrap'); "
        "return w.scrollWidth <= w.clientWidth; })()")


def test_the_review_page_of_an_ace_chasing_game(browser: Any, server: Any, artifacts: Path) -> None:
    errors: list[str] = []
    ann = open_page(browser, 1100, 900, errors)
    ann.goto(server.url + "/")
    ann.wait_for_selector("#preset option", state="attached")  # the lobby is filled from the welcome
    assert ann.is_visible("#hints")
    ann.select_option("#game", "ace-chasing")
    assert not ann.is_visible("#hints")  # no hints at Ace Chasing (a table would refuse them)
    ann.fill("#create-name", "Ann")
    ann.fill("#seats", "6")
    ann.select_option("#bots", "random")  # bots that keep and swap at random: mistakes to show
    ann.click("#create-button")
    ann.wait_for_selector("#table:not([hidden])")
    ann.click("#start")
    wait_until(ann, "!!(ui.state && ui.state.game)")
    turns = 0
    deadline = time.monotonic() + 90
    while not ann.is_visible("#banner"):
        assert time.monotonic() < deadline, "the game did not end in time"
        # now and then against the odds
        turns += play_turn(ann, turns + 1, amount="2") is not None
        ann.wait_for_timeout(20)
    ann.wait_for_selector("#review-link:not([hidden])")
    ann.click("#review-link")
    ann.wait_for_selector("#review:not([hidden])")
    summary = ann.inner_text("#summary")
    assert "Money given away" in summary and "Ann" in summary and "adtakes" not in summary
    assert ann.evaluate(FITS)
    assert "Accuracy" not in summary  # not the solver's columns
    decisions = ann.inner_text("#decisions")
    assert "Round 1" in decisions and "if kept" in decisions and "if swapped" in decisions
    assert "was better, gives away" in decisions  # the random bots' exchanges
    assert "against the odds the player could know" in ann.inner_text("#review-lead")
    assert "rank 7 or more" in ann.inner_text("#solutions")
    ann.screenshot(path=str(artifacts / "13-desktop-ace-chasing-review.png"), full_page=True)

    phone = open_page(browser, 390, 844, errors, mobile=True)
    phone.goto(ann.url)
    phone.wait_for_selector("#review:not([hidden])")
    assert phone.evaluate(NO_SIDEWAYS_SCROLL)
    assert phone.evaluate(FITS), "the summary table needs a sideways scroll on a phone"
    assert phone.locator("#decisions li").count() == ann.locator("#decisions li").count()
    phone.screenshot(path=str(artifacts / "14-phone-ace-chasing-review.png"), full_page=True)
    phone.screenshot(path=str(artifacts / "15-phone-ace-chasing-review-top.png"))
    assert errors == []
