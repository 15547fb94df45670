"""Solver speed, memory and NashConv for one hand under standard rules, per table size; each method
to NashConv 1e-4; and OpenSpiel's DCFR.

    python benchmarks/solver.py --players 2..20     # every table size as a player gets it (the default)
    python benchmarks/solver.py --players 9 12 15 20 --hands 200000
    python benchmarks/solver.py --players 10..20 --hands 50000 --shipped   # the shipped files, measured
    python benchmarks/solver.py --players 9 10 12 --hands 2000000 --shipped --compare --resamples 20
    python benchmarks/solver.py --methods 3..9      # each method to NashConv 1e-4 (part 1 below)
    python benchmarks/solver.py --methods 7 8 --parts   # 7 and 8 players on the exact tree in parts (long)
    python benchmarks/solver.py --openspiel --openspiel-seconds 300
    python benchmarks/solver.py --methods 6 --numpy     # without the compiled passes

Table sizes (``--players``, a list or a range ``a..b``; rules ``--rule name=value`` or ``--preset``):
each table size in a process of its own is solved as the solution cache solves it for a player
(``chasetheace.solver.solutions.cache``: the exact tree up to 5 players; ``iid`` from 6 to 9 where
the table ships with the package, solved ahead, and to 7 under other rules, solved at the table;
the sampled method beyond, for a fixed number of mini-batches; from 10 players where the table
ships, the summary learner as ``chasetheace.solver.guide.prepare`` trains it, or with ``--shipped``
the shipped file itself, read, not solved), and the table prints the method, the
seconds and peak memory of
the solve, the size of its compact file, and its NashConv: exact (an exact best response in the
true game) where that is within reach (to 6 players: at 6 measured after the solve, which the time
column leaves out), and for every table size from 6 the sampled bracket of
``chasetheace.solver.methods.bound`` from ``--hands`` hands: an upper bound that holds with 95 %
confidence (one-sided, proved: the module's docstring) and the cross-fitted lower estimate with
its standard error, with the seconds and peak memory of that measurement (``--compare``: beside
them the figures of the method before pooling and the tighter margin, and, as "prev", the bracket
before the mended lower estimate and the truncated margin of 27 November 2026, from the same hands).

Part 1 (``--methods``) runs every configuration in a process of its own and prints its wall-clock
and CPU seconds (the CPU figure is the one to compare on a busy machine; the load average before the run is
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
  (with ``--parts``) in parts in worker processes (``chasetheace.solver.methods.parts``). From 9 players
  no exact best response is within reach: the NashConv printed is the one without card removal,
  labelled so.
- ``dcfr`` at 7 and 8 players (with ``--parts``): discounted CFR on the exact tree in parts, started
  from the ``iid`` strategy: at 7 until NashConv <= 1e-4 checked every 5 iterations, at 8 three
  iterations and one check (each pass over the parts, then 91 pairs, took 8 to 11 minutes on two workers).
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
        # solve() reads its own module's name (imported from choice, not exported)
        setattr(solving, "MAX_PARTS_PLAYERS", max(getattr(solving, "MAX_PARTS_PLAYERS"), n))  # noqa: B009, B010
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


def counts_of(tokens: list[str]) -> list[int]:
    """Player counts from ``["2..20"]`` or ``["3", "5", "9..12"]``; ValueError naming a bad one."""
    out: list[int] = []
    for token in tokens:
        low, dots, high = token.partition("..")
        try:
            out.extend(range(int(low), int(high) + 1) if dots else [int(token)])
        except ValueError:
            raise ValueError(f"bad player count {token!r}: a number or a range such as 2..20") from None
    for n in out:
        if not 2 <= n <= choice.MAX_TABLE_PLAYERS:
            raise ValueError(f"bad player count {n}: the solver handles 2..{choice.MAX_TABLE_PLAYERS}")
    return out


def _peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # kilobytes on Linux


def table_child(n: int, preset: str, rule: list[str], hands: int, shipped: bool = False,
                compare: bool = False, resamples: int = 200) -> None:
    """One table size, in its own process: solved as the solution cache solves it, then measured;
    print one JSON line of figures."""
    import tempfile

    from chasetheace.rules import rules_from_args
    from chasetheace.solver.methods.bound import bracket, sample_differences
    from chasetheace.solver.methods.measure import measure
    from chasetheace.solver.model.hand import Hand
    from chasetheace.solver.solutions import cache

    rules = rules_from_args(preset, rule)
    start = time.perf_counter()
    # as shipped where the table ships (solved ahead: iid to AHEAD_IID_PLAYERS), else as solution_for
    # solves it at the table on a cache miss (iid to TABLE_IID_PLAYERS)
    ships = cache.prepared_path(rules, n).exists()
    if shipped and ships:  # the shipped file (its solve's seconds: those of prepare, as it ran)
        from chasetheace.solver.solutions.solution import Solution

        sol = Solution.load(str(cache.prepared_path(rules, n)))
        sol.rules = rules
    elif ships and n >= choice.SUMMARY_PLAYERS:  # as prepare trains it: the summary learner
        from chasetheace.solver.solutions.solving import solve

        sol = solve(rules, n, method="summary", iterations=choice.summary_batches(n), seed=0,
                    exact_check=False)
    else:
        sol = cache._solve(rules, n, "auto", 1e-4, None,
                           iid_players=cache.AHEAD_IID_PLAYERS if ships else cache.TABLE_IID_PLAYERS)
    seconds = sol.seconds if shipped and ships else time.perf_counter() - start
    out: dict[str, object] = dict(method=sol.method, measured=sol.measured, seconds=seconds,
                                  peak_gb=_peak_gb(), situations=len(sol.infosets))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "solution.npz")
        sol.save(path)
        out["bytes"] = os.path.getsize(path)
    hand = Hand(rules, n)
    if sol.measured == "exact":
        out["exact"] = sol.nash_conv
    elif n <= choice.EXACT_CHECK_PLAYERS:
        out["exact"] = measure(hand, sol.played_keep).nash_conv
    if n >= 6:
        cpu = time.process_time()
        samples = sample_differences(hand, sol.played_keep, hands, seed=0)
        got = bracket(samples, seed=0, resamples=resamples)
        out.update(bound_cpu=time.process_time() - cpu, upper=got.upper, heuristic_upper=got.heuristic_upper,
                   estimate=got.estimate,
                   estimate_error=got.estimate_error,
                   sampled_best=got.sampled_best, margin=got.margin, hands=got.hands,
                   bound_seconds=got.seconds, bound_situations=got.situations)
        if compare:  # the method before pooling and the tighter margin, on the same samples
            old = bracket(samples, seed=0, resamples=resamples, pool=False, tight=False, select=1.0,
                          sign_share=0.5, pseudo=0)
            # the bracket before the mended estimate and the truncated margin (27 November 2026)
            prev = bracket(samples, seed=0, resamples=2, pseudo=0, truncate=False)
            out.update(old_upper=old.upper, old_estimate=old.estimate, old_estimate_error=old.estimate_error,
                       prev_upper=prev.upper, prev_estimate=prev.estimate,
                       prev_estimate_error=prev.estimate_error)
    out["peak_all_gb"] = _peak_gb()
    print(json.dumps(out))


def tables(counts: list[int], preset: str, rule: list[str], hands: int, shipped: bool = False,
           compare: bool = False, resamples: int = 200) -> None:
    """Every table size of ``counts``, each in its own process: the table described in the docstring."""
    rules = " ".join([f"preset {preset}", *rule])
    print(f"Table sizes: {rules}, solved as the solution cache solves them for a player; the bracket from "
          f"{hands:,} sampled hands (upper bound: 95 % one-sided, proved)")
    print(f"{'players':>7} {'method':>7} {'solve s':>8} {'peak GB':>7} {'file MB':>7} {'exact':>9} "
          f"{'upper':>8} {'estimate':>17} {'ratio':>5} {'bound s':>7} {'CPU s':>7} {'bound GB':>8} "
          f"{'load':>5}"
          + (f" {'old upper':>9} {'old estimate':>17} {'prev upper':>9} {'prev estimate':>17}"
             if compare else ""))
    begin = time.perf_counter()
    for n in counts:
        load = os.getloadavg()[0]
        cmd = [sys.executable, __file__, "--table-child", str(n), str(hands), preset,
               *(f"--rule={r}" for r in rule), *(["--shipped"] if shipped else []),
               *(["--compare"] if compare else []), f"--resamples={resamples}"]
        run = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if run.returncode:
            print(f"{n:>7} failed: {run.stderr.strip().splitlines()[-1:]}", flush=True)
            continue
        r = json.loads(run.stdout.strip().splitlines()[-1])
        exact = f"{r['exact']:9.2e}" if "exact" in r else f"{'-':>9}"
        if "upper" in r:
            ratio = f"{r['upper'] / r['estimate']:5.1f}" if r["estimate"] > 0 else f"{'-':>5}"
            bracket = (f"{r['upper']:8.4f} {r['estimate']:8.4f} ± {r['estimate_error']:.4f} {ratio} "
                       f"{r['bound_seconds']:7.1f} {r['bound_cpu']:7.1f} {r['peak_all_gb']:8.2f}")
        else:
            bracket = f"{'-':>8} {'-':>17} {'-':>5} {'-':>7} {'-':>7} {'-':>8}"
        old = (f" {r['old_upper']:9.4f} {r['old_estimate']:8.4f} ± {r['old_estimate_error']:.4f}"
               f" {r['prev_upper']:9.4f} {r['prev_estimate']:8.4f} ± {r['prev_estimate_error']:.4f}"
               if "old_upper" in r else "")
        print(f"{n:>7} {r['method']:>7} {r['seconds']:8.1f} {r['peak_gb']:7.2f} {r['bytes'] / 1e6:7.2f} "
              f"{exact} {bracket} {load:5.2f}{old}", flush=True)
    print(f"all table sizes: {time.perf_counter() - begin:.0f} s")


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
    """Run the parts asked for (the table sizes 2..20 by default)."""
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), "--parts" in sys.argv)
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--table-child":
        flags = [a for a in sys.argv[5:] if not a.startswith("--rule=")]
        resamples = [int(a.removeprefix("--resamples=")) for a in flags if a.startswith("--resamples=")]
        table_child(int(sys.argv[2]), sys.argv[4],
                    [a.removeprefix("--rule=") for a in sys.argv[5:] if a.startswith("--rule=")],
                    int(sys.argv[3]), "--shipped" in flags, "--compare" in flags, *resamples)
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", nargs="*", default=None,
                        help="table sizes: numbers or ranges such as 2..20 (the default, 2..20, "
                             "when no part is named)")
    parser.add_argument("--hands", type=int, default=50_000,
                        help="sampled hands for the NashConv bracket from 6 players (default 50,000)")
    parser.add_argument("--preset", default="standard", help="the rules' preset, for the table sizes")
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                        help="a rule off the standard ones (repeatable), for the table sizes")
    parser.add_argument("--methods", nargs="*", default=None,
                        help="part 1: each method to NashConv 1e-4 at these player counts (default 3..9)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--numpy", action="store_true",
                        help="the numpy passes even where numba is installed (CHASETHEACE_NUMBA=0)")
    parser.add_argument("--parts", "--measure-7", action="store_true",
                        help="at 7 and 8 players: measure the iid strategy by an exact best response, and "
                             "run DCFR on the exact tree, both in parts (long: use --workers 2)")
    parser.add_argument("--shipped", action="store_true",
                        help="table sizes: measure the shipped file where one ships, instead of solving")
    parser.add_argument("--compare", action="store_true",
                        help="table sizes: also the bracket of the method before pooling and the tighter "
                             "margin, from the same hands")
    parser.add_argument("--resamples", type=int, default=200,
                        help="bootstrap resamples of the heuristic figure (in the JSON, not the table; "
                             "its CPU grows with hands times resamples: default 200)")
    parser.add_argument("--openspiel", action="store_true", help="part 2: OpenSpiel's DCFR on a small pack")
    parser.add_argument("--openspiel-players", type=int, default=3)
    parser.add_argument("--openspiel-seconds", type=float, default=600.0)
    parser.add_argument("--openspiel-vanilla", action="store_true", help="also time OpenSpiel's vanilla CFR")
    args = parser.parse_args()
    try:
        players = counts_of(args.players or ([] if args.methods is not None or args.openspiel else ["2..20"]))
        methods = None if args.methods is None else counts_of(args.methods or ["3..9"])
        if args.hands < 4:
            raise ValueError(f"bad --hands {args.hands}: at least 4")
        if args.resamples < 2:
            raise ValueError(f"bad --resamples {args.resamples}: at least 2")
        from chasetheace.rules import rules_from_args

        rules_from_args(args.preset, args.rule)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    if args.numpy:
        os.environ["CHASETHEACE_NUMBA"] = "0"  # read by the child processes
    if players:
        tables(players, args.preset, args.rule, args.hands, args.shipped, args.compare, args.resamples)
    if methods:
        part1(methods, args.workers, args.parts)
    if args.openspiel:
        part2(args.openspiel_players, args.openspiel_seconds, args.openspiel_vanilla)


if __name__ == "__main__":
    main()
