"""ChaseTheAceVector-v0: the kernel's tables give ChaseTheAce-v0's observations, rewards and ends on
the same cards and decisions, and behave as a Gymnasium vector env."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numba")
pytest.importorskip("gymnasium")

import gymnasium as gym
import numpy as np
from gymnasium.utils.passive_env_checker import check_obs
from hypothesis import given
from hypothesis import strategies as st

from chasetheace.adapters.episode import table_options
from chasetheace.adapters.gymnasium import ChaseTheAceEnv
from chasetheace.adapters.vector import ChaseTheAceVectorEnv, VectorCore
from chasetheace.fast import NotCompilableError, compile_bots, script_of
from chasetheace.rules import OPTIONS, Rules


class Stubborn:
    """A bot the kernel does not know: it always keeps."""

    def choose(self, observation: Any, legal: Any, rng: random.Random) -> Any:
        return "keep"


@st.composite
def tables(draw: st.DrawFn) -> tuple[dict[str, Any], int, int, list[str], int]:
    options: dict[str, Any] = {key: draw(st.sampled_from(o.values)) for key, o in OPTIONS.items()
                               if o.minimum is None}
    options["lives"] = draw(st.integers(1, 3))
    players = draw(st.integers(2, 5))
    seat = draw(st.integers(0, players - 1))
    kinds = [f"threshold:{r}" for r in "A23456789TJQK"] + ["counting"] * 4
    opponents = [draw(st.sampled_from(kinds)) for _ in range(players - 1)]
    return options, players, seat, opponents, draw(st.integers(0, 2**32))


@given(tables())
def test_the_kernel_tables_see_and_score_as_chase_the_ace_v0(
        table: tuple[dict[str, Any], int, int, list[str], int]) -> None:
    replay_in_the_kernel(*table)


def test_a_split_pot_is_won_in_the_engines_turn_order() -> None:
    # the engine names a split pot's winners in turn order (seat 3 first here); the kernel's table
    # must too, not in seat order
    winners = replay_in_the_kernel({"final_tie": "split", "lives": 1}, 4, 0, ["threshold:8"] * 3, 20)
    assert winners == [3, 0]


def replay_in_the_kernel(options: dict[str, Any], players: int, seat: int, opponents: list[str],
                         seed: int) -> list[int]:
    """Play a ChaseTheAce-v0 game with random actions, replay it in a kernel table on the same
    cards and decisions, check that every step is seen and scored alike; the game's winners."""
    single = ChaseTheAceEnv(players=players, seat=seat, opponents=opponents, **options)
    choices = random.Random(seed)
    obs, info = single.reset(seed=seed)
    expected, actions, infos = [(obs, 0.0, False)], [], [info]
    while not expected[-1][2]:
        actions.append(choices.randrange(2))
        obs, reward, terminated, _, info = single.step(actions[-1])
        expected.append((obs, reward, terminated))
        infos.append(info)
    # the same game in the kernel: its chance from the engine's record, the bots as kernel policies
    chance = script_of(single.episode.game.events)
    rules, _ = table_options(players, **options)
    bots = [*opponents[:seat], "random", *opponents[seat:]]
    shuffles = np.array([[c.id for c in order] for order in chance.shuffles], np.int64)
    shuffles = shuffles.reshape(-1, rules.deck)
    core = VectorCore(rules, players, seat, compile_bots(bots, rules), 1,
                      script=(shuffles, np.array(chance.picks, np.int64)))
    core.reset()
    got = [(core.obs[0].copy(), 0.0, False)]
    got_infos = [core.info()]
    for action in actions:
        core.step(np.array([action]))
        got.append((core.obs[0].copy(), float(core.rewards[0]), bool(core.terminated[0])))
        got_infos.append(core.info())
    assert len(got) == len(expected)
    for info_e, info_k in zip(infos, got_infos):
        assert (int(info_k["hand"][0]), info_k["lives"][0].tolist()) == (info_e["hand"], info_e["lives"])
    assert got_infos[-1]["winners"][0] == infos[-1]["winners"]  # the same seats, in the same order
    for (obs_e, reward_e, end_e), (obs_k, reward_k, end_k) in zip(expected, got):
        np.testing.assert_array_equal(obs_k, obs_e)
        assert (reward_k, end_k) == (reward_e, end_e)
    return list(infos[-1]["winners"])


def test_make_vec_gives_the_single_envs_spaces_and_valid_batches() -> None:
    envs = gym.make_vec("ChaseTheAceVector-v0", num_envs=6, players=4, opponents="threshold:9",
                        preset="cuckoo")
    single = ChaseTheAceEnv(players=4, opponents="threshold:9", preset="cuckoo")
    assert envs.single_observation_space == single.observation_space
    assert envs.single_action_space == single.action_space
    assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    obs, info = envs.reset(seed=3)
    check_obs(obs, envs.observation_space, "reset")
    assert info["lives"].shape == (6, 4)
    ended = 0
    for _ in range(60):
        obs, rewards, terminated, truncated, _ = envs.step(envs.action_space.sample())
        check_obs(obs, envs.observation_space, "step")
        assert rewards.dtype == np.float64 and not truncated.any()
        ended += int(terminated.sum())
    assert ended > 0
    envs.close()


def test_autoreset_on_the_next_step_and_seeded_determinism() -> None:
    def run(seed: int) -> list[np.ndarray]:
        envs = ChaseTheAceVectorEnv(num_envs=3, players=3, opponents="random", lives=1)
        obs, _ = envs.reset(seed=seed)
        seen, finished = [obs], np.zeros(3, bool)
        for step in range(40):
            obs, rewards, terminated, _, _ = envs.step(np.array([step % 2, 1, 0]))
            assert (rewards[finished] == 0).all() and not terminated[finished].any()  # reset steps
            finished = terminated
            seen.append(obs)
        return seen

    first, again, other = run(5), run(5), run(6)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other))


def test_episode_statistics_wrapper_counts_whole_games() -> None:
    envs = gym.wrappers.vector.RecordEpisodeStatistics(
        ChaseTheAceVectorEnv(num_envs=4, players=3, opponents="threshold:8"))
    envs.reset(seed=0)
    lengths = []
    for _ in range(80):
        _, _, _, _, info = envs.step(envs.action_space.sample())
        if "episode" in info:
            lengths += info["episode"]["l"][info["_episode"]].tolist()
    assert lengths and min(lengths) >= 1


def test_bad_options_and_actions_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from chasetheace import registry

    kind: registry.BotKind[Rules, Stubborn] = registry.BotKind(lambda arg, rules, players: Stubborn(),
                                                                  "keeps")
    monkeypatch.setitem(registry.BOTS, "stubborn", kind)
    with pytest.raises(NotCompilableError, match="Stubborn"):
        ChaseTheAceVectorEnv(num_envs=2, players=3, opponents=["threshold:8", "stubborn"])
    with pytest.raises(ValueError, match="single_hand"):
        ChaseTheAceVectorEnv(num_envs=2, single_hand=True)
    envs, twin = ChaseTheAceVectorEnv(num_envs=2), ChaseTheAceVectorEnv(num_envs=2)
    envs.reset(seed=1)
    twin.reset(seed=1)
    for bad in (np.array([0, 2]), np.array([-1, 0]), np.array([0.5, 1.0]), ["keep", "swap"], [0, 1, 0]):
        with pytest.raises(ValueError, match="bad actions"):
            envs.step(bad)
    # nothing was played: the env goes on as its twin that was never given them
    for actions in ([0, 1], np.array([1.0, 0.0]), np.array([True, False]), np.array([1, 1], np.uint8)):
        got, want = envs.step(actions), twin.step(np.array(actions, np.int64))
        for a, b in zip(got[:4], want[:4]):
            np.testing.assert_array_equal(a, b)


@given(tables())
def test_each_observation_clears_exactly_what_the_last_one_set(
        table: tuple[dict[str, Any], int, int, list[str], int]) -> None:
    # an observation is written over the table's previous one, clearing only the cells that one
    # set: over many games (autoresets included) it must equal the vector written from zeros
    from chasetheace.adapters.vector_step import _encode

    options, players, seat, opponents, seed = table
    envs = ChaseTheAceVectorEnv(num_envs=3, players=players, seat=seat, opponents=opponents, copy=False,
                                **options)
    core = envs.core
    envs.reset(seed=seed)
    choices = np.random.default_rng(seed)
    agent, d = core.agent, core.rules.deck
    for _ in range(30):
        envs.step(choices.integers(0, 2, 3))
        for b in range(3):
            fresh = np.zeros(core.encoder.size, np.float32)
            _encode(fresh, np.full(2, -1, np.int64), seat, players, d, agent.chips, agent.pot,
                    core.state.ws[b], core.state.st[b], core.state.evs[b], agent.places)
            np.testing.assert_array_equal(core.obs[b], fresh)


def test_without_copies_the_env_hands_out_its_own_array_with_the_same_numbers() -> None:
    copied = ChaseTheAceVectorEnv(num_envs=4, players=5, opponents="threshold:8")
    shared = ChaseTheAceVectorEnv(num_envs=4, players=5, opponents="threshold:8", copy=False)
    a, _ = copied.reset(seed=2)
    b, _ = shared.reset(seed=2)
    assert np.array_equal(a, b)
    kept, seen = [a], [b.copy()]
    for step in range(20):
        actions = np.array([step % 2, 1, 0, 1])
        a, ra, ta, _, _ = copied.step(actions)
        b2, rb, tb, _, _ = shared.step(actions)
        assert b2 is b  # the env's own array, overwritten at each step
        assert np.array_equal(a, b2) and np.array_equal(ra, rb) and np.array_equal(ta, tb)
        kept.append(a)
        seen.append(b2.copy())
        if step % 3 == 0:  # let some go, written over first: they are the caller's, not the env's
            kept.pop(-2)[:] = 0.5
            seen.pop(-2)
    assert all(np.array_equal(x, y) for x, y in zip(kept, seen))
    assert all(kept[i] is not kept[j] for i in range(len(kept)) for j in range(i))


def test_observations_a_caller_holds_are_never_written_again() -> None:
    # with copy (the default), an array handed out is the caller's while anything refers to it: the
    # array itself, a view of it, a memoryview; the others are written again by later steps
    envs = ChaseTheAceVectorEnv(num_envs=5, players=5, opponents="threshold:8")
    obs, _ = envs.reset(seed=4)
    choices = np.random.default_rng(4)
    held: list[tuple[Any, np.ndarray]] = [(obs, obs.copy())]
    view: list[tuple[Any, np.ndarray]] = []
    for step in range(200):
        obs, *_ = envs.step(choices.integers(0, 2, 5))
        if step % 37 == 0:
            held.append((obs, obs.copy()))
        elif step % 41 == 0:
            view.append((obs[1:3], obs[1:3].copy()))
        elif step % 43 == 0:
            view.append((obs.data, obs.copy()))  # a memoryview of it
        for kept, seen in held + view:
            assert np.array_equal(np.asarray(kept), seen)
    assert len(held) > 3 and len(view) > 3


def test_reused_arrays_give_the_numbers_of_fresh_ones() -> None:
    # a caller that lets each array go (even after writing over it) gets arrays written again; one
    # that keeps every array gets new ones; and the env's own array: the same numbers in all three
    def run(copy: bool, keep: bool) -> tuple[list[np.ndarray], set[int]]:
        envs = ChaseTheAceVectorEnv(num_envs=7, players=5, opponents="threshold:8", copy=copy)
        obs, _ = envs.reset(seed=9)
        seen: list[np.ndarray[Any, Any]] = [obs.copy()]
        kept, places = [obs], {obs.__array_interface__["data"][0]}
        choices = np.random.default_rng(9)
        for _ in range(150):
            if copy:  # the caller writes over its array before letting it go
                obs[:, ::3] = 0.25
            obs, rewards, terminated, _, _ = envs.step(choices.integers(0, 2, 7))
            seen += [obs.copy(), rewards, terminated]
            places.add(obs.__array_interface__["data"][0])
            if keep:
                kept.append(obs)
        return seen, places

    reused, few = run(True, False)
    fresh, many = run(True, True)
    own, _ = run(False, False)
    assert len(few) <= 4 < len(many)  # arrays were written again, or new ones made
    for a, b, c in zip(reused, fresh, own):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def digest_of_steps(copy: bool, **options: Any) -> str:
    """A digest of everything 16 tables give back over 120 steps (seeded, random actions)."""
    envs = ChaseTheAceVectorEnv(num_envs=16, copy=copy, **options)
    digest = hashlib.sha256()
    obs, info = envs.reset(seed=7)
    choices = np.random.default_rng(7)
    for _ in range(120):
        digest.update(obs.tobytes())
        digest.update(info["hand"].tobytes() + info["lives"].tobytes() + info["_winners"].tobytes())
        digest.update(repr(info["winners"].tolist()).encode())
        obs, rewards, terminated, truncated, info = envs.step(choices.integers(0, 2, 16))
        digest.update(rewards.tobytes() + terminated.tobytes() + truncated.tobytes())
    return digest.hexdigest()[:16]


@pytest.mark.parametrize(("options", "recorded"), [
    ({"players": 5, "opponents": "threshold:8"}, "5c64b3d16e90f82b"),
    ({"players": 3, "seat": 1, "opponents": ["counting", "threshold:9"], "lives": 2}, "f63bf51d4b16eed4"),
    ({"players": 4, "opponents": "random", "preset": "cuckoo", "win_reward": 2.0}, "bc00532e67101923"),
])
def test_the_steps_are_those_recorded_before_the_speed_work(options: dict[str, Any], recorded: str) -> None:
    # observations, rewards, ends and info of seeded runs, digested: recorded with the env of
    # 2026-11-27 before its step was made faster, so that a change to what it gives back (seeding
    # included) shows here, with copies and without
    assert digest_of_steps(True, **options) == recorded
    assert digest_of_steps(False, **options) == recorded


def test_a_compile_of_the_step_is_told_with_its_estimate_and_a_loaded_step_is_not(tmp_path: Path) -> None:
    # the first step's call tells a compile (numba's own event, not a timer) when it starts, with the
    # time it takes, and when it ends, and keeps the time measured for the next notice; a function
    # numba has already compiled says nothing. A small function stands in for the step (which takes
    # minutes to compile): what decides is numba's event, the same for any function
    from numba import njit

    from chasetheace.adapters import vector

    said: list[str] = []

    def step(cells: np.ndarray) -> int:
        return int(cells.sum()) - 1

    fresh = njit(step)  # no disk cache: its first call compiles
    assert vector.first_step(fresh, (np.zeros(3, np.int64),), said.append, tmp_path) == -1
    assert len(said) == 2
    assert said[0].startswith("compiling the step of ChaseTheAceVector-v0 (once on this machine: numba "
                              "keeps it on disk; about ")
    assert "s of CPU time as measured for this release" in said[0]
    assert said[1].startswith("compiled the step of ChaseTheAceVector-v0 in ")
    kept = json.loads((tmp_path / vector.COMPILE_RECORD).read_text())
    assert kept["cpu_seconds"] >= 0 and kept["seconds"] >= 0
    said.clear()
    assert vector.first_step(fresh, (np.ones(3, np.int64),), said.append, tmp_path) == 2
    assert said == []  # compiled already: nothing to tell


def test_the_steps_compile_estimate_is_its_own_last_compile_else_the_releases(tmp_path: Path) -> None:
    from chasetheace.adapters import vector
    from chasetheace.fast.sim import WarmUp, record_compile

    cpu = vector.COMPILE_CPU_SECONDS
    assert vector.compile_estimate(load=0.0, cores=2, folder=tmp_path) == (
        f"about {cpu:.0f} s of CPU time as measured for this release")
    record_compile(WarmUp(True, 12.0, 11.0), tmp_path)  # the kernel's compile: another record
    record_compile(WarmUp(True, 500.0, 301.2), tmp_path, vector.COMPILE_RECORD)
    assert vector.compile_estimate(load=3.0, cores=2, folder=tmp_path) == (
        "about 301 s of CPU time as the last compile here took, about 602 s at this machine's load "
        "(3.0 on 2 cores)")


LOADED = """
import json
import numpy as np
from chasetheace.adapters.vector import ChaseTheAceVectorEnv
envs = ChaseTheAceVectorEnv(num_envs=2, players=4)  # the default notice: standard error
envs.reset(seed=1)
envs.step(np.array([0, 1]))
stats = envs.core._entry.stats
print(json.dumps({"hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values())}))
"""


def test_a_process_that_loads_the_step_from_numbas_cache_says_nothing() -> None:
    from chasetheace.adapters import vector

    vector.warm_up()  # the default rules' step: compiled here if it had to be, so on disk for the next
    out = subprocess.run([sys.executable, "-c", LOADED], capture_output=True, text=True, check=True,
                         timeout=600)
    seen = json.loads(out.stdout.splitlines()[-1])
    assert seen["hits"] >= 1 and seen["misses"] == 0  # numba's own word: loaded, not compiled
    assert "compil" not in out.stderr
