"""Hands per second: the compiled kernel against the engine, in the same run.

Run: python benchmarks/fast.py [--hands N] [--engine-hands N] [--big]
Standard rules, 5 players, ThresholdBot(8) at every seat, whole games (chips, elimination, new
games). Prints, for the kernel on one core and for the engine (``simulate``, the Python engine),
hands per second of wall-clock time and of CPU time (on a shared machine the CPU-time figure is the
one that does not depend on the other processes), and their ratio. Then what bounds the kernel: the
cost of its generator per draw and the draws a hand needs, the same games with nobody eliminated
(no per-game work), and with everyone keeping (no exchanges). Then the counting bot at every seat.
``--big`` also times 10^8 hands on two workers through ``simulate --engine fast``.
With Gymnasium installed, also agent steps per CPU second of ``ChaseTheAceVector-v0`` (256 tables)
and of ``ChaseTheAce-v0`` under Gymnasium's ``SyncVectorEnv`` (16 copies), 5 players, threshold:8.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
from numba import njit

import chasetheace as cta
from chasetheace.fast import compile_bots, play_chunk
from chasetheace.fast.chance import _below
from chasetheace.fast.sim import simulate as fast_simulate
from chasetheace.sim import SimConfig, simulate

BOTS = ("threshold:8",) * 5


def kernel_rate(rules: cta.Rules, hands: int, bots: tuple[str, ...] = BOTS) -> tuple[float, float, float]:
    """(hands per wall second, hands per CPU second, mean players in a hand) on one core."""
    policies = compile_bots(bots, rules)
    play_chunk(rules, policies, seed=0, hands=1000)  # compiled or loaded from the cache
    wall, cpu = time.perf_counter(), time.process_time()
    tally = play_chunk(rules, policies, seed=1, hands=hands)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    players_in = sum(tally.position_hands.values()) / tally.hands
    return tally.hands / wall, tally.hands / cpu, players_in


def engine_rate(rules: cta.Rules, hands: int, bots: tuple[str, ...] = BOTS) -> tuple[float, float]:
    """(hands per wall second, hands per CPU second) of ``simulate`` on the engine, one process."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = simulate(SimConfig(rules, bots, seed=1, hands=hands))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return result.tally.hands / wall, result.tally.hands / cpu


@njit(cache=True)
def _draws(count: int) -> int:  # pragma: no cover - compiled
    rng = np.zeros(1, np.uint64)
    rng[0] = np.uint64(12345)
    total = 0
    for i in range(count):
        total += _below(rng, 47 - (i & 7))
    return total


def rng_ns_per_draw(count: int = 50_000_000) -> float:
    """CPU nanoseconds per bounded draw of the kernel's generator."""
    _draws(10)
    cpu = time.process_time()
    _draws(count)
    return (time.process_time() - cpu) / count * 1e9


def vector_rates(steps: int = 200) -> tuple[float, float]:
    """Agent steps per CPU second: the kernel's vector env, and the engine's env in SyncVectorEnv."""
    import gymnasium as gym

    import chasetheace.adapters.gymnasium  # noqa: F401 (registers both ids)

    rates = []
    for env_id, tables, mode in (("ChaseTheAceVector-v0", 256, None), ("ChaseTheAce-v0", 16, "sync")):
        options: dict[str, Any] = {"vectorization_mode": mode} if mode else {}
        envs = gym.make_vec(env_id, num_envs=tables, players=5, opponents="threshold:8", **options)
        envs.reset(seed=0)
        actions = np.zeros(tables, np.int64)
        cpu = time.process_time()
        for _ in range(steps if mode is None else steps // 4):
            envs.step(actions)
        rates.append(tables * (steps if mode is None else steps // 4) / (time.process_time() - cpu))
        envs.close()
    return rates[0], rates[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000_000, help="kernel hands (default 2e7)")
    parser.add_argument("--engine-hands", type=int, default=20_000, help="engine hands (default 2e4)")
    parser.add_argument("--big", action="store_true", help="also 10^8 hands on two workers")
    args = parser.parse_args()
    rules = cta.Rules()
    k_wall, k_cpu, players_in = kernel_rate(rules, args.hands)
    e_wall, e_cpu = engine_rate(rules, args.engine_hands)
    print("standard rules, 5 players, threshold:8 at every seat, whole games")
    print(f"kernel, one core  {k_wall:13,.0f} hands/s wall  {k_cpu:13,.0f} hands/s CPU  "
          f"({args.hands:,} hands)")
    print(f"engine (python)   {e_wall:13,.0f} hands/s wall  {e_cpu:13,.0f} hands/s CPU  "
          f"({args.engine_hands:,} hands)")
    print(f"kernel / engine   {k_wall / e_wall:13,.0f} x (wall)       {k_cpu / e_cpu:13,.0f} x (CPU)")
    ns_hand = 1e9 / k_cpu
    ns_draw = rng_ns_per_draw()
    draws = players_in + 1  # the deal's partial shuffle, and at most one cut
    print(f"per hand: {ns_hand:.0f} ns CPU; the generator takes {ns_draw:.2f} ns per draw and a hand "
          f"at most {draws:.1f} draws ({players_in:.2f} players in on average): "
          f"at most {100 * draws * ns_draw / ns_hand:.0f}% of the hand")
    immortal = rules.replace(lives=1_000_000)
    _, i_cpu, _ = kernel_rate(immortal, args.hands)
    print(f"the same hands with nobody ever out (no per-game work, always 5 players): "
          f"{i_cpu:,.0f} hands/s CPU")
    _, a_cpu, _ = kernel_rate(immortal, args.hands, ("threshold:A",) * 5)
    print(f"and with everyone keeping (threshold:A: no exchange, every decision branch the same): "
          f"{a_cpu:,.0f} hands/s CPU")
    counting = ("counting",) * 5
    _, c_cpu, _ = kernel_rate(rules, args.hands // 10, counting)
    _, ce_cpu = engine_rate(rules, max(1, args.engine_hands // 5), counting)
    print(f"counting bot at every seat: kernel {c_cpu:,.0f} hands/s CPU, engine {ce_cpu:,.0f} "
          f"({c_cpu / ce_cpu:,.0f} x)")
    try:
        kernel_steps, engine_steps = vector_rates()
    except ImportError:
        print("(no Gymnasium: no vector env figures)")
    else:
        print(f"ChaseTheAceVector-v0 (256 tables) {kernel_steps:,.0f} agent steps/s CPU; "
              f"ChaseTheAce-v0 in SyncVectorEnv (16) {engine_steps:,.0f}")
    if args.big:
        wall = time.perf_counter()
        result = fast_simulate(SimConfig(rules, BOTS, seed=1, hands=100_000_000), workers=2, engine="fast")
        wall = time.perf_counter() - wall
        print(f"simulate --engine fast --hands 100000000 --workers 2: {wall:.1f} s "
              f"({result.tally.hands / wall:,.0f} hands/s wall)")


if __name__ == "__main__":
    main()
