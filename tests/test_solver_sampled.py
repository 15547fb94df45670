"""The sampled method against the exact tree on three players; and its use for many players."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

import chasetheace as cta  # noqa: E402
from chasetheace.solver.cfr import Engine  # noqa: E402
from chasetheace.solver.hand import Hand  # noqa: E402
from chasetheace.solver.tree import Tree  # noqa: E402


def test_sampled_strategy_is_measured_honestly() -> None:
    sol = cta.solve(cta.Rules(), 3, method="sampled", iterations=40, seed=3)
    assert sol.nash_conv_error is not None and sol.loss_errors is not None
    engine = Engine(Tree(Hand(cta.Rules(), 3)))
    index = {key: i for i, key in enumerate(sol.infosets)}
    keep = np.array([sol.keep[index[k]] if k in index else 0.5 for k in engine.tree.infosets])
    sigma = np.c_[keep, 1 - keep]
    passes = engine.evaluate(sigma, table=True)
    exact = float(engine.gains(sigma, passes.cfv).sum())
    # the strategy is close to an equilibrium, and the estimate is near the exact NashConv
    assert exact < 0.02
    assert abs(sol.nash_conv - exact) < 0.01 + 5 * sol.nash_conv_error
    for p, q, err in zip(sol.loss_probabilities, passes.losses, sol.loss_errors):
        assert abs(p - q) < 5 * err + 1e-9


def test_many_players_solve_and_play() -> None:
    sol = cta.solve(cta.Rules.preset("chase-the-ace"), 9, method="sampled", iterations=3, seed=1)
    assert sol.players == 9 and len(sol.loss_probabilities) == 9
    assert 1 <= sum(sol.loss_probabilities) < 2
    game = cta.Game(sol.rules, players=9, seed=4)
    bot = sol.bot()
    rng = __import__("random").Random(4)
    while game.hand == 1 and game.to_act is not None:
        game.act(bot.choose(game.observation(game.to_act), game.legal_actions(), rng))
    assert game.hand > 1 or game.over


def test_sampled_is_deterministic_given_the_seed() -> None:
    a = cta.solve(cta.Rules(), 4, method="sampled", iterations=2, seed=9)
    b = cta.solve(cta.Rules(), 4, method="sampled", iterations=2, seed=9)
    assert a.keep == b.keep and a.loss_probabilities == b.loss_probabilities
