"""Solver speed: seconds to NashConv <= 1e-4 for one hand under standard rules, and OpenSpiel's DCFR.

    python benchmarks/solver.py                # 3, 4, 5 players (6: says why it is skipped)
    python benchmarks/solver.py --players 3 4  # some counts only
    python benchmarks/solver.py --openspiel-seconds 300

Part 1 times the exact solver end to end (building the tree included) until the NashConv of the
average strategy is <= 1e-4 (checked every 5 iterations), with DCFR and predictive CFR+, on 1 and
2 threads, and prints the NashConv reached, recomputed in double precision on the whole tree.

Part 2 compares like with like: OpenSpiel's discounted CFR (``DCFRSolver``, the same alpha 1.5,
beta 0, gamma 2 as ours) on the same game through the OpenSpiel adapter
(``chasetheace.adapters.openspiel``, game ``python_chase_the_ace``) when it is importable; with
``--openspiel-vanilla`` also its vanilla ``CFRSolver``. OpenSpiel walks the whole card-level tree in
Python, which is far out of reach for the 52-card pack, so the comparison is made on a small pack
(A, 5, 9, K, two of each, the king blocking) that both can solve: each is run to the same NashConv
and timed.
"""

from __future__ import annotations

import argparse
import time

import chasetheace as cta
from chasetheace.solver.cfr import Engine, run_cfr
from chasetheace.solver.hand import Deck, Hand
from chasetheace.solver.tree import Tree

TARGET = 1e-4
SMALL = Deck((2, 2, 2, 2), (1, 5, 9, 13), 3)
SMALL_CARDS = "Ac Ad 5c 5d 9c 9d Kc Kd"


def part1(counts: list[int], sampled_seconds: float) -> None:
    print(f"Part 1: standard rules, one hand, seconds to exact NashConv <= {TARGET:g} (lives)")
    print(f"{'players':>7} {'method':>6} {'workers':>7} {'seconds':>8} {'iters':>5} {'NashConv':>10} "
          f"{'nodes':>9} {'edges':>9} {'infosets':>8}")
    for n in counts:
        if n > cta.solver.AUTO_EXACT_PLAYERS:
            sol = cta.solve(cta.Rules(), n, method="sampled", time_limit=sampled_seconds)
            print(f"{n:>7} sampled for {sol.seconds:.0f} s ({sol.iterations} batches of 2000 hands): "
                  f"estimated NashConv {sol.nash_conv:.2e} +- {sol.nash_conv_error:.1e}", flush=True)
        if n > cta.solver.MAX_EXACT_PLAYERS:
            continue
        runs = [("dcfr", 2)]
        if n <= cta.solver.AUTO_EXACT_PLAYERS:
            runs = [("dcfr", 1), ("dcfr", 2), ("pcfr+", 2)]
        for method, workers in runs:
            start = time.perf_counter()
            tree = Tree(Hand(cta.Rules(), n))
            engine = Engine(tree, workers)
            sigma, progress = run_cfr(engine, iterations=2000, tolerance=TARGET, method=method,
                                      check_every=5, start=start)
            # the iterations run in single precision: the figure printed is recomputed in double
            nash_conv = float(engine.gains(sigma, engine.evaluate(sigma, precise=True).cfv).sum())
            print(f"{n:>7} {method:>6} {workers:>7} {progress.seconds:8.2f} {progress.iterations:5d} "
                  f"{nash_conv:10.2e} {tree.node_count:9d} {tree.edge_count:9d} "
                  f"{len(tree.infosets):8d}", flush=True)


def part2(players: int, budget: float, vanilla: bool) -> None:
    print()
    print(f"Part 2: OpenSpiel comparison, {players} players, pack {SMALL_CARDS}, standard rules")
    start = time.perf_counter()
    engine = Engine(Tree(Hand(cta.Rules(), players, SMALL)))
    _, ours = run_cfr(engine, iterations=5000, tolerance=TARGET, method="dcfr", check_every=5, start=start)
    print(f"  chasetheace.solve (DCFR): NashConv {ours.nash_conv:.2e} in {ours.seconds:.3f} s "
          f"({ours.iterations} iterations)")
    try:
        import pyspiel
        from open_spiel.python.algorithms import cfr, discounted_cfr, exploitability

        import chasetheace.adapters.openspiel  # noqa: F401  (registers the game)
    except ImportError as exc:
        print(f"  OpenSpiel: skipped ({exc}); install open_spiel and the OpenSpiel adapter to compare")
        return
    game = pyspiel.load_game("python_chase_the_ace",
                             {"players": players, "cards": SMALL_CARDS, "dealer": players - 1})
    solvers = [("DCFR", discounted_cfr.DCFRSolver)]
    if vanilla:
        solvers.append(("vanilla CFR", cfr.CFRSolver))
    for name, make in solvers:
        start = time.perf_counter()
        solver = make(game)
        iterations, nash_conv = 0, float("inf")
        while time.perf_counter() - start < budget:
            for _ in range(5):
                solver.evaluate_and_update_policy()
            iterations += 5
            nash_conv = exploitability.nash_conv(game, solver.average_policy())
            if nash_conv <= ours.nash_conv:
                break
        seconds = time.perf_counter() - start
        reached = "reached" if nash_conv <= ours.nash_conv else f"stopped at the {budget:g} s budget, at"
        print(f"  OpenSpiel {name} (python_chase_the_ace): {reached} NashConv {nash_conv:.2e} "
              f"in {seconds:.1f} s ({iterations} iterations)", flush=True)
        if nash_conv <= ours.nash_conv:
            print(f"  ratio of times (OpenSpiel {name} / ours): {seconds / ours.seconds:.0f}")
        else:
            print(f"  ratio of times (OpenSpiel {name} / ours): more than {seconds / ours.seconds:.0f} "
                  f"(OpenSpiel had not reached it)")


def main() -> None:
    """Run both parts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="*", default=[3, 4, 5, 6])
    parser.add_argument("--openspiel-players", type=int, default=3)
    parser.add_argument("--sampled-seconds", type=float, default=60.0)
    parser.add_argument("--openspiel-seconds", type=float, default=600.0)
    parser.add_argument("--openspiel-vanilla", action="store_true", help="also time OpenSpiel's vanilla CFR")
    args = parser.parse_args()
    part1(args.players, args.sampled_seconds)
    part2(args.openspiel_players, args.openspiel_seconds, args.openspiel_vanilla)


if __name__ == "__main__":
    main()
