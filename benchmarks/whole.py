"""Time and memory of the whole-game solver (``cta.solve_game``), per player count and lives.

    python benchmarks/whole.py                         # 2-5 players on 1-2 lives; 2-4 players on 3-4 lives
    python benchmarks/whole.py --players 5 --lives 2   # one configuration
    python benchmarks/whole.py --hands                 # only the hand models: size, time, memory

Every configuration runs in a process of its own and prints its wall-clock and CPU seconds (the CPU
figure is the one to compare on a busy machine), its peak memory (resident set), how many lives
states it solved, the CFR iterations run over all of them, and the largest exact NashConv of a
state's hand (in chance of winning the game; the target is 1e-5). ``--hands`` prints the size of
one hand's model per player count: the merged tree that remembers who holds the weakest card
(:class:`chasetheace.solver.model.outcome_tree.OutcomeTree`) and, up to 4 players, the list of every path
of play it replaced (:class:`chasetheace.solver.methods.whole_game.HandPaths`), each with the time and peak
memory to build it and the time of one pass (values of every information set).

Measured on the shared 2-core machine (CPU seconds; wall clock was up to 15 times longer there):

    players lives  CPU s  peak GB  states  NashConv
          4     1    1.6     0.22       3  9.7e-06   (the list of paths: about 100 s, 1.8 GB)
          5     1   27.1     2.61       4  9.7e-06
          5     2   80.2     2.61      60  1.0e-05
          5     3   1292     2.61     360  1.0e-05   (``--players 5 --lives 3``, not in the default run)
          4     3   30.9     0.22     117  1.0e-05
          4     4   71.5     0.22     336  1.0e-05
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np

import chasetheace as cta
from chasetheace.solver.methods.game_limits import max_lives
from chasetheace.solver.methods.whole_game import HandPaths, solve_game
from chasetheace.solver.model.hand import Hand
from chasetheace.solver.model.outcome_tree import OutcomeTree

DEFAULT = [(2, 1), (3, 1), (4, 1), (5, 1), (2, 2), (3, 2), (4, 2), (5, 2), (2, 3), (3, 3), (4, 3),
           (2, 4), (3, 4), (4, 4)]
"""Each a few minutes at most; ``--players 5 --lives 3`` takes about 20 minutes."""


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def child_game(players: int, lives: int) -> None:
    start, cpu = time.perf_counter(), time.process_time()
    sol = solve_game(cta.Rules(), players, lives=lives)
    print(json.dumps(dict(seconds=time.perf_counter() - start, cpu=time.process_time() - cpu,
                          peak_gb=peak_gb(), states=len(sol.states),
                          iterations=sum(s.iterations for s in sol.states.values()),
                          nash_conv=sol.nash_conv)))


def child_hand(players: int, model: str) -> None:
    start, cpu = time.perf_counter(), time.process_time()
    hand = Hand(cta.Rules(), players)
    built = OutcomeTree(hand) if model == "tree" else HandPaths(hand)
    build = time.process_time() - cpu
    size = built.node_count if isinstance(built, OutcomeTree) else built.paths
    keep = np.full(len(built.infosets), 0.5)
    utility = built.utilities(np.ones((len(built.outcomes), players)))
    t0 = time.process_time()
    built.cfv(keep, utility)
    print(json.dumps(dict(seconds=time.perf_counter() - start, build=build, size=size,
                          infosets=len(built.infosets), outcomes=len(built.outcomes),
                          edges=built.edge_count if isinstance(built, OutcomeTree) else 0,
                          one_pass=time.process_time() - t0, peak_gb=peak_gb())))


def run(args: list[str]) -> dict[str, float] | None:
    done = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True)
    if done.returncode != 0:
        print(f"  failed: {done.stderr.strip().splitlines()[-1:]}")
        return None
    out: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def hands(counts: list[int]) -> None:
    print("One hand's model, standard rules (CPU seconds; peak memory of the whole process)")
    print(f"{'players':>7} {'model':>6} {'nodes/paths':>12} {'edges':>10} {'infosets':>8} {'outcomes':>8} "
          f"{'build s':>8} {'pass s':>7} {'peak GB':>7}")
    for n in counts:
        for model in ("tree", "paths"):
            if model == "paths" and n > 4:
                print(f"{n:>7} {model:>6} not built: 150 M paths at 5 players")
                continue
            r = run(["hand", str(n), model])
            if r is not None:
                print(f"{n:>7} {model:>6} {r['size']:>12,.0f} {r['edges']:>10,.0f} {r['infosets']:>8,.0f} "
                      f"{r['outcomes']:>8.0f} {r['build']:>8.1f} {r['one_pass']:>7.3f} {r['peak_gb']:>7.2f}",
                      flush=True)


def games(configs: list[tuple[int, int]]) -> None:
    print("cta.solve_game(Rules(), players, lives=L), each lives state's hand to exact NashConv <= 1e-5")
    print(f"{'players':>7} {'lives':>5} {'wall s':>8} {'CPU s':>8} {'peak GB':>7} {'states':>6} "
          f"{'iterations':>10} {'NashConv':>9}")
    for n, lives in configs:
        r = run(["game", str(n), str(lives)])
        if r is not None:
            print(f"{n:>7} {lives:>5} {r['seconds']:>8.1f} {r['cpu']:>8.1f} {r['peak_gb']:>7.2f} "
                  f"{r['states']:>6.0f} {r['iterations']:>10.0f} {r['nash_conv']:>9.1e}", flush=True)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        if sys.argv[2] == "game":
            child_game(int(sys.argv[3]), int(sys.argv[4]))
        else:
            child_hand(int(sys.argv[3]), sys.argv[4])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="*")
    parser.add_argument("--lives", type=int, nargs="*")
    parser.add_argument("--hands", action="store_true", help="only the hand models")
    args = parser.parse_args()
    if args.hands:
        hands(args.players or [2, 3, 4, 5])
        return
    configs = DEFAULT
    if args.players or args.lives:
        configs = [(n, lives) for n in (args.players or [2, 3, 4, 5])
                   for lives in (args.lives or [1, 2, 3, 4]) if lives <= max_lives(n)]
    games(configs)


if __name__ == "__main__":
    main()
