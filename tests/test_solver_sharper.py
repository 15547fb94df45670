"""The sharper exact evaluation (the last three positions in closed form, ``closed_three``): every
figure equals today's evaluation (``closed_dealer``) and the whole tree's, to 1e-12."""

from __future__ import annotations

import itertools

import pytest

pytest.importorskip("numpy")
pytest.importorskip("scipy")

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chasetheace as cta
from chasetheace.solver.methods.cfr import Engine
from chasetheace.solver.methods.parts import EVALUATIONS, PartResult, closed_ok, evaluate_part, parts_of
from chasetheace.solver.model.hand import Hand, InfoKey
from chasetheace.solver.model.tree import Tree
from test_properties import RULES

pytestmark = pytest.mark.slow  # the exact tree in parts: pytest -m "not slow" leaves it out

TOL = 1e-12


def _table(keys: list[InfoKey], seed: int) -> dict[InfoKey, float]:
    rng = np.random.default_rng(seed)
    return {key: float(rng.random()) for key in keys}


def _same_parts(a: PartResult | None, b: PartResult | None) -> None:
    """Two evaluations of one part: the same information sets and every figure to 1e-12."""
    assert (a is None) == (b is None)
    if a is None or b is None:
        return
    assert sorted(a.keys) == sorted(b.keys)
    at = {key: i for i, key in enumerate(a.keys)}
    order = np.array([at[key] for key in b.keys], dtype=np.int64)
    for name in ("cfv", "cfp", "reach"):
        assert np.abs(getattr(a, name)[order] - getattr(b, name)).max() <= TOL, name
    assert np.abs(a.lives - b.lives).max() <= TOL
    assert np.abs(a.losses - b.losses).max() <= TOL
    assert b.nodes < a.nodes or a.nodes <= 6  # (tiny parts of 3 players: a node or two either way)


def _three_ways(rules: cta.Rules, players: int, pair: tuple[int, int] | None, seed: int) -> None:
    """The whole tree, the closed dealer and the closed three positions: the same figures."""
    hand = Hand(rules, players)
    engines = [Engine(Tree(hand, pair=pair)), Engine(Tree(hand, pair=pair, closed_dealer=True)),
               Engine(Tree(hand, pair=pair, closed_three=True)),
               Engine(Tree(hand, pair=pair, closed_three=True))]
    engines[3].tail_loop = False  # the children generated with numpy, in chunks
    keys = engines[0].tree.infosets
    table = _table(keys, seed)
    results = []
    for engine in engines:
        assert sorted(engine.tree.infosets) == sorted(keys)
        p = np.array([table[key] for key in engine.tree.infosets])
        passes = engine.evaluate(np.c_[p, 1 - p], table=True)
        index = {key: i for i, key in enumerate(engine.tree.infosets)}
        order = np.array([index[key] for key in keys], dtype=np.int64)
        results.append((passes.cfv[order], passes.cfp[order], engine.info_reach(passes)[order], passes.lives,
                        passes.losses))
    for other in results[1:]:
        for x, y in zip(results[0], other):
            assert np.abs(x - y).max() <= TOL
    if pair is None:
        assert sum(results[2][4]) >= 1 - TOL  # somebody loses every hand
    assert engines[2].tree.node_count < engines[1].tree.node_count or engines[1].tree.node_count <= 6
    assert engines[2].tree.node_count == engines[3].tree.node_count


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(RULES.filter(lambda r: not (r.pairing or r.kings_jerk)), st.sampled_from([3, 3, 4]),
       st.integers(0, 2**32 - 1))
def test_the_closed_three_equal_the_whole_tree_under_any_rules(rules: cta.Rules, players: int,
                                                               seed: int) -> None:
    kinds = Hand(rules, players).rank_count
    rng = np.random.default_rng(seed)
    pair = None
    if rng.random() < 0.6:
        a, b = sorted(int(v) for v in rng.integers(0, kinds, size=2))
        pair = (a, b)
    _three_ways(rules, players, pair, seed)


def test_the_closed_three_on_larger_trees() -> None:
    _three_ways(cta.Rules(), 4, None, 1)
    _three_ways(cta.Rules.preset("cuckoo"), 4, (0, 12), 2)
    _three_ways(cta.Rules(deck=32), 5, (3, 3), 3)


@pytest.mark.skipif(not closed_ok(Hand(cta.Rules(), 5)), reason="the parts' closed forms need numba")
@pytest.mark.parametrize(("preset", "players", "pairs"), [
    ("standard", 3, None), ("standard", 4, None), ("cuckoo", 5, [(2, 9, 11), (0, 0, 0)]),
    ("chase-the-ace", 6, [(5, 7, 7)]), ("standard", 7, [(5, 7, 8), (0, 1, 12)]),
])
def test_evaluate_part_gives_the_same_figures_either_way(preset: str, players: int,
                                                          pairs: list[tuple[int, ...]] | None) -> None:
    rules = cta.Rules() if preset == "standard" else cta.Rules.preset(preset)
    hand = Hand(rules, players)
    keys = Tree(hand, card_removal=False).infosets  # every situation of the true game is among them
    table = _table(keys, players)
    some: list[tuple[int, ...] | None] = [None, *parts_of(hand)[:6]]
    for pair in (pairs or some):
        old = evaluate_part(hand, pair, table.__getitem__, evaluation="closed_dealer")
        new = evaluate_part(hand, pair, table.__getitem__, evaluation="closed_three")
        _same_parts(old, new)


def test_the_children_in_small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    # the numpy path generates the children CHUNK at a time: many chunks, the same figures
    from chasetheace.solver.model import tail

    assert tail.chunks(np.ones((10, 3), dtype=np.int8)) == [(0, 10)]
    monkeypatch.setattr(tail, "CHUNK", 7)
    got = tail.chunks(np.ones((10, 3), dtype=np.int8))  # 3 children a group: 7 children, 3 groups
    assert got[0][0] == 0 and got[-1][1] == 10 and len(got) >= 3
    assert all(a < b == c for (a, b), (c, _) in itertools.pairwise(got))
    _three_ways(cta.Rules(), 4, None, 7)
    _three_ways(cta.Rules.preset("chase-the-ace"), 4, (4, 9), 8)


def test_every_part_of_a_small_pack_either_way() -> None:
    # the 32-card pack at 4 players: parts where nobody decides at position n - 3 (no swap group)
    hand = Hand(cta.Rules(deck=32), 4)
    table = _table(Tree(hand, card_removal=False).infosets, 4)
    for pair in parts_of(hand):
        _same_parts(evaluate_part(hand, pair, table.__getitem__, evaluation="closed_dealer"),
                    evaluate_part(hand, pair, table.__getitem__, evaluation="closed_three"))


def test_the_closed_three_refuses_what_it_does_not_model() -> None:
    assert EVALUATIONS == ("closed_dealer", "closed_three")
    for rules, players in ((cta.Rules(pairing=True), 4), (cta.Rules(kings_jerk=True), 4), (cta.Rules(), 2)):
        with pytest.raises(ValueError, match="closed_dealer"):
            Tree(Hand(rules, players), closed_three=True)
    with pytest.raises(ValueError, match="closed_three takes no dealt"):
        Tree(Hand(cta.Rules(), 4), dealt=(1,), closed_three=True)
    with pytest.raises(ValueError, match="unknown evaluation 'fast'"):
        evaluate_part(Hand(cta.Rules(), 3), None, lambda key: 0.5, evaluation="fast")
    engine = Engine(Tree(Hand(cta.Rules(), 4), closed_three=True))
    half = np.full((engine.n_info, 2), 0.5)
    with pytest.raises(ValueError, match="one belief"):
        engine.evaluate_beliefs(half, [None, None])
