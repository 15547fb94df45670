"""The ``review`` subcommand: ``chase-the-ace review GAME.json [--json] [--seat N]``.

Reads a game record (``play --save``, the web table's, ``simulate --save``) and judges every
decision with the solver (:func:`chasetheace.solver.uses.advice.review`). Solutions come from the
cache; a first use solves, with a progress bar on stderr. An Ace Chasing record gets its bets
judged against the odds and its keeps and swaps by the chance of being knocked out
(:func:`chasetheace.acechasing.review.review_ace_chasing`). The record's game kind
(:func:`chasetheace.registry.kind_of_record`) does the judging, from one replay of the record
(which also tells the solver the table sizes to solve ahead).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..errors import RecordError
from ..files import read_json_record
from ..kinds import GameKind
from ..record import Record
from .play import solving_progress

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``review`` subcommand to the main CLI's subparsers."""
    p = subparsers.add_parser(
        "review", help="judge every decision of a saved game with the solver",
        description="Each decision of a game record: what the player knew, what they did, the "
        "solver's call and the cost in expected lives against the best choice; then per player "
        "the decisions, mistakes, lives given away and accuracy. An Ace Chasing record: its bets "
        "against the odds and its keeps and swaps by the chance of being knocked out.")
    p.add_argument("file", metavar="FILE", help="a game record (JSON), e.g. from play --save")
    p.add_argument("--json", action="store_true", help="print the review as JSON (docs/review.md)")
    p.add_argument("--seat", type=int, metavar="N", help="only the player at seat N (0 is the first)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Review a record and print it; a user's mistake raises ValueError (one line, exit 2)."""
    from ..registry import kind_of_record

    data = read_json_record(args.file)
    kind = kind_of_record(data)
    try:  # read once: the review's one replay checks it against the rules before any solving
        record = kind.read_record(data)
    except RecordError as exc:
        raise RecordError(f"{args.file}: {exc}") from None
    players = len(record.players)
    seat = args.seat
    if seat is not None and not 0 <= seat < players:
        raise ValueError(f"bad seat {seat}: allowed 0..{players - 1}")
    from ..extras import needs_solver_text, solver_missing

    if kind.solver and solver_missing():  # one line, not a traceback from deep in the solver
        _check(kind, record, args.file)  # a bad record is named first, as when the solver is there
        raise ValueError(needs_solver_text(f"A review of {kind.title}"))
    try:
        with solving_progress() as progress:
            result = kind.review(record, None, progress)
    except ImportError as exc:
        raise ValueError(needs_solver_text(f"A review of {kind.title}", missing=exc.name)) from None
    except RecordError as exc:
        raise RecordError(f"{args.file}: {exc}") from None
    if args.json:
        print(json.dumps(result.to_dict(seat), indent=1))
    else:
        print(result.text(seat))
    return 0


def _check(kind: GameKind[Any, Any], record: Record, path: str) -> None:
    """RecordError naming ``path`` if ``record`` does not replay."""
    try:
        kind.from_record(record)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None
