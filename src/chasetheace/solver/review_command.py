"""The ``review`` subcommand: ``chase-the-ace review GAME.json [--json] [--seat N]``.

Reads a game record (``play --save``, the web table's, ``simulate --save``) and judges every
decision with the solver (:func:`chasetheace.solver.advice.review`). Solutions come from the
cache; a first use solves, with a progress bar on stderr. An Ace Chasing record gets its bets
judged against the odds (:func:`chasetheace.solver.advice_ace.review_ace_chasing`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import RecordError
from .cache import Progress

__all__ = ["register", "run", "solving_progress", "read_record", "hint_line"]


def register(subparsers: Any) -> None:
    """Add the ``review`` subcommand to the main CLI's subparsers."""
    p = subparsers.add_parser(
        "review", help="judge every decision of a saved game with the solver",
        description="Each decision of a game record: what the player knew, what they did, the "
        "solver's call and the cost in expected lives against the best choice; then per player "
        "the decisions, mistakes, lives given away and accuracy.")
    p.add_argument("file", metavar="FILE", help="a game record (JSON), e.g. from play --save")
    p.add_argument("--json", action="store_true", help="print the review as JSON (docs/review.md)")
    p.add_argument("--seat", type=int, metavar="N", help="only the player at seat N (0 is the first)")
    p.set_defaults(func=run)


def read_record(path: str) -> Any:
    """The JSON of a record file; RecordError if it is not JSON."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path} is not JSON: {exc.msg} at line {exc.lineno}") from None


@contextlib.contextmanager
def solving_progress() -> Iterator[Progress]:
    """A :data:`~chasetheace.solver.cache.Progress` that shows a solve on stderr (a bar on a
    terminal, one line otherwise) and shows nothing when the solution is cached."""
    state: dict[str, Any] = {}

    def report(text: str, fraction: float) -> None:
        if not sys.stderr.isatty():
            if text.startswith("solv"):  # the start and the end, not every step
                print(text, file=sys.stderr, flush=True)
            return
        bar = state.get("bar")
        if bar is None:
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            from ..play import make_console

            console = state["console"] = make_console(stderr=True)
            console.print(text, markup=False)
            # refreshed here only, not by a thread that would race the solver for the terminal
            bar = state["bar"] = Progress(TextColumn("{task.description}"), BarColumn(),
                                          TimeElapsedColumn(), console=console, transient=True,
                                          auto_refresh=False)
            bar.start()
            state["task"] = bar.add_task("building the game tree", total=1.0)
            bar.refresh()
            return
        if fraction >= 1.0:
            bar.stop()
            state.pop("bar")
            state["console"].print(text, markup=False)
            return
        bar.update(state["task"], completed=fraction, description=text)
        bar.refresh()

    try:
        yield report
    finally:
        if "bar" in state:
            state["bar"].stop()


def hint_line(observation: Any) -> str:
    """The hint for the decision of ``observation``'s seat as one line for the terminal (solving
    first, with a progress bar, if the solution is not cached yet)."""
    from .advice import hint_for

    try:
        with solving_progress() as progress:
            return "Hint: " + hint_for(observation, progress=progress).text()
    except ValueError as exc:  # rules the solver does not model, or a situation it never met
        return f"No hint here: {exc}"


def run(args: argparse.Namespace) -> int:
    """Review a record and print it; a user's mistake raises ValueError (one line, exit 2)."""
    from ..acechasing import FORMAT as ACE_CHASING
    from ..record import game_from_record
    from .advice import review
    from .advice_ace import review_ace_chasing

    data = read_record(args.file)
    ace = isinstance(data, dict) and data.get("format") == ACE_CHASING
    try:  # a bad record or seat fails before any solving
        result: Any = review_ace_chasing(data) if ace else None
        players = len(result.names) if ace else game_from_record(data).players
    except RecordError as exc:
        raise RecordError(f"{args.file}: {exc}") from None
    seat = args.seat
    if seat is not None and not 0 <= seat < players:
        raise ValueError(f"bad seat {seat}: allowed 0..{players - 1}")
    if result is None:
        with solving_progress() as progress:
            result = review(data, progress=progress)
    if args.json:
        print(json.dumps(result.to_dict(seat), indent=1))
    else:
        print(result.text(seat))
    return 0
