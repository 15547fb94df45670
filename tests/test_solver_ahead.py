"""A review solves the table sizes it needs ahead, side by side in worker processes, with the same
results as one after another."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pytest.importorskip("numpy")
pytest.importorskip("scipy")

import chasetheace as cta
from chasetheace.solver.solutions import cache
from chasetheace.solver.uses.advice import review

RULES = cta.Rules(lives=1, announce_low=True)
"""Short games, under rules whose tables do not ship with the package: solved in the test."""


def _record(players: int, seed: int) -> dict[str, object]:
    rules = RULES
    game = cta.Game(rules, players=players, seed=seed)
    rng = random.Random(seed)
    while game.to_act is not None:
        game.act(rng.choice(game.legal_actions()))
    return game.record()


def test_the_sizes_solved_ahead_judge_as_the_ones_solved_in_turn(tmp_path: Path) -> None:
    record = _record(4, seed=3)
    ahead, serial = tmp_path / "ahead", tmp_path / "serial"
    said: list[str] = []
    got = review(record, folder=str(ahead), progress=lambda text, _: said.append(text))
    rules = RULES
    sizes = {n for n in range(2, 5) if cache.is_cached(rules, n, folder=ahead)}
    assert sizes and sizes == set(got.solutions)
    assert any("at a time" in text for text in said)
    cache._MEMORY.clear()  # the serial review solves again, in this process
    want = review(record, solutions=lambda r, n: cache.solution_for(r, n, folder=serial))
    assert [(d.seat, d.action, d.cost) for d in got.decisions] == \
        [(d.seat, d.action, d.cost) for d in want.decisions]


def test_solve_ahead_solves_only_what_is_missing_and_refuses_a_table_too_large(tmp_path: Path) -> None:
    rules = cta.Rules().replace(ties="eldest-loses")
    assert cache.solve_ahead(rules, [2, 3], folder=tmp_path) == [3, 2]  # the longest first
    assert cache.solve_ahead(rules, [2, 3], folder=tmp_path) == []
    with pytest.raises(ValueError, match="22"):
        cache.solve_ahead(rules, [3, 22], folder=tmp_path)
