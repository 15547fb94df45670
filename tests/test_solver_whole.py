"""The whole game with lives: one hand per lives state, solved by backward induction.

Checked against the one-hand solver (one life each, where winning the game is not losing the hand)
and against a brute-force backward induction over lives states written here independently: every
deal and path of play of :mod:`chasetheace.solver.model.brute`, the next states worked out by hand for two
players, exact values of the strategy and exact best responses.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")
pytest.importorskip("scipy")

import chasetheace as cta  # noqa: E402
from chasetheace.solver.methods.whole_game import GameSolution, HandPaths, next_state, solve_game  # noqa: E402
from chasetheace.solver.model import brute  # noqa: E402
from chasetheace.solver.model.hand import Hand, InfoKey  # noqa: E402


def test_one_life_two_players_is_the_one_hand_solution() -> None:
    # with no winner on a tie, winning the game is exactly not losing the hand
    rules = cta.Rules(final_tie="no-winner")
    game = solve_game(rules, 2, lives=1, tolerance=1e-6, iterations=3000)
    hand = cta.solve(rules, 2, tolerance=1e-6)
    assert game.start.nash_conv < 1e-5
    assert game.start.value == pytest.approx([1 - p for p in hand.loss_probabilities], abs=2e-5)
    # and the one-hand equilibrium is an equilibrium of the one-life game
    paths = game.paths[2]
    keep = np.array([hand.keep_probability(key) for key in paths.infosets])
    from chasetheace.solver.methods.whole_game import _nash_conv, _payoffs

    payoff = _payoffs(rules, (1, 1), paths, {}, {})
    cfv, value = paths.cfv(keep, paths.utilities(payoff))
    assert _nash_conv(keep, cfv) < 1e-5
    assert value.tolist() == pytest.approx([1 - p for p in hand.loss_probabilities], abs=1e-9)


def test_le_her_one_life_has_the_exact_value() -> None:
    game = solve_game(cta.Rules.preset("le-her"), 2, lives=1, tolerance=1e-7, iterations=5000)
    assert game.start.value[0] == pytest.approx(1 - 10773 / 22100, abs=1e-5)
    assert sum(game.start.value) == pytest.approx(1.0, abs=1e-12)


def _brute_state(rules: cta.Rules, state: tuple[int, int], sol: GameSolution,
                 values: dict[tuple[int, int], list[Fraction]]) -> tuple[list[Fraction], list[Fraction]]:
    """Exact values of the solved strategy in ``state`` and each position's best-response gain, from
    every deal and path of play; two players, the next state written out by hand."""
    hand = Hand(rules, 2)

    def keep(key: InfoKey) -> Fraction:
        return Fraction(sol.keep_probability(state, key))

    def payoff(lost: list[int]) -> list[Fraction]:
        a, b = state[0] - min(lost[0], state[0]), state[1] - min(lost[1], state[1])
        if a == 0 and b == 0:
            return [Fraction(1, 2), Fraction(1, 2)]  # final_tie = split
        if a == 0 or b == 0:
            return [Fraction(int(a > 0)), Fraction(int(b > 0))]
        # the deal passes to the eldest: the old dealer is the new eldest
        after = values[(b, a)]
        return [after[1], after[0]]

    value = [Fraction(0), Fraction(0)]
    cfv: dict[InfoKey, list[Fraction]] = {}

    def leaf(path: tuple[tuple[InfoKey, int], ...], chance: brute.Number, lives: list[brute.Number]) -> None:
        u = payoff([int(x) for x in lives])
        sig = [Fraction(1)] * len(path)
        for i, (key, action) in enumerate(path):
            p = keep(key)
            sig[i] = p if action == 0 else 1 - p
        reach = Fraction(chance)
        for s in sig:
            reach *= s
        for pos in range(2):
            value[pos] += reach * u[pos]
        for i, (key, action) in enumerate(path):
            others = Fraction(chance)
            for j, s in enumerate(sig):
                if j != i:
                    others *= s
            cfv.setdefault(key, [Fraction(0), Fraction(0)])[action] += others * u[key[0]]

    brute.evaluate(hand, lambda key: keep(key), exact=True, leaf=leaf)
    gains = [Fraction(0), Fraction(0)]
    for key, (k, s) in cfv.items():
        p = keep(key)
        gains[key[0]] += max(k, s) - (p * k + (1 - p) * s)
    return value, gains


def test_two_lives_agree_with_brute_force_backward_induction() -> None:
    rules = cta.Rules(final_tie="split", deck=32)  # piquet pack: a quicker brute force
    sol = solve_game(rules, 2, lives=2, tolerance=1e-6, iterations=3000)
    values: dict[tuple[int, int], list[Fraction]] = {}
    for state in [(1, 1), (1, 2), (2, 1), (2, 2)]:
        value, gains = _brute_state(rules, state, sol, values)
        values[state] = value
        assert [float(v) for v in value] == pytest.approx(sol.states[state].value, abs=1e-9)
        assert float(sum(gains)) == pytest.approx(sol.states[state].nash_conv, abs=1e-9)
        assert sum(gains) < Fraction(1, 10 ** 5)
    # the whole game's NashConv: a player best responding in every state, the later states' values
    # being its best responses' too (brute force again, from the last hands back)
    best: dict[tuple[int, int], list[Fraction]] = {}
    for state in [(1, 1), (1, 2), (2, 1), (2, 2)]:
        value, gains = _brute_state(rules, state, sol, best)
        best[state] = [v + g for v, g in zip(value, gains)]
    whole = float(sum(best[(2, 2)]) - sum(values[(2, 2)]))
    assert sol.nash_conv == pytest.approx(whole, abs=1e-9)
    assert sol.nash_conv >= sol.start.nash_conv - 1e-12  # deviating in the first hand alone is one way
    assert sol.hand_nash_conv == max(s.nash_conv for s in sol.states.values())
    again = GameSolution.from_dict(sol.to_dict())
    assert again.nash_conv == sol.nash_conv and again.hand_nash_conv == sol.hand_nash_conv


def test_next_state_passes_the_deal_and_knocks_out() -> None:
    rules = cta.Rules()
    # the eldest loses its last life: the 2nd deals next, the old dealer becomes eldest
    assert next_state(rules, (1, 2, 3), [1, 0, 0]) == ((3, 2), None, [-1, 1, 0])
    assert next_state(rules, (2, 2, 3), [1, 0, 0]) == ((2, 3, 1), None, [2, 0, 1])
    assert next_state(rules, (1, 2), [0, 2]) == (None, [1.0, 0.0], [])
    assert next_state(rules, (1, 1), [1, 1]) == ((1, 1), None, [1, 0])  # replay
    assert next_state(rules.replace(final_tie="split"), (1, 1, 1), [1, 1, 1]) == (None, [1 / 3] * 3, [])
    assert next_state(rules.replace(final_tie="no-winner"), (1, 1), [1, 1]) == (None, [0.0, 0.0], [])


def test_replay_values_are_a_fixed_point() -> None:
    from chasetheace.solver.methods.whole_game import _payoffs

    rules = cta.Rules(deck=32)  # ties all-lose, final_tie replay: a tie at one life each is replayed
    sol = solve_game(rules, 2, lives=1, tolerance=1e-7, iterations=5000)
    state = sol.states[(1, 1)]
    assert sum(state.value) == pytest.approx(1.0, abs=1e-9)  # somebody always wins in the end
    paths = sol.paths[2]
    assert [1, 1] in paths.outcomes.tolist()
    payoff = _payoffs(rules, (1, 1), paths, {}, {(1, 1): state.value})
    _, value = paths.cfv(state.keep, paths.utilities(payoff))
    assert value.tolist() == pytest.approx(state.value, abs=1e-6)


def test_paths_chances_add_up() -> None:
    paths = HandPaths(Hand(cta.Rules(), 3))
    keep = np.full(len(paths.infosets), 0.5)
    payoff = np.ones((len(paths.outcomes), 3))
    _, value = paths.cfv(keep, paths.utilities(payoff))
    assert value.tolist() == pytest.approx([1.0, 1.0, 1.0], abs=1e-10)


@pytest.mark.parametrize("kwargs, message", [
    ({"players": 6}, "2..5"), ({"players": 1}, "2..5"), ({"lives": 5}, "1..4 lives"), ({"lives": 0}, "lives"),
    ({"players": 5, "lives": 4}, "1..3 lives at 5 players"),
    ({"rules": cta.Rules(pairing=True), "players": 5}, "2..4 under pairing"),
    ({"rules": cta.Rules(last_chance=True)}, "last_chance")])
def test_bad_input_is_one_clear_error(kwargs: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {"rules": cta.Rules(), "players": 2, "lives": 1, **kwargs}
    with pytest.raises(ValueError, match=message):
        solve_game(**args)


def test_situation_reach_matches_the_one_hand_tree() -> None:
    from chasetheace.solver.methods.whole_game import situation_reach

    rules = cta.Rules(final_tie="no-winner")
    hand = cta.solve(rules, 2)
    paths = HandPaths(Hand(rules, 2))
    keep = np.array([hand.keep_probability(key) for key in paths.infosets])
    reach = situation_reach(paths, keep)
    for key, r in zip(paths.infosets, reach.tolist()):
        assert r == pytest.approx(hand.reach[hand.infosets.index(key)], abs=1e-12)


def test_game_bot_plays_whole_games() -> None:
    import random

    from chasetheace.solver.methods.whole_game import GameBot, differences

    rules = cta.Rules(deck=32, lives=2)
    sol = solve_game(rules, 2)
    bots = [GameBot(sol), GameBot(sol)]
    for seed in range(5):
        game = cta.Game(rules, players=2, seed=seed)
        cta.play_game(game, bots, rng=random.Random(seed))
        assert game.over
    found = differences(sol, {2: cta.solve(rules, 2)}, threshold=0.0)
    assert all(d.state in sol.states and 0 < d.reach <= 1 for d in found)


def test_hero_win_is_exact_and_symmetric_when_everybody_plays_alike() -> None:
    from chasetheace.solver.methods.whole_game import hero_win

    rules = cta.Rules(deck=32, final_tie="split")
    sol = solve_game(rules, 3, lives=1)
    hands = {m: cta.solve(rules, m) for m in (2, 3)}
    base = hero_win(sol, hands, hero_plays_game=False)
    assert base == pytest.approx(1 / 3, abs=1e-9)  # a random first dealer: everybody alike
    assert 0 < hero_win(sol, hands) < 1


# --- the merged hand (OutcomeTree) against the list of every path of play (HandPaths) ---------------

def _same_as_paths(rules: cta.Rules, players: int, seed: int) -> None:
    """A random strategy and random payoffs per outcome: both models give the same counterfactual
    values, the same payoffs and the same chances of each situation."""
    from chasetheace.solver.model.outcome_tree import OutcomeTree

    hand = Hand(rules, players)
    paths, tree = HandPaths(hand), OutcomeTree(hand)
    assert set(tree.infosets) == set(paths.infosets)
    assert {tuple(o) for o in tree.outcomes.tolist()} == {tuple(o) for o in paths.outcomes.tolist()}
    rng = np.random.default_rng(seed)
    keep = rng.random(len(tree.infosets))
    pure = rng.random(len(keep)) < 0.3  # some pure choices too
    keep[pure] = rng.integers(0, 2, int(pure.sum()))
    payoff = rng.random((len(paths.outcomes), players))
    by_outcome = {tuple(o): payoff[i] for i, o in enumerate(paths.outcomes.tolist())}
    tree_payoff = np.array([by_outcome[tuple(o)] for o in tree.outcomes.tolist()])
    order = np.array([tree.index[key] for key in paths.infosets])
    cfv_paths, value_paths = paths.cfv(keep[order], paths.utilities(payoff))
    cfv_tree, value_tree = tree.cfv(keep, tree.utilities(tree_payoff))
    assert value_tree.tolist() == pytest.approx(value_paths.tolist(), abs=1e-12)
    only_value = tree.value(keep, tree.utilities(tree_payoff))
    assert only_value.tolist() == pytest.approx(value_paths.tolist(), abs=1e-12)
    assert np.abs(cfv_tree[order] - cfv_paths).max() < 1e-12
    reach = tree.situation_reach(keep)[order]
    assert np.abs(reach - paths.situation_reach(keep[order])).max() < 1e-12


@pytest.mark.parametrize("rules", [
    cta.Rules(), cta.Rules(ties="eldest-loses"), cta.Rules(ties="latest-loses", ace_pays_double=True),
    cta.Rules(kings_jerk=True), cta.Rules(king_stops_play=True), cta.Rules(blocker="none"),
    cta.Rules(dealer_draws_blocker="dealer-loses", dealer_same_rank="dealer-wins"),
    cta.Rules(dealer_same_rank="dealer-immune", announce_low=True),
])
def test_the_merged_hand_equals_every_path_of_play_at_3_players(rules: cta.Rules) -> None:
    _same_as_paths(rules, 3, seed=3)


def test_the_merged_hand_equals_every_path_of_play_at_4_players() -> None:
    _same_as_paths(cta.Rules(deck=32, ace_pays_double=True), 4, seed=4)


@settings(max_examples=12, deadline=None)
@given(st.fixed_dictionaries({
    "ties": st.sampled_from(["all-lose", "eldest-loses", "latest-loses"]),
    "ace_pays_double": st.booleans(), "kings_jerk": st.booleans(), "king_stops_play": st.booleans(),
    "blocker": st.sampled_from(["top", "king", "none"]),
    "dealer_draws_blocker": st.sampled_from(["void", "dealer-loses", "allowed"]),
    "dealer_same_rank": st.sampled_from(["none", "dealer-wins", "dealer-immune"]),
    "announce_low": st.booleans(), "ranking": st.sampled_from(["king-high", "ace-high", "reverse"])}),
    st.integers(2, 3), st.integers(0, 2 ** 16))
def test_the_merged_hand_equals_every_path_of_play_under_any_rules(options: dict[str, Any], players: int,
                                                                  seed: int) -> None:
    try:
        rules = cta.Rules(deck=32, **options)
    except ValueError:
        assume(False)  # a combination the rules refuse
        return
    _same_as_paths(rules, players, seed)


def test_five_players_are_solved_and_the_engine_agrees() -> None:
    """5 players (the piquet pack, one life each, a final tie split): every state's hand within the
    tolerance, and whole games played by the engine with the bot win, by place in the first hand,
    as often as the solution says (within 4.5 standard errors)."""
    import random

    from chasetheace.solver.methods.whole_game import GameBot

    rules = cta.Rules(deck=32, final_tie="split", lives=1)
    sol = solve_game(rules, 5, lives=1)
    assert set(sol.states) == {(1,) * m for m in range(2, 6)}
    assert sol.hand_nash_conv <= 1e-5
    # the whole game's figure adds the gains of deviating in every hand (3.0e-5 measured)
    assert sol.hand_nash_conv <= sol.nash_conv < 1e-4
    assert sum(sol.start.value) == pytest.approx(1.0, abs=1e-9)  # a split shares the whole win
    bot = GameBot(sol)
    games, won = 3000, [0.0] * 5
    for seed in range(games):
        game = cta.Game(rules, players=5, seed=seed)
        first = game.dealer
        cta.play_game(game, [bot] * 5, rng=random.Random(seed))
        for seat in game.winners:
            won[(seat - first - 1) % 5] += 1 / len(game.winners)
    assert bot.fallbacks == 0
    for place, value in enumerate(sol.start.value):
        error = (value * (1 - value) / games) ** 0.5
        assert abs(won[place] / games - value) < 4.5 * error


def test_a_whole_game_solved_for_the_table_says_the_whole_games_figure(tmp_path: Path) -> None:
    """The progress of a whole game solved on first use names the whole game's NashConv (a player
    deviating in every lives state), not the largest of the states' own figures."""
    from chasetheace.solver.solutions.game_cache import game_solution_for

    heard: list[str] = []
    rules = cta.Rules(final_tie="split", deck=32)
    sol = game_solution_for(rules, 2, 2, folder=tmp_path, progress=heard.append)
    assert sol.nash_conv > sol.hand_nash_conv  # here the two differ: the words must pick the right one
    assert f"NashConv {sol.nash_conv:.1e} in chance of winning the game (exact" in heard[-1], heard[-1]
    assert f"{sol.hand_nash_conv:.1e}" not in heard[-1]
