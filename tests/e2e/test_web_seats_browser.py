"""A seat no link can take away, and the table page at its best from a desktop to a small phone
(1280x800, 390x844, 360x740), in a real browser (Playwright, Debian's Chromium); the screenshots
are kept with the other browser tests' artifacts."""

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
    press,
    wait_until,
)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")

SIZES = [(1280, 800), (390, 844), (360, 740)]
LONG = "Maximilianafeatherstonew"  # 24 characters, the longest name a seat takes, and no space to break at
FAKE_LINK = "#seat=AAAAAAAAAAAAAAAAAAAAAAAA"
# the parts of the page that must fit: nothing runs past its box or off the screen
FITS = """(sel) => [...document.querySelectorAll(sel)].filter((n) => n.offsetParent !== null).every((n) => {
  const r = n.getBoundingClientRect();
  return n.scrollWidth <= n.clientWidth + 1 && r.left >= -1 && r.right <= window.innerWidth + 1; })"""
IN_VIEW = """(sel) => { const n = document.querySelector(sel);
  if (!n || n.offsetParent === null) return false;
  const r = n.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; }"""
UNCOVERED = """() => { const me = document.querySelector('.seat.me').getBoundingClientRect();
  const panel = document.querySelector('#controls').getBoundingClientRect();
  return me.top >= 0 && me.bottom <= panel.top; }"""


def _create(page: Any, server: Any, name: str = "Ann", seats: int = 3, lives: int = 2) -> str:
    page.goto(server.url + "/")
    page.fill("#create-name", name)
    page.fill("#seats", str(seats))
    page.click("#house-rules summary")
    page.fill('[data-key="lives"]', str(lives))
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # the lobby scrolled down
    page.click("#create-button")
    page.wait_for_selector("#table:not([hidden])")
    table: str = page.evaluate("ui.table")
    return table


def test_a_crafted_seat_link_cannot_cost_a_player_their_seat(
        browser: Any, server: Any, artifacts: Path) -> None:
    errors: list[str] = []
    ann = open_page(browser, 390, 844, errors, mobile=True)
    table = _create(ann, server)
    token = ann.evaluate(f"localStorage.getItem('cta-token-{table}')")
    code = ann.inner_text("#recovery-code")
    assert token and len(code) == 19 and ann.is_visible("#recovery")
    ann.click("#recovery-done")

    # the crafted link, opened in Ann's own browser: she is asked first; told yes, her seat and
    # her token stay all the same
    ann.goto(f"{server.url}/t/{table}{FAKE_LINK}")
    ann.wait_for_selector("#switch-seat")
    wait_until(ann, "ui.role === 'player' && ui.seat === 0 && !!ui.state")
    assert "for another seat" in ann.inner_text("#notice") and ann.is_visible("#stay-seat")
    ann.click("#switch-seat")
    wait_until(ann, "document.querySelector('#notice-text').textContent.includes('does not hold a seat')")
    said = ann.inner_text("#notice")
    assert "still at your own seat" in said
    wait_until(ann, "ui.role === 'player' && ui.seat === 0 && !!ui.state")
    assert ann.evaluate(f"localStorage.getItem('cta-token-{table}')") == token
    assert ann.is_visible("#table") and not ann.is_visible("#recovery")  # the code was shown once
    assert "#seat" not in ann.url
    ann.screenshot(path=str(artifacts / "seats-1-bad-link-own-seat-390.png"))

    # the same link in a browser with no seat here: the join page says what happened and how back
    other = open_page(browser, 360, 740, errors, mobile=True)
    other.goto(f"{server.url}/t/{table}{FAKE_LINK}")
    other.wait_for_selector("#join:not([hidden])")
    other.wait_for_selector("#notice:not([hidden])")
    assert "recovery code" in other.inner_text("#notice")
    assert other.is_visible("#recover-code") and other.is_visible("#join-button")
    other.screenshot(path=str(artifacts / "seats-2-bad-link-join-360.png"))
    other.fill("#recover-code", "wrong-code-0000-0000")
    other.click("#recover-button")
    wait_until(other, "document.querySelector('#notice-text').textContent.includes('holds no seat')")
    other.fill("#recover-code", code.lower())
    other.click("#recover-button")
    other.wait_for_selector("#table:not([hidden])")
    wait_until(other, "ui.role === 'player' && ui.seat === 0")
    assert other.is_visible("#recovery")  # a new code, shown once
    assert other.inner_text("#recovery-code") != code
    other.screenshot(path=str(artifacts / "seats-3-recovered-360.png"))
    # Ann's old browser was told its seat went elsewhere; reloaded, it takes nothing back unasked
    # (it watches); asked to, it finds its key dead and says how to take the seat back
    ann.reload()
    ann.wait_for_selector("#play-here")
    wait_until(ann, "ui.role === 'spectator' && !!ui.state")
    ann.click("#play-here")
    ann.wait_for_selector("#join:not([hidden])")
    assert "recovery code" in ann.inner_text("#notice")
    # the dead token is not parked where the page never reads it
    assert ann.evaluate(f"localStorage.getItem('cta-token-{table}')") is None
    assert ann.evaluate(f"localStorage.getItem('cta-spare-{table}')") is None
    assert not errors, errors
    for page in (ann, other):
        page.context.close()


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_table_page_keeps_the_invite_your_card_and_every_button_in_view(
        browser: Any, server: Any, artifacts: Path, width: int, height: int) -> None:
    errors: list[str] = []
    phone = width < 640
    ann = open_page(browser, width, height, errors, mobile=phone)
    table = _create(ann, server, "Ann", seats=3, lives=2)
    # the table opens at its top: the invite link is there while the prompt says to send it
    assert ann.evaluate("window.scrollY") == 0
    assert ann.evaluate(IN_VIEW, "#invite") and "Send the invite link" in ann.inner_text("#prompt")
    ann.screenshot(path=str(artifacts / f"seats-4-waiting-{width}x{height}.png"))
    if ann.is_visible("#recovery-done"):
        ann.click("#recovery-done")

    # a crafted link at this size: the join page says what happened and offers the way back
    other = open_page(browser, width, height, errors, mobile=phone)
    other.goto(f"{server.url}/t/{table}{FAKE_LINK}")
    other.wait_for_selector("#join:not([hidden])")
    other.wait_for_selector("#notice:not([hidden])")
    assert other.evaluate(IN_VIEW, "#notice") and other.is_visible("#recover-code")
    assert other.evaluate(NO_SIDEWAYS_SCROLL)
    other.screenshot(path=str(artifacts / f"seats-4-bad-link-join-{width}x{height}.png"))
    other.context.close()

    bob = server.client()
    bob.request({"type": "join", "table": table, "name": LONG}, "joined")
    ann.wait_for_selector(f"text={LONG}")
    ann.click("#start")

    seen = {"swap": False, "last": False}
    deadline = time.monotonic() + 90
    while not (seen["swap"] and seen["last"]):
        assert time.monotonic() < deadline, f"the game did not show what was awaited in time: {seen}"
        bob.pump(0.005)
        if bob.my_turn() and bob.acted != bob.marker:
            bob.acted = bob.marker
            bob.send({"type": "act", "action": "keep"})
        if ann.evaluate("document.querySelectorAll('.seat .last').length > 0") and not seen["last"]:
            # a loser's last hand is shown whole, never cut to "..."
            assert ann.evaluate(FITS, ".seat .last"), "a seat's last-hand line is cut"
            seen["last"] = True
            ann.screenshot(path=str(artifacts / f"seats-6-last-hand-{width}x{height}.png"))
        if ann.evaluate("ui.myTurn"):
            swap = ann.inner_text("#swap") if ann.is_visible("#swap") else ""
            if LONG in swap and not seen["swap"]:
                # a 24-character name: on the Swap button's one line (cut there), whole in the prompt
                assert ann.evaluate(FITS, ".buttons button, #prompt, #banner")
                assert LONG in ann.inner_text("#prompt")
                assert ann.evaluate("document.getElementById('swap').offsetHeight") <= 60
                ann.evaluate("showHint('keep: your chance of winning the game is 41.2% if you keep, "
                             "38.9% if you swap with your left neighbour (the solver, for your view)')")
                # the panel with the hint covers neither your seat nor its card; every button is in view
                wait_until(ann, UNCOVERED.replace("() => ", "(() => ") + ")()")
                for sel in ("#keep", "#swap", "#hint-text"):
                    assert ann.evaluate(IN_VIEW, sel), sel
                assert ann.evaluate(NO_SIDEWAYS_SCROLL)
                ann.screenshot(path=str(artifacts / f"seats-5-hint-{width}x{height}.png"))
                seen["swap"] = True
            press(ann, "#keep")
        if ann.evaluate("!!(ui.state && ui.state.game && ui.state.game.over)") and not all(seen.values()):
            ann.click("#rematch")
            wait_until(ann, "ui.state.game && !ui.state.game.over")
        ann.wait_for_timeout(20)
    bob.close()
    assert not errors, errors
    ann.context.close()


def test_review_is_offered_only_for_games_the_server_reviews(
        browser: Any, server: Any, artifacts: Path) -> None:
    errors: list[str] = []
    ann = open_page(browser, 360, 740, errors, mobile=True)
    _create(ann, server, "Ann", seats=12, lives=1)
    if ann.is_visible("#recovery-done"):
        ann.click("#recovery-done")
    ann.click("#start")
    deadline = time.monotonic() + 120
    while not ann.evaluate("!!(ui.state && ui.state.game && ui.state.game.over)"):
        assert time.monotonic() < deadline, "the 12-seat game did not end in time"
        press(ann, "#keep")
        ann.wait_for_timeout(20)
    assert ann.is_visible("#rematch") and not ann.is_visible("#review-link")
    assert ann.evaluate(FITS, ".buttons button, #prompt, #banner")
    ann.screenshot(path=str(artifacts / "seats-7-twelve-over-360x740.png"))
    assert not errors, errors
    ann.context.close()
