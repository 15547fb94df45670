"""benchmarks/true_nashconv.py: the exact NashConv in the true game of a shipped table, in one piece
and in parts, resumed from its checkpoint, and its refusals."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numpy")
pytest.importorskip("scipy")

import chasetheace as cta
from chasetheace.solver.solutions.cache import prepared_path
from chasetheace.solver.solutions.solution import Solution

pytestmark = pytest.mark.slow  # the exact tree in parts: pytest -m "not slow" leaves it out

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "true_nashconv.py"
SRC = str(Path(cta.__file__).resolve().parents[1])


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env,
                          check=False, timeout=1800)


def _result(run: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert run.returncode == 0, run.stderr
    rows = [line.split("] json ", 1)[1] for line in run.stdout.splitlines() if "] json " in line]
    assert len(rows) == 1, run.stdout
    out: dict[str, Any] = json.loads(rows[0])
    return out


def test_a_shipped_exact_table_measures_as_its_file_says_in_one_piece_and_in_parts(tmp_path: Path) -> None:
    # the 4-player standard table ships solved on the exact tree: its file's NashConv is the true
    # game's already (of the strategy before it was stored in float32)
    sol = Solution.load(str(prepared_path(cta.Rules(), 4)))
    assert sol.measured == "exact"
    whole = _result(_run("--players", "4"))
    assert not whole["in_parts"] and whole["parts_computed"] == 0
    assert whole["nash_conv"] == pytest.approx(sol.nash_conv, abs=1e-7)
    assert whole["nash_conv"] == pytest.approx(sum(whole["gains"]), abs=1e-15)
    log = tmp_path / "log.txt"
    folder = tmp_path / "ck"
    parts = _result(_run("--players", "4", "--split", "--checkpoint", str(folder), "--log", str(log)))
    assert parts["in_parts"] and parts["parts_computed"] > 1 and parts["parts_read"] == 0
    # the parts add up to the whole tree (summed in another order: the last bits may differ)
    assert parts["nash_conv"] == pytest.approx(whole["nash_conv"], rel=1e-9, abs=1e-15)
    assert parts["gains"] == pytest.approx(whole["gains"], rel=1e-9, abs=1e-15)
    text = log.read_text()
    assert "standard 4p: pass 1 over the exact tree" in text and "NashConv in the true game" in text
    # run again: every part read back, the same figures bit for bit
    again = _result(_run("--players", "4", "--split", "--checkpoint", str(folder)))
    assert again["parts_computed"] == 0 and again["parts_read"] == parts["parts_computed"]
    assert again["nash_conv"] == parts["nash_conv"] and again["gains"] == parts["gains"]


@pytest.mark.parametrize("args, says", [
    (["--players", "10"], "bad --players 10"),
    (["--preset", "nonesuch", "--players", "8"], "unknown preset"),
    (["--players", "8", "--workers", "0"], "bad --workers 0"),
])
def test_a_bad_request_is_one_line_and_exit_2(args: list[str], says: str) -> None:
    run = _run(*args)
    assert run.returncode == 2
    assert run.stderr.startswith("error: ") and says in run.stderr and len(run.stderr.splitlines()) == 1
    assert run.stdout == ""
