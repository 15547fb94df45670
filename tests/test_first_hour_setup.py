"""Issue 15, setting up and reading up: the Makefile's set-ups, the README's promises, the docs'
citations, and `rules` at 80 columns."""

from __future__ import annotations

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


def make_dry_run(target: str, tmp_path: Path, *extra: str) -> str:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    argv = ["make", "-n", "--no-print-directory", "-C", str(ROOT), target, f"VENV={tmp_path / 'venv'}"]
    out = subprocess.run([*argv, *extra], capture_output=True, text=True, check=True)
    return out.stdout


def test_make_play_installs_only_the_cli_extra_and_passes_args(tmp_path: Path) -> None:
    text = make_dry_run("play", tmp_path, "ARGS=--preset cuckoo --players 6")
    installs = [line for line in text.splitlines() if " install " in line]
    assert len(installs) == 1 and installs[0].count("-e '.[cli]'") == 2  # the host's pip, or the venv's
    assert "[cli," not in text and "tomllib" not in text
    assert text.splitlines()[-1].endswith("/venv/bin/chase-the-ace play --preset cuckoo --players 6")
    assert f"touch {tmp_path / 'venv'}/.play" in text


def test_make_test_installs_every_extra_with_its_own_stamp(tmp_path: Path) -> None:
    text = make_dry_run("test", tmp_path)
    install = next(line for line in text.splitlines() if "pip install" in line and " -e " in line)
    expression = re.search(r"\$\((.*)\)\]", install)
    assert expression is not None
    code = expression.group(1).split(" -c ", 1)[1].strip("'")
    extras = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip().split(",")
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert sorted(extras) == sorted(declared) and {"dev", "all", "cli"} <= set(extras)
    assert f"touch {tmp_path / 'venv'}/.everything" in text and ".play" not in text
    serve = make_dry_run("serve", tmp_path)
    assert "-e '.[cli,web]'" in serve and f"touch {tmp_path / 'venv'}/.serve" in serve


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
    from chasetheace.solver.hand import deck_of
    from chasetheace.solver.words import rank_name

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
