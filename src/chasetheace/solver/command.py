"""The ``solve`` subcommand: ``chase-the-ace solve --players 5 [--preset P] [--rule k=v] [--json]``.

The main CLI calls :func:`register` with its subparsers; ``python -m chasetheace.solver.command``
runs the subcommand on its own.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from ..files import check_plot_file, check_writable
from ..progress import Ticker
from ..rules import rules_from_args
from .solution import AUTO_EXACT_PLAYERS, MAX_EXACT_PLAYERS, METHODS

__all__ = ["register", "run", "main"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--players", type=int, default=5,
                   help=f"seats at the table (auto: exact up to {AUTO_EXACT_PLAYERS}, sampled above; "
                        f"--method dcfr solves up to {MAX_EXACT_PLAYERS} exactly)")
    p.add_argument("--preset", default="standard", help="a preset of RULES.md A5 (default standard)")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="change one rule option (repeatable), e.g. --rule ties=eldest-loses")
    p.add_argument("--method", choices=METHODS, default="auto",
                   help="auto: the LP where it applies, else DCFR")
    p.add_argument("--iterations", type=int, default=2000, help="most CFR iterations")
    p.add_argument("--tolerance", type=float, default=1e-4, help="stop at this NashConv (lives)")
    p.add_argument("--time-limit", type=float, default=60.0, metavar="SECONDS",
                   help="training time of the sampled method (more than 5 players; default 60)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sampled method")
    p.add_argument("--workers", type=int, default=1, help="threads for the exact tree's passes")
    p.add_argument("--situations", type=int, default=6, help="situations shown per position")
    p.add_argument("--json", action="store_true", help="print the whole solution as JSON")
    p.add_argument("--plot", metavar="FILE.png", help="also draw the strategy to a PNG file")
    p.add_argument("--save", metavar="FILE.json", help="also save the solution (for --bot solved:FILE.json)")


def register(subparsers: Any) -> None:
    """Add the ``solve`` subcommand to the main CLI's subparsers."""
    p = subparsers.add_parser("solve", help="compute and explain an equilibrium of one hand",
                              description="Compute an equilibrium of one hand and print it for people.")
    _add_arguments(p)
    p.set_defaults(func=run)


PROGRESS_PLAYERS = 6
"""From this many players a solve takes a minute or more, so it shows a progress line on stderr."""
PROGRESS_DELAY = 1.0
"""Seconds before the progress line appears (a mistake in the input fails sooner, silently)."""


def _solving_words(args: argparse.Namespace) -> str:
    sampled = args.method == "sampled" or (args.method == "auto" and args.players > AUTO_EXACT_PLAYERS)
    how = (f"the sampled method, about {args.time_limit:g} s" if sampled
           else f"{'dcfr' if args.method == 'auto' else args.method} on the exact tree, minutes")
    return f"solving one hand for {args.players} players ({how})"


def run(args: argparse.Namespace) -> int:
    """Solve and print; a user's mistake is one line on stderr and exit status 2."""
    from .explain import render_text
    from .solution import solve

    try:
        rules = rules_from_args(args.preset, args.rule)
        if args.plot:
            check_plot_file(args.plot)
        if args.save:
            check_writable(args.save)
        with Ticker(_solving_words(args), sys.stderr, show=args.players >= PROGRESS_PLAYERS,
                    delay=PROGRESS_DELAY):
            sol = solve(rules, args.players, method=args.method, iterations=args.iterations,
                        tolerance=args.tolerance, time_limit=args.time_limit, seed=args.seed,
                        workers=args.workers)
        if args.plot:
            from .plot import plot_solution

            plot_solution(sol, args.plot)
        if args.save:
            sol.save(args.save)
    except (ValueError, OSError) as exc:
        print(f"chase-the-ace: error: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:
        print(f"chase-the-ace: error: solve needs the solve extra (pip install 'chase-the-ace[solve]'): "
              f"{exc}", file=sys.stderr)
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
