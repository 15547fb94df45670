"""Ace Chasing rounds per second, bots deciding from observations, events recorded.

Run: python benchmarks/acechasing.py [--rounds N]
Prints one line per configuration: the bots of every kind (odds: bets and answers by the
knockout chance; threshold: never bets; random), at tables of 5 and 20 players, whole games
played until N rounds are done; and one line that drives the state machine alone (every bettor
offers 0, everyone keeps, reading nothing), to show what the bots and observations cost.
"""

from __future__ import annotations

import argparse
import random
import time

import chasetheace as cta

CONFIGS = [("odds", 5), ("threshold:9", 5), ("random", 5), ("odds", 20)]


def run(spec: str | None, players: int, rounds: int, seed: int = 1) -> tuple[int, float]:
    """Play whole games until ``rounds`` rounds are done; return (rounds, seconds)."""
    rng = random.Random(seed)
    done = 0
    start = time.perf_counter()
    while done < rounds:
        game = cta.AceChasingGame(players, rng=random.Random(rng.randrange(2**32)))
        if spec is None:
            while game.to_act is not None:
                game.act("keep" if game.phase == "exchanges" else cta.Offer(0))
        else:
            bots = [cta.make_ace_chasing_bot(spec) for _ in range(players)]
            cta.play_ace_chasing_game(game, bots, rng=rng)
        done += game.round
    return done, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5_000)
    args = parser.parse_args()
    for spec, players in [*CONFIGS, (None, 5)]:
        rounds, seconds = run(spec, players, args.rounds)
        name = spec or "no bots"
        print(f"{name:12} {players:2} players {rounds / seconds:10,.0f} rounds/s  "
              f"({rounds} rounds, {seconds:.2f} s)")


if __name__ == "__main__":
    main()
