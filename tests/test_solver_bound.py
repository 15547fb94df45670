"""The sampled NashConv bound against the exact NashConv (an exact best response) at 3 to 5 players."""

from __future__ import annotations

from collections.abc import Callable

import pytest

pytest.importorskip("numpy")

import chasetheace as cta
from chasetheace.solver.methods.bound import bound_nash_conv
from chasetheace.solver.methods.measure import measure
from chasetheace.solver.model.hand import Hand, InfoKey


def _threshold(strength: int) -> Callable[[InfoKey], float]:
    def keep(key: InfoKey) -> float:
        return 1.0 if key[2] >= strength else 0.0
    return keep


@pytest.mark.parametrize(("players", "strength", "changes"), [
    (3, 4, {}), (3, 8, {}), (4, 6, {}), (5, 6, {}), (4, 6, {"ties": "eldest-loses"}),
    (3, 6, {"pairing": True}), (3, 6, {"kings_jerk": True}), (4, 5, {"ace_pays_double": True}),
])
def test_the_bound_lies_above_the_exact_nash_conv_and_the_estimate_below(
        players: int, strength: int, changes: dict[str, object]) -> None:
    hand = Hand(cta.Rules().replace(**changes), players)
    keep = _threshold(strength)
    exact = measure(hand, keep).nash_conv
    got = bound_nash_conv(hand, keep, 20_000, seed=players + strength)
    assert exact > 0.02  # a strategy far enough from an equilibrium for the comparison to tell
    # the bound reported is the proved one; the bootstrap figure is a tighter heuristic beside it
    assert exact <= got.heuristic_upper <= got.upper
    assert got.upper == pytest.approx(got.sampled_best + got.margin)
    # the cross-fitted estimate: its expectation is at most the exact value, and it is not far below
    assert got.estimate - 3 * got.estimate_error <= exact
    assert got.estimate >= 0.6 * exact
    assert sum(got.gains) == pytest.approx(got.sampled_best)


def test_the_bound_of_a_solved_strategy_is_small_and_covers_it() -> None:
    hand = Hand(cta.Rules(), 4)
    sol = cta.solve(cta.Rules(), 4)
    exact = measure(hand, sol.played_keep).nash_conv
    got = bound_nash_conv(hand, sol.played_keep, 20_000, seed=1)
    # the proved bound is wider than the bootstrap heuristic (0.026 against under 0.01 here)
    assert exact <= got.heuristic_upper < 0.01
    assert got.heuristic_upper <= got.upper < 0.03
    assert abs(got.estimate) < 4 * got.estimate_error + 1e-3


def test_more_hands_bring_the_bracket_together() -> None:
    hand = Hand(cta.Rules(), 4)
    keep = _threshold(6)
    few = bound_nash_conv(hand, keep, 4_000, seed=2)
    many = bound_nash_conv(hand, keep, 40_000, seed=2)
    assert many.upper - many.estimate < few.upper - few.estimate


def test_the_same_seed_gives_the_same_figures_and_bad_input_one_error() -> None:
    hand = Hand(cta.Rules(), 3)
    keep = _threshold(6)
    a, b = (bound_nash_conv(hand, keep, 1000, seed=5) for _ in range(2))  # the seconds differ
    assert (a.upper, a.estimate, a.gains) == (b.upper, b.estimate, b.gains)
    with pytest.raises(ValueError, match="confidence"):
        bound_nash_conv(hand, keep, 1000, confidence=1.0)
    with pytest.raises(ValueError, match="hands"):
        bound_nash_conv(hand, keep, 3)
