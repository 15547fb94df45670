"""The solved bot and the hint agree: a strategy never mostly plays the action its own figures call
worse where the solver could play the better without raising NashConv; and a solution read from a
file spells its tables out on first read."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

pytest.importorskip("numpy")
pytest.importorskip("scipy")

import numpy as np

import chasetheace as cta
from chasetheace.solver.methods.cfr import Engine
from chasetheace.solver.model.hand import Hand
from chasetheace.solver.model.tree import Tree
from chasetheace.solver.solutions.cache import solution_for
from chasetheace.solver.solutions.solution import Solution, StoredSolution
from chasetheace.solver.solutions.solving import AGREE_GAP, _tables, _tremble, agree


def _disagreeing(engine: Engine, sigma: object) -> tuple[float, int]:
    own, shaky = engine.evaluate_beliefs(sigma, [None, _tremble(sigma)])
    belief = engine.info_reach(shaky)
    cfv = shaky.cfv.reshape(-1, 2)
    diff = np.where(belief > 0, (cfv[:, 0] - cfv[:, 1]) / np.where(belief > 0, belief, 1.0), 0.0)
    keep = np.asarray(sigma)[:, 0]
    wrong = ((diff > AGREE_GAP) & (keep > 0.5)) | ((diff < -AGREE_GAP) & (keep < 0.5))
    return float(engine.gains(sigma, own.cfv).sum()), int(wrong.sum())


def test_agree_plays_the_better_action_without_raising_nash_conv() -> None:
    hand = Hand(cta.Rules(), 4)
    engine = Engine(Tree(hand), 1)
    sol = cta.solve(cta.Rules(), 4)
    index = {key: i for i, key in enumerate(sol.infosets)}
    keep = np.array([sol.keep[index[key]] for key in engine.tree.infosets])
    sigma = np.c_[keep, 1 - keep]
    assert _disagreeing(engine, sigma)[1] == 0  # a solve ends with agree
    # the dealer (no one acts after it) made to play the worse action where it is clear
    own = engine.evaluate(sigma)
    reach = engine.info_reach(own)
    cfv = own.cfv.reshape(-1, 2)
    gap = np.where(reach > 0, np.abs(cfv[:, 0] - cfv[:, 1]) / np.where(reach > 0, reach, 1.0), 0.0)
    spoilt = np.flatnonzero((engine.owner == 3) & (gap > 0.05) & (reach > 0))[:5]
    assert len(spoilt) == 5
    worse = sigma.copy()
    worse[spoilt, 0] = cfv[spoilt, 0] > cfv[spoilt, 1]
    worse[spoilt, 1] = 1 - worse[spoilt, 0]
    before, wrong = _disagreeing(engine, worse)
    assert wrong >= 5
    fixed = agree(engine, worse)
    after, wrong_after = _disagreeing(engine, fixed)
    assert wrong_after == 0 and after <= before
    assert np.array_equal(fixed[spoilt, 0] > 0.5, sigma[spoilt, 0] > 0.5)  # the better action again
    # the solution's own figures then call what its bot plays
    got = _tables(hand, engine, fixed, "dcfr", 0.0, refine=False)
    for k, (lk, ls) in zip(got.keep, got.values):
        assert not (lk - ls > AGREE_GAP and k > 0.5) and not (ls - lk > AGREE_GAP and k < 0.5)


def test_a_solution_read_from_a_file_spells_its_tables_out_when_read(tmp_path: Path) -> None:
    sol = solution_for(cta.Rules(), 3, folder=str(tmp_path))
    path = tmp_path / "three.npz"
    sol.save(str(path))
    read = Solution.load(str(path))
    assert isinstance(read, StoredSolution)
    assert "keep" not in read.__dict__  # nothing spelled out yet
    assert read.keep_probability(sol.infosets[7]) == sol.keep[7]
    assert "keep" not in read.__dict__  # a situation is looked up in the arrays
    assert read.keep == sol.keep and read.infosets == sol.infosets and read.values == sol.values
    assert read.chances == sol.chances and read.reach == sol.reach
    changed = dataclasses.replace(read, keep=[0.5] * len(read.keep))
    assert changed.keep == [0.5] * len(sol.keep) and changed.values == sol.values
    no_chances = dataclasses.replace(sol, chances=None)
    no_chances.save(str(path))
    assert Solution.load(str(path)).chances is None
