"""Hands per second through the engine, bots deciding from observations, events recorded.

Run: python benchmarks/engine.py [--hands N]
Prints one line per configuration: 5 players, ThresholdBot(8) at every seat; standard rules,
and a heavy option mix (pairing, announce_low, to-bottom, kings_jerk). A second pair of lines
drives the same games with the decision made from the seat's own card read straight from the game
(the engine alone, no observations built), to show what building observations costs. Then a plain
loop of the standard games (a yardstick: the same hands with nothing but the rules, in plain
Python) and the engine's rate with observations as a ratio of it. Rates are per CPU second
(``time.process_time``: on a shared machine the figure that depends least on other processes).
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
    start = time.process_time()
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
    return done, time.process_time() - start


def plain(hands: int, seed: int = 1) -> tuple[int, float]:
    """The standard game's hands in a plain loop (5 players, 3 lives, threshold 8 everywhere, a
    random first dealer, a fresh shuffle each hand, the dealer cutting the stock): the yardstick
    for the engine. Cards are 0..51 (rank - 1 = card >> 2; under king-high the rank is the
    strength). Returns (hands, CPU seconds)."""
    rng = random.Random(seed)
    n, keep_from, king = 5, 8, 12  # king: the blocker's rank - 1
    done = 0
    start = time.process_time()
    while done < hands:
        lives, kitty = [3] * n, 0
        dealer = rng.randrange(n)
        cards = list(range(52))
        while True:
            done += 1
            rng.shuffle(cards)
            seats = [s for s in range(n) if lives[s]]
            i = seats.index(dealer) + 1
            order = seats[i:] + seats[:i]  # from the dealer's left, the dealer last
            k = len(order)
            held = cards[:k]
            t = 0
            while t < k - 1:
                card = held[t]
                if card >> 2 == king or (card >> 2) + 1 >= keep_from:  # shows a king, or keeps
                    t += 1
                elif held[t + 1] >> 2 == king:  # blocked: the neighbour's turn is done too
                    t += 2
                else:
                    held[t], held[t + 1] = held[t + 1], card
                    t += 1
            card = held[-1]
            if t == k - 1 and card >> 2 != king and (card >> 2) + 1 < keep_from:
                held[-1] = cards[k + rng.randrange(52 - k)]  # the dealer cuts the stock
            low = min(c >> 2 for c in held)
            losers = [order[j] for j in range(k) if held[j] >> 2 == low]
            for s in losers:
                lives[s] -= 1
                kitty += 1
            if all(lives[s] == 0 for s in order):  # everyone in the hand out: replayed
                for s in losers:
                    lives[s] += 1
                    kitty -= 1
            if sum(1 for s in order if lives[s]) == 1:
                break
            dealer = (dealer + 1) % n
            while not lives[dealer]:
                dealer = (dealer + 1) % n
    return done, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5, help="rounds of the ratio (default 5)")
    args = parser.parse_args()
    for name, rules in CONFIGS.items():
        for observe in (True, False):
            hands, seconds = run(rules, args.hands, observe=observe)
            how = "observations" if observe else "engine alone"
            print(f"{name:10} {how:13} {hands / seconds:10,.0f} hands/s CPU  "
                  f"({hands} hands, {seconds:.2f} s)")
    # the ratio: the engine with observations and the plain loop alternating, in rounds, the best
    # round of each (the one least disturbed by other processes)
    engine_best = plain_best = 0.0
    for _ in range(args.rounds):
        hands, seconds = run(CONFIGS["standard"], args.hands // args.rounds, observe=True)
        engine_best = max(engine_best, hands / seconds)
        hands, seconds = plain(args.hands // args.rounds)
        plain_best = max(plain_best, hands / seconds)
    print(f"{'standard':10} {'plain loop':13} {plain_best:10,.0f} hands/s CPU  "
          f"(best of {args.rounds} rounds)")
    print(f"the engine with observations at {engine_best:,.0f} hands/s CPU (best of {args.rounds} rounds): "
          f"{engine_best / plain_best:.3f}x the plain loop (standard rules)")


if __name__ == "__main__":
    main()
