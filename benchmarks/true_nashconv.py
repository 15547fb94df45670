"""The exact NashConv in the true game (card removal) of a shipped table: what a player's bot plays.

    nice -n 10 python benchmarks/true_nashconv.py --preset standard --players 9 \\
        --checkpoint runs/true --log runs/true.log
    python benchmarks/true_nashconv.py --preset cuckoo --preset chase-the-ace --players 8 9 --workers 2

The tables of 6 to 9 players ship solved without card removal (method ``iid``), so the NashConv
in their files is that model's, which says nothing sure of the true game. This reads each shipped
file as the solution cache does (``chasetheace.solver.solutions.cache.prepared_path``, the compact
float32 file; read, not solved) and measures the strategy the bot plays (``Solution.played_keep``)
by an exact best response on the exact tree of the true game: in one piece below 7 players, from 7
in parts (``chasetheace.solver.methods.parts``), in ``--workers`` processes (default 1: a worker
at 9 players peaks at about 4.7 GB). Each table runs in a process of its own and prints one line:
the true NashConv in lives per hand (the sum of the per-position gains of a best response, also
printed), the model's NashConv from the file beside it, the wall-clock and CPU seconds (the worker
processes' included), the peak resident memory of the measuring process and of its largest worker,
the load average before and after, and how many parts were computed and how many read back.

``--checkpoint DIR`` keeps every finished part in ``DIR/<preset>-<players>p`` (a
``chasetheace.solver.methods.checkpoint.Checkpoint`` whose pass is named by the strategy's digest,
so a part is reused only for the very strategy it was computed for): a run stopped (Ctrl-C, a kill)
and started again computes only the parts missing, and ends with the same figures, bit for bit
(the CPU and wall seconds are then those of the last run only: add the earlier runs' from the
log). ``--log FILE`` appends each progress line (every 13 parts, with the UTC time and the load
average) and each result line. ``--split`` evaluates in parts below 7 players too (to try the path
on a small table). Up to 9 players (``MAX_MEASURE_PLAYERS``): from 10 the shipped tables are the
summary learner's, bracketed by ``benchmarks/solver.py --shipped`` instead.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from chasetheace.rules import Rules


def stamp() -> str:
    """The UTC time and the 1-minute load average, for a log line."""
    return f"{time.strftime('%H:%M:%S', time.gmtime())} UTC load {os.getloadavg()[0]:.2f}"


def table(preset: str, players: int, workers: int, checkpoint: str | None, split: bool,
          say: Callable[[str], None]) -> dict[str, Any]:
    """Measure the shipped table of ``preset`` at ``players`` exactly in the true game (in this
    process; its workers are children of it): the figures printed, as a dict."""
    import numpy as np

    from chasetheace.solver.methods.measure import SPLIT_PLAYERS, measure
    from chasetheace.solver.methods.parts import PartsEngine, parts_of
    from chasetheace.solver.model.hand import Hand
    from chasetheace.solver.solutions.cache import prepared_path
    from chasetheace.solver.solutions.solution import Solution
    from chasetheace.solver.solutions.solving import open_checkpoint

    rules = Rules.preset(preset)
    path = prepared_path(rules, players)
    if not path.is_file():
        raise ValueError(f"no shipped table for {preset} at {players} players ({path.name})")
    load_before = os.getloadavg()[0]
    start, cpu = time.perf_counter(), time.process_time()
    sol = Solution.load(str(path))
    sol.rules = rules  # as the solution cache reads it (a file may be shared by rules that solve alike)
    hand = Hand(rules, players)
    # every situation of the true game is among the file's: iid ships those of the hand without card
    # removal, the exact tree's solutions those of the true game
    keys = list(sol.infosets)
    keep = np.array([sol.played_keep(key) for key in keys], dtype=np.float64)
    in_parts = (split or players >= SPLIT_PLAYERS) and not hand.pairing
    computed = read = 0
    if in_parts:
        store = None
        if checkpoint is not None:
            store = open_checkpoint(os.path.join(checkpoint, f"{preset}-{players}p"), hand, "true-nashconv",
                                    file=path.name)
        with PartsEngine(hand, keys, workers, lambda text: say(f"{preset} {players}p: {text}"),
                         checkpoint=store) as engine:
            sigma = np.c_[keep, 1 - keep]
            got = engine.evaluate(sigma)
            gains = engine.gains(sigma, got.cfv)
            computed = engine.computed
        read = len(parts_of(hand)) - computed  # the others came back from the checkpoint
        lives = got.lives
        situations = int(got.present.sum())
    else:
        index = {key: i for i, key in enumerate(keys)}
        result = measure(hand, lambda key: float(keep[index[key]]), split=split and not hand.pairing)
        gains = np.array(result.gains)
        lives = np.array(result.expected_lives_lost)
        situations = len(result.infosets)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return dict(preset=preset, players=players, file=path.name, method=sol.method, measured=sol.measured,
                model_nash_conv=sol.nash_conv, nash_conv=float(np.sum(gains)),
                gains=[float(g) for g in gains], lives=[float(x) for x in lives], situations=situations,
                parts_computed=computed, parts_read=read, in_parts=in_parts,
                wall=time.perf_counter() - start,
                cpu=time.process_time() - cpu + kids.ru_utime + kids.ru_stime,
                peak_gb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6,
                worker_peak_gb=kids.ru_maxrss / 1e6, load_before=load_before, load_after=os.getloadavg()[0])


def line(r: dict[str, Any]) -> str:
    """A result in one line of text."""
    gains = ", ".join(f"{g:.2e}" for g in r["gains"])
    how = "in parts" if r["in_parts"] else "in one piece"
    return (f"{r['preset']} {r['players']} players ({r['file']}, {r['method']}): NashConv in the true game "
            f"{r['nash_conv']:.4e} lives a hand (exact, {how}; the file's own, {r['measured']}: "
            f"{r['model_nash_conv']:.4e}); gains by position [{gains}]; {r['wall']:.0f} s wall, "
            f"{r['cpu']:.0f} CPU s, peak {r['peak_gb']:.2f} GB (largest worker "
            f"{r['worker_peak_gb']:.2f} GB); "
            f"parts computed {r['parts_computed']}, read back {r['parts_read']}; "
            f"load {r['load_before']:.2f} before, {r['load_after']:.2f} after")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", action="append", default=None,
                        help="a named preset (repeatable; default standard)")
    parser.add_argument("--players", type=int, nargs="+", default=[8, 9])
    parser.add_argument("--workers", type=int, default=1, help="processes evaluating the parts (default 1)")
    parser.add_argument("--checkpoint", default=None, metavar="DIR",
                        help="keep each finished part under DIR, and take them from there when run again")
    parser.add_argument("--log", default=None, metavar="FILE", help="append progress and results to FILE")
    parser.add_argument("--split", action="store_true", help="in parts below 7 players too")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    presets = args.preset or ["standard"]
    try:
        from chasetheace.solver.methods.measure import MAX_MEASURE_PLAYERS
        from chasetheace.solver.solutions.cache import prepared_path

        if args.workers < 1:
            raise ValueError(f"bad --workers {args.workers}: at least 1")
        for name in presets:
            for n in args.players:
                if not 2 <= n <= MAX_MEASURE_PLAYERS:
                    raise ValueError(f"bad --players {n}: an exact best response is measured for 2 to "
                                     f"{MAX_MEASURE_PLAYERS} players")
                if not prepared_path(Rules.preset(name), n).is_file():
                    raise ValueError(f"no shipped table for {name} at {n} players")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    log: TextIO | None = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115

    def say(text: str) -> None:
        text = f"[{stamp()}] {text}"
        print(text, file=sys.stderr if args.child else sys.stdout, flush=True)
        if log is not None:
            log.write(text + "\n")
            log.flush()

    if args.child:  # one table, in this process: its figures as one JSON line on stdout
        r = table(presets[0], args.players[0], args.workers, args.checkpoint, args.split, say)
        print(json.dumps(r), flush=True)
        return
    for name in presets:
        for n in args.players:
            say(f"{name} {n} players: measuring the shipped table ({args.workers} worker(s))")
            cmd = [sys.executable, __file__, "--child", "--preset", name, "--players", str(n),
                   "--workers", str(args.workers), *(["--split"] if args.split else []),
                   *(["--checkpoint", args.checkpoint] if args.checkpoint else []),
                   *(["--log", args.log] if args.log else [])]
            run = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=False)
            if run.returncode:
                say(f"{name} {n} players: failed (exit {run.returncode})")
                continue
            r = json.loads(run.stdout.strip().splitlines()[-1])
            say(line(r))
            say("json " + json.dumps(r))
    if log is not None:
        log.close()


if __name__ == "__main__":
    main()
