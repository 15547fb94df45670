"""Solver speed, memory and exact NashConv for one hand under standard rules; and OpenSpiel's DCFR.

    python benchmarks/solver.py                     # 3 to 9 players, then OpenSpiel
    python benchmarks/solver.py --players 3 4       # some counts only
    python benchmarks/solver.py --players 7 8 --parts   # 7 and 8 players on the exact tree in parts (long)
    python benchmarks/solver.py --openspiel-seconds 300
    python benchmarks/solver.py --players 6 --numpy --no-openspiel  # without the compiled passes

Part 1 runs every configuration in a process of its own and prints its wall-clock and CPU seconds
(the CPU figure is the one to compare on a busy machine; the load average before the run is
printed beside them), its peak memory (resident set), the iterations, and the NashConv in lives
per hand, saying how it was measured. The passes over the exact tree are compiled where numba
(extra ``[fast]``) is installed, numpy otherwise or with ``--numpy`` (the header says which):

- ``dcfr`` (2 to 6 players): discounted CFR on the exact tree (true card removal), building the tree
  included, until the NashConv of the average strategy is <= 1e-4 (checked every 5 iterations); from
  3 players started from the strategy solved without card removal (as ``cta.solve`` does); the
  figure printed is recomputed in double precision: an exact best response.
- ``iid`` (6 to 9 players): discounted CFR on the hand without card removal (every card dealt
  independently from the full pack) to NashConv <= 1e-4 there, then the strategy measured by an
  exact best response on the exact tree of the true game: at 6 players in one piece, at 7 and 8
  (with ``--parts``) in 91 parts in worker processes (``chasetheace.solver.methods.parts``). From 9 players
  no exact best response is within reach: the NashConv printed is the one without card removal,
  labelled so.
- ``dcfr`` at 7 and 8 players (with ``--parts``): discounted CFR on the exact tree in parts, started
  from the ``iid`` strategy: at 7 until NashConv <= 1e-4 checked every 5 iterations, at 8 three
  iterations and one check (each pass over the 91 parts took 8 to 11 minutes on two workers).
  Every check is an exact best response in the true game. Use ``--workers 2``: the parts run in
  that many processes, and the CPU figure adds theirs.
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
import json
import os
import resource
import subprocess
import sys
import time

import chasetheace as cta
from chasetheace.solver.methods.cfr import Engine, run_cfr
from chasetheace.solver.model.hand import Deck, Hand
from chasetheace.solver.model.kernels import available
from chasetheace.solver.model.tree import Tree
from chasetheace.solver.solutions import choice, solving

TARGET = 1e-4
SMALL = Deck((2, 2, 2, 2), (1, 5, 9, 13), 3)
SMALL_CARDS = "Ac Ad 5c 5d 9c 9d Kc Kd"


def child(n: int, method: str, workers: int, parts: bool) -> None:
    """One configuration, in its own process: print one JSON line of figures."""
    start, cpu = time.perf_counter(), time.process_time()
    if method == "dcfr" and n >= 7:
        solving.MAX_PARTS_PLAYERS = max(solving.MAX_PARTS_PLAYERS, n)  # solve() reads its own name
        its, every = (2000, 5) if n == 7 else (3, 3)
        sol = cta.solve(cta.Rules(), n, method="dcfr", tolerance=TARGET, iterations=its, check_every=every,
                        workers=workers)
        out = dict(iterations=sol.iterations, nash_conv=sol.nash_conv, measured=sol.measured,
                   nodes=0, infosets=len(sol.infosets))
    elif method == "dcfr":
        # as cta.solve does it (from 3 players started from the strategy without card removal); the
        # iterations run in single precision, the NashConv is recomputed in double on the whole tree
        sol = cta.solve(cta.Rules(), n, method="dcfr", tolerance=TARGET, check_every=5, workers=workers)
        out = dict(iterations=sol.iterations, nash_conv=sol.nash_conv, measured=sol.measured,
                   nodes=0, infosets=len(sol.infosets))
    else:
        check = n <= 6 or (n in (7, 8) and parts)
        sol = cta.solve(cta.Rules(), n, method="iid", tolerance=TARGET, workers=workers, exact_check=check)
        out = dict(iterations=sol.iterations, nash_conv=sol.nash_conv, measured=sol.measured,
                   nodes=0, infosets=len(sol.infosets))
    # the exact tree in parts runs in worker processes: their CPU and peak memory count too
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    out.update(seconds=time.perf_counter() - start,
               cpu=time.process_time() - cpu + kids.ru_utime + kids.ru_stime,
               peak_gb=max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, kids.ru_maxrss) / 1e6)
    print(json.dumps(out))


def part1(counts: list[int], workers: int, parts: bool) -> None:
    print(f"Part 1: standard rules, one hand, to NashConv <= {TARGET:g} lives; {workers} worker thread(s)")
    passes = "numpy passes (asked for)" if os.environ.get("CHASETHEACE_NUMBA") == "0" else \
        "numba installed: compiled passes on large trees" if available() else "numba missing: numpy passes"
    print(f"{passes}; load average "
          "(1 min) before each run: other work on the machine slows the wall clock, less the CPU figure")
    print(f"{'players':>7} {'method':>6} {'wall s':>8} {'CPU s':>8} {'peak GB':>7} {'iters':>5} "
          f"{'NashConv':>10} {'load':>5}  measured by")
    for n in counts:
        methods = ["dcfr"] if n <= 5 else ["dcfr", "iid"] if n == 6 else ["iid"]
        if n in (7, 8) and parts:
            methods.append("dcfr")  # CFR on the exact tree in parts
        for method in methods:
            if n > choice.MAX_IID_PLAYERS and method == "iid":
                print(f"{n:>7} {method:>6} beyond {choice.MAX_IID_PLAYERS} players: not run")
                continue
            load = os.getloadavg()[0]
            cmd = [sys.executable, __file__, "--child", str(n), method, str(workers)]
            if parts:
                cmd.append("--parts")
            run = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if run.returncode:
                print(f"{n:>7} {method:>6} failed: {run.stderr.strip().splitlines()[-1:]}")
                continue
            r = json.loads(run.stdout.strip().splitlines()[-1])
            how = {"exact": "exact best response in the true game",
                   "abstract": "exact in the hand without card removal only (true game not measured)"}
            print(f"{n:>7} {method:>6} {r['seconds']:8.1f} {r['cpu']:8.1f} {r['peak_gb']:7.2f} "
                  f"{r['iterations']:5d} {r['nash_conv']:10.2e} {load:5.2f}  {how[r['measured']]}",
                  flush=True)


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
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), "--parts" in sys.argv)
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, nargs="*", default=[3, 4, 5, 6, 7, 8, 9])
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--numpy", action="store_true",
                        help="the numpy passes even where numba is installed (CHASETHEACE_NUMBA=0)")
    parser.add_argument("--parts", "--measure-7", action="store_true",
                        help="at 7 and 8 players: measure the iid strategy by an exact best response, and "
                             "run DCFR on the exact tree, both in parts (long: use --workers 2)")
    parser.add_argument("--openspiel-players", type=int, default=3)
    parser.add_argument("--openspiel-seconds", type=float, default=600.0)
    parser.add_argument("--openspiel-vanilla", action="store_true", help="also time OpenSpiel's vanilla CFR")
    parser.add_argument("--no-openspiel", action="store_true")
    args = parser.parse_args()
    if args.numpy:
        os.environ["CHASETHEACE_NUMBA"] = "0"  # read by the child processes
    part1(args.players, args.workers, args.parts)
    if not args.no_openspiel:
        part2(args.openspiel_players, args.openspiel_seconds, args.openspiel_vanilla)


if __name__ == "__main__":
    main()
