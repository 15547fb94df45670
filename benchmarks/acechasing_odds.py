"""How well Ace Chasing's odds match real games: the matador's figure at the deal against how often it
is knocked out, at a table of one kind of bot, round 1 of seeded games on the engine.

Run: python benchmarks/acechasing_odds.py [--players N] [--games N] [--bot SPEC ...] [--seed S]

For each bot it prints the mean of the exact figure (``knockout_chance``: the players still to
exchange keeping 7 or more), the share of rounds in which the matador was knocked out, and the
difference in standard errors (z): near 0 where the table plays the figure's rule (``odds``,
``threshold``), far from it where it does not (``exact``, ``random``). With ``--estimate N`` it
also averages the sampled estimate (``chasetheace.acechasing.estimate``: the table's own bots
after the matador, N rounds each), which follows any table.
"""

from __future__ import annotations

import argparse
import math
import random
import time

import chasetheace as cta
from chasetheace.acechasing.estimate import estimate
from chasetheace.acechasing.odds import knockout_chance


def measure(spec: str, players: int, games: int, seed: int, samples: int) -> str:
    """One line: the figure, the sampled estimate (if ``samples``), and the real rate."""
    rng = random.Random(seed)
    bot = cta.make_ace_chasing_bot(spec)
    figure = variance = sampled = 0.0
    out = 0
    start = time.perf_counter()
    for _ in range(games):
        game = cta.AceChasingGame(players, seed=rng.getrandbits(32))
        view = game.observation(game.matador)
        p = knockout_chance(view)
        figure += p
        variance += p * (1 - p)
        if samples:
            sampled += estimate(view, bot, rng=random.Random(rng.getrandbits(32)),
                                samples=samples).matador_out
        while game.round == 1 and not game.over:
            seat = game.to_act
            assert seat is not None
            game.act(bot.choose(game.observation(seat), game.legal_actions(), rng))
        out += not game.alive[0]
    z = (out - figure) / math.sqrt(variance)
    line = (f"{spec:>10}  {players} players  {games:,} rounds: figure {figure / games:.1%}, "
            f"knocked out {out / games:.1%} (z {z:+.1f})")
    if samples:
        line += f", sampled estimate {sampled / games:.1%}"
    return line + f"  [{time.perf_counter() - start:.1f} s]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--bot", action="append", help="default: odds, threshold, exact, random")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--estimate", type=int, default=0, metavar="N",
                        help="also the sampled estimate, N rounds per game (slow)")
    args = parser.parse_args()
    for spec in args.bot or ["odds", "threshold", "exact", "random"]:
        print(measure(spec, args.players, args.games, args.seed, args.estimate), flush=True)


if __name__ == "__main__":
    main()
