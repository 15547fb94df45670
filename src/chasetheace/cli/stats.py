"""Your record across runs of ``chase-the-ace play``: games, wins, lives lost per hand by position,
and against which bots; for Ace Chasing, games, wins, money won and lost, rounds and times as the
matador. ``play`` adds each finished game; ``chase-the-ace stats`` shows them.

The games are kept in a small SQLite file in your data directory (from platformdirs, in the
``[cli]`` extra), or wherever ``--stats FILE`` or the environment variable
``CHASE_THE_ACE_STATS`` says.

>>> import chasetheace as cta
>>> game = cta.Game(cta.Rules(), players=["You", "Bob", "Cat"], seed=3)
>>> cta.play_game(game, [cta.ThresholdBot(8)] * 3, seed=3)
>>> store = StatsStore(":memory:")
>>> store.add(game, you=0, bots=["threshold:8", "threshold:8"], preset="standard")
>>> summary = store.summary()
>>> summary.games, summary.wins == (game.winners == (0,))
(1, True)
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..events import FinalTie, HandStarted, LivesLost
from ..seats import position_name

if TYPE_CHECKING:
    from ..acechasing.game import AceChasingGame
    from ..game import Game

__all__ = ["ENV_VAR", "StatsStore", "Summary", "default_path", "stats_path", "open_stats", "keep_game",
           "keep_ace_game", "register", "run"]

ENV_VAR = "CHASE_THE_ACE_STATS"
"""An environment variable naming the stats file (overrides the data directory)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    finished TEXT NOT NULL,       -- when, UTC, ISO 8601
    preset TEXT NOT NULL,
    rules TEXT NOT NULL,          -- JSON: the options that differ from standard
    players INTEGER NOT NULL,
    bots TEXT NOT NULL,           -- JSON: the bot specs, one per bot seat
    won INTEGER NOT NULL,         -- 1 if you won alone, 0 otherwise
    shared INTEGER NOT NULL,      -- 1 if you shared the pot
    hands INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ace_games (
    id INTEGER PRIMARY KEY,
    finished TEXT NOT NULL,       -- when, UTC, ISO 8601
    players INTEGER NOT NULL,
    bots TEXT NOT NULL,           -- JSON: the bot specs, one per bot seat
    won INTEGER NOT NULL,         -- 1 if you were the last player left
    money INTEGER NOT NULL,       -- your money at the end (won or lost over the game's bets)
    rounds INTEGER NOT NULL,      -- the rounds you played (up to the one you were knocked out in)
    matador INTEGER NOT NULL,     -- the rounds you were the matador
    survived INTEGER NOT NULL     -- of those, the rounds you survived
);
CREATE TABLE IF NOT EXISTS hands (
    game INTEGER NOT NULL REFERENCES games(id),
    hand INTEGER NOT NULL,
    position TEXT NOT NULL,       -- your place in the turn order: eldest, 2nd, ..., dealer
    players_in INTEGER NOT NULL,
    lives_lost INTEGER NOT NULL
);
"""


def default_path() -> Path:
    """``stats.sqlite3`` in the user's data directory for chase-the-ace (platformdirs)."""
    from platformdirs import user_data_path

    return user_data_path("chase-the-ace", appauthor=False) / "stats.sqlite3"


def stats_path(option: str | None = None) -> Path:
    """The stats file: ``option`` if given, else ``$CHASE_THE_ACE_STATS``, else :func:`default_path`."""
    chosen = option or os.environ.get(ENV_VAR)
    return Path(chosen) if chosen else default_path()


def keep_game(store: StatsStore | None, game: Game, *, you: int, bots: Sequence[str],
              preset: str = "standard") -> None:
    """Add a finished game of Chase the Ace to ``store`` if there is one; a failure is a note on
    stderr, not the end of the session (the game itself is over and saved)."""
    if store is not None:
        _noted(lambda: store.add(game, you=you, bots=bots, preset=preset))


def keep_ace_game(store: StatsStore | None, game: AceChasingGame, *, you: int, bots: Sequence[str]) -> None:
    """:func:`keep_game` for a finished game of Ace Chasing."""
    if store is not None:
        _noted(lambda: store.add_ace(game, you=you, bots=bots))


def _noted(add: Callable[[], None]) -> None:
    try:
        add()
    except ValueError as exc:
        print(f"chase-the-ace: note: {exc}", file=sys.stderr)


def open_stats(option: str | None = None) -> StatsStore | None:
    """The stats store ``play`` writes to. A file named by ``option`` must work (ValueError before
    the game if not); the default one may not, and then play goes on without stats, saying why."""
    try:
        path = stats_path(option)
        return StatsStore(path, make_folder=path == default_path())
    except (ImportError, OSError, ValueError) as exc:
        if option is not None:
            raise ValueError(f"cannot keep stats in {option}: {exc}") from None
        print(f"chase-the-ace: note: your stats are not kept this time ({exc})", file=sys.stderr)
        return None


@dataclass(frozen=True)
class Summary:
    """What the stats file holds, summed up."""

    games: int
    wins: int
    shared: int
    by_position: list[dict[str, Any]]   # position, hands, lives_lost, per_hand
    by_bots: list[dict[str, Any]]       # bots, games, wins, rate
    ace_chasing: dict[str, Any] = field(default_factory=dict)
    """Ace Chasing: games, wins, money, rounds, matador (rounds as the matador), survived (of
    those), and by_bots (bots, games, wins, rate, money)."""


class StatsStore:
    """The SQLite file of finished games (``":memory:"`` for one that is not kept)."""

    def __init__(self, path: str | Path, *, make_folder: bool = False) -> None:
        self.path = str(path)
        if make_folder:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        elif self.path != ":memory:" and not Path(self.path).parent.is_dir():
            raise ValueError(f"there is no folder {Path(self.path).parent}")
        try:
            self._db = sqlite3.connect(self.path)
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"cannot use {self.path} for stats: {exc}") from None

    def close(self) -> None:
        """Close the file."""
        self._db.close()

    def add(self, game: Game, *, you: int, bots: Sequence[str], preset: str) -> None:
        """Add a finished ``game`` in which you sat at seat ``you`` against ``bots``."""
        if not game.over:
            raise ValueError("only a finished game goes into the stats")
        hands = _your_hands(game, you)
        won = list(game.winners) == [you]
        try:
            self._insert(game, hands, won, you, bots, preset)
        except sqlite3.Error as exc:
            raise ValueError(f"cannot write the stats to {self.path}: {exc}") from None

    def add_ace(self, game: AceChasingGame, *, you: int, bots: Sequence[str]) -> None:
        """Add a finished game of Ace Chasing in which you sat at seat ``you`` against ``bots``."""
        if not game.over:
            raise ValueError("only a finished game goes into the stats")
        rounds, matador, survived = _your_rounds(game, you)
        try:
            with self._db:
                self._db.execute(
                    "INSERT INTO ace_games (finished, players, bots, won, money, rounds, matador, survived) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (datetime.now(UTC).isoformat(timespec="seconds"), game.players, json.dumps(list(bots)),
                     int(list(game.winners) == [you]), game.money[you], rounds, matador, survived))
        except sqlite3.Error as exc:
            raise ValueError(f"cannot write the stats to {self.path}: {exc}") from None

    def _insert(self, game: Game, hands: list[tuple[int, str, int, int]], won: bool, you: int,
                bots: Sequence[str], preset: str) -> None:
        with self._db:
            cursor = self._db.execute(
                "INSERT INTO games (finished, preset, rules, players, bots, won, shared, hands) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (datetime.now(UTC).isoformat(timespec="seconds"), preset,
                 json.dumps(game.rules.changes(), sort_keys=True), len(game.names), json.dumps(list(bots)),
                 int(won), int(you in game.winners and not won), len(hands)))
            self._db.executemany(
                "INSERT INTO hands (game, hand, position, players_in, lives_lost) VALUES (?, ?, ?, ?, ?)",
                [(cursor.lastrowid, *row) for row in hands])

    def summary(self) -> Summary:
        """Games, wins, lives lost per hand by position, and results by the bots you played."""
        db = self._db
        games, wins, shared = db.execute(
            "SELECT COUNT(*), COALESCE(SUM(won), 0), COALESCE(SUM(shared), 0) FROM games").fetchone()
        positions = db.execute(
            "SELECT position, COUNT(*), SUM(lives_lost) FROM hands GROUP BY position").fetchall()
        by_position = [{"position": p, "hands": n, "lives_lost": lost, "per_hand": lost / n}
                       for p, n, lost in sorted(positions, key=lambda row: _place_order(row[0]))]
        lineups: dict[str, list[int]] = {}
        for bots, won in db.execute("SELECT bots, won FROM games ORDER BY id"):
            key = _lineup(json.loads(bots))
            lineups.setdefault(key, [0, 0])
            lineups[key][0] += 1
            lineups[key][1] += won
        by_bots = [{"bots": k, "games": n, "wins": w, "rate": w / n} for k, (n, w) in lineups.items()]
        return Summary(games, wins, shared, by_position, by_bots, self._ace_summary())

    def _ace_summary(self) -> dict[str, Any]:
        db = self._db
        games, wins, money, rounds, matador, survived = db.execute(
            "SELECT COUNT(*), COALESCE(SUM(won), 0), COALESCE(SUM(money), 0), COALESCE(SUM(rounds), 0), "
            "COALESCE(SUM(matador), 0), COALESCE(SUM(survived), 0) FROM ace_games").fetchone()
        lineups: dict[str, list[int]] = {}
        for bots, won, gained in db.execute("SELECT bots, won, money FROM ace_games ORDER BY id"):
            row = lineups.setdefault(_lineup(json.loads(bots)), [0, 0, 0])
            row[0] += 1
            row[1] += won
            row[2] += gained
        return {"games": games, "wins": wins, "money": money, "rounds": rounds, "matador": matador,
                "survived": survived,
                "by_bots": [{"bots": k, "games": n, "wins": w, "rate": w / n, "money": g}
                            for k, (n, w, g) in lineups.items()]}


def _your_hands(game: Game, you: int) -> list[tuple[int, str, int, int]]:
    """Per hand you were in: its number, your place, the players in, the lives you lost."""
    rows: list[tuple[int, str, int, int]] = []
    playing = False  # whether you are in the hand being played
    for event in game.events:
        if isinstance(event, HandStarted):
            playing = you in event.order
            if playing:
                place = position_name(event.order.index(you), len(event.order))
                rows.append((event.hand, place, len(event.order), 0))
        elif isinstance(event, LivesLost) and playing:
            lost = sum(paid for seat, paid in event.payments if seat == you)
            rows[-1] = (*rows[-1][:3], rows[-1][3] + lost)
        elif isinstance(event, FinalTie) and event.rule == "replay" and playing:
            rows[-1] = (*rows[-1][:3], 0)  # the losses are cancelled and play goes on
    return rows


def _your_rounds(game: AceChasingGame, you: int) -> tuple[int, int, int]:
    """The rounds of Ace Chasing you played, those you were the matador in, and of those the ones
    you survived."""
    from ..acechasing.events import RoundStarted, Settled

    rounds = matador = survived = 0
    for event in game.events:
        if isinstance(event, RoundStarted) and you in event.order:
            rounds += 1
            matador += event.matador == you
        elif isinstance(event, Settled) and event.matador == you:
            survived += event.survived
    return rounds, matador, survived


def _place_order(position: str) -> int:
    if position == "eldest":
        return 0
    if position == "dealer":
        return 1000
    return int("".join(ch for ch in position if ch.isdigit()) or 999)


def _lineup(bots: Sequence[str]) -> str:
    """``'counting x4'``, ``'counting x2, random'``: the bots of a game, whatever their seats."""
    counts: dict[str, int] = {}
    for spec in bots:
        counts[spec] = counts.get(spec, 0) + 1
    return ", ".join(f"{s} x{n}" if n > 1 else s for s, n in sorted(counts.items()))


# --- the command ---------------------------------------------------------------------------------

def register(subparsers: Any) -> None:
    """Add ``chase-the-ace stats`` to the command."""
    p = subparsers.add_parser("stats", help="your games, wins and lives lost, across runs of play",
                              description="Your record from `chase-the-ace play`: games, wins, lives "
                              "lost per hand by position, and against which bots.")
    p.add_argument("--stats", metavar="FILE", help=f"the stats file (default: ${ENV_VAR}, or "
                   "stats.sqlite3 in your data directory)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """``chase-the-ace stats``; the exit status."""
    from .console import make_console

    path = stats_path(args.stats)
    if not path.exists():
        print(f"No games yet: {path} does not exist. Finish a game of `chase-the-ace play` (or "
              "`play --game ace-chasing`) first.")
        return 0
    store = StatsStore(path)
    try:
        summary = store.summary()
    finally:
        store.close()
    if args.json:
        print(json.dumps({"file": str(path), **summary.__dict__}, indent=2))
        return 0
    _print(make_console(), summary, path)
    return 0


def _print(console: Any, s: Summary, path: Path) -> None:
    from rich.markup import escape

    rate = f" ({100 * s.wins / s.games:.0f}%)" if s.games else ""
    shared = f", {s.shared} pot{'s' if s.shared != 1 else ''} shared" if s.shared else ""
    if s.games or not s.ace_chasing.get("games"):
        console.print(f"[bold]{s.games} game{'s' if s.games != 1 else ''}[/], {s.wins} won{rate}{shared}. "
                      f"[dim]({escape(str(path))})[/dim]")
    else:
        console.print(f"[dim]({escape(str(path))})[/dim]")
    if s.games:
        _print_chase_the_ace(console, s)
    if s.ace_chasing.get("games"):
        _print_ace_chasing(console, s.ace_chasing)


def _print_ace_chasing(console: Any, ace: dict[str, Any]) -> None:
    from rich.markup import escape
    from rich.table import Table

    n = ace["games"]
    survived = (f", survived {ace['survived']} ({100 * ace['survived'] / ace['matador']:.0f}%)"
                if ace["matador"] else "")
    console.print(f"[bold]Ace Chasing: {n} game{'s' if n != 1 else ''}[/], {ace['wins']} won "
                  f"({100 * ace['wins'] / n:.0f}%), money {ace['money']:+d}, {ace['rounds']} rounds played, "
                  f"{ace['matador']} as the matador{survived}.")
    bots = Table(title="Ace Chasing against", title_justify="left")
    for name in ("bots", "games", "wins", "rate", "money"):
        bots.add_column(name, justify="left" if name == "bots" else "right")
    for row in ace["by_bots"]:
        bots.add_row(escape(row["bots"]), str(row["games"]), str(row["wins"]), f"{100 * row['rate']:.0f}%",
                     f"{row['money']:+d}")
    console.print(bots)


def _print_chase_the_ace(console: Any, s: Summary) -> None:
    from rich.markup import escape
    from rich.table import Table

    places = Table(title="Your lives lost per hand, by place in the turn order", title_justify="left",
                   min_width=56)
    for name in ("position", "hands", "lives lost", "per hand"):
        places.add_column(name, justify="left" if name == "position" else "right")
    for row in s.by_position:
        places.add_row(row["position"], f"{row['hands']:,}", f"{row['lives_lost']:,}",
                       f"{row['per_hand']:.2f}")
    console.print(places)
    bots = Table(title="Against", title_justify="left")
    for name in ("bots", "games", "wins", "rate"):
        bots.add_column(name, justify="left" if name == "bots" else "right")
    for row in s.by_bots:
        bots.add_row(escape(row["bots"]), str(row["games"]), str(row["wins"]), f"{100 * row['rate']:.0f}%")
    console.print(bots)
