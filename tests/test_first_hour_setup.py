"""Issue 15, setting up and reading up: the Makefile's set-ups, the README's promises, the docs'
citations, and `rules` at 80 columns."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import chasetheace as cta
from chasetheace import cli
from chasetheace.rules import OPTIONS, PRESETS
from chasetheace.sources import SOURCES, cited

ROOT = Path(__file__).parent.parent


# A stand-in for Python (the one `make` is given, and the venv's): it writes down how it was called
# and does nothing, except what the Makefile needs back: `-c CODE` runs in the real Python, and
# `-m venv DIR` makes a venv of stand-ins (its python and its chase-the-ace).
FAKE_PYTHON = """#!{python}
import json, os, shutil, sys
args = sys.argv[1:]
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(json.dumps([sys.argv[0], *args]) + "\\n")
if args[:1] == ["-c"]:
    os.execv({python!r}, [{python!r}, *args])
if args[:2] == ["-m", "venv"]:
    bin = os.path.join(args[-1], "bin")
    os.makedirs(bin)
    for name in ("python", "chase-the-ace"):
        shutil.copy(__file__, os.path.join(bin, name))
if os.environ.get("FAKE_OLD_PIP") and "--python" in args:
    sys.exit(2)  # a pip older than 22.3: no --python option
"""


class Make:
    """`make TARGET` run for real in the repository, with stand-ins for Python: what it ran."""

    def __init__(self, tmp_path: Path) -> None:
        if shutil.which("make") is None:
            pytest.skip("make is not installed")
        self.python = tmp_path / "python3"
        self.python.write_text(FAKE_PYTHON.format(python=sys.executable))
        self.python.chmod(0o755)
        self.venv = tmp_path / "venv"
        self.log = tmp_path / "calls.jsonl"

    def __call__(self, target: str, *options: str, old_pip: bool = False) -> list[list[str]]:
        """Run ``make target``; each program it ran (a path) with its arguments, in order."""
        self.log.write_text("")
        env = {**os.environ, "FAKE_LOG": str(self.log)}
        env.pop("FAKE_OLD_PIP", None)
        if old_pip:
            env["FAKE_OLD_PIP"] = "1"
        done = subprocess.run(["make", "--silent", "-C", str(ROOT), target, f"PYTHON={self.python}",
                               f"VENV={self.venv}", *options], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def installs(self, calls: list[list[str]]) -> list[tuple[str, str]]:
        """Each `pip install -e SPEC`: into which Python, and the spec (``.[extras]``)."""
        found = []
        for call in calls:
            if call[1:3] == ["-m", "pip"] and "install" in call and "-e" in call:
                into = call[call.index("--python") + 1] if "--python" in call else call[0]
                found.append((into, call[call.index("-e") + 1]))
        return found


def test_make_play_installs_only_the_cli_extra_once_and_plays_with_args(tmp_path: Path) -> None:
    make = Make(tmp_path)
    py, play = str(make.venv / "bin" / "python"), str(make.venv / "bin" / "chase-the-ace")
    calls = make("play", "ARGS=--preset cuckoo --players 6")
    assert [str(make.python), "-m", "venv", "--without-pip", str(make.venv)] in calls  # no pip of its own
    assert make.installs(calls) == [(py, ".[cli]")]  # the host's pip installs into the venv
    assert calls[-1] == [play, "play", "--preset", "cuckoo", "--players", "6"]
    assert (make.venv / ".play").exists()
    again = make("play")
    assert make.installs(again) == [] and again == [[play, "play"]]  # set up once
    # a pip older than 22.3 cannot install into another Python: the venv gets its own pip
    (make.venv / ".play").unlink()
    calls = make("play", old_pip=True)
    assert make.installs(calls) == [(py, ".[cli]"), (py, ".[cli]")]  # the host's pip failed, then its own
    assert calls[-1] == [play, "play"]


def test_make_serve_adds_the_web_extra(tmp_path: Path) -> None:
    make = Make(tmp_path)
    py = str(make.venv / "bin" / "python")
    calls = make("serve", "ARGS=--port 8001")
    assert make.installs(calls) == [(py, ".[cli,web]")]
    assert calls[-1] == [py, "-m", "chasetheace.web", "--port", "8001"]
    assert (make.venv / ".serve").exists()


def test_make_test_installs_every_extra_then_runs_pytest(tmp_path: Path) -> None:
    make = Make(tmp_path)
    py = str(make.venv / "bin" / "python")
    calls = make("test", "ARGS=-x tests/test_smoke.py")
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    ((into, spec),) = make.installs(calls)
    assert into == py and spec.startswith(".[") and spec.endswith("]")
    assert sorted(spec[2:-1].split(",")) == sorted(declared) and {"dev", "all", "cli"} <= set(declared)
    assert calls[-1] == [py, "-m", "pytest", "-x", "tests/test_smoke.py"]
    assert (make.venv / ".everything").exists() and not (make.venv / ".play").exists()
    lint = make("lint")
    assert make.installs(lint) == []  # the same set-up
    assert [py, "-m", "ruff", "check", "src", "tests", "benchmarks", "examples"] in lint
    assert [py, "-m", "mypy", "src", "tests"] in lint  # the tests are type-checked as the code is


def test_playing_needs_only_rich_and_platformdirs() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert sorted(re.split(r"[<>=\[]", d)[0] for d in declared["cli"]) == ["platformdirs", "rich"]


def test_readme_quick_start() -> None:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("## Quick start")
    section = readme[start:readme.index("\n## ", start + 1)]
    block = section.split("```")[1].strip().splitlines()
    assert [line.split("#")[0].strip() for line in block] == ["make play", "make test"]
    assert "Python 3.11 or newer" in section
    assert 'make play ARGS="--preset cuckoo' in section and ". .venv/bin/activate" in section


def test_docs_cite_their_sources_in_words() -> None:
    for name in ("RULES.md", "acechasing.md", "cli.md", "strategy.md"):
        text = (ROOT / "docs" / name).read_text()
        assert "seeds/" not in text and "beside this file" not in text and "/work/" not in text
    rules = (ROOT / "docs" / "RULES.md").read_text()
    for number, words in SOURCES.items():
        assert f"- **{number}**: " in rules
        title = words.split('"')[1]
        assert f'**{number}**: "{title}"' in rules
    assert "Matthew Allen" in (ROOT / "docs" / "acechasing.md").read_text()
    notes = [o.source for o in OPTIONS.values()] + [p.source for p in PRESETS]
    assert {n for note in notes for n in cited(note)} <= set(SOURCES)


def test_strategy_doc_writes_ten_as_10() -> None:
    text = (ROOT / "docs" / "strategy.md").read_text()
    assert re.search(r"\bT\b", text) is None
    from chasetheace.solver.model.hand import deck_of
    from chasetheace.solver.model.words import rank_name

    deck = deck_of(cta.Rules())
    assert rank_name(deck, deck.strength_of_rank(10)) == "10"  # how the generator writes a ten


def test_rules_at_80_columns_cut_nothing(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("rich")
    monkeypatch.setenv("COLUMNS", "80")
    for argv in (["rules"], ["rules", "standard"], ["rules", "hoyle"]):
        assert cli.main(argv) == 0
        out = capsys.readouterr().out
        assert "…" not in out, argv
        assert max(len(line) for line in out.splitlines()) <= 80
        assert "Sources (numbered as in RULES.md):" in out
    assert cli.main(["rules"]) == 0
    out = capsys.readouterr().out
    assert "Hoyle/Foster" in out and "Montmort," in out
    assert '000: "Ranter-Go-Round", Wikipedia' in out and "Matthew Allen" not in out  # 003 not cited


def test_make_refuses_a_python_older_than_3_11(tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    old = tmp_path / "python3.9"
    old.write_text("#!/bin/sh\nexit 1\n")  # answers the version check like an old Python
    old.chmod(0o755)
    done = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "play", f"PYTHON={old}",
                           f"VENV={tmp_path / 'venv'}"], capture_output=True, text=True)
    assert done.returncode != 0
    assert f"chase-the-ace needs Python 3.11 or newer; {old} is older" in done.stdout
    assert not (tmp_path / "venv").exists()


def test_make_hints_adds_the_solver_once(tmp_path: Path) -> None:
    """`make hints` (the command a game without the solver names) installs the solve extra with
    the cli one, into the same venv, once; `make play` then needs nothing more."""
    make = Make(tmp_path)
    py, play = str(make.venv / "bin" / "python"), str(make.venv / "bin" / "chase-the-ace")
    calls = make("hints")
    assert make.installs(calls) == [(py, ".[cli,solve]")]
    assert (make.venv / ".hints").exists() and (make.venv / ".play").exists()
    assert make.installs(make("hints")) == []
    assert make("play") == [[play, "play"]]
