"""The sampled NashConv bound against the exact NashConv (an exact best response) at 3 to 6 players."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("numpy")

import chasetheace as cta
from chasetheace.solver.methods.bound import (
    SURE_LEAST,
    bound_nash_conv,
    bracket,
    pools,
    sample_differences,
    sure_signs,
)
from chasetheace.solver.methods.measure import measure
from chasetheace.solver.model.hand import Hand, InfoKey


def _threshold(strength: int, high: float = 1.0, low: float = 0.0) -> Callable[[InfoKey], float]:
    def keep(key: InfoKey) -> float:
        return high if key[2] >= strength else low
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
    # the proved bound is wider than the bootstrap heuristic (0.02 against under 0.01 here)
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


@pytest.mark.parametrize("players", [3, 4])
def test_the_bound_covers_the_exact_nash_conv_for_every_seed_pure_or_mixed(players: int) -> None:
    """Several seeds and strategies, mixed ones too (where both deviations of a situation save
    something): the bound above the exact figure every time, the estimate below it on average."""
    hand = Hand(cta.Rules(), players)
    sol = cta.solve(cta.Rules(), players)
    strategies = (_threshold(5), _threshold(9), _threshold(5, 0.8, 0.3), _threshold(8, 0.6, 0.1),
                  sol.played_keep)
    for keep in strategies:
        exact = measure(hand, keep).nash_conv
        estimates = []
        for seed in range(4):
            got = bound_nash_conv(hand, keep, 5_000, seed=seed, resamples=10)
            assert exact <= got.upper, (seed, exact, got)
            estimates.append(got.estimate - exact)
        assert sum(estimates) / len(estimates) <= 0.01


def test_a_sign_is_called_sure_only_where_the_mean_is_far_from_0() -> None:
    """Information sets with mean 0 and with mean 0.3 (samples in {-1, 0, 1}): no sign of the first
    is called, nearly all of the second, and never one met fewer than SURE_LEAST times."""
    import numpy as np

    rng = np.random.default_rng(3)
    count, total, squares = [], [], []
    for mean in [0.0] * 200 + [0.3] * 200:
        k = int(rng.integers(SURE_LEAST // 2, 8000))
        x = rng.choice([-1.0, 0.0, 1.0], k, p=[(0.5 - mean) / 2, 0.5, (0.5 + mean) / 2])
        count.append(k)
        total.append(x.sum())
        squares.append((x * x).sum())
    up, down = sure_signs(np.array(count), np.array(total), np.array(squares), 1.0, 0.025, 10**6)
    assert not up[:200].any() and not down.any()
    assert up[200:].sum() >= 160
    assert not (up & (np.array(count) < SURE_LEAST)).any()


def test_the_figures_come_from_the_samples_alone_and_bad_folds_are_one_error() -> None:
    hand = Hand(cta.Rules(), 3)
    keep = _threshold(6)
    got = sample_differences(hand, keep, 2000, seed=4)
    assert got.hands == 2000 and len(got.d) == len(got.ids) == len(got.hand) and got.spread == 1.0
    a, b = bracket(got, seed=4, resamples=10), bound_nash_conv(hand, keep, 2000, seed=4, resamples=10)
    assert (a.upper, a.estimate, a.heuristic_upper, a.gains) == (b.upper, b.estimate, b.heuristic_upper,
                                                                  b.gains)
    assert bracket(got, folds=2, seed=4, resamples=10).upper == a.upper  # the folds are the estimate's
    with pytest.raises(ValueError, match="folds"):
        bracket(got, folds=1)
    with pytest.raises(ValueError, match="sign_share"):
        bracket(got, sign_share=1.0)


def test_reading_the_samples_a_slice_at_a_time_changes_no_figure() -> None:
    hand = Hand(cta.Rules(), 4)
    got = sample_differences(hand, _threshold(6), 3000, seed=6)
    whole, sliced = bracket(got, seed=6, resamples=5), bracket(got, seed=6, resamples=5, chunk=777)
    assert sliced.upper == pytest.approx(whole.upper, rel=1e-12)
    assert sliced.estimate == pytest.approx(whole.estimate, rel=1e-12, abs=1e-15)
    assert sliced.heuristic_upper == pytest.approx(whole.heuristic_upper, rel=1e-12)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), strength=st.integers(3, 10), mixed=st.booleans())
def test_for_any_seed_the_bound_covers_the_exact_figure_and_the_tight_margin_is_the_smaller(
        seed: int, strength: int, mixed: bool) -> None:
    """3 players, threshold strategies pure or mixed: the proved bound (the tight margin and the
    pooled estimate, and the earlier ones) above the exact NashConv for every seed tried (fixed:
    derandomized), the tight margin never above the earlier one at the same split of alpha, the
    same seed the same figures."""
    hand = Hand(cta.Rules(), 3)
    keep = _threshold(strength, 0.8, 0.2) if mixed else _threshold(strength)
    exact = measure(hand, keep).nash_conv
    got = sample_differences(hand, keep, 3000, seed=seed)
    new = bracket(got, seed=seed, resamples=5)
    old = bracket(got, seed=seed, resamples=5, pool=False, tight=False, select=1.0, sign_share=0.5)
    assert exact <= new.upper and exact <= old.upper
    assert bracket(got, seed=seed, resamples=5, sign_share=0.5).margin <= old.margin + 1e-12
    # the truncated second moment never widens the margin, and the bound still covers
    untruncated = bracket(got, seed=seed, resamples=5, truncate=False)
    assert new.margin <= untruncated.margin + 1e-15 and exact <= new.upper
    assert new.sampled_best == old.sampled_best
    again = bound_nash_conv(hand, keep, 3000, seed=seed, resamples=5)
    assert (again.upper, again.estimate, again.gains) == (new.upper, new.estimate, new.gains)


def test_at_6_players_the_bound_covers_the_exact_figure_of_the_shipped_strategy() -> None:
    """The ``iid`` strategy shipped for 6 players, near an equilibrium (exact NashConv about 5e-4):
    the bound above it, the estimate not above it by more than 3 standard errors."""
    from chasetheace.solver.solutions import cache
    from chasetheace.solver.solutions.solution import Solution

    rules = cta.Rules()
    sol = Solution.load(str(cache.prepared_path(rules, 6)))
    sol.rules = rules
    hand = Hand(rules, 6)
    exact = measure(hand, sol.played_keep).nash_conv
    got = bound_nash_conv(hand, sol.played_keep, 20_000, seed=0, resamples=10)
    assert exact <= got.upper < 0.1
    assert got.estimate - 3 * got.estimate_error <= exact


def test_the_classes_pool_histories_with_the_same_counts_of_tokens() -> None:
    """Three levels: the counts with keeps and swaps after a swap told apart, the counts alone, any
    history; the position, card and card given always kept apart."""
    k, s = 1, 2  # the token codes of keep and swap (3 bits each, the latest last)

    def code(*tokens: int) -> int:
        out = 0
        for token in tokens:
            out = out * 8 + token
        return out

    keys = [(3, code(s, k, k), 0, 5, -1), (3, code(k, s, k), 0, 5, -1), (3, code(k, k, s), 0, 5, -1),
            (3, code(k, k, k), 0, 5, -1), (3, code(s, k, k), 0, 6, -1), (2, code(s, k), 0, 5, -1)]
    pairs, counts, anyhow = pools(keys)
    assert pairs[1] == pairs[0] != pairs[2]  # 'k' after 's' in the first two; in the third none
    assert counts[0] == counts[1] == counts[2] != counts[3]
    assert anyhow[0] == anyhow[3] and len({anyhow[0], anyhow[4], anyhow[5]}) == 3


def test_a_summary_solution_read_from_its_arrays_plays_as_asked_one_situation_at_a_time() -> None:
    """The shipped 10-player table (the summary learner): its ``played_keep`` read many situations at
    once from arrays gives the very samples (decisions, differences, numbers, keep probabilities) of
    the same function asked per situation; and the numbers spell the situations met."""
    import numpy as np

    from chasetheace.solver.methods.bound import _SummaryKeep, situations
    from chasetheace.solver.solutions import cache
    from chasetheace.solver.solutions.solution import Solution

    rules = cta.Rules()
    sol = Solution.load(str(cache.prepared_path(rules, 10)))
    sol.rules = rules
    hand = Hand(rules, 10)
    assert sol.method == "summary" and _SummaryKeep.of(hand, sol.played_keep) is not None
    fast = sample_differences(hand, sol.played_keep, 600, seed=7)
    slow = sample_differences(hand, lambda key: sol.played_keep(key), 600, seed=7)
    for name in ("hand", "ids", "d", "q", "position", "history", "rest"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name
    keys = situations(hand, fast)
    assert len(keys) == len(fast.q) == len(set(keys))
    assert [sol.played_keep(key) for key in keys[::97]] == fast.q[::97].tolist()


def test_with_kings_jerk_too_the_arrays_play_as_the_solution_asked_per_situation() -> None:
    import numpy as np

    from chasetheace.solver.methods.bound import _SummaryKeep
    from chasetheace.solver.solutions.solving import solve

    rules = cta.Rules().replace(kings_jerk=True)
    sol = solve(rules, 6, method="summary", iterations=3, seed=0, exact_check=False, refine=0)
    hand = Hand(rules, 6)
    assert _SummaryKeep.of(hand, sol.played_keep) is not None
    fast = sample_differences(hand, sol.played_keep, 500, seed=1)
    slow = sample_differences(hand, lambda key: sol.played_keep(key), 500, seed=1)
    assert all(np.array_equal(getattr(fast, name), getattr(slow, name)) for name in ("ids", "d", "q"))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(k=st.integers(1, 3), sign=st.sampled_from([-1.0, 1.0]), spread=st.sampled_from([1.0, 2.0]),
       select=st.floats(2.0, 4.0))
def test_a_few_equal_samples_never_make_a_sure_sign_for_the_estimate(
        k: int, sign: float, spread: float, select: float) -> None:
    """Up to 3 samples all at +spread (or all at -spread) have no spread of their own: the lower
    estimate's sign test widens their variance by two samples at +-spread and calls no sign (the rule
    before called one from two such samples); many of them do make one."""
    import numpy as np

    from chasetheace.solver.methods.bound import _sure_sign

    def test(n: int, pseudo: int) -> float:
        one = np.array([float(n)])
        return float(_sure_sign(one, one * sign * spread, one * spread ** 2, select, spread, pseudo)[0])

    assert test(k, 2) == 0.0
    assert test(40, 2) == sign
    if k >= 2 and spread == 1.0:
        assert test(k, 0) == sign  # the rule before: a sure sign from two samples


def test_the_estimate_pools_what_deviating_saves_not_the_raw_difference() -> None:
    """Two situations in one class, the strategy right in both: in the first it swaps, and swapping
    saves a life each time (150 samples); in the second it keeps, and keeping saves two times of three
    (too few to tell alone). Pooled raw differences say "swap" for the class, and swapping in the
    second situation (where its other samples do not point the other way) costs; pooled savings of
    deviating (``orient=True``) say "do not deviate": the estimate is 0."""
    import numpy as np

    from chasetheace.solver.methods.bound import Samples

    hands = 200
    hand = np.array([*range(150), 150, 151, 152], dtype=np.int32)
    ids = np.array([0] * 150 + [1] * 3, dtype=np.int32)
    d = np.array([1.0] * 150 + [-1.0, 1.0, -1.0], dtype=np.float32)  # keep minus swap: + where swapping saves
    got = Samples(players=3, hands=hands, hand=hand, ids=ids, d=d, q=np.array([0.0, 1.0]),
                  position=np.array([0, 0]), spread=1.0, seconds=0.0,
                  classes=(np.array([0, 0], dtype=np.int32),))
    oriented = bracket(got, resamples=2, orient=True)
    raw = bracket(got, resamples=2)
    assert oriented.estimate == 0.0
    assert raw.estimate == pytest.approx(-2 / hands)
    assert oriented.upper == raw.upper  # the proved bound reads no fold


def test_the_truncated_second_moment_narrows_the_margin_where_deviating_rarely_pays() -> None:
    """A strategy near an equilibrium (the one solved at 4 players), and one far from it: the
    margin from the truncated bound on E[Z_pi*^2] (what a situation's deviation saves is mostly of
    the sign that keeps the strategy, so few samples say "deviate") is below the plain E[m^2] one
    near the equilibrium, never above it, and the bound covers the exact NashConv in both."""
    hand = Hand(cta.Rules(), 4)
    sol = cta.solve(cta.Rules(), 4)
    for keep, narrower in ((sol.played_keep, True), (_threshold(5, 0.8, 0.3), False)):
        exact = measure(hand, keep).nash_conv
        got = sample_differences(hand, keep, 6000, seed=8)
        now, before = bracket(got, seed=8, resamples=2), bracket(got, seed=8, resamples=2, truncate=False)
        assert exact <= now.upper and now.sampled_best == before.sampled_best
        assert now.margin <= before.margin
        if narrower:
            assert now.margin < 0.9 * before.margin
