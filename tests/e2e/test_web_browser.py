"""End to end in a real browser: Playwright driving Debian's Chromium (/usr/bin/chromium).

Two browser contexts (a desktop and a phone) create and join a table, play a whole game against
bots, reload mid-hand and carry on. Screenshots are kept as artifacts (their folder is printed).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from helpers import TEST_TOOL

pytest.importorskip("uvicorn")
pytest.importorskip("playwright.sync_api", reason=TEST_TOOL.format("Playwright"))

from e2e.browsertools import (
    CHROMIUM,
    NO_CHROMIUM,
    NO_SIDEWAYS_SCROLL,
    READY,
    open_page,
    play_turn,
    press,
    wait_until,
)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)


def state(page: Any) -> Any:
    return page.evaluate("ui.state && {game: ui.state.game, history: ui.history, seat: ui.seat}")


def test_two_people_play_a_whole_game_with_bots_and_a_reload(browser: Any, server: Any,
                                                             artifacts: Path) -> None:
    errors: list[str] = []
    ann = open_page(browser, 1100, 900, errors)
    ann.goto(server.url + "/")
    ann.fill("#create-name", "Ann")
    ann.fill("#seats", "4")
    ann.click("summary")
    ann.fill('[data-key="lives"]', "2")
    ann.screenshot(path=str(artifacts / "1-lobby.png"), full_page=True)
    ann.click("#create-button")
    ann.wait_for_selector("#table:not([hidden])")
    invite = ann.input_value("#invite")
    assert "/t/" in invite

    bob = open_page(browser, 390, 844, errors, mobile=True)
    bob.goto(invite)
    bob.wait_for_selector("#join-about:has-text('Ann invites you')")
    assert "1 of 4 seats taken" in bob.inner_text("#join-about")
    bob.screenshot(path=str(artifacts / "1-phone-join.png"))
    bob.fill("#join-name", "Bob &amp; Co")  # a name is text, never markup
    bob.click("#join-button")
    bob.wait_for_selector("#table:not([hidden])")
    ann.wait_for_selector("text=Bob")
    ann.click("#start")

    clicks = {"Ann": 0, "Bob": 0}
    reloaded = False
    deadline = time.monotonic() + 60
    while not (ann.is_visible("#banner") and bob.is_visible("#banner")):
        assert time.monotonic() < deadline, "the game did not end in time"
        for name, page in (("Ann", ann), ("Bob", bob)):
            if page.evaluate(READY, "#keep"):
                clicks[name] += 1
                if clicks[name] == 2:
                    page.screenshot(path=str(artifacts / f"2-{name.lower()}-turn.png"), full_page=True)
                press(page, "#swap" if clicks[name] % 2 else "#keep")
        if not reloaded and clicks["Bob"] >= 2 and not bob.is_visible("#banner"):
            before = state(bob)
            assert bob.evaluate(NO_SIDEWAYS_SCROLL)
            bob.reload()
            bob.wait_for_selector("#table:not([hidden])")
            wait_until(bob, "!!(ui.state && ui.state.game)")
            after = state(bob)
            assert after["seat"] == before["seat"] == 1
            assert after["history"][:len(before["history"])] == before["history"]
            assert bob.is_visible(".seat.me") and "Bob &amp; Co" in bob.inner_text(".seat.me")
            reloaded = True
        ann.wait_for_timeout(20)
    assert reloaded and clicks["Ann"] > 0
    for page in (ann, bob):
        banner = page.inner_text("#banner")
        assert "wins" in banner or "share" in banner or "No winner" in banner
        assert "Showdown" in page.inner_text("#log")
        assert page.locator(".seat .last").count() > 0  # the last hand's shown cards and losses
    ann.screenshot(path=str(artifacts / "3-desktop-over.png"), full_page=True)
    bob.screenshot(path=str(artifacts / "4-phone-over.png"), full_page=True)
    assert ann.is_visible("#rematch") and not bob.is_visible("#rematch")
    assert errors == []


def test_a_spectator_sees_only_what_everyone_sees(browser: Any, server: Any, artifacts: Path) -> None:
    errors: list[str] = []
    ann = open_page(browser, 1000, 800, errors)
    ann.goto(server.url + "/")
    ann.fill("#create-name", "Ann")
    ann.click("#create-button")
    ann.wait_for_selector("#table:not([hidden])")
    watcher = open_page(browser, 390, 844, errors, mobile=True)
    watcher.goto(ann.input_value("#invite"))
    watcher.click("#watch-button")
    watcher.wait_for_selector("#table:not([hidden])")
    ann.click("#start")
    wait_until(watcher, "!!(ui.state && ui.state.game)")
    game = state(watcher)["game"]
    assert game["card"] is None and game["seat"] is None
    assert not watcher.is_visible("#keep") and not watcher.is_visible("#start")
    watcher.screenshot(path=str(artifacts / "5-spectator.png"), full_page=True)
    assert errors == []



def test_the_lobby_fits_a_phone_with_every_house_rule_open(browser: Any, server: Any,
                                                           artifacts: Path) -> None:
    errors: list[str] = []
    page = open_page(browser, 360, 740, errors, mobile=True)
    page.goto(server.url + "/")
    page.click("summary")
    page.select_option("#preset", "cuckoo")
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    page.screenshot(path=str(artifacts / "6-phone-lobby.png"), full_page=True)
    page.fill("#create-name", "Zoë")
    page.fill('[data-key="lives"]', "2")
    page.select_option("#bots", "")  # people only
    page.click("#create-button")
    page.wait_for_selector("#table:not([hidden])")
    page.click("#start")  # alone, without bots: refused, and the reason is shown
    page.wait_for_selector("#toast:not([hidden])")
    assert "at least 2 players" in page.inner_text("#toast")
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    assert errors == []


SEAT_OVERLAPS = """(() => {
  const boxes = [...document.querySelectorAll('.seat')].map((e) => e.getBoundingClientRect());
  const hits = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    const apart = a.right - 1 <= b.left || b.right - 1 <= a.left
      || a.bottom - 1 <= b.top || b.bottom - 1 <= a.top;
    if (!apart) hits.push([i, j]);
  }
  return hits;
})()"""
ON_SCREEN = """((id) => { const r = document.getElementById(id).getBoundingClientRect();
  return r.width > 0 && r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0
    && r.right <= window.innerWidth; })"""


@pytest.mark.parametrize(("size", "mobile"), [((360, 740), True), ((1280, 900), False)],
                         ids=["phone", "desktop"])
def test_twelve_seats_are_round_legible_and_the_buttons_stay_on_screen(
        browser: Any, server: Any, artifacts: Path, size: tuple[int, int], mobile: bool) -> None:
    errors: list[str] = []
    label = "phone" if mobile else "desktop"
    host = open_page(browser, 1280, 900, errors)
    host.goto(server.url + "/")
    host.fill("#create-name", "Ann")
    host.fill("#seats", "12")
    host.click("summary")
    host.fill('[data-key="lives"]', "3")
    host.click("#create-button")
    host.wait_for_selector("#table:not([hidden])")
    player = open_page(browser, size[0], size[1], errors, mobile=mobile)
    player.goto(host.input_value("#invite"))
    player.fill("#join-name", "Bartholomew-Maximilian")  # a long name must not break the layout
    player.click("#join-button")
    player.wait_for_selector("#table:not([hidden])")
    host.click("#start")
    wait_until(player, "!!(ui.state && ui.state.game)")
    assert player.locator(".seat").count() == 12
    turns, shot = 0, False
    deadline = time.monotonic() + 90
    while not player.is_visible("#banner"):
        assert time.monotonic() < deadline, "the game did not end in time"
        press(host, "#keep")
        if player.evaluate(READY, "#keep"):
            turns += 1
            if not shot:
                player.screenshot(path=str(artifacts / f"7-{label}-12-seats-turn.png"))
                shot = True
            assert player.evaluate(ON_SCREEN + '("keep")') and player.evaluate(ON_SCREEN + '("swap")')
            overlaps = player.evaluate(SEAT_OVERLAPS)
            if overlaps:
                player.screenshot(path=str(artifacts / f"9-{label}-overlap.png"))
            assert overlaps == []
            assert player.evaluate(NO_SIDEWAYS_SCROLL)
            assert player.title().startswith("● Your turn")
            press(player, "#swap")
        player.wait_for_timeout(20)
    assert turns > 0
    # seats round the table: the first and seventh seats face each other across it
    centres = player.evaluate("[...document.querySelectorAll('.seat')].map((e) => { const r = "
                              "e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })")
    me = centres[1]
    across = centres[7]
    assert across[1] < me[1] - 100  # yours at the bottom, the one opposite at the top
    assert player.evaluate(SEAT_OVERLAPS) == []
    assert "pot" in player.inner_text("#banner")
    player.screenshot(path=str(artifacts / f"8-{label}-12-seats-over.png"), full_page=True)
    assert errors == []


def test_a_public_table_is_found_a_seat_link_moves_a_seat_and_offline_disables_buttons(
        browser: Any, server: Any, artifacts: Path) -> None:
    errors: list[str] = []
    ann = open_page(browser, 1000, 800, errors)
    ann.goto(server.url + "/")
    ann.fill("#create-name", "Ann")
    ann.check("#public")
    ann.click("#create-button")
    ann.wait_for_selector("#table:not([hidden])")
    finder = open_page(browser, 390, 844, errors, mobile=True)
    finder.goto(server.url + "/")
    finder.click("#refresh-tables")
    finder.wait_for_selector(".open-table a:has-text(\"Ann's table\")")
    finder.screenshot(path=str(artifacts / "10-phone-open-tables.png"), full_page=True)
    finder.click(".open-table a:has-text(\"Ann's table\")")
    finder.wait_for_selector("#join-about:has-text('Ann invites you')")
    finder.fill("#join-name", "Finn")
    finder.click("#join-button")
    finder.wait_for_selector("#table:not([hidden])")
    # Finn's seat link, opened on another device, takes Finn's seat there
    link = finder.input_value("#seat-link")
    assert "#seat=" in link
    other = open_page(browser, 390, 844, errors, mobile=True)
    other.goto(link)
    other.wait_for_selector("#table:not([hidden])")
    wait_until(other, "ui.seat === 1 && ui.role === 'player'")
    assert "#" not in other.url  # the token left the address bar at once
    # the device that lost the seat is told so, and watches the table live (not a frozen page)
    finder.wait_for_selector("#notice:has-text('played on another device')")
    wait_until(finder, "ui.role === 'spectator' && ui.seat === null && !!ui.state")
    assert finder.is_visible("#play-here") and finder.is_visible("#table")
    # offline: the start button is disabled until the page is back online
    assert not ann.is_disabled("#start")
    ann.evaluate("ui.ws.close()")
    wait_until(ann, "document.getElementById('start').disabled")
    ann.wait_for_selector("#conn.on")
    assert not ann.is_disabled("#start")
    assert errors == []


def test_ace_chasing_is_played_with_bets_at_the_web_table(browser: Any, server: Any, artifacts: Path) -> None:
    errors: list[str] = []
    page = open_page(browser, 360, 740, errors, mobile=True)
    page.goto(server.url + "/")
    page.select_option("#game", "ace-chasing")
    assert page.is_hidden("#house-rules") and page.input_value("#bots") == "odds"
    page.fill("#create-name", "Ann")
    page.fill("#seats", "6")
    page.click("#create-button")
    page.wait_for_selector("#table:not([hidden])")
    page.click("#start")
    wait_until(page, "!!(ui.state && ui.state.game)")
    bets = answers = exchanges = 0
    shot = False
    deadline = time.monotonic() + 90
    while not page.is_visible("#banner"):
        assert time.monotonic() < deadline, "the game did not end in time"
        if page.evaluate(READY, "#offer"):
            if not shot:
                page.screenshot(path=str(artifacts / "11-phone-ace-chasing-bet.png"))
                shot = True
            assert page.evaluate(ON_SCREEN + '("offer")')
            bets += play_turn(page, bets) is not None
        elif page.evaluate(READY, "#accept"):
            answers += play_turn(page, answers) is not None
        elif page.evaluate(READY, "#keep"):
            exchanges += play_turn(page, exchanges) is not None
        page.wait_for_timeout(20)
    assert "wins" in page.inner_text("#banner")
    log = page.inner_text("#log")
    # Ann is the first matador: she answers offers, or bets and exchanges once another is matador;
    # the shuffles are the server's, so she may be knocked out before she ever exchanges, or win
    # the game while still the matador (every bot out of money)
    assert bets + answers > 0
    matadors = re.findall(r"Round \d+: (.+) is the matador", log)
    assert exchanges > 0 or "Ann is knocked out" in log or "Ann (you) is knocked out" in log \
        or all(m.startswith("Ann") for m in matadors), log
    assert "is the matador" in log and "Betting closed" in log
    assert page.evaluate(SEAT_OVERLAPS) == [] and page.evaluate(NO_SIDEWAYS_SCROLL)
    page.screenshot(path=str(artifacts / "12-phone-ace-chasing-over.png"), full_page=True)
    assert errors == []
