"""The whole game's section of docs/strategy.md: generated from the solver, rewritten on its own."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("numpy")
pytest.importorskip("scipy")

import chasetheace as cta
from chasetheace.solver.guide.docs_game import END, HEADING, duel, keep_from, write_game_section
from chasetheace.solver.solutions.game_cache import game_solution_for


def test_keep_from_counts_the_weak_cards_swapped() -> None:
    def keep(key: tuple[int, tuple[str, ...], int, int]) -> float | None:
        card = key[2]
        if card == 12:
            return None  # the blocker: no decision
        return 1.0 if card >= 7 else 0.5 if card == 6 else 0.0

    assert keep_from(keep, 0, 13) == pytest.approx(6.5)


def test_paired_games_measure_the_difference_with_its_interval() -> None:
    rules = cta.Rules()
    game = game_solution_for(rules, 2, 1)
    hands = {2: cta.solve(rules, 2)}
    d = duel(rules, game, hands, games=300, seed=5)
    assert d.games == 300 and d.seed == 5
    assert d.difference == pytest.approx((d.game_wins - d.hand_wins) / 300)
    assert d.low < d.difference < d.high or d.low == d.difference == d.high
    assert 0 < d.game_wins < 300 and 0 < d.hand_wins < 300
    assert duel(rules, game, hands, games=300, seed=5) == d  # seeded: the same games again


def test_the_section_is_rewritten_alone(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    before = "# Strategy\n\nThe one-hand sections.\n\n"
    (tmp_path / "strategy.md").write_text(f"{before}{HEADING}\n\nold text\n\n{END}9 s in all._\n")
    write_game_section(str(tmp_path), lives=2, players=[2], games=200, seed=3)
    text = (tmp_path / "strategy.md").read_text()
    assert text.startswith(before + HEADING)
    assert text.endswith(f"\n{END}9 s in all._\n") and "old text" not in text
    assert "### 2 players, 2 lives each" in text and "200 pairs" in text and "seeds 3 to 202" in text
    for image in ("whole-game-shifts.png", "whole-game-gain.png"):
        assert f"]({image})" in text
        assert (tmp_path / image).read_bytes()[:4] == b"\x89PNG"
    (tmp_path / "strategy.md").write_text("# no such section\n")
    with pytest.raises(ValueError, match="no whole-game section"):
        write_game_section(str(tmp_path), lives=1, players=[2], games=10)
