"""Many players: the hand without card removal, and exact measurement in the true game."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("scipy")

import chasetheace as cta  # noqa: E402
from chasetheace.solver.methods.cfr import Engine  # noqa: E402
from chasetheace.solver.methods.measure import measure  # noqa: E402
from chasetheace.solver.model.hand import Hand  # noqa: E402
from chasetheace.solver.model.tree import Tree  # noqa: E402


def test_parts_add_up_to_the_whole_tree() -> None:
    hand = Hand(cta.Rules(), 4)
    rng = np.random.default_rng(1)
    table: dict[object, float] = {}

    def keep(key: object) -> float:
        return table.setdefault(key, float(rng.random()))

    whole, parts = measure(hand, keep, split=False), measure(hand, keep, split=True)
    assert parts.nash_conv == pytest.approx(whole.nash_conv, abs=1e-12)
    assert parts.loss_probabilities == pytest.approx(whole.loss_probabilities, abs=1e-12)
    assert parts.gains == pytest.approx(whole.gains, abs=1e-12)
    assert sorted(parts.infosets) == sorted(whole.infosets)
    # and the measure agrees with the engine on the whole tree
    engine = Engine(Tree(hand))
    probs = np.array([keep(k) for k in engine.tree.infosets])
    sigma = np.c_[probs, 1 - probs]
    direct = float(engine.gains(sigma, engine.evaluate(sigma).cfv).sum())
    assert whole.nash_conv == pytest.approx(direct, abs=1e-12)


def test_tree_without_card_removal_deals_independently() -> None:
    hand = Hand(cta.Rules(deck=32), 3)
    tree = Tree(hand, card_removal=False)
    # the eldest's first card: each strength 1/8, whatever was dealt
    assert tree.reach0.sum() == pytest.approx(1.0)
    assert len(tree.infosets) >= len(Tree(hand).infosets)
    with pytest.raises(ValueError, match="pairing"):
        Tree(Hand(cta.Rules(pairing=True), 3), card_removal=False)


def test_iid_strategy_is_measured_exactly_in_the_true_game() -> None:
    sol = cta.solve(cta.Rules(), 4, method="iid", tolerance=1e-5)
    assert sol.measured == "exact" and sol.method == "iid"
    hand = Hand(cta.Rules(), 4)
    again = measure(hand, sol.keep_probability)
    assert sol.nash_conv == pytest.approx(again.nash_conv, abs=1e-12)
    # dropping card removal costs little: well within the exact solver's tolerance
    assert sol.nash_conv < 1e-4
    exact = cta.solve(cta.Rules(), 4)
    assert sol.loss_probabilities == pytest.approx(exact.loss_probabilities, abs=2e-3)


def test_iid_without_the_check_says_so() -> None:
    sol = cta.solve(cta.Rules(), 4, method="iid", exact_check=False)
    assert sol.measured == "abstract"
    from chasetheace.solver.uses.explain import nash_conv_text

    assert "not measured in the true game" in nash_conv_text(sol) and "model-only" in nash_conv_text(sol)
    assert "perfect play" not in nash_conv_text(sol)  # a model's figure is no claim about the true game
    assert sol.nash_conv_kind == "model-only"
    back = cta.Solution.from_dict(sol.to_dict())
    assert back.measured == "abstract"


def test_iid_refuses_what_it_does_not_model() -> None:
    with pytest.raises(ValueError, match="kings_jerk"):
        cta.solve(cta.Rules(kings_jerk=True), 4, method="iid")
    with pytest.raises(ValueError, match="up to 9"):
        cta.solve(cta.Rules(), 10, method="iid", exact_check=True)


def test_warm_start_from_the_model_without_card_removal() -> None:
    from chasetheace.solver.methods.cfr import run_cfr

    hand = Hand(cta.Rules(), 4)
    model = Tree(hand, card_removal=False)
    sigma, _ = run_cfr(Engine(model), tolerance=1e-5)
    engine = Engine(Tree(hand))
    index = {k: i for i, k in enumerate(model.infosets)}
    warm = np.array([sigma[index[k]] for k in engine.tree.infosets])
    out, progress = run_cfr(engine, tolerance=1e-4, check_every=5, warm=warm)  # the first iterate
    assert progress.iterations == 5  # the first check already meets the tolerance
    assert float(engine.gains(out, engine.evaluate(out).cfv).sum()) <= 1e-4
