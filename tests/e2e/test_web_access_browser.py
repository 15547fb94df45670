"""The page for everyone, in a real browser (Playwright, Debian's Chromium): axe-core finds no
serious or critical violation, nothing that matters overlaps at 360x640, every tap target is 44 px
or more, a whole game is played with the keyboard alone, and the one live region says whose turn it
is, what happened and the result. Also: a seat link never moves a seated browser unasked."""

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
    READY,
    open_page,
    play_turn,
    wait_until,
)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")

PHONE, SMALL, DESKTOP = (390, 844), (360, 640), (1280, 800)
LONG = "Maximilianafeatherstonew"  # the longest name a seat takes (24 characters), no space in it

# Pairs of visible elements (in the viewport) whose boxes overlap, neither inside the other.
OVERLAPS = """(sel) => {
  const all = [...document.querySelectorAll(sel)].filter((n) => {
    if (n.offsetParent === null && getComputedStyle(n).position !== 'fixed') return false;
    const r = n.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < innerHeight;
  });
  const name = (n) => n.id ? '#' + n.id : n.className + ' "' + n.textContent.trim().slice(0, 20) + '"';
  const hits = [];
  for (let i = 0; i < all.length; i++) for (let j = i + 1; j < all.length; j++) {
    const a = all[i], b = all[j];
    if (a.contains(b) || b.contains(a)) continue;
    const p = a.getBoundingClientRect(), q = b.getBoundingClientRect();
    if (p.right - 1 > q.left && q.right - 1 > p.left && p.bottom - 1 > q.top && q.bottom - 1 > p.top)
      hits.push(name(a) + ' / ' + name(b));
  }
  return hits;
}"""
MATTERS = {
    "lobby": "header .brand, #conn, #lobby h1, #lobby .lead, #create-form > label, "
             "#create-form .row > label, #create-form > .hint, #create-form > details, "
             "#create-form > .check, #create-button, #lobby h2, "
             ".open-table, #no-tables, #refresh-tables, #toast, #notice",
    "table": "header .brand, #conn, #status, .bar .sound, .bar .invite, #recovery, #notice, #toast, .seat, "
             ".seat .name, .seat .card, .seat .lives, .seat .done, .seat .last, .seat .announced, "
             ".seat .dealer, .seat .tag, .seat .money, #pot, #banner, #away-seats button, #prompt, "
             ".buttons > *, #hint-text, #controls",
    "review": "header a, main h1, #review-status, #review-lead, #summary, #decisions li, #solutions, #record",
}
# What a seat shows stays inside the seat (its corner badges aside).
SPILLS = """() => [...document.querySelectorAll('.seat')].flatMap((seat) => {
  const s = seat.getBoundingClientRect();
  return [...seat.querySelectorAll('*')]
    .filter((n) => !n.matches('.dealer, .matador') && n.offsetParent !== null)
    .filter((n) => { const r = n.getBoundingClientRect();
      return r.left < s.left - 1 || r.right > s.right + 1 || r.top < s.top - 1 || r.bottom > s.bottom + 1; })
    .map((n) => n.className + ' "' + n.textContent + '"');
})"""
# Every visible control a finger taps: its box (a checkbox's: its label's) is 44 px or more each way.
SMALL_TARGETS = """() => [...document.querySelectorAll('button, a[href], input, select, summary')]
  .filter((n) => n.offsetParent !== null && !(n.type === 'checkbox' && n.closest('label')))
  .concat([...document.querySelectorAll('label.check')].filter((n) => n.offsetParent !== null))
  .map((n) => [n.id || n.className || n.tagName, n.getBoundingClientRect()])
  .filter(([, r]) => r.height < 44 - 0.5 || r.width < 44 - 0.5)
  .map(([n, r]) => n + ' ' + Math.round(r.width) + 'x' + Math.round(r.height))"""
LIVE = """() => [...document.querySelectorAll('[aria-live], [role=status], [role=alert], [role=log]')]
  .map((n) => n.id)"""


def axe_violations(page: Any) -> list[str]:
    """axe-core's serious and critical violations of the page as it is now."""
    pytest.importorskip("axe_playwright_python", reason=TEST_TOOL.format("axe-playwright-python"))
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:4]}"
            for v in results.response["violations"] if v["impact"] in ("serious", "critical")]


def check_view(page: Any, view: str, label: str, artifacts: Path) -> None:
    """The checks every view passes at every size: axe, tap targets, no overlap, no sideways scroll."""
    page.screenshot(path=str(artifacts / f"access-{label}.png"))
    overlaps = page.evaluate(OVERLAPS, MATTERS[view])
    assert overlaps == [], f"{label}: {overlaps}"
    assert page.evaluate(SPILLS) == [], label
    assert page.evaluate(SMALL_TARGETS) == [], label
    assert page.evaluate(NO_SIDEWAYS_SCROLL), label
    assert axe_violations(page) == [], label


def _create(page: Any, server: Any, name: str = "Ann", seats: int = 4, game: str | None = None,
            bots: str | None = None) -> str:
    page.goto(server.url + "/")
    if game:
        page.select_option("#game", game)
    page.fill("#create-name", name)
    page.fill("#seats", str(seats))
    if bots is not None:
        page.select_option("#bots", bots)
    page.click("#create-button")
    page.wait_for_selector("#table:not([hidden])")
    table: str = page.evaluate("ui.table")
    return table


def _my_turn(page: Any, others: tuple[Any, ...] = ()) -> None:
    """Wait until the page may act (the websocket clients in ``others`` keep when it is theirs)."""
    deadline = time.monotonic() + 30
    while not page.evaluate(READY, "#keep"):
        assert time.monotonic() < deadline, "no turn came"
        for c in others:
            c.pump(0.005)
            if c.my_turn() and c.acted != c.marker:
                c.acted = c.marker
                c.send({"type": "act", "action": "keep"})
        page.wait_for_timeout(20)


def _play_out(page: Any, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    n = 0
    while not page.is_visible("#banner"):
        assert time.monotonic() < deadline, "the game did not end in time"
        n += play_turn(page, n) is not None
        page.wait_for_timeout(20)


@pytest.mark.parametrize("size", [SMALL, PHONE, DESKTOP], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_four_views_pass_axe_fit_and_do_not_overlap(
        browser: Any, server: Any, artifacts: Path, size: tuple[int, int]) -> None:
    errors: list[str] = []
    phone = size[0] < 640
    tag = f"{size[0]}x{size[1]}"
    # the lobby
    ann = open_page(browser, *size, errors, mobile=phone)
    ann.goto(server.url + "/")
    ann.wait_for_selector("#lobby:not([hidden])")
    check_view(ann, "lobby", f"lobby-{tag}", artifacts)
    # a table in play, 12 seats, a long name beside yours, a hint showing, your turn
    table = _create(ann, server, "Zoë", seats=12)
    assert ann.is_visible("#recovery")
    ann.click("#copy-recovery")  # no toast over the recovery code
    ann.evaluate("toast('Recovery code copied.')")
    assert ann.evaluate(OVERLAPS, "#toast, #recovery, #recovery-code") == []
    ann.click("#recovery-done")
    assert ann.is_hidden("#toast")
    bob = server.client()
    bob.request({"type": "join", "table": table, "name": LONG}, "joined")
    ann.wait_for_selector(f"text={LONG}")
    ann.click("#start")
    _my_turn(ann, (bob,))
    ann.evaluate("showHint({hint: {lose_if_keep: 0.412, lose_if_swap: 0.389, lose_if_keep_text: '41.2%', "
                 "lose_if_swap_text: '38.9%', call: 'swap', "
                 "position_name: 'second'}, text: 'second of 12 holding 7♣ (first kept; nobody swapped "
                 "with you). Keep: you lose this hand 41.2%; swap: 38.9%. Solver: swap.'})")
    wait_until(ann, "(() => { const me = document.querySelector('.seat.me').getBoundingClientRect(); "
               "return me.bottom <= document.getElementById('controls').getBoundingClientRect().top; })()")
    # the panel at the bottom leaves the table most of the screen; the hint's figures are in view
    assert ann.evaluate("document.getElementById('controls').offsetHeight") <= 0.34 * size[1]
    figures = ann.evaluate("(() => { const f = document.querySelector('#hint-text .figures')"
                           ".getBoundingClientRect(); "
                           "const box = document.getElementById('hint-text').getBoundingClientRect(); "
                           "return f.top >= box.top && f.bottom <= box.bottom "
                           "&& f.bottom <= innerHeight; })()")
    assert figures, "the hint's figures are outside its box"
    check_view(ann, "table", f"table-{tag}", artifacts)
    # a spectator of the same table
    watcher = open_page(browser, *size, errors, mobile=phone)
    watcher.goto(f"{server.url}/t/{table}")
    watcher.click("#watch-button")
    wait_until(watcher, "ui.role === 'spectator' && !!(ui.state && ui.state.game)")
    check_view(watcher, "table", f"spectator-{tag}", artifacts)
    bob.close()
    for page in (ann, watcher):
        page.context.close()
    # the review of a finished game (Ace Chasing: its review needs no solver)
    rev = open_page(browser, *size, errors, mobile=phone)
    _create(rev, server, "Ann", seats=4, game="ace-chasing", bots="random")
    rev.click("#recovery-done")
    rev.click("#start")
    _play_out(rev)
    rev.wait_for_selector("#review-link:not([hidden])")
    check_view(rev, "table", f"over-{tag}", artifacts)
    rev.click("#review-link")
    rev.wait_for_selector("#review:not([hidden])")
    check_view(rev, "review", f"review-{tag}", artifacts)
    rev.context.close()
    assert not errors, errors


def test_the_bots_prompt_only_where_there_are_bots(browser: Any, server: Any) -> None:
    errors: list[str] = []
    page = open_page(browser, *SMALL, errors, mobile=True)
    _create(page, server, "Ann", seats=3, bots="")
    assert "bots" not in page.inner_text("#prompt")
    _create(page, server, "Ann", seats=3)
    assert "bots fill empty seats" in page.inner_text("#prompt")
    assert not errors, errors
    page.context.close()


def _tab_to(page: Any, selector: str, most: int = 80) -> None:
    """Press Tab until the keyboard's focus is on ``selector`` (it must be reachable)."""
    for _ in range(most):
        if page.evaluate("(sel) => document.activeElement === document.querySelector(sel)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} cannot be reached with the Tab key")


def test_a_whole_game_with_the_keyboard_alone_and_the_live_region_says_it(
        browser: Any, server: Any, artifacts: Path) -> None:
    errors: list[str] = []
    page = open_page(browser, *SMALL, errors, mobile=False)
    page.goto(server.url + "/")
    page.wait_for_selector("#lobby:not([hidden])")
    _tab_to(page, "#create-name")
    page.keyboard.type("Kay")
    _tab_to(page, "#seats")
    page.keyboard.press("Control+a")
    page.keyboard.type("2")
    _tab_to(page, "#house-rules summary")
    page.keyboard.press("Enter")  # the house rules open
    _tab_to(page, '[data-key="lives"]')
    page.keyboard.press("Control+a")
    page.keyboard.type("2")
    _tab_to(page, "#create-button")
    page.keyboard.press("Enter")
    page.wait_for_selector("#table:not([hidden])")
    _tab_to(page, "#recovery-done")
    page.keyboard.press("Enter")
    # the page's one live region hears everything from here
    page.evaluate("""window.heard = []; new MutationObserver(() => heard.push($('announce').textContent))
      .observe($('announce'), {childList: true, characterData: true, subtree: true})""")
    assert page.evaluate(LIVE) == ["announce"]
    _tab_to(page, "#start")
    page.keyboard.press("Enter")
    turns = 0
    deadline = time.monotonic() + 90
    while not page.is_visible("#banner"):
        assert time.monotonic() < deadline, "the game did not end in time"
        if page.evaluate(READY, "#keep"):
            # your turn: the focus is on your first choice (Keep), Tab reaches Swap
            assert page.evaluate("document.activeElement === $('keep')"), turns
            if turns % 2:
                _tab_to(page, "#swap")
            page.keyboard.press("Enter" if turns % 3 else "Space")
            turns += 1
        page.wait_for_timeout(20)
    assert turns > 0
    heard = page.evaluate("heard")
    page.screenshot(path=str(artifacts / "access-keyboard-over.png"))
    assert any("Your turn" in h for h in heard), heard
    assert any("Bot 1's turn" in h for h in heard), heard
    assert any("“Stand!”" in h or "“Change!”" in h for h in heard), heard  # what happened
    assert "wins the pot" in heard[-1] or "share the pot" in heard[-1], heard[-1]  # the result
    # the rematch, by keyboard too
    _tab_to(page, "#rematch")
    page.keyboard.press("Enter")
    wait_until(page, "!!(ui.state && ui.state.game && !ui.state.game.over)")
    assert not errors, errors
    page.context.close()


def test_a_seat_link_for_another_seat_asks_first_and_the_way_back_stays(
        browser: Any, server: Any, artifacts: Path) -> None:
    errors: list[str] = []
    vic = open_page(browser, *PHONE, errors, mobile=True)
    table = _create(vic, server, "Vic", seats=3)
    vic.click("#recovery-done")
    vic_token = vic.evaluate(f"localStorage.getItem('cta-token-{table}')")
    mal = open_page(browser, *SMALL, errors, mobile=True)
    mal.goto(f"{server.url}/t/{table}")
    mal.fill("#join-name", "Mal")
    mal.click("#join-button")
    mal.wait_for_selector("#table:not([hidden])")
    mal.click("#recovery-done")
    mal_link = mal.input_value("#seat-link")
    wait_until(vic, "!!ui.state && ui.state.table.seats[1].kind === 'human'")

    # Mal sends Vic his own seat link: Vic's page asks, and "stay" changes nothing
    vic.goto(mal_link)
    vic.wait_for_selector("#switch-seat")
    wait_until(vic, "ui.role === 'player' && ui.seat === 0 && !!ui.state")
    assert "play as Vic" in vic.inner_text("#notice")
    vic.screenshot(path=str(artifacts / "access-seat-link-asks.png"))
    vic.click("#stay-seat")
    assert vic.evaluate(f"localStorage.getItem('cta-token-{table}')") == vic_token
    assert vic.evaluate("ui.seat") == 0
    assert mal.evaluate("ui.seat") == 1 and mal.evaluate("ui.role") == "player"
    assert "#" not in vic.url

    # asked again, Vic says yes: Vic's page plays Mal's seat, and offers the way back to Vic's
    vic.goto(mal_link)
    vic.click("#switch-seat")
    wait_until(vic, "ui.role === 'player' && ui.seat === 1")
    vic.wait_for_selector("#other-seat:has-text('Back to my seat as Vic')")
    # Mal's page lost the seat: told so, it watches the table live (never a frozen page)
    mal.wait_for_selector("#play-here")
    wait_until(mal, "ui.role === 'spectator' && !!ui.state")
    assert "played on another device" in mal.inner_text("#notice")
    # Mal's reload takes nothing back unasked: no pushing each other off on every reload
    mal.reload()
    mal.wait_for_selector("#play-here")
    wait_until(mal, "ui.role === 'spectator' && !!ui.state")
    assert vic.evaluate("ui.seat") == 1 and vic.evaluate("ui.role") == "player"
    # Vic goes back: to his own seat, and Mal's seat is free for Mal again
    vic.click("#other-seat")
    wait_until(vic, "ui.role === 'player' && ui.seat === 0")
    assert vic.evaluate(f"localStorage.getItem('cta-token-{table}')") == vic_token
    vic.wait_for_selector("#other-seat:has-text('Back to my seat as Mal')")  # and could go again
    mal.click("#play-here")
    wait_until(mal, "ui.role === 'player' && ui.seat === 1")
    # Mal taking his seat back leaves Vic's page at Vic's own seat (only the other one was Mal's)
    assert vic.evaluate("ui.seat") == 0 and vic.evaluate("ui.role") == "player"
    assert not errors, errors
    for page in (vic, mal):
        page.context.close()


def test_one_double_tap_is_one_act(browser: Any, server: Any) -> None:
    # two taps before the table answers (a double tap, or a test clicking what it saw a moment
    # ago): the second found the buttons still there and sent a second act, refused, or taken
    # as the next turn's; the page now disables them until the table answers
    errors: list[str] = []
    page = open_page(browser, *SMALL, errors, mobile=True)
    _create(page, server, "Ann", seats=3)
    page.click("#recovery-done")
    page.click("#start")
    _my_turn(page)
    page.evaluate("window.got = []; window.from = ui.base + ui.history.length; "
                  "ui.ws.addEventListener('message', (e) => got.push(JSON.parse(e.data).type))")
    assert page.evaluate("$('keep').click(); $('swap').click(); $('keep').disabled && $('swap').disabled")
    page.evaluate("send({type: 'list'})")  # answered after anything the two taps caused
    wait_until(page, "got.includes('tables')")
    assert "error" not in page.evaluate("got"), page.evaluate("got")
    acts = page.evaluate("ui.history.slice(from - ui.base).filter((e) => e.seat === ui.seat && "
                         "['keep', 'swap', 'blocked', 'dealer_exchange'].includes(e.type)).length")
    assert acts == 1
    assert not errors, errors
    page.context.close()
