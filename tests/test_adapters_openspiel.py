"""The OpenSpiel game: registration, parameters, chance, returns, algorithms, the playthrough."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import (
    cfr,
    exploitability,
    external_sampling_mccfr,
    generate_playthrough,
    ismcts,
    mcts,
)

import chasetheace as cta
import chasetheace.adapters.openspiel

GOLDEN = Path(__file__).parent / "golden" / "python_chase_the_ace.txt"
TINY = {"players": 2, "dealer": 1, "cards": "Kc 9c 5c 2c Ac"}


def test_the_solvers_call_works_and_rule_keys_are_typed_parameters() -> None:
    game = pyspiel.load_game("python_chase_the_ace", {"players": 3})
    assert game.num_players() == 3 and game.rules == cta.Rules()
    params = game.get_parameters()
    assert params["lives"] == 3 and params["king_stops_play"] is False and params["deck"] == 52
    game = pyspiel.load_game("python_chase_the_ace", {"players": 4, "preset": "cuckoo", "lives": 2,
                                                      "announce_low": True, "deck": 32})
    assert game.rules == cta.Rules.preset("cuckoo").replace(lives=2, announce_low=True, deck=32)
    assert pyspiel.load_game("python_chase_the_ace(players=2,cards=Kc9c5c)").deal_from == [
        cta.Card.parse(c) for c in ("5c", "9c", "Kc")]


@pytest.mark.parametrize(("params", "message"), [
    ({"players": 1}, "bad players 1"),
    ({"players": 32, "deck": 32}, "bad players 32"),
    ({"blocker": "queen"}, "bad value 'queen' for rule 'blocker'"),
    ({"preset": "poker"}, "unknown preset 'poker'"),
    ({"cards": "Kc Kc Ac 2c"}, "appears twice"),
    ({"cards": "Kc 9c"}, "need at least 4 cards"),
    ({"dealer": 5}, "bad dealer 5"),
])
def test_bad_parameters_get_one_clear_error(params: dict[str, object], message: str) -> None:
    with pytest.raises(Exception, match=re.escape(message)):
        pyspiel.load_game("python_chase_the_ace", params)


@pytest.mark.parametrize("params", [
    {"players": 4},
    {"players": 3, "preset": "cuckoo"},
    {"players": 5, "kings_jerk": True, "announce_low": True, "pairing": True, "ace_pays_double": True},
    {"players": 3, "king_stops_play": True, "dealer_draws_blocker": "dealer-loses", "deck": 32},
    {"players": 3, "dealer_same_rank": "dealer-wins", "dealer_draws_blocker": "void", "lives": 1,
     "cards": "Kc Kd 5c 5d 5h"},
    {"players": 2, "preset": "le-her"},
])
def test_random_simulation(params: dict[str, object]) -> None:
    game = pyspiel.load_game("python_chase_the_ace", params)
    pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False)


def _play(game: pyspiel.Game, rng: np.random.RandomState) -> pyspiel.State:
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.randint(2)))
    return state


def test_returns_are_the_chips_the_engine_took_and_chance_is_explicit() -> None:
    game = pyspiel.load_game("python_chase_the_ace", {"players": 3, "ace_pays_double": True})
    rng = np.random.RandomState(1)
    drew = 0
    for _ in range(40):
        state = _play(game, rng)
        events = state.table.record()["events"]
        assert [e["type"] for e in events[:2]] == ["hand_started", "dealt"]  # no shuffle: chance dealt
        assert [c for _, c in events[1]["cards"]] == [str(c) for c in state.dealt]
        end = next(i for i, e in enumerate(events[2:], 2) if e["type"] in ("shuffle", "hand_started",
                                                                             "game_over"))
        first = events[:end]
        paid = [0.0] * 3
        for e in first:
            if e["type"] == "lives_lost":
                for seat, chips in e["payments"]:
                    paid[seat] -= chips
        assert state.returns() == paid
        for e in first:
            if e["type"] == "dealer_exchange":
                drew += 1
                assert e["position"] == 0 and str(e["drawn"]) == str(state.drawn)
    assert drew > 0


def test_the_dealers_draw_is_uniform_over_the_undealt_cards() -> None:
    game = pyspiel.load_game("python_chase_the_ace", {"players": 2, "dealer": 1})
    state = game.new_initial_state()
    for card in ("7c", "9d"):
        state.apply_action(cta.Card.parse(card).id)
    state.apply_action(0)  # the eldest keeps
    state.apply_action(1)  # the dealer swaps: chance picks the card drawn
    outcomes = state.chance_outcomes()
    assert state.is_chance_node() and len(outcomes) == 50
    assert {a for a, _ in outcomes}.isdisjoint({cta.Card.parse("7c").id, cta.Card.parse("9d").id})
    assert all(p == pytest.approx(1 / 50) for _, p in outcomes)


def test_cfr_lowers_nash_conv_below_the_uniform_policy() -> None:
    game = pyspiel.load_game("python_chase_the_ace", TINY)
    uniform = exploitability.nash_conv(game, policy_lib.UniformRandomPolicy(game))
    solver = cfr.CFRSolver(game)
    for _ in range(8):
        solver.evaluate_and_update_policy()
    solved = exploitability.nash_conv(game, solver.average_policy())
    assert 0.0 <= solved < uniform


def test_external_sampling_mccfr_runs_on_three_players() -> None:
    game = pyspiel.load_game("python_chase_the_ace", {"players": 3, "dealer": 2,
                                                      "cards": "Kc 9c 5c 2c Ac"})
    solver = external_sampling_mccfr.ExternalSamplingSolver(
        game, external_sampling_mccfr.AverageType.SIMPLE)
    for _ in range(30):
        solver.iteration()
    policy = solver.average_policy()
    state = game.new_initial_state()
    for action in (48, 0, 16):  # deal Kc, Ac, 5c
        state.apply_action(action)
    probs = policy.action_probabilities(state)
    assert set(probs) == {0, 1} and sum(probs.values()) == pytest.approx(1.0)
    assert exploitability.nash_conv(game, policy) >= 0.0


def test_resampling_keeps_the_information_state_and_ismcts_plays() -> None:
    game = pyspiel.load_game("python_chase_the_ace", {"players": 4, "announce_low": True})
    rng = np.random.RandomState(7)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = 0
    for _ in range(25):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions = [a for a, _ in state.chance_outcomes()]
                state.apply_action(int(rng.choice(actions)))
                continue
            player = state.current_player()
            other = state.resample_from_infostate(player, sampler)
            assert other.information_state_string(player) == state.information_state_string(player)
            assert other.current_player() == player
            changed += str(other) != str(state)
            state.apply_action(int(rng.randint(2)))
    assert changed > 0
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, 20, random_state=rng)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        else:
            state.apply_action(bot.step(state))
    assert sum(state.returns()) <= -1


def test_games_and_states_survive_pickling() -> None:
    game = pyspiel.load_game("python_chase_the_ace", TINY)
    state = game.new_initial_state()
    for action in (16, 48):  # deal 5c, Kc
        state.apply_action(action)
    again = pickle.loads(pickle.dumps(game))
    assert again.deal_from == game.deal_from and again.rules == game.rules
    copy = pickle.loads(pickle.dumps(state))
    assert copy.history() == state.history()
    assert copy.information_state_string(0) == state.information_state_string(0)


def _golden_arguments() -> tuple[str, list[int]]:
    text = GOLDEN.read_text()
    game = re.search(r"^game: (.*)$", text, re.M)
    assert game is not None
    return game.group(1), [int(a) for a in re.findall(r"^action: (\d+)$", text, re.M)]


def test_the_playthrough_golden_file_is_reproduced() -> None:
    game_string, actions = _golden_arguments()
    assert "draw " in GOLDEN.read_text()  # the golden hand shows the dealer's draw
    assert generate_playthrough.playthrough(game_string, actions, seed=0) == GOLDEN.read_text()


if __name__ == "__main__":  # regenerate: python tests/test_adapters_openspiel.py
    GAME = "python_chase_the_ace(players=3,dealer=2,cards=Kc9c5c2cAc7d)"
    GOLDEN.write_text(generate_playthrough.playthrough(
        GAME, [32, 4, 25, "swap", "keep", "swap", "draw 5c"], seed=0))
