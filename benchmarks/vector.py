"""Agent steps per second of ``ChaseTheAceVector-v0``, beside the kernel's hand rate and Gymnasium's
``SyncVectorEnv`` over ``ChaseTheAce-v0`` at the same sizes, in one run.

    python benchmarks/vector.py [--players 5] [--tables 64 256] [--steps 200000] [--rounds 5]

Standard rules, threshold:8 at the other seats, the agent's actions drawn at random beforehand.
The vector env is timed through ``step`` as a learner calls it, made as a user makes it
(``gym.make_vec``): with ``copy=True`` (the default: each step returns a new array of observations,
the caller's own) and ``copy=False`` (the env's own array, overwritten at the next step); and its
core alone (the compiled step of every table into the env's own array, without Gymnasium's step
and info). The figures alternate in rounds, each round timing every one in turn, and each figure is
its best round (the one least disturbed by other processes: on a shared machine a step's arrays
leave the cache whenever another process runs). Prints CPU time (``time.process_time``: the figure
that depends least on the other processes) and wall time, and the load average.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

import chasetheace as cta
import chasetheace.adapters.gymnasium  # registers both ids
from chasetheace.fast import compile_bots, play_chunk

Rates = tuple[float, float]  # per CPU second, per wall second


def timed(run: Callable[[], int]) -> Rates:
    """``run()``'s count per CPU second and per wall second."""
    cpu, wall = time.process_time(), time.perf_counter()
    count = run()
    return count / (time.process_time() - cpu), count / (time.perf_counter() - wall)


def kernel_hands(players: int, hands: int) -> Callable[[], int]:
    """A run of the kernel: about ``hands`` hands, threshold:8 at every seat, whole games."""
    rules = cta.Rules()
    policies = compile_bots(("threshold:8",) * players, rules)
    play_chunk(rules, policies, seed=0, hands=1000)  # compiled or loaded from the cache
    seeds = iter(range(1, 1 << 30))
    return lambda: play_chunk(rules, policies, seed=next(seeds), hands=hands).hands


def steps_of(step: Callable[[Any], Any], tables: int, steps: int) -> Callable[[], int]:
    """A run of ``steps`` agent steps (at least 20 calls) through ``step``, warmed first."""
    calls = max(20, steps // tables)
    actions = np.random.default_rng(0).integers(0, 2, (calls, tables))
    for row in actions[:10]:
        step(row)

    def run() -> int:
        for row in actions:
            step(row)
        return calls * tables
    return run


def vector_env(players: int, tables: int, copy: bool | None) -> Any:
    """``ChaseTheAceVector-v0`` as a user makes it (``copy`` None: not given, the default)."""
    options: dict[str, Any] = {} if copy is None else {"copy": copy}
    envs = gym.make_vec("ChaseTheAceVector-v0", num_envs=tables, players=players,
                        opponents="threshold:8", **options)
    envs.reset(seed=0)
    return envs


def sync_env(players: int, tables: int) -> Any:
    """``ChaseTheAce-v0`` in Gymnasium's SyncVectorEnv."""
    envs = gym.make_vec("ChaseTheAce-v0", num_envs=tables, vectorization_mode="sync",
                        players=players, opponents="threshold:8")
    envs.reset(seed=0)
    return envs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--tables", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--steps", type=int, default=200_000, help="vector env steps per round")
    parser.add_argument("--sync-steps", type=int, default=1_000, help="SyncVectorEnv steps per round")
    parser.add_argument("--hands", type=int, default=1_000_000, help="kernel hands per round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    n = args.players
    runs: dict[str, Callable[[], int]] = {
        "kernel, hands (play_chunk, every seat a bot)": kernel_hands(n, args.hands)}
    for tables in args.tables:
        default, shared = vector_env(n, tables, None), vector_env(n, tables, False)
        runs[f"ChaseTheAceVector-v0 x{tables} (default, copy=True)"] = steps_of(
            default.step, tables, args.steps)
        runs[f"ChaseTheAceVector-v0 x{tables}, copy=False"] = steps_of(shared.step, tables, args.steps)
        runs[f"  its core's step alone x{tables}"] = steps_of(
            shared.unwrapped.core.step, tables, args.steps)
        runs[f"SyncVectorEnv(ChaseTheAce-v0) x{tables}"] = steps_of(
            sync_env(n, tables).step, tables, args.sync_steps)
    load = os.getloadavg()
    best = {name: (0.0, 0.0) for name in runs}
    for _ in range(args.rounds):
        for name, run in runs.items():
            cpu, wall = timed(run)
            best[name] = (max(best[name][0], cpu), max(best[name][1], wall))
    after = os.getloadavg()
    print(f"{n} players, standard rules, threshold:8 opponents; best of {args.rounds} rounds; load "
          f"average {' '.join(f'{x:.2f}' for x in load)} before, {' '.join(f'{x:.2f}' for x in after)} "
          f"after, on {os.cpu_count()} cores")
    print(f"{'':46} {'per CPU s':>12} {'per wall s':>12} {'x kernel':>9}")
    kernel = next(iter(best.values()))[0]
    for name, (cpu, wall) in best.items():
        print(f"{name:46} {cpu:12,.0f} {wall:12,.0f} {cpu / kernel:9.4f}")
    print("(agent steps per second; one agent step plays the other seats on to its next decision;\n"
          " x kernel: per CPU second, against the kernel's hands per CPU second in this run)")


if __name__ == "__main__":
    main()
