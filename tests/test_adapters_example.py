"""The research examples run, on a tiny budget, and print how they compare with ThresholdBot."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLES = Path(__file__).parent.parent / "examples"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cfr_example_prints_how_it_compares_with_threshold_bot(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyspiel")
    _load("cfr_vs_threshold").main(["--iterations", "1", "--cards", "Kc 9c 5c 2c Ac"])
    out = capsys.readouterr().out
    assert "CFR: 1 iterations" in out
    values = [float(v) for v in re.findall(r"^\s+(?:ThresholdBot\(8\)|CFR policy)\s+([-+.\d]+)$", out, re.M)]
    assert len(values) == 4
    lives_bot, lives_cfr, conv_bot, conv_cfr = values
    assert -1.0 <= lives_bot <= 0.0 and -1.0 <= lives_cfr <= 0.0
    assert conv_bot >= 0.0 and conv_cfr >= 0.0


def test_qlearning_example_prints_how_it_compares_with_threshold_bot(
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("gymnasium")
    _load("qlearning_gym").main(["--episodes", "200", "--deals", "100"])
    out = capsys.readouterr().out
    assert "Q-learning: 200 training hands" in out
    values = dict(re.findall(r"^\s+(Q-learning greedy|ThresholdBot\(8\)|random)\s+([-+.\d]+)$", out, re.M))
    assert set(values) == {"Q-learning greedy", "ThresholdBot(8)", "random"}
    assert all(-2.0 <= float(v) <= 0.0 for v in values.values())


def test_learning_example_measures_openspiels_mccfr_exactly(capsys: pytest.CaptureFixture[str],
                                                            tmp_path: Path) -> None:
    pytest.importorskip("pyspiel")
    pytest.importorskip("scipy")
    import json

    learn = _load("learn")
    out_file = tmp_path / "learn.json"
    learn.main(["--players", "3", "--minutes", "0.02", "--checkpoints", "2", "--samples", "300",
                "--json", str(out_file)])
    result = json.loads(out_file.read_text())
    assert result["algorithm"] == "OpenSpiel outcome-sampling MCCFR" and len(result["curve"]) == 2
    assert result["curve"][0]["iterations"] <= result["curve"][1]["iterations"]
    assert all(point["nash_conv"] >= result["solver"]["nash_conv"] >= 0.0 for point in result["curve"])
    assert "NashConv" in capsys.readouterr().out
    pytest.importorskip("matplotlib")
    learn.main(["--plot", str(tmp_path / "learn.png"), str(out_file)])
    assert (tmp_path / "learn.png").stat().st_size > 1000


def test_the_learning_plot_draws_the_solver_at_its_own_seconds() -> None:
    """Issue 34: the solver's star stood at 1 s for a solve of 0.1 s."""
    pytest.importorskip("pyspiel")
    pytest.importorskip("scipy")
    learn = _load("learn")
    assert learn.solver_point({"seconds": 0.1, "nash_conv": 5.3e-5}) == ([0.1], [5.3e-5])
    assert learn.solver_point({"seconds": 0.0, "nash_conv": 0.0}) == ([0.01], [1e-9])
