"""Tabular Q-learning in the Gymnasium environment, compared with ThresholdBot in the same seat.

The agent holds seat 0 of a 3-player table (piquet pack, one hand per episode) against two
ThresholdBots. Its Q-table is keyed by the observation vector itself. After training, the greedy
policy, ThresholdBot and a random player each play the agent's seat on the same evaluation deals
(the same reset seeds), and the script prints the lives each loses per hand.

    python examples/qlearning_gym.py --episodes 20000
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict
from collections.abc import Callable

import numpy as np

import chasetheace as cta
from chasetheace.adapters.gymnasium import ChaseTheAceEnv, env

Policy = Callable[[ChaseTheAceEnv, np.ndarray], int]


def train(table: ChaseTheAceEnv, episodes: int, seed: int, alpha: float = 0.1,
          epsilon: float = 0.1) -> dict[bytes, list[float]]:
    """Q-learning with an epsilon-greedy behaviour policy (one hand per episode, no discount)."""
    q: dict[bytes, list[float]] = defaultdict(lambda: [0.0, 0.0])
    rng = random.Random(seed)
    for i in range(episodes):
        obs, _ = table.reset(seed=seed * 1_000_003 + i)
        done = False
        while not done:
            key = obs.tobytes()
            action = rng.randrange(2) if rng.random() < epsilon else int(np.argmax(q[key]))
            obs, reward, done, _, _ = table.step(action)
            target = reward if done else reward + max(q[obs.tobytes()])
            q[key][action] += alpha * (target - q[key][action])
    return q


def evaluate(table: ChaseTheAceEnv, policy: Policy, deals: int) -> float:
    """Mean reward per hand of ``policy`` in the agent's seat, on deals 0..deals-1."""
    total = 0.0
    for i in range(deals):
        obs, _ = table.reset(seed=i)
        done = False
        while not done:
            obs, reward, done, _, _ = table.step(policy(table, obs))
            total += float(reward)
    return total / deals


def main(argv: list[str] | None = None) -> None:
    """Train, evaluate, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20000, help="training hands (default 20000)")
    parser.add_argument("--deals", type=int, default=5000, help="evaluation hands (default 5000)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    table = env(players=3, seat=0, opponents="threshold:8", single_hand=True, deck=32)
    q = train(table, args.episodes, args.seed)
    bot = cta.ThresholdBot(8)
    coin = random.Random(args.seed)

    def greedy(t: ChaseTheAceEnv, obs: np.ndarray) -> int:
        values = q.get(obs.tobytes())
        return 0 if values is None else int(np.argmax(values))

    def threshold(t: ChaseTheAceEnv, obs: np.ndarray) -> int:
        seen = t.episode.observation(t.seat)  # the bot reads its seat's engine observation
        return int(bot.choose(seen, list(cta.Action), coin) is cta.Action.SWAP)

    print(f"Q-learning: {args.episodes} training hands, {len(q)} observations seen")
    print(f"seat 0 lives per hand on {args.deals} deals, against two ThresholdBot(8):")
    for name, policy in (("Q-learning greedy", greedy), ("ThresholdBot(8)", threshold),
                         ("random", lambda t, o: coin.randrange(2))):
        print(f"  {name:18} {evaluate(table, policy, args.deals):+.4f}")


if __name__ == "__main__":
    main()
