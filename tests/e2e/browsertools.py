"""What the browser tests (tests/e2e) share besides their fixtures (tests/e2e/conftest.py): where
Chromium is, how it is started, and the helpers that open a page, wait on it and play a turn."""

from __future__ import annotations

import os
import shutil
import time
from typing import Any

CHROMIUM = next((p for p in ("/usr/bin/chromium", shutil.which("chromium")) if p and os.path.exists(p)), None)
NO_CHROMIUM = "Debian's chromium is not installed (apt-get install -y chromium); .ci/run installs it"
NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def open_page(browser: Any, width: int, height: int, errors: list[str], mobile: bool = False) -> Any:
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=mobile,
                                  has_touch=mobile)
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.set_default_timeout(10_000)
    return page


def wait_until(page: Any, expression: str, timeout: float = 10.0) -> None:
    """Poll a page expression (wait_for_function would need eval, which the page's CSP forbids)."""
    end = time.monotonic() + timeout
    while not page.evaluate(expression):
        assert time.monotonic() < end, f"timed out waiting for {expression}"
        page.wait_for_timeout(20)


# A button the page offers now: shown, and enabled (the page disables its act buttons from a click
# until the table answers it, so a loop never clicks twice on one turn, nor clicks a button that the
# answer is about to hide: the race that made a click on #decline time out now and then).
READY = """(sel) => { const b = document.querySelector(sel);
  return !!b && b.offsetParent !== null && !b.disabled; }"""


def press(page: Any, selector: str) -> bool:
    """Click ``selector`` if the page offers it now; whether it did."""
    if not page.evaluate(READY, selector):
        return False
    page.click(selector)
    return True


def play_turn(page: Any, n: int, amount: str = "3") -> str | None:
    """One move if the page offers one now, the choice alternating with ``n``: the button pressed."""
    if page.evaluate(READY, "#offer"):
        page.fill("#amount", amount)
        choice = "#offer" if n % 2 == 0 else "#no-bet"
    elif page.evaluate(READY, "#accept"):
        choice = "#decline" if n % 2 else "#accept"
    elif page.evaluate(READY, "#keep"):
        choice = "#keep" if n % 2 else "#swap"
    else:
        return None
    page.click(choice)
    return choice
