"""The PettingZoo and Gymnasium environments."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

import gymnasium as gym
import numpy as np
from gymnasium.utils.env_checker import check_env
from pettingzoo import AECEnv
from pettingzoo.test import api_test, seed_test

from chasetheace.adapters import chase_the_ace_v0
from chasetheace.adapters.gymnasium import env as gym_env
from chasetheace.adapters.pettingzoo import env as pz_env


@pytest.mark.parametrize("options", [
    {"players": 3}, {"players": 4, "single_hand": True}, {"players": 5, "preset": "cuckoo", "lives": 1},
    {"players": 3, "kings_jerk": True, "last_chance": True, "final_tie": "split"},
])
def test_pettingzoo_api_and_seed_tests(options: dict[str, object]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test warns about every Dict observation with a mask
        api_test(chase_the_ace_v0.env(**options), num_cycles=200)
        seed_test(lambda: pz_env(**options), num_cycles=200)


def _run_pz(env: AECEnv, seed: int) -> tuple[dict[str, float], list[str]]:
    env.reset(seed=seed)
    totals: dict[str, float] = {}
    order: list[str] = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] = totals.get(agent, 0.0) + reward
        order.append(agent)
        env.step(None if term or trunc else int(obs["action_mask"].argmax()))
    return totals, order


def test_a_whole_game_rewards_lives_and_the_win_and_ends_every_agent() -> None:
    env = pz_env(players=4, lives=2, win_reward=5.0)
    totals, _ = _run_pz(env, seed=11)
    game = env.unwrapped.episode.game
    assert game.over and len(totals) == 4
    for seat in range(4):
        won = 5.0 / len(game.winners) if seat in game.winners else 0.0
        assert totals[f"player_{seat}"] == pytest.approx(game.lives[seat] - 2 + won)
    assert env.agents == []


def test_an_eliminated_agent_is_terminated_while_the_game_goes_on() -> None:
    env = pz_env(players=4, lives=1)
    env.reset(seed=3)
    raw = env.unwrapped
    seen_out_early = False
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term and not raw.episode.over:
            seen_out_early = True
            assert not raw.episode.game.alive[raw.seat[agent]]
        env.step(None if term or trunc else 1)
    assert seen_out_early


def test_single_hand_mode_ends_after_one_hand() -> None:
    env = pz_env(players=3, single_hand=True)
    totals, order = _run_pz(env, seed=4)
    assert env.unwrapped.episode.game.hand == 2 or env.unwrapped.episode.game.over
    assert len(order) <= 3 + 3 and sum(totals.values()) <= -1


def test_pettingzoo_bad_options_get_one_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        pz_env(colour="red")
    with pytest.raises(ValueError, match="bad players 1"):
        pz_env(players=1)


@pytest.mark.parametrize("options", [
    {}, {"single_hand": True, "seat": 2, "players": 4},
    {"opponents": ["random", "counting"], "preset": "chase-the-ace"},
])
def test_gymnasium_env_checker(options: dict[str, object]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gym_env(**options), skip_render_check=True)


def test_gymnasium_registration_and_an_episode() -> None:
    env = gym.make("ChaseTheAce-v0", players=3, opponents="threshold:9", render_mode="ansi")
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs) and info["hand"] >= 1
    total, done, steps = 0.0, False, 0
    while not done:
        obs, reward, done, truncated, info = env.step(env.action_space.sample())
        total += float(reward)
        steps += 1
    assert not truncated and steps >= 1
    lives = info["lives"][0]
    assert total == pytest.approx(lives - 3 + (1.0 if info["winners"] == [0] else 0.0))
    text = env.render()
    assert isinstance(text, str) and "seat 0" in text


def test_gymnasium_is_deterministic_from_the_seed() -> None:
    def rollout() -> list[float]:
        env = gym_env(players=4, opponents="random")
        obs, _ = env.reset(seed=21)
        out = [float(obs.sum())]
        done = False
        while not done:
            obs, reward, done, _, _ = env.step(int(obs.sum() * 1000) % 2)
            out += [float(obs.sum()), reward]
        return out
    assert rollout() == rollout()


def test_gymnasium_bad_options_get_one_clear_error() -> None:
    with pytest.raises(ValueError, match="bad seat 3"):
        gym_env(players=3, seat=3)
    with pytest.raises(ValueError, match="unknown bot 'wizard'"):
        gym_env(opponents="wizard")
    with pytest.raises(ValueError, match="2 bot specs needed"):
        gym_env(players=3, opponents=["random"])
    env = gym_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="bad action 7"):
        env.step(7)
    assert isinstance(env.observation_space, gym.spaces.Box)
    assert np.all(env.observation_space.low == 0.0)
