"""OpenSpiel's CFR on a small Chase the Ace, compared with ThresholdBot.

Three players, one hand, dealt from a reduced pack (``--cards``). CFR learns a policy for every
seat; the script then prints, exactly (by walking the game tree), how many lives a seat loses per
hand with each policy against ThresholdBots, and how exploitable each profile is (NashConv: the
total gain players could make by switching to a best response; 0 at a Nash equilibrium).

    python examples/cfr_vs_threshold.py --iterations 100
"""

from __future__ import annotations

import argparse
import time

import pyspiel
from open_spiel.python.algorithms import cfr, expected_game_score, exploitability

from chasetheace.adapters.openspiel import BotPolicy


def main(argv: list[str] | None = None) -> None:
    """Train CFR and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=100, help="CFR iterations (default 100)")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--cards", default="Kc Qc 9c 7c 3c Ac", help="the reduced pack dealt from")
    parser.add_argument("--threshold", default="8", help="ThresholdBot swaps below this rank")
    args = parser.parse_args(argv)

    game = pyspiel.load_game("python_chase_the_ace", {"players": args.players, "cards": args.cards})
    start = time.perf_counter()
    solver = cfr.CFRSolver(game)
    for _ in range(args.iterations):
        solver.evaluate_and_update_policy()
    learned = solver.average_policy()
    seconds = time.perf_counter() - start
    bots = BotPolicy(game, f"threshold:{args.threshold}")
    root = game.new_initial_state()
    n = game.num_players()

    def lives(seat_policy: object) -> float:
        values = expected_game_score.policy_value(root, [seat_policy] + [bots] * (n - 1))
        return float(values[0])

    print(f"CFR: {args.iterations} iterations in {seconds:.1f} s on {n} players, cards {args.cards}")
    print(f"seat 0 lives per hand against ThresholdBot({args.threshold}) seats:")
    print(f"  ThresholdBot({args.threshold}) {lives(bots):+.4f}")
    print(f"  CFR policy      {lives(learned):+.4f}")
    print("NashConv (lives per hand, lower is closer to equilibrium):")
    print(f"  ThresholdBot({args.threshold}) {exploitability.nash_conv(game, bots):.4f}")
    print(f"  CFR policy      {exploitability.nash_conv(game, learned):.4f}")


if __name__ == "__main__":
    main()
