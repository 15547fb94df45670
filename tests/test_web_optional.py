"""Without the web extra, or without the test tools of the dev extra (httpx, Playwright), the web
tests skip, saying why; they never fail collection."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
# a meta path finder that makes the web extra's packages and Playwright impossible to import
BLOCK = """
import os, sys
BLOCKED = os.environ["CTA_BLOCKED"].split()
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked by the test)", name=name)
        return None
sys.meta_path.insert(0, Block())
import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""


WEB_EXTRA = "uvicorn starlette websockets playwright httpx"


def run_without(blocked: str, target: str) -> str:
    """pytest run on ``target`` with the packages ``blocked`` impossible to import; its output."""
    done = subprocess.run([sys.executable, "-c", BLOCK, "-q", "-p", "no:cacheprovider", "-rs",
                           str(TESTS / target)], capture_output=True, text=True, timeout=120,
                          cwd=TESTS.parent, env={**os.environ, "CTA_BLOCKED": blocked})
    out = done.stdout + done.stderr
    assert done.returncode == 0 or done.returncode == 5, out  # all skipped, or nothing collected
    assert "error" not in out.lower().replace("errors: 0", ""), out
    assert "skipped" in out.lower(), out
    return out


@pytest.mark.parametrize("target", ["test_web_server.py", "test_web_security.py", "test_web_players.py",
                                    "test_web_restart.py", "test_web_command.py", "e2e"])
def test_web_tests_skip_cleanly_without_the_web_extra(target: str) -> None:
    run_without(WEB_EXTRA, target)


@pytest.mark.parametrize(("target", "tool"), [("e2e", "Playwright"), ("test_web_server.py", "httpx"),
                                              ("test_web_restart.py", "httpx")])
def test_web_tests_say_which_test_tool_is_missing(target: str, tool: str) -> None:
    """The web extra serves the table; the tests' own clients come with the dev extra."""
    out = run_without("playwright httpx", target)
    assert f"{tool} is a test tool, in the dev extra (pip install -e '.[dev]'" in out, out
