"""Ace Chasing's PettingZoo environment: PettingZoo's own API and seed tests, and no hidden card in
any observation."""

from __future__ import annotations

import random
import warnings

import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

import numpy as np
from pettingzoo.test import api_test, seed_test

import chasetheace as cta
from chasetheace.adapters import ace_chasing_v0
from chasetheace.adapters.ace_chasing import ACTION_WORDS, AceEncoder, raw_env
from chasetheace.cards import pack
from test_acechasing_properties import knowable

CARDS = [str(c) for c in pack(52)]


@pytest.mark.parametrize("options", [{}, {"players": 5, "max_offer": 3}, {"players": 6, "max_offer": 0}])
def test_pettingzoo_api_and_seed_tests(options: dict[str, int]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test warns about every Dict observation with a mask
        api_test(ace_chasing_v0.env(**options), num_cycles=300)
        seed_test(lambda: ace_chasing_v0.env(**options), num_cycles=300)


def _cards_named(vector: np.ndarray, players: int) -> set[str]:
    """The cards a vector's card blocks name (its own card and what it knows, seat by seat)."""
    named = {CARDS[i] for i in np.flatnonzero(vector[:52])}
    block = vector[52:52 + 52 * players].reshape(players, 52)
    return named | {CARDS[i] for i in np.flatnonzero(block.any(axis=0))}


@pytest.mark.parametrize("seed", range(6))
def test_no_observation_names_a_card_its_seat_may_not_know(seed: int) -> None:
    e = raw_env(players=5, max_offer=4)
    e.reset(seed=seed)
    rng = random.Random(seed)
    steps = 0
    while e.agents and steps < 2000:
        agent = e.agent_selection
        for other in e.possible_agents:
            seat = e.seat[other]
            assert _cards_named(e.observe(other)["observation"], 5) <= knowable(e.game, seat)
        if e.terminations[agent] or e.truncations[agent]:
            e.step(None)
        else:
            legal = np.flatnonzero(e.observe(agent)["action_mask"])
            e.step(int(rng.choice(list(legal))))
        steps += 1
    assert e.game.over


def test_actions_are_the_games_words_then_the_offers() -> None:
    e = raw_env(players=4, max_offer=2)
    e.reset(seed=3)
    assert e.actions == len(ACTION_WORDS) + 3
    seat = e.seat[e.agent_selection]
    mask = e.observe(e.agent_selection)["action_mask"]
    assert list(mask) == [0, 0, 0, 0, 1, 1, 1]  # a bettor first: offers 0 to 2
    e.step(6)  # offer 2
    assert e.game.observation(None)["history"][-1] == {"type": "offered", "seat": seat, "amount": 2,
                                                       "number": 1}
    assert list(e.observe(e.agent_selection)["action_mask"]) == [0, 0, 1, 1, 0, 0, 0]


def test_an_illegal_action_or_bad_option_is_one_clear_error() -> None:
    e = raw_env(players=4)
    e.reset(seed=1)
    with pytest.raises(ValueError, match="is not legal now"):
        e.step(0)  # keep, while the betting is open
    for bad in ({"players": 3}, {"max_offer": -1}, {"render_mode": "video"}):
        with pytest.raises(ValueError, match="bad"):
            raw_env(**bad)


def test_the_encoder_has_the_size_it_says() -> None:
    e = raw_env(players=7, max_offer=5)
    e.reset(seed=2)
    vec = e.observe(e.agent_selection)["observation"]
    assert vec.shape == (AceEncoder(7, 5).size,) and vec.dtype == np.float32


def test_openspiel_round_passes_random_sim_test_and_is_zero_sum() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import chasetheace.adapters.openspiel_ace  # noqa: F401  (registers the game)

    for params in ({}, {"players": 5, "max_offer": 3, "matador": 2}, {"players": 4, "max_offer": 0}):
        game = pyspiel.load_game("python_ace_chasing", params)
        pyspiel.random_sim_test(game, num_sims=20, serialize=False, verbose=False)
        state = game.new_initial_state()
        rng = random.Random(1)
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choice([a for a, _ in outcomes]))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        assert sum(state.returns()) == 0


@pytest.mark.parametrize("seed", range(4))
def test_openspiel_observations_name_only_known_cards(seed: int) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import chasetheace.adapters.openspiel_ace  # noqa: F401  (registers the game)

    game = pyspiel.load_game("python_ace_chasing", {"players": 5, "max_offer": 2})
    state = game.new_initial_state()
    rng = random.Random(seed)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        for seat in range(5):
            named = _cards_named(np.asarray(state.information_state_tensor(seat)), 5)
            assert named <= knowable(state.table, seat)
            text = state.information_state_string(seat)
            assert {c for c in CARDS if c in text.split()} <= knowable(state.table, seat)
        state.apply_action(rng.choice(state.legal_actions()))


def test_openspiel_bad_parameters_are_one_clear_error() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import chasetheace.adapters.openspiel_ace  # noqa: F401  (registers the game)

    for bad, words in (({"players": 3}, "bad players"), ({"max_offer": -1}, "bad max_offer"),
                       ({"matador": 9}, "bad matador"), ({"lives": 2}, "(?i)unknown parameter")):
        with pytest.raises(Exception, match=words):
            pyspiel.load_game("python_ace_chasing", bad)


def test_a_cloned_round_carries_no_engine_and_replays_the_same() -> None:
    """OpenSpiel clones a state by deep-copying its attributes (every step of random_sim_test):
    the state keeps the cards dealt and the actions taken, and a clone replays the engine's round
    when it needs it (deep-copying the engine's round made the test 8 times slower)."""
    pyspiel = pytest.importorskip("pyspiel")
    import chasetheace.adapters.openspiel_ace  # noqa: F401

    game = pyspiel.load_game("python_ace_chasing", {"players": 4})
    state = game.new_initial_state()
    rng = random.Random(3)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = [a for a, _ in state.chance_outcomes()]
            state.apply_action(rng.choice(outcomes))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        copy = state.clone()
        assert not any(isinstance(v, cta.AceChasingGame) for v in vars(copy).values())
        assert copy.history() == state.history() and str(copy) == str(state)
        if state.table is not None:
            assert copy.table is not None and copy.table.events == state.table.events
    assert sum(state.returns()) == 0
