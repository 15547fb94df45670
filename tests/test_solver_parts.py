"""The exact tree in parts, in worker processes: the same figures as the whole tree, and CFR on it."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("scipy")

import chasetheace as cta  # noqa: E402
from chasetheace.solver.cfr import Engine, run_cfr  # noqa: E402
from chasetheace.solver.hand import Hand  # noqa: E402
from chasetheace.solver.measure import measure  # noqa: E402
from chasetheace.solver.parts import PartsEngine, parts_of  # noqa: E402
from chasetheace.solver.solution import MAX_PARTS_PLAYERS, _from_parts  # noqa: E402
from chasetheace.solver.tree import Tree  # noqa: E402


def _random_sigma(keys: list[object], seed: int) -> object:
    rng = np.random.default_rng(seed)
    keep = rng.random(len(keys))
    return np.c_[keep, 1 - keep]


def test_a_pass_over_the_parts_equals_the_whole_tree() -> None:
    hand = Hand(cta.Rules(deck=32), 4)
    keys = Tree(hand, card_removal=False).infosets
    sigma = _random_sigma(keys, 3)
    whole = Engine(Tree(hand))
    order = np.array([keys.index(k) for k in whole.tree.infosets])
    direct = whole.evaluate(sigma[order], table=True)
    with PartsEngine(hand, keys, workers=2) as engine:
        got = engine.evaluate(sigma)
        assert engine.passes == 1 and engine.last is got
        assert float(engine.gains(sigma, got.cfv).sum()) == pytest.approx(
            float(whole.gains(sigma[order], direct.cfv).sum()), abs=1e-12)
    assert np.allclose(got.cfv[order], direct.cfv, atol=1e-12)
    assert np.allclose(got.cfp[order], direct.cfp, atol=1e-12)
    assert np.allclose(got.info_reach[order], whole.info_reach(direct), atol=1e-12)
    assert np.allclose(got.lives, direct.lives, atol=1e-12)
    assert np.allclose(got.losses, direct.losses, atol=1e-12)
    # the situations only the model without card removal has never arise in the true game
    others = np.setdiff1d(np.arange(len(keys)), order)
    assert not got.info_reach[others].any() and not got.cfv[others].any()
    assert len(parts_of(hand)) == hand.kinds ** 2


def test_measure_in_workers_equals_measure_in_one_piece() -> None:
    hand = Hand(cta.Rules(), 4)
    keys = Tree(hand, card_removal=False).infosets
    table = dict(zip(keys, _random_sigma(keys, 5)[:, 0].tolist()))
    one = measure(hand, table.__getitem__, split=False)
    side_by_side = measure(hand, table.__getitem__, split=True, workers=2)
    assert side_by_side.nash_conv == pytest.approx(one.nash_conv, abs=1e-12)
    assert side_by_side.loss_probabilities == pytest.approx(one.loss_probabilities, abs=1e-12)
    assert sorted(side_by_side.infosets) == sorted(one.infosets)
    # the chance of each situation too: the eldest's nodes are in 13 parts each, counted once
    in_parts = measure(hand, table.__getitem__, split=True)
    for got in (side_by_side, in_parts):
        reach = dict(zip(got.infosets, got.reach))
        values = dict(zip(got.infosets, got.values))
        for key, r, v in zip(one.infosets, one.reach, one.values):
            assert reach[key] == pytest.approx(r, abs=1e-12)
            assert values[key] == pytest.approx(v, abs=1e-9)


def test_cfr_over_the_parts_follows_cfr_on_the_whole_tree() -> None:
    hand = Hand(cta.Rules(), 4)
    keys = Tree(hand, card_removal=False).infosets
    whole = Engine(Tree(hand))
    order = [keys.index(k) for k in whole.tree.infosets]
    mine, record = run_cfr(whole, iterations=4, check_every=4, tolerance=0)
    with PartsEngine(hand, keys, workers=2) as engine:
        theirs, again = run_cfr(engine, iterations=4, check_every=4, tolerance=0)
    # the whole tree's iterations run in single precision, the parts' in double
    assert np.abs(mine - theirs[order]).max() < 1e-6
    assert again.nash_conv == pytest.approx(record.nash_conv, abs=1e-6)


def test_a_solution_from_the_parts_reports_its_exact_nash_conv() -> None:
    hand = Hand(cta.Rules(), 4)
    sol = _from_parts(hand, "dcfr", 5, 0.0, 5, 0.0, 2)
    assert sol.method == "dcfr" and sol.measured == "exact" and sol.iterations == 5
    check = measure(hand, sol.keep_probability, split=False)
    assert sol.nash_conv == pytest.approx(check.nash_conv, abs=1e-12)
    assert sol.gains == pytest.approx(check.gains, abs=1e-12)
    assert sol.loss_probabilities == pytest.approx(check.loss_probabilities, abs=1e-12)
    assert sorted(sol.infosets) == sorted(check.infosets)
    assert sol.nash_conv < 1e-3  # five iterations from the strategy without card removal
    assert sol.chances is not None and all(0 <= k <= 1 and 0 <= s <= 1 for k, s in sol.chances)


def test_the_limits_of_the_parts_are_clear_errors() -> None:
    assert MAX_PARTS_PLAYERS == 7
    with pytest.raises(ValueError, match="7 in parts"):
        cta.solve(cta.Rules(), 8, method="dcfr")
    with pytest.raises(ValueError, match="pairing or kings_jerk"):
        cta.solve(cta.Rules(pairing=True), 7, method="dcfr")
    with pytest.raises(ValueError, match="kings_jerk"):
        PartsEngine(Hand(cta.Rules(kings_jerk=True), 4), [])
    with pytest.raises(ValueError, match="workers"):
        PartsEngine(Hand(cta.Rules(), 4), [], workers=0)
