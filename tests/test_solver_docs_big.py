"""The big tables' section of docs/strategy.md: every table size through the solution cache, the
keep thresholds, the NashConv bracket, the plot; rewritten on its own."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

pytest.importorskip("numpy")
pytest.importorskip("scipy")

import chasetheace as cta
from chasetheace.solver.guide.docs_big import HEADING, NEXT, keep_thresholds, main, write_big_section


def test_a_threshold_is_the_weakest_card_kept_more_often_than_not() -> None:
    sol = cta.solve(cta.Rules(), 3)
    for row, threshold in zip(sol.keep_by_card(), keep_thresholds(sol)):
        decided = [c for c in range(len(row)) if not math.isnan(row[c])]
        assert threshold is not None and threshold in decided
        assert all(row[c] >= 0.5 for c in decided if c >= threshold)
        below = [c for c in decided if c < threshold]
        assert not below or row[below[-1]] < 0.5


def test_the_section_is_written_before_the_whole_game_and_rewritten_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("CHASE_THE_ACE_CACHE", str(tmp_path / "cache"))
    before, after = "# Strategy\n\nThe one-hand sections.\n\n", f"{NEXT}\n\nthe whole game\n"
    (tmp_path / "strategy.md").write_text(before + after)
    for _ in range(2):  # the second time replaces the first
        write_big_section(str(tmp_path), presets=["standard"], players=[2, 3, 6], hands=2000)
    text = (tmp_path / "strategy.md").read_text()
    assert text.startswith(before + HEADING) and text.endswith(after) and text.count(HEADING) == 1
    assert "| 3 | dcfr |" in text and "(exact) |" in text and "| 6 | iid |" in text and " to ≤ " in text
    assert "- 6: " in text and "95 % confidence" in text and "The eldest is the safest seat at " in text
    assert (tmp_path / "big-tables-standard.png").read_bytes()[:4] == b"\x89PNG"
    from chasetheace.rules import Rules
    from chasetheace.solver.solutions.cache import is_cached

    # what it solved is cached (or was read from the files shipped with the package)
    assert all(is_cached(Rules(), n, folder=tmp_path / "cache") for n in (2, 3, 6))
    assert main(["--out", str(tmp_path), "--presets", "nonesuch"]) == 2


def test_docs_strategy_md_says_what_the_section_s_writer_says() -> None:
    """The words of docs/strategy.md's big tables section, up to its first table, are those that
    ``docs_big`` writes (with the hands its last line names): edited in one, they are edited in both."""
    import re

    from chasetheace.solver.guide.docs_big import prose

    text = (Path(__file__).resolve().parents[1] / "docs" / "strategy.md").read_text(encoding="utf-8")
    section = text[text.index(HEADING):text.index(NEXT)]
    last = re.search(r"_This section solved and measured in \d+ s \(([\d,]+) sampled hands per bracket\)",
                     section)
    assert last is not None, "the section's last line names the hands of its brackets"
    words = "\n".join(prose(int(last.group(1).replace(",", ""))))
    assert section.startswith(words), "run: python -m chasetheace.solver.guide.docs_big (or copy its words)"
    assert "SAMPLED_LEFT" not in section
