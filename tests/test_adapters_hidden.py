"""Every adapter's observation holds only what RULES.md A4 allows (no hidden card anywhere)."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

import numpy as np
import pyspiel

import chasetheace as cta
import chasetheace.adapters.openspiel
from adapters_support import cards_named
from chasetheace.adapters.encoding import Encoder
from chasetheace.adapters.gymnasium import env as gym_env
from chasetheace.adapters.pettingzoo import env as pz_env
from helpers import known_cards

VARIANTS = [
    {},
    {"announce_low": True, "kings_jerk": True, "lives": 2},
    {"dealer_draws_blocker": "void", "dealer_same_rank": "dealer-immune", "blocker": "king"},
    {"between_hands": "to-bottom", "dealer_exchange": "top", "blocker": "none"},
    {"king_stops_play": True, "dealer_draws_blocker": "dealer-loses", "deck": 32},
]


@pytest.mark.parametrize("options", VARIANTS)
def test_encoder_names_only_known_cards(options: dict[str, object]) -> None:
    rng = random.Random(5)
    for game_no in range(6):
        rules = cta.Rules().replace(**options)
        game = cta.Game(rules, players=4, seed=game_no)
        enc = Encoder(rules, 4)
        while not game.over:
            for seat in [None, *range(4)]:
                obs = game.observation(seat)
                known = known_cards(game.events, seat)
                for hand in (None, max(1, game.hand - 1)):
                    assert enc.cards_in(enc.tensor(obs, hand=hand)) <= known
                    assert cards_named(enc.text(obs, hand=hand, history=True)) <= known
            game.act(rng.choice(["keep", "swap"]))


def _random_history(game: pyspiel.Game, rng: np.random.RandomState) -> list[int]:
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = [a for a, _ in state.chance_outcomes()]
            state.apply_action(int(rng.choice(outcomes)))
        else:
            state.apply_action(int(rng.randint(2)))
    return list(state.history())


def _views(state: pyspiel.State, player: int) -> tuple[str, str, list[float], list[float]]:
    return (state.information_state_string(player), state.observation_string(player),
            list(state.information_state_tensor(player)), list(state.observation_tensor(player)))


@pytest.mark.parametrize("options", VARIANTS)
def test_openspiel_views_do_not_change_when_hidden_cards_do(options: dict[str, object]) -> None:
    """Swap two cards of one rank that a player cannot know: its views must not change."""
    game = pyspiel.load_game("python_chase_the_ace", {"players": 4, **options})
    rng = np.random.RandomState(3)
    checked = 0
    for _ in range(6):
        history = _random_history(game, rng)
        state = game.new_initial_state()
        for i, action in enumerate(history):
            state.apply_action(action)
            if state.table is None:
                continue
            for player in range(4):
                known = known_cards(state.table.events, player)
                views = _views(state, player)
                assert cards_named(views[0]) <= known and cards_named(views[1]) <= known
                enc = game.encoder
                assert enc.cards_in(np.array(views[2], np.float32)) <= known
                hidden = [c for c in state.spec.deal_from if str(c) not in known]
                pairs = [(a, b) for a in hidden for b in hidden if a.rank == b.rank and a.id < b.id]
                if not pairs:
                    continue
                a, b = pairs[rng.randint(len(pairs))]
                swap = {a.id: b.id, b.id: a.id}
                other = game.new_initial_state()
                for act in history[:i + 1]:
                    deals = other.is_chance_node() and other.dealer is not None  # a card, not a seat
                    other.apply_action(swap.get(act, act) if deals else act)
                assert _views(other, player) == views
                checked += 1
    assert checked > 50


def test_pettingzoo_observations_are_the_encoders_and_name_only_known_cards() -> None:
    env = pz_env(players=4, announce_low=True)
    env.reset(seed=2)
    raw = env.unwrapped
    for agent in env.agent_iter(max_iter=400):
        obs, _, term, trunc, _ = env.last()
        seat = raw.seat[agent]
        game = raw.episode.game
        expected = raw.encoder.tensor(game.observation(seat))
        assert np.array_equal(obs["observation"], expected)
        assert raw.encoder.cards_in(obs["observation"]) <= known_cards(game.events, seat)
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))


def test_gymnasium_observations_are_the_encoders_and_name_only_known_cards() -> None:
    env = gym_env(players=4, seat=2, opponents="counting", single_hand=False)
    obs, _ = env.reset(seed=9)
    done = False
    while not done:
        game = env.episode.game
        assert np.array_equal(obs, env.encoder.tensor(game.observation(2)))
        assert env.encoder.cards_in(obs) <= known_cards(game.events, 2)
        obs, _, done, _, _ = env.step(1)
