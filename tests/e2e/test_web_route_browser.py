"""End to end in a real browser: the page that creates a table opens its WebSocket again on the
table's address (``/ws?table=ID``, what a proxy hashes to send a table's players to one process)
and goes on playing there, the person seeing nothing of it (never "offline", the start clicked
during the move taken, the whole game played on the new socket)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from helpers import TEST_TOOL

pytest.importorskip("uvicorn")
pytest.importorskip("playwright.sync_api", reason=TEST_TOOL.format("Playwright"))

from e2e.browsertools import CHROMIUM, NO_CHROMIUM, READY, open_page, press, wait_until

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)


# every text the connection line shows, from the page's load on (a flash of "offline" is caught)
WATCH_CONN = """() => { window.connSeen = [document.getElementById("conn").textContent];
  new MutationObserver(() => window.connSeen.push(document.getElementById("conn").textContent))
    .observe(document.getElementById("conn"), {childList: true, characterData: true, subtree: true}); }"""


def test_the_creator_moves_its_socket_to_the_table_and_plays_on(browser: Any, server: Any) -> None:
    errors: list[str] = []
    ann = open_page(browser, 1100, 900, errors)
    sockets: list[Any] = []
    ann.on("websocket", lambda ws: sockets.append(ws))
    ann.goto(server.url + "/")
    ann.wait_for_selector("#conn.on")
    ann.evaluate(WATCH_CONN)
    assert len(sockets) == 1 and sockets[0].url.endswith("/ws")  # the lobby's: no table yet
    ann.fill("#create-name", "Ann")
    ann.fill("#seats", "3")
    ann.click("summary")
    ann.fill('[data-key="lives"]', "2")
    ann.click("#create-button")
    ann.wait_for_selector("#table:not([hidden])")
    ann.click("#start")  # at once: while the page moves its socket, or just after
    table = ann.evaluate("ui.table")
    wait_until(ann, "ui.wsTable === ui.table && ui.next === null")
    assert [s.url.split("/ws")[1] for s in sockets] == ["", "?table=" + table]
    wait_until(ann, "ui.ws.url.endsWith('?table=' + ui.table)")
    end = time.monotonic() + 10
    while not sockets[0].is_closed():  # the first one let go
        assert time.monotonic() < end, "the first socket stayed open"
        ann.wait_for_timeout(20)
    assert not sockets[1].is_closed()
    # the seat is the same, its token and recovery code still there
    assert ann.evaluate("ui.role") == "player" and ann.evaluate("ui.seat") == 0
    assert ann.evaluate(f"localStorage.getItem('cta-token-{table}')") == ann.evaluate("ui.token")
    assert ann.is_visible("#recovery") and len(ann.inner_text("#recovery-code")) > 4

    moves = 0
    deadline = time.monotonic() + 60
    while not ann.is_visible("#banner"):
        assert time.monotonic() < deadline, "the game did not end in time"
        if ann.evaluate(READY, "#keep"):
            moves += press(ann, "#swap" if moves % 2 else "#keep")
        ann.wait_for_timeout(20)
    assert moves > 0
    assert "Showdown" in ann.inner_text("#log")
    assert len(sockets) == 2  # played on the table's socket: no other was opened
    assert all(text in ("online", "connecting…") for text in ann.evaluate("window.connSeen")), \
        ann.evaluate("window.connSeen")
    ann.reload()  # and a reload goes straight to the table's address, the seat kept
    ann.wait_for_selector("#table:not([hidden])")
    wait_until(ann, "ui.role === 'player' && ui.seat === 0")
    assert sockets[-1].url.endswith("?table=" + table) and len(sockets) == 3
    assert errors == []
