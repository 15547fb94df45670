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
