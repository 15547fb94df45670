"""The ``solve`` subcommand: ``chase-the-ace solve --players 5 [--preset P] [--rule k=v] [--json]``.

The main CLI calls :func:`register` with its subparsers; ``python -m chasetheace.cli.solve`` (or
the old ``python -m chasetheace.solver.command`` until 0.3.0) runs the subcommand on its own.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from ..extras import needs_solver_text
from ..files import check_plot_file, check_writable
from ..rules import rules_from_args
from ..solver.solutions.choice import (
    AUTO_EXACT_PLAYERS,
    AUTO_IID_PLAYERS,
    MAX_EXACT_PLAYERS,
    MAX_PARTS_PLAYERS,
    METHODS,
    REFINE_HANDS,
    REFINE_PASSES,
)

__all__ = ["StatusLine", "register", "run", "main"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--players", type=int, default=5,
                   help=f"seats at the table (auto: exact up to {AUTO_EXACT_PLAYERS}, at "
                        f"{AUTO_EXACT_PLAYERS} without pairing or kings_jerk; iid up to {AUTO_IID_PLAYERS}, "
                        f"sampled above; --method dcfr solves up to {MAX_EXACT_PLAYERS} "
                        f"on the exact tree, {MAX_PARTS_PLAYERS} on it in parts: hours at 9, "
                        "see --checkpoint and --cluster)")
    p.add_argument("--preset", default="standard", help="a preset of RULES.md A5 (default standard)")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="change one rule option (repeatable), e.g. --rule ties=eldest-loses")
    p.add_argument("--method", choices=METHODS, default="auto",
                   help="auto: the LP where it applies, else DCFR on the exact tree, iid, sampled")
    p.add_argument("--iterations", type=int, default=None,
                   help="most CFR iterations (default 2000); the sampled method's mini-batches of 2,000 "
                        "hands (default 12,000 / players squared: 84 at 12 players)")
    p.add_argument("--refine", type=int, default=None, metavar="PASSES",
                   help="the summary method: passes of best-response-guided refinement after training "
                        f"(default {REFINE_PASSES}; 0: none)")
    p.add_argument("--refine-hands", type=int, default=None, metavar="HANDS",
                   help=f"the summary method: hands of one refinement pass (default {REFINE_HANDS:,})")
    p.add_argument("--tolerance", type=float, default=1e-4, help="stop at this NashConv (lives)")
    p.add_argument("--check-every", type=int, default=10, metavar="N",
                   help="measure CFR's average strategy every N iterations, and stop once it is within "
                        "the tolerance (each check is an exact best response: from 7 players one more "
                        "pass over the parts; default 10)")
    p.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                   help="also stop the sampled method's training after SECONDS (default: none; with a "
                        "limit the result depends on the machine's speed and load)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sampled method")
    p.add_argument("--exact-check", choices=("auto", "yes", "no"), default="auto",
                   help="measure an iid or sampled strategy by an exact best response in the true game "
                        "(auto: up to 6 players; yes: up to 9, in parts: slow)")
    p.add_argument("--workers", type=int, default=1,
                   help="threads for the exact tree's passes (processes for its parts)")
    p.add_argument("--checkpoint", metavar="DIR",
                   help="keep each CFR iterate and each finished part of a pass in DIR; the same command "
                        "run again after a crash or a kill resumes there, with the same result")
    p.add_argument("--cluster", metavar="auto|ray://HOST:PORT",
                   help="run the exact tree's parts (7 to 9 players) on a Ray cluster: auto, the one "
                        "this machine belongs to; ray://HOST:PORT, a remote one (extra cluster)")
    p.add_argument("--situations", type=int, default=6, help="situations shown per position")
    p.add_argument("--json", action="store_true", help="print the whole solution as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--plot", metavar="FILE.png", help="also draw the strategy to a PNG file")
    p.add_argument("--save", metavar="FILE",
                   help="also save the solution (for --bot solved:FILE, serve --solutions DIR): compact "
                        "binary (numpy .npz), or readable JSON when FILE ends with .json")


class StatusLine:
    """Progress of a long run on stderr: nothing for the first seconds, then a line at most every
    few seconds (rewritten in place on a terminal)."""

    def __init__(self, stream: TextIO, quiet_seconds: float = 2.0, every: float = 2.0) -> None:
        self.stream = stream
        self.start = time.monotonic()
        self.quiet, self.every = quiet_seconds, every
        self.last = float("-inf")
        self.tty = stream.isatty()
        self.shown = False

    def __call__(self, text: str) -> None:
        now = time.monotonic()
        if now - self.start < self.quiet or now - self.last < self.every:
            return
        self.last = now
        if self.tty:
            self.stream.write("\r\x1b[K" + text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        """End the status line (on a terminal, clear it)."""
        if self.shown and self.tty:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def register(subparsers: Any) -> None:
    """Add the ``solve`` subcommand to the main CLI's subparsers."""
    p = subparsers.add_parser("solve", help="compute and explain an equilibrium of one hand",
                              description="Compute an equilibrium of one hand and print it for people.")
    _add_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Solve and print; a user's mistake is one line on stderr and exit status 2."""
    from ..solver.solutions.solving import solve
    from ..solver.uses.explain import render_text

    try:
        rules = rules_from_args(args.preset, args.rule)
        if args.plot:
            check_plot_file(args.plot)
        if args.save:
            check_writable(args.save)
        status = StatusLine(sys.stderr)
        check = {"auto": None, "yes": True, "no": False}[args.exact_check]
        try:
            sol = solve(rules, args.players, method=args.method, iterations=args.iterations,
                        exact_check=check, tolerance=args.tolerance, check_every=args.check_every,
                        time_limit=args.time_limit,
                        seed=args.seed, workers=args.workers, progress=None if args.quiet else status,
                        checkpoint=args.checkpoint, cluster=args.cluster, refine=args.refine,
                        refine_hands=args.refine_hands)
        finally:
            status.close()
        if args.plot:
            from ..solver.uses.plot import plot_solution

            plot_solution(sol, args.plot)
        if args.save:
            sol.save(args.save)
    except (ValueError, OSError) as exc:
        print(f"chase-the-ace: error: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:
        print(f"chase-the-ace: error: {needs_solver_text('solve', missing=exc.name or str(exc))}",
              file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(sol.to_dict()))
    else:
        print(render_text(sol, args.situations))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``solve`` as a program of its own."""
    parser = argparse.ArgumentParser(prog="chase-the-ace solve",
                                     description="Solve one hand of Chase the Ace.")
    _add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
