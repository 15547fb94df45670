"""The research example runs, on a tiny budget, and prints its comparison."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")

EXAMPLE = Path(__file__).parent.parent / "examples" / "cfr_vs_threshold.py"


def test_cfr_example_prints_how_it_compares_with_threshold_bot(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("cfr_vs_threshold", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["--iterations", "1", "--cards", "Kc 9c 5c 2c Ac"])
    out = capsys.readouterr().out
    assert "CFR: 1 iterations" in out
    values = [float(v) for v in re.findall(r"^\s+(?:ThresholdBot\(8\)|CFR policy)\s+([-+.\d]+)$", out, re.M)]
    assert len(values) == 4
    lives_bot, lives_cfr, conv_bot, conv_cfr = values
    assert -1.0 <= lives_bot <= 0.0 and -1.0 <= lives_cfr <= 0.0
    assert conv_bot >= 0.0 and conv_cfr >= 0.0
