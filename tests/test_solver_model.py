"""The fast tree against brute force on small packs, and CFR against brute-force best responses."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numpy")
pytest.importorskip("scipy")

import numpy as np
import numpy.typing as npt

from chasetheace import Rules
from chasetheace.solver.methods.cfr import Engine, run_cfr
from chasetheace.solver.model import brute
from chasetheace.solver.model.hand import Deck, Hand, InfoKey
from chasetheace.solver.model.tree import Tree

SMALL = Deck((2, 2, 2, 2), (1, 5, 9, 13), 3)          # A 5 9 K, two of each; the king blocks
SMALL_NO_BLOCKER = Deck((2, 2, 2, 2), (1, 2, 9, 13), None)  # A 2 9 K, every swap goes through

VARIANTS = [
    {}, {"ties": "eldest-loses"}, {"ties": "latest-loses"}, {"king_stops_play": True},
    {"dealer_draws_blocker": "void"}, {"dealer_draws_blocker": "dealer-loses"},
    {"dealer_same_rank": "dealer-wins"}, {"dealer_same_rank": "dealer-immune"},
    {"announce_low": True, "blocker": "none"}, {"ace_pays_double": True}, {"blocker": "none"},
    {"kings_jerk": True}, {"kings_jerk": True, "blocker": "none"},
    {"kings_jerk": True, "king_stops_play": True, "dealer_draws_blocker": "void"},
    {"pairing": True}, {"pairing": True, "blocker": "none", "ties": "latest-loses"},
    {"pairing": True, "king_stops_play": True, "ace_pays_double": True},
    {"pairing": True, "dealer_same_rank": "dealer-immune"},
    {"pairing": True, "dealer_same_rank": "dealer-wins"},
    {"pairing": True, "dealer_draws_blocker": "dealer-loses"},
    {"pairing": True, "kings_jerk": True}, {"pairing": True, "kings_jerk": True, "blocker": "none"},
]


def _random_profile(tree: Tree, seed: int) -> npt.NDArray[np.float64]:
    rng = random.Random(seed)
    keep = np.array([rng.random() for _ in tree.infosets])
    profile: npt.NDArray[np.float64] = np.c_[keep, 1 - keep]  # each infoset's keep and swap
    return profile


@pytest.mark.parametrize("changes", VARIANTS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_tree_values_equal_brute_force(changes: dict[str, object], players: int) -> None:
    rules = Rules().replace(**changes)
    deck = SMALL_NO_BLOCKER if rules.blocker == "none" else SMALL
    hand = Hand(rules, players, deck)
    tree = Tree(hand)
    engine = Engine(tree)
    sigma = _random_profile(tree, players)
    index = {key: i for i, key in enumerate(tree.infosets)}
    passes = engine.evaluate(sigma, table=True)
    ev = brute.evaluate(hand, lambda key: float(sigma[index[key], 0]), exact=False)
    assert set(ev.cfv) == set(index)  # the same information sets arise
    for key, (keep, swap) in ev.cfv.items():
        assert passes.cfv[index[key]] == pytest.approx([keep, swap], abs=1e-12)
    assert list(passes.lives) == pytest.approx(ev.lives, abs=1e-12)
    assert list(passes.losses) == pytest.approx(ev.losses, abs=1e-12)


@pytest.mark.parametrize("changes", [{}, {"dealer_same_rank": "dealer-wins", "ace_pays_double": True}])
def test_cfr_reaches_tolerance_checked_by_brute_force_best_response(changes: dict[str, object]) -> None:
    hand = Hand(Rules().replace(**changes), 4, SMALL)
    engine = Engine(Tree(hand))
    sigma, progress = run_cfr(engine, iterations=3000, tolerance=1e-6, check_every=10)
    assert progress.nash_conv <= 1e-6
    index = {key: i for i, key in enumerate(engine.tree.infosets)}

    def strategy(key: InfoKey) -> float:
        return float(sigma[index[key], 0])

    ev = brute.evaluate(hand, strategy, exact=False)
    gains = ev.gain(strategy)
    assert sum(gains) == pytest.approx(progress.nash_conv, abs=1e-12)
    # every pure deviation at every information set, played out by brute force
    for key, (keep, swap) in ev.cfv.items():
        p = strategy(key)
        assert min(keep, swap) >= p * keep + (1 - p) * swap - 1e-6


def test_brute_force_deals_sum_to_one() -> None:
    hand = Hand(Rules(), 3, SMALL)
    assert sum(p for _, p in brute.deals(hand)) == 1


def test_threads_and_single_precision_agree_with_the_plain_pass() -> None:
    tree = Tree(Hand(Rules(), 4))  # big enough for several chunks per level
    sigma = _random_profile(tree, 7)
    plain = Engine(tree).evaluate(sigma, table=True)
    threaded = Engine(tree, workers=2).evaluate(sigma, table=True)
    assert np.array_equal(plain.cfv, threaded.cfv) and np.array_equal(plain.lives, threaded.lives)
    fast = Engine(tree).evaluate(sigma, precise=False)
    assert np.abs(fast.cfv - plain.cfv).max() < 1e-6


def test_pairing_showdown_groups_equal_ranks() -> None:
    hand = Hand(Rules(pairing=True, ties="eldest-loses"), 4, SMALL)  # ties does not apply
    assert hand.showdown([0, 0, 1, 2]) == [2]     # the pair of aces beats the single 5
    assert hand.showdown([0, 1, 1, 3]) == [0]     # among singles the weakest loses
    assert hand.showdown([0, 0, 3, 3]) == [0, 1]  # equal groups: the weaker rank loses, all of it
    assert hand.showdown([2, 2, 2, 0], immune=3) == [0, 1, 2]


def test_kings_jerk_patterns_sum_to_one() -> None:
    hand = Hand(Rules(kings_jerk=True), 4, SMALL)
    patterns = hand.jerk_patterns()
    assert sum(p for _, p in patterns) == 1
    assert all(sum(pattern) <= 2 for pattern, _ in patterns)  # the small pack has two kings


@pytest.mark.parametrize("changes", VARIANTS)
def test_numpy_and_compiled_passes_agree(changes: dict[str, object]) -> None:
    pytest.importorskip("numba")
    rules = Rules().replace(**changes)
    hand = Hand(rules, 4, SMALL_NO_BLOCKER if rules.blocker == "none" else SMALL)
    tree = Tree(hand)
    plain, compiled = Engine(tree, compiled=False), Engine(tree, compiled=True)
    assert not plain.compiled and compiled.compiled
    sigma = _random_profile(tree, 7)
    for precise, tol in ((True, 1e-12), (False, 1e-6)):
        a = plain.evaluate(sigma, table=True, precise=precise)
        b = compiled.evaluate(sigma, table=True, precise=precise)
        for x, y in ((a.cfv, b.cfv), (a.cfp, b.cfp), (a.lives, b.lives), (a.losses, b.losses)):
            assert np.abs(x - y).max() <= tol
        assert np.abs(a.reach - b.reach).max() <= 1e-15


def test_one_pass_under_several_beliefs_equals_a_pass_each() -> None:
    tree = Tree(Hand(Rules(), 4, SMALL))
    engine = Engine(tree)
    sigma, other = _random_profile(tree, 1), _random_profile(tree, 2)
    both = engine.evaluate_beliefs(sigma, [None, other], table=True)
    for passes, belief in zip(both, [sigma, other]):
        alone = engine.evaluate(sigma, table=True, reach_sigma=belief)
        assert np.array_equal(passes.reach, alone.reach)
        for x, y in ((passes.cfv, alone.cfv), (passes.cfp, alone.cfp), (passes.lives, alone.lives),
                     (passes.losses, alone.losses)):
            assert np.abs(x - y).max() <= 1e-15


def test_revising_in_one_pass_equals_a_pass_per_position() -> None:
    """Each position's best reply, from the dealer back, in one pass as in one pass per position."""
    tree = Tree(Hand(Rules(), 4, SMALL))
    engine = Engine(tree)
    start, belief = _random_profile(tree, 3), _random_profile(tree, 4)
    slow = start.copy()
    for position in range(3, -1, -1):
        cfv = engine.evaluate(slow, reach_sigma=belief).cfv
        mine = engine.owner == position
        keep = cfv[mine, 0] <= cfv[mine, 1]
        slow[mine] = np.c_[keep, ~keep]
    fast = start.copy()
    seen = []

    def revise(position: int, reach: npt.NDArray[np.float64], cfv: npt.NDArray[np.float64]) -> bool:
        seen.append(position)
        mine = engine.owner == position
        keep = cfv[mine, 0] <= cfv[mine, 1]
        fast[mine] = np.c_[keep, ~keep]
        return True

    engine.evaluate(fast, reach_sigma=belief, revise=revise)
    assert seen == [3, 2, 1, 0]
    assert np.array_equal(fast, slow)
    assert not np.array_equal(fast, start)


def test_compiled_passes_without_numba_are_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from chasetheace.solver.model import kernels

    monkeypatch.setenv("CHASETHEACE_NUMBA", "0")
    monkeypatch.setattr(kernels, "_LOOPS", [])
    monkeypatch.setattr(kernels, "MIN_NODES", 0)
    tree = Tree(Hand(Rules(), 3, SMALL))
    with pytest.raises(ValueError, match="numba"):
        Engine(tree, compiled=True)
    engine = Engine(tree)  # without numba the numpy passes are used
    assert not engine.compiled
    sigma = _random_profile(tree, 5)
    assert engine.evaluate(sigma).cfv.shape == (len(tree.infosets), 2)


def test_values_taken_in_blocks_equal_the_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    from chasetheace.solver.methods import cfr

    tree = Tree(Hand(Rules(), 4, SMALL))
    whole = Engine(tree)
    monkeypatch.setattr(cfr, "BLOCK", 5)
    blocks = Engine(tree)
    assert max(len(pre["blocks"]) for pre in blocks._pre) > 10
    sigma = _random_profile(tree, 6)
    a, b = whole.evaluate(sigma, table=True), blocks.evaluate(sigma, table=True)
    for x, y in ((a.cfv, b.cfv), (a.cfp, b.cfp), (a.lives, b.lives), (a.losses, b.losses)):
        assert np.abs(x - y).max() <= 1e-12


def test_the_numpy_passes_can_be_asked_for() -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "CHASETHEACE_NUMBA": "0", "PYTHONPATH": src}
    code = "from chasetheace.solver.model import kernels; print(kernels.available(), kernels.worth(10 ** 9))"
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["False", "False"]


def test_small_trees_use_the_numpy_passes_and_do_not_load_numba() -> None:
    pytest.importorskip("numba")
    from chasetheace.solver.model import kernels

    small, large = Tree(Hand(Rules(), 3)), Tree(Hand(Rules(), 4))
    assert small.total < kernels.MIN_NODES <= large.total
    assert not small.compiled and not Engine(small).compiled
    assert large.compiled and Engine(large).compiled
    assert Engine(small, compiled=True).compiled  # asked for


def test_a_large_tree_built_compiled_equals_the_numpy_one(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numba")
    from chasetheace.solver.model import kernels

    hand = Hand(Rules(), 4)
    compiled = Tree(hand)
    monkeypatch.setattr(kernels, "MIN_NODES", 10 ** 12)
    plain = Tree(hand)
    assert compiled.compiled and not plain.compiled
    assert np.abs(compiled._d_swap32 - plain._d_swap32).max() <= 1e-7
    sigma = _random_profile(plain, 8)
    a, b = Engine(compiled).evaluate(sigma, table=True), Engine(plain).evaluate(sigma, table=True)
    assert np.abs(a.cfv - b.cfv).max() <= 1e-12 and np.abs(a.lives - b.lives).max() <= 1e-12
