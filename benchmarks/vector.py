"""Agent steps per second of ``ChaseTheAceVector-v0``, beside the kernel's hand rate and Gymnasium's
``SyncVectorEnv`` over ``ChaseTheAce-v0`` at the same sizes, in one run.

    python benchmarks/vector.py [--players 5] [--tables 64 256] [--steps 100000]

Standard rules, threshold:8 at the other seats, the agent's actions drawn at random beforehand.
The vector env is timed through ``step`` as a learner calls it, with ``copy=True`` (the default:
each step returns a new array of observations, the caller's own) and ``copy=False`` (the env's own
array, overwritten at the next step), and its core alone (the compiled step of every table into the
env's own array, without Gymnasium's step and info). Prints CPU time
(``time.process_time``: on a shared machine the figure that depends least on the other processes)
and wall time, and the load average.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import gymnasium as gym
import numpy as np

import chasetheace as cta
import chasetheace.adapters.gymnasium  # registers both ids
from chasetheace.fast import compile_bots, play_chunk


def timed(run: Any) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of ``run()``."""
    cpu, wall = time.process_time(), time.perf_counter()
    run()
    return time.process_time() - cpu, time.perf_counter() - wall


def kernel_hands(players: int, hands: int) -> tuple[float, float]:
    """The kernel's hands per CPU and per wall second, threshold:8 at every seat, whole games."""
    rules = cta.Rules()
    policies = compile_bots(("threshold:8",) * players, rules)
    play_chunk(rules, policies, seed=0, hands=1000)  # compiled or loaded from the cache
    done = []
    cpu, wall = timed(lambda: done.append(play_chunk(rules, policies, seed=1, hands=hands).hands))
    return done[0] / cpu, done[0] / wall


def vector_steps(players: int, tables: int, steps: int, copy: bool,
                 core_only: bool = False) -> tuple[float, float]:
    """Agent steps per CPU and per wall second of ``ChaseTheAceVector-v0`` (``core_only``: its
    compiled core's step alone)."""
    envs = gym.make_vec("ChaseTheAceVector-v0", num_envs=tables, players=players,
                        opponents="threshold:8", copy=copy)
    envs.reset(seed=0)
    calls = max(20, steps // tables)
    actions = np.random.default_rng(0).integers(0, 2, (calls, tables))
    step = envs.unwrapped.core.step if core_only else envs.step  # type: ignore[attr-defined]
    for row in actions[:10]:  # warm
        step(row)

    def run() -> None:
        for row in actions:
            step(row)
    cpu, wall = timed(run)
    envs.close()
    return calls * tables / cpu, calls * tables / wall


def sync_steps(players: int, tables: int, steps: int) -> tuple[float, float]:
    """Agent steps per CPU and per wall second of ``ChaseTheAce-v0`` in Gymnasium's SyncVectorEnv."""
    envs = gym.make_vec("ChaseTheAce-v0", num_envs=tables, vectorization_mode="sync",
                        players=players, opponents="threshold:8")
    envs.reset(seed=0)
    calls = max(5, steps // tables)
    actions = np.random.default_rng(0).integers(0, 2, (calls, tables))

    def run() -> None:
        for row in actions:
            envs.step(row)
    cpu, wall = timed(run)
    envs.close()
    return calls * tables / cpu, calls * tables / wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--tables", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--steps", type=int, default=200_000, help="vector env steps per figure")
    parser.add_argument("--sync-steps", type=int, default=3_000, help="SyncVectorEnv steps per figure")
    parser.add_argument("--hands", type=int, default=5_000_000, help="kernel hands")
    args = parser.parse_args()
    n = args.players
    print(f"{n} players, standard rules, threshold:8 opponents; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    print(f"{'':44} {'per CPU s':>12} {'per wall s':>12}")
    cpu, wall = kernel_hands(n, args.hands)
    print(f"{'kernel, hands (play_chunk, every seat a bot)':44} {cpu:12,.0f} {wall:12,.0f}")
    for tables in args.tables:
        rows = [
            (f"ChaseTheAceVector-v0 x{tables}, copy=True", vector_steps(n, tables, args.steps, True)),
            (f"ChaseTheAceVector-v0 x{tables}, copy=False", vector_steps(n, tables, args.steps, False)),
            (f"  its core's step alone x{tables}", vector_steps(n, tables, args.steps, False, True)),
            (f"SyncVectorEnv(ChaseTheAce-v0) x{tables}", sync_steps(n, tables, args.sync_steps)),
        ]
        for name, (cpu, wall) in rows:
            print(f"{name:44} {cpu:12,.0f} {wall:12,.0f}")
    print("(agent steps per second; one agent step plays the other seats on to its next decision)")


if __name__ == "__main__":
    main()
