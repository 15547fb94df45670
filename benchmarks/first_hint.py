"""The first hint from a cold cache: every named preset's hand rules at 2 to 20 players.

    python benchmarks/first_hint.py                          # every preset's hand rules, 2-20 players
    python benchmarks/first_hint.py --players 5 12 20        # some table sizes
    python benchmarks/first_hint.py --preset cuckoo          # one preset (and those that share its hands)
    python benchmarks/first_hint.py --rule blocker=none --rule dealer_exchange=top --rule ties=latest-loses \\
        --players 8 12 20                                    # rules off the presets: solved on first use

Presets whose rules differ only in what one hand does not see (lives, the pot, the first dealer...)
share one solution (``solver.solutions.cache.hand_rules``): they are timed once, as one row. A
preset meant for a fixed number of players (``le-her``: 2) is timed at that size only.

Each hint runs in a fresh child process with an empty temporary cache folder
(``CHASE_THE_ACE_CACHE``), never the user's: a new game (seed ``--seed``), then the hint to the
first seat to act, as ``play --hints`` gives it. ``wall`` is the child's whole life (starting
Python, importing, reading a shipped solution or solving, answering); ``cpu`` its CPU seconds (user
and system); ``from`` says where the solution came from (``shipped`` with the package, or
``solved`` now, and by which method); ``steps`` counts the progress bar's distinct positions during
a solve and ``gap`` is the longest wait between two of its messages (a bar that moves: many steps,
short gaps).

Goals (issue 35): at every named preset 2-20 players the first hint within 5 s from a cold cache;
under any other rules within 60 s, with a progress bar that moves.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

from chasetheace.rules import PRESETS, Rules, rules_from_args
from chasetheace.solver.solutions.cache import hand_rules

SIZES = range(2, 21)


def _child(preset: str, rule: list[str], players: int, seed: int) -> None:
    """In the child: the first hint of a new game; its figures as one JSON line."""
    import chasetheace as cta
    from chasetheace.solver.solutions import cache
    from chasetheace.solver.uses.advice import hint_for

    rules = rules_from_args(preset, rule)
    game = cta.Game(rules, players=players, seed=seed)
    shipped = cache.prepared_path(rules, players).is_file()
    heard: list[tuple[float, float]] = []
    start = time.perf_counter()

    def progress(text: str, fraction: float) -> None:
        heard.append((time.perf_counter() - start, fraction))

    got = hint_for(game.observation(game.to_act), progress=progress)
    seconds = time.perf_counter() - start
    times = [0.0, *(t for t, _ in heard), seconds]
    print(json.dumps({"hint_seconds": seconds, "method": got.method, "shipped": shipped,
                      "steps": len({f for _, f in heard}),
                      "gap": max(b - a for a, b in itertools.pairwise(times)),
                      "peak_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6}))


def timed(preset: str, rule: list[str], players: int, seed: int) -> dict[str, object]:
    """One first hint in a fresh process with an empty cache folder: its figures."""
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "CHASE_THE_ACE_CACHE": folder}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        out = subprocess.run([sys.executable, __file__, "--child", "--preset", preset, "--seed", str(seed),
                              "--players", str(players), *(f"--rule={r}" for r in rule)],
                             env=env, check=True, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    figures: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    figures["wall"] = wall
    figures["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return figures


def groups(only: str | None) -> list[tuple[str, list[str], Rules]]:
    """The presets grouped by their hand rules: (the first's name, every name, the hand rules)."""
    out: list[tuple[str, list[str], Rules]] = []
    for preset in PRESETS:
        if only is not None and hand_rules(preset.rules) != hand_rules(Rules.preset(only)):
            continue
        key = hand_rules(preset.rules)
        for _, names, rules in out:
            if rules == key:
                names.append(preset.name)
                break
        else:
            out.append((preset.name, [preset.name], key))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, nargs="*", default=list(SIZES))
    parser.add_argument("--preset", help="only this preset's hand rules (default: every preset)")
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                        help="rules off the presets: the standard game with these changes")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.preset or "standard", args.rule, args.players[0], args.seed)
        return
    rows = [(args.preset or "standard", [" ".join(args.rule)], Rules())] if args.rule else groups(args.preset)
    load = os.getloadavg()
    print(f"first hint from an empty cache, seed {args.seed}, load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f}, {os.cpu_count()} cores")
    print(f"{'rules':<52} {'players':>7} {'wall s':>7} {'cpu s':>7} {'hint s':>7} {'peak GB':>7}  "
          f"{'from':<16} {'steps':>5} {'gap s':>6}")
    worst = 0.0
    for first, names, _ in rows:
        meant = next((p.players for p in PRESETS if p.name == first), None)
        for n in args.players:
            if meant is not None and n != meant:
                continue
            got = timed(first, args.rule, n, args.seed)
            worst = max(worst, float(got["wall"]))  # type: ignore[arg-type]
            where = "shipped" if got["shipped"] else f"solved ({got['method']})"
            print(f"{', '.join(names):<52.52} {n:>7} {got['wall']:>7.2f} {got['cpu']:>7.2f} "
                  f"{got['hint_seconds']:>7.2f} {got['peak_gb']:>7.2f}  {where:<16} {got['steps']:>5} "
                  f"{got['gap']:>6.1f}", flush=True)
    print(f"slowest first hint: {worst:.2f} s wall; load average now {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
