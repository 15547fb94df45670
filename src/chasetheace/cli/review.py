"""The ``review`` subcommand: ``chase-the-ace review GAME.json [--json] [--seat N]``.

Reads a game record (``play --save``, the web table's, ``simulate --save``) and judges every
decision with the solver (:func:`chasetheace.solver.advice.review`). Solutions come from the
cache; a first use solves, with a progress bar on stderr. An Ace Chasing record gets its bets
judged against the odds and its keeps and swaps by the chance of being knocked out
(:func:`chasetheace.solver.advice_ace.review_ace_chasing`).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..errors import RecordError
from ..files import read_json_record
from ..game import Game
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
    from ..acechasing.game import FORMAT as ACE_CHASING
    from ..solver.advice import review
    from ..solver.advice_ace import review_ace_chasing

    data = read_json_record(args.file)
    ace = isinstance(data, dict) and data.get("format") == ACE_CHASING
    try:  # a bad record or seat fails before any solving
        result: Any = review_ace_chasing(data) if ace else None
        players = len(result.names) if ace else Game.from_record(data).players
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
