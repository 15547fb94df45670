"""Hands per second through the engine, bots deciding from observations, events recorded.

Run: python benchmarks/engine.py [--hands N]
Prints one line per configuration: 5 players, ThresholdBot(8) at every seat; standard rules,
and a heavy option mix (pairing, announce_low, to-bottom, kings_jerk). A second pair of lines
drives the same games with the decision made from the seat's own card read straight from the game
(the engine alone, no observations built), to show what building observations costs.
"""

from __future__ import annotations

import argparse
import random
import time

import chasetheace as cta

CONFIGS = {
    "standard": cta.Rules(),
    "heavy mix": cta.Rules(pairing=True, announce_low=True, between_hands="to-bottom", kings_jerk=True),
}


def run(rules: cta.Rules, hands: int, *, observe: bool, seed: int = 1) -> tuple[int, float]:
    """Play whole games until ``hands`` hands are done; return (hands, seconds)."""
    bot = cta.ThresholdBot(8)
    rng = random.Random(seed)
    done = 0
    start = time.perf_counter()
    while done < hands:
        game = cta.Game(rules, players=5, rng=random.Random(rng.randrange(2**32)))
        if observe:
            cta.play_game(game, [bot] * 5, rng=rng)
        else:
            strength, keep_from = rules.strength, rules.strength(8)
            while game.to_act is not None:
                card = game.card(game.to_act)
                assert card is not None
                game.act("keep" if strength(card) >= keep_from else "swap")
        done += game.hand
    return done, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000)
    args = parser.parse_args()
    for name, rules in CONFIGS.items():
        for observe in (True, False):
            hands, seconds = run(rules, args.hands, observe=observe)
            how = "observations" if observe else "engine alone"
            print(f"{name:10} {how:13} {hands / seconds:10,.0f} hands/s  ({hands} hands, {seconds:.2f} s)")


if __name__ == "__main__":
    main()
