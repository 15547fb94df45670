"""The solver's honesty notes and its progress reports."""

from __future__ import annotations

import io
import itertools

import pytest

pytest.importorskip("numpy")
pytest.importorskip("scipy")

import chasetheace as cta
from chasetheace.cli.solve import StatusLine, main
from chasetheace.solver.solutions.solution import caveats


def test_to_bottom_is_said_to_be_unmodelled(capsys: pytest.CaptureFixture[str]) -> None:
    assert caveats(cta.Rules()) == []
    assert any("to-bottom" in c for c in caveats(cta.Rules.preset("chase-the-ace")))
    assert main(["--players", "3", "--preset", "chase-the-ace", "--quiet"]) == 0
    assert "note: between_hands=to-bottom is not modelled" in capsys.readouterr().out


def test_solve_reports_progress() -> None:
    seen: list[str] = []
    cta.solve(cta.Rules(), 3, progress=seen.append)
    assert seen[0] == "solving without card removal first, to start from"
    assert any(line.startswith("building the exact game tree") for line in seen)
    assert any(line.startswith("dcfr iteration") for line in seen)
    seen.clear()
    cta.solve(cta.Rules(), 7, method="sampled", iterations=2, progress=seen.append)
    assert any(line.startswith("sampled batch 2 of 2:") for line in seen)  # batches, not seconds


def test_status_line_waits_then_throttles() -> None:
    out = io.StringIO()
    status = StatusLine(out, quiet_seconds=0.0, every=3600.0)
    status("first")
    status("second")  # within the throttle interval: not shown
    status.close()
    assert out.getvalue() == "first\n"
    quiet = io.StringIO()
    StatusLine(quiet, quiet_seconds=3600.0)("too early")
    assert quiet.getvalue() == ""


def test_the_bar_says_it_saves_then_that_it_solved(tmp_path: object) -> None:
    from chasetheace.solver.solutions.cache import SAVING, solution_for

    seen: list[tuple[str, float]] = []
    rules = cta.Rules().replace(ties="latest-loses")  # hands no shipped solution has
    solution_for(rules, 3, folder=str(tmp_path), progress=lambda text, done: seen.append((text, done)))
    saving = [i for i, (text, _) in enumerate(seen) if "saving the solution" in text]
    assert len(saving) == 1 and seen[saving[0]][1] == SAVING
    assert seen[-1][0].startswith("solved 3 players") and seen[-1][1] == 1.0
    assert saving[0] == len(seen) - 2
    assert all(a[1] <= b[1] for a, b in itertools.pairwise(seen))  # the bar never moves back
