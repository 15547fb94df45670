"""How much CountingBot gains over ThresholdBot(8) where knowledge matters, with 95% intervals.

Run: python benchmarks/bots.py [--games N]
Two CountingBots and three ThresholdBots at a 5-player table; for each rule set, the lives lost per
hand played by each kind of bot, and the share of games each kind won (40% is par for two seats).
"""

from __future__ import annotations

import argparse
import math
import random
from collections import Counter

import chasetheace as cta

KINDS = ["counting", "threshold:8", "counting", "threshold:8", "threshold:8"]
TABLES = {
    "standard": cta.Rules(),
    "announce_low": cta.Rules(announce_low=True),
    "chase-the-ace (to-bottom)": cta.Rules.preset("chase-the-ace"),
    "chase-the-ace, 32 cards, 5 lives": cta.Rules.preset("chase-the-ace").replace(deck=32, lives=5),
}


def _interval(p: float, n: int) -> float:
    return 1.96 * math.sqrt(p * (1 - p) / n) if n else 0.0


def measure(rules: cta.Rules, games: int, seed: int = 1) -> None:
    lost: Counter[str] = Counter()
    played: Counter[str] = Counter()
    wins: Counter[str] = Counter()
    rng = random.Random(seed)
    for i in range(games):
        game = cta.Game(rules, len(KINDS), seed=rng.randrange(2**32))
        cta.play_game(game, [cta.make_bot(k, rules, len(KINDS)) for k in KINDS], seed=i)
        for e in game.events:
            if isinstance(e, cta.events.HandStarted):
                played.update(KINDS[s] for s in e.order)
            elif isinstance(e, cta.events.LivesLost):
                lost.update(KINDS[s] for s, _ in e.payments)
        wins.update(KINDS[s] for s in game.winners)
    for kind in ("counting", "threshold:8"):
        rate = lost[kind] / played[kind]
        share = wins[kind] / games
        print(f"  {kind:12} lives lost per hand {rate:.4f} ± {_interval(rate, played[kind]):.4f}   "
              f"games won {share:.3f} ± {_interval(share, games):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    args = parser.parse_args()
    for name, rules in TABLES.items():
        print(f"{name} ({args.games} games)")
        measure(rules, args.games)


if __name__ == "__main__":
    main()
