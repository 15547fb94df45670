"""Random playouts per second through each adapter, beside the engine's own rate.

    python benchmarks/adapters.py [--seconds 2] [--players 4]

Every playout chooses keep or swap uniformly at random. "hand" rows play one hand from a new game;
"game" rows play whole games (hands until one player is left); "resample" counts calls of
resample_from_infostate. Figures depend on the machine.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import chasetheace as cta


def rate(run: Callable[[int], int], seconds: float) -> tuple[float, float]:
    """Playouts per second and hands per second of ``run(i) -> hands played``, over ``seconds``."""
    start = time.perf_counter()
    playouts = hands = 0
    while time.perf_counter() - start < seconds:
        hands += run(playouts)
        playouts += 1
    elapsed = time.perf_counter() - start
    return playouts / elapsed, hands / elapsed


def engine_game(players: int) -> Callable[[int], int]:
    """The engine alone, whole games."""
    rng = random.Random(1)

    def run(i: int) -> int:
        game = cta.Game(cta.Rules(), players, seed=i)
        while not game.over:
            game.act(rng.choice(("keep", "swap")))
        return game.hand
    return run


def engine_hand(players: int) -> Callable[[int], int]:
    """The engine alone, one hand of a new game."""
    rng = random.Random(1)

    def run(i: int) -> int:
        game = cta.Game(cta.Rules(), players, seed=i)
        while game.hand == 1 and not game.over:
            game.act(rng.choice(("keep", "swap")))
        return 1
    return run


def openspiel_hand(players: int) -> Callable[[int], int]:
    """OpenSpiel's python_chase_the_ace: one hand, chance sampled like any OpenSpiel game."""
    import numpy as np
    import pyspiel

    import chasetheace.adapters.openspiel  # noqa: F401 (registers the game)

    game = pyspiel.load_game("python_chase_the_ace", {"players": players})
    rng = np.random.default_rng(1)

    def run(i: int) -> int:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
            else:
                state.apply_action(int(rng.integers(2)))
        return 1
    return run


def openspiel_resample(players: int) -> Callable[[int], int]:
    """OpenSpiel's resample_from_infostate at every decision of random hands (one per playout)."""
    import numpy as np
    import pyspiel

    import chasetheace.adapters.openspiel  # noqa: F401 (registers the game)

    game = pyspiel.load_game("python_chase_the_ace", {"players": players})
    rng = np.random.default_rng(2)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    state = game.new_initial_state()

    def run(i: int) -> int:
        nonlocal state
        while True:
            if state.is_terminal():
                state = game.new_initial_state()
            elif state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
            else:
                state.resample_from_infostate(state.current_player(), sampler)
                state.apply_action(int(rng.integers(2)))
                return 0
    return run


def pettingzoo(players: int, single_hand: bool) -> Callable[[int], int]:
    """PettingZoo's AEC loop, observing every agent at every step as a learner would."""
    from chasetheace.adapters.pettingzoo import env as make

    env = make(players=players, single_hand=single_hand)
    rng = random.Random(1)

    def run(i: int) -> int:
        env.reset(seed=i)
        for _ in env.agent_iter():
            _, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else rng.randrange(2))
        return 1 if single_hand else int(env.unwrapped.episode.game.hand)
    return run


def gymnasium(players: int, single_hand: bool) -> Callable[[int], int]:
    """Gymnasium: the agent in seat 0 plays at random against RandomBots."""
    from chasetheace.adapters.gymnasium import env as make

    env = make(players=players, opponents="random", single_hand=single_hand)
    rng = random.Random(1)

    def run(i: int) -> int:
        env.reset(seed=i)
        done = False
        while not done:
            _, _, done, _, info = env.step(rng.randrange(2))
        return 1 if single_hand else int(info["hand"])
    return run


def main() -> None:
    """Print a table of rates."""
    parser = argparse.ArgumentParser(description="random playouts per second through each adapter")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    n = args.players
    rows: list[tuple[str, Callable[[], Callable[[int], int]]]] = [
        ("engine, hand", lambda: engine_hand(n)),
        ("engine, game", lambda: engine_game(n)),
        ("openspiel, hand", lambda: openspiel_hand(n)),
        ("openspiel, resample", lambda: openspiel_resample(n)),
        ("pettingzoo, hand", lambda: pettingzoo(n, True)),
        ("pettingzoo, game", lambda: pettingzoo(n, False)),
        ("gymnasium, hand", lambda: gymnasium(n, True)),
        ("gymnasium, game", lambda: gymnasium(n, False)),
    ]
    print(f"{n} players, standard rules, random actions, {args.seconds:g} s each")
    print(f"{'':20} {'playouts/s':>11} {'hands/s':>9}")
    for name, make in rows:
        try:
            run = make()
        except ImportError as exc:
            print(f"{name:20} skipped ({exc.name} not installed)")
            continue
        playouts, hands = rate(run, args.seconds)
        print(f"{name:20} {playouts:11.0f} {hands:9.0f}")


if __name__ == "__main__":
    main()
