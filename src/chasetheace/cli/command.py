"""The ``chase-the-ace`` command (also ``python -m chasetheace``).

Subcommands: ``play`` (you against bots), ``simulate`` (bots against bots, with statistics),
``rules`` (the presets and options), ``replay`` (check and tell a saved game record).

More subcommands come from the package's other parts, each a module with
``register(subparsers)`` (:data:`COMMANDS`: ``solve``, ``review``, ``serve``, ``ace-chasing``, ``stats``).
They import their optional dependencies only when run, so each is always listed; running one without its
extra is one line naming the extra. ``play --game`` and ``simulate --game`` take any game of
:data:`chasetheace.registry.GAMES`, and ``replay`` any game's record: each game's kind names its
terminal front end (:mod:`.fronts`); Chase the Ace's is :data:`TERMINAL`, here.

Errors. A ValueError, OSError or ``chasetheace.RecordError`` raised by a handler for a user's
mistake is printed as one line ``chase-the-ace: error: <message>`` on stderr, exit status 2.
Argument errors are one line too, also exit status 2.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ..errors import RecordError
from ..extras import needs_extra_text
from ..files import check_plot_file, check_writable, read_json_record
from ..game import Game
from ..rates import counted
from ..registry import GAMES, bot_kinds, kind_of_record
from ..render import Narrator, explain_rules, option_rows
from ..rules import PRESETS, Rules, preset_info, rules_from_args
from ..sources import print_sources
from . import acechasing as ace_chasing_command
from . import play as terminal
from . import review as review_command
from . import serve as serve_command
from . import solve as solve_command
from . import stats as stats_command
from .fronts import Terminal, terminal_of
from .pacing import DEFAULT_DELAY, parse_delay

if TYPE_CHECKING:
    from rich.console import Console

    from ..sim import SimConfig, SimResult

__all__ = ["main", "build_parser", "add_rules_arguments", "COMMANDS", "TERMINAL"]

PROG = "chase-the-ace"
COMMANDS = (solve_command, review_command, serve_command, ace_chasing_command, stats_command)
"""The modules that add the other subcommands, each through ``register(subparsers)``."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr, exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# --- shared helpers ------------------------------------------------------------------------

def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--preset NAME`` and repeatable ``--rule KEY=VALUE`` to ``parser``."""
    names = ", ".join(p.name for p in PRESETS)
    parser.add_argument("--preset", default="standard", metavar="NAME",
                        help=f"the rules to start from (default standard): {names}")
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                        help="change one option, e.g. --rule lives=4 (repeatable; "
                             "see `chase-the-ace rules standard`)")


def _preset_players(preset: str) -> int | None:
    return preset_info(preset).players


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _check_game(name: str) -> None:
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}: allowed {', '.join(GAMES)}")


def _games() -> str:
    """The games of the registry, for ``--game``'s help (the first is the default)."""
    names = list(GAMES)
    return f"{names[0]} (default)" + "".join(f", {n}" if n != names[-1] else f" or {n}" for n in names[1:])


def _bot_help() -> str:
    kinds = "; ".join(f"{k}: {h}" for k, h in bot_kinds().items())
    return f"a bot, once for all bot seats or once per seat ({kinds})"


# --- play ----------------------------------------------------------------------------------

def _cmd_play(args: argparse.Namespace) -> int:
    from .console import make_console

    _check_game(args.game)
    kind = GAMES[args.game]
    config = kind.config_from_args(args.preset, args.rule)
    if args.save is not None and not args.rules_help:
        check_writable(args.save)  # before the first deal, not at the first save
        terminal.check_new_record(args.save)
    console = make_console()
    args.default_players = _preset_players(args.preset) or 5
    from .play import QuitGame

    try:
        return terminal_of(kind).play(args, console, config)
    except (QuitGame, EOFError) as exc:
        if isinstance(exc, EOFError):
            console.print()
        print("You leave the table; the game is left unfinished.", file=sys.stderr)
        return 0
    except KeyboardInterrupt:
        print("\nInterrupted: you leave the table; the game is left unfinished.", file=sys.stderr)
        return 130


def _play_chase_the_ace(args: argparse.Namespace, console: Console, rules: Rules) -> int:
    """Chase the Ace's ``play``: the rules in force in words with ``--rules-help``, else a
    session at the terminal (:func:`.play.play_chase_the_ace`)."""
    if args.rules_help:
        console.print(f"[bold]The rules in force[/] ({preset_info(args.preset).name}"
                      f"{' with changes' if args.rule else ''}):")
        for line in explain_rules(rules):
            console.print("• " + line, markup=False)
        return 0
    return terminal.play_chase_the_ace(args, console, rules)


# --- simulate ------------------------------------------------------------------------------

def _cmd_simulate(args: argparse.Namespace) -> int:
    _check_game(args.game)
    kind = GAMES[args.game]
    return terminal_of(kind).simulate(args, kind.config_from_args(args.preset, args.rule))


def _simulate_chase_the_ace(args: argparse.Namespace, rules: Rules) -> int:
    """Chase the Ace's ``simulate``: :func:`chasetheace.sim.simulate` (or the fast kernel) with
    the statistics as tables, JSON, CSV or a plot."""
    from ..sim import SimConfig
    from .play import bot_specs

    started = time.perf_counter()
    if args.shuffle_seats:
        raise ValueError(f"--shuffle-seats is for ace-chasing, not {args.game}")
    players = args.players if args.players is not None else (
        len(args.bot) if args.bot and len(args.bot) > 1 else _preset_players(args.preset) or 5)
    meant = _preset_players(args.preset)
    if meant is not None and players != meant:
        print(f"{PROG}: note: {preset_info(args.preset).title} is a game for {meant} players; "
              f"simulating its rules at {players}", file=sys.stderr)
    specs = tuple(bot_specs(args.bot, players, "threshold:8"))
    if args.engine == "fast":
        from ..fast.sim import check_fast_specs

        check_fast_specs(specs)  # before the bots are made: making some solves
    games = args.games if args.games is not None or args.hands is not None else 1000
    config = SimConfig(rules=rules, bots=specs, seed=args.seed, games=games, hands=args.hands)
    for path in (args.csv, args.save):
        if path is not None:
            check_writable(path)
    if args.save is not None:
        terminal.check_new_record(args.save)  # as play --save: a saved game is never overwritten
    if args.plot is not None:
        check_plot_file(args.plot)
    result = _run_simulation(config, args.workers, show_progress=sys.stderr.isatty(), engine=args.engine)
    label = preset_info(args.preset).name + (f" with {', '.join(args.rule)}" if args.rule else "")
    if args.json:
        print(json.dumps({"preset": preset_info(args.preset).name, "rule_changes": args.rule,
                          **result.to_dict()}, indent=2))
    else:
        _print_simulation(result, label, time.perf_counter() - started)
    if args.csv is not None:
        _write_csv(result, args.csv)
    if args.plot is not None:
        _plot(result, args.plot, label)
    if args.save is not None:
        from ..sim import first_game

        Path(args.save).write_text(json.dumps(first_game(config).record(), indent=1) + "\n",
                                   encoding="utf-8")
    return 0


def _run_simulation(config: SimConfig, workers: int, *, show_progress: bool,
                    engine: str = "auto") -> SimResult:
    from ..fast.sim import simulate  # the engine chosen: the kernel, or chasetheace.sim.simulate

    def notice(text: str) -> None:
        print(f"{PROG}: note: {text}", file=sys.stderr)

    if not show_progress:
        return simulate(config, workers=workers, engine=engine, notice=notice)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from .console import make_console

    unit = "games" if config.games is not None else "hands"
    with Progress(TextColumn(f"simulating {unit}"), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=make_console(stderr=True), transient=True) as bar:
        task = bar.add_task("sim", total=config.games or config.hands)
        return simulate(config, workers=workers, engine=engine, notice=notice,
                        progress=lambda done, total: bar.update(task, completed=done))


def _pct(row: dict[str, Any]) -> tuple[str, str]:
    lo, hi = row["ci95"]
    return f"{100 * row['rate']:.1f}%", f"{100 * lo:.1f}% .. {100 * hi:.1f}%"


MIN_TIMED_SECONDS = 0.5
"""A rate is given only over at least this much timed work (under it, the clock's jitter and the
machine's other work make it anything from a fraction to many times the steady rate)."""


def rate_line(result: SimResult, waited: float) -> str:
    """The last line of ``simulate``: the hands over the work timed (wall clock, the engine's work
    alone), the rate when that is long enough to mean something, and the ``waited`` seconds in all."""
    workers = f"{result.workers} worker{'s' if result.workers > 1 else ''}"
    engine = "the fast kernel" if result.engine == "fast" else "the Python engine"
    timed = (f"{result.tally.hands:,} hands in {result.seconds:.2f} s of wall-clock time ({engine}, "
             f"{workers})")
    if result.seconds >= MIN_TIMED_SECONDS:
        rate = f"{result.hands_per_second:,.0f} hands per second"
    else:
        rate = (f"too little work to time hands per second (under {MIN_TIMED_SECONDS} s: "
                "ask for more --hands or --games)")
    return f"{timed}: {rate}. {waited:.1f} s in all, with loading the engine and its bots."


def _print_simulation(result: SimResult, label: str, waited: float) -> None:
    from rich.markup import escape
    from rich.table import Table

    from .console import make_console

    console = make_console()
    c = result.config
    console.print(f"[bold]{escape(c.game)}[/] · {escape(label)} · {c.players} players · "
                  f"seed {c.seed}: {counted(result.tally.games, 'game')}, "
                  f"{counted(result.tally.hands, 'hand')}")
    pos = Table(title="Loss rate per hand by position", title_justify="left", caption_justify="left",
                caption="Places count from the eldest; the dealer acts last. Hands with fewer "
                "players in have fewer places.")
    for name in ("position", "hands", "losses", "rate", "95% CI"):
        pos.add_column(name, justify="left" if name == "position" else "right")
    for row in result.loss_rate_by_position():
        pos.add_row(row["position"], f"{row['hands']:,}", f"{row['losses']:,}", *_pct(row))
    console.print(pos)
    wins = Table(title="Win rate per game by seat", title_justify="left")
    for name in ("seat", "name", "bot", "wins", "rate", "95% CI"):
        wins.add_column(name, justify="right" if name in ("wins", "rate", "95% CI") else "left")
    for row in result.win_rate_by_seat():
        wins.add_row(str(row["seat"]), row["name"], row["bot"], f"{row['wins']:,}", *_pct(row))
    if result.tally.games:
        console.print(wins)
    if result.tally.no_sole_winner:
        console.print(f"{counted(result.tally.no_sole_winner, 'game')} had no sole winner "
                      "(split or no winner).")
    console.print(rate_line(result, waited), markup=False)


def _write_csv(result: SimResult, path: str) -> None:
    with Path(path).open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["table", "key", "trials", "count", "rate", "ci95_low", "ci95_high"])
        for row in result.loss_rate_by_position():
            out.writerow(["loss_by_position", row["position"], row["hands"], row["losses"],
                          row["rate"], *row["ci95"]])
        for size, rows in result.loss_rate_by_players_in().items():
            for row in rows:
                out.writerow([f"loss_by_position_{size}_players", row["position"], row["hands"],
                              row["losses"], row["rate"], *row["ci95"]])
        for row in result.loss_rate_by_rank_dealt():
            out.writerow(["loss_by_rank_dealt", row["rank"], row["hands"], row["losses"],
                          row["rate"], *row["ci95"]])
        for row in result.win_rate_by_seat():
            out.writerow(["win_by_seat", f"{row['seat']} {row['name']} {row['bot']}", row["games"],
                          row["wins"], row["rate"], *row["ci95"]])


def _plot(result: SimResult, path: str, label: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_pos = result.loss_rate_by_position()
    by_rank = result.loss_rate_by_rank_dealt()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for axes, rows, key, axis_label in ((left, by_pos, "position", "position in the turn order"),
                                        (right, by_rank, "rank", "rank dealt (weakest first)")):
        rates = [r["rate"] for r in rows]
        errors = [[r["rate"] - r["ci95"][0] for r in rows], [r["ci95"][1] - r["rate"] for r in rows]]
        axes.bar([r[key] for r in rows], rates, yerr=errors, capsize=3, color="#b03a2e")
        axes.set_xlabel(axis_label)
        axes.set_ylabel("loss rate per hand")
        axes.set_ylim(0, max([*rates, 0.01]) * 1.25)
    c = result.config
    fig.suptitle(f"{c.game}, {label}, {c.players} players, {result.tally.hands:,} hands "
                 f"(bars: 95% CI)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- rules ---------------------------------------------------------------------------------

def _cmd_rules(args: argparse.Namespace) -> int:
    from rich import box
    from rich.table import Table

    from .console import make_console

    console = make_console()
    if args.name is None and not args.rule:
        table = Table(title="Presets (chase-the-ace rules NAME shows one in full)", title_justify="left",
                      box=box.SIMPLE_HEAD, expand=True)
        table.add_column("preset", no_wrap=True)
        table.add_column("what it is", ratio=2)
        table.add_column("source", ratio=1, min_width=15, overflow="fold")
        for p in PRESETS:
            aliases = f" [dim](also {', '.join(p.aliases)})[/dim]" if p.aliases else ""
            table.add_row(f"[bold]{p.name}[/]", p.description + aliases, p.source)
        console.print(table)
        print_sources(console, [p.source for p in PRESETS])
        return 0
    preset = args.name or "standard"
    rules = rules_from_args(preset, args.rule)
    info = preset_info(preset)
    table = Table(title=f"{info.name}: {info.description}", title_justify="left", box=box.SIMPLE_HEAD,
                  expand=True)
    table.add_column("option", no_wrap=True, style="bold")
    table.add_column("value", no_wrap=True)
    table.add_column("meaning", ratio=3, overflow="fold")
    table.add_column("source", ratio=2, overflow="fold")
    rows = option_rows(rules)
    for key, value, meaning, source, changed in rows:
        table.add_row(key, f"[bold yellow]{value}[/]" if changed else value, meaning, source)
    console.print(table)
    print_sources(console, [row[3] for row in rows] + [info.source])
    console.print("[dim]Values in yellow differ from the standard game.[/dim]")
    return 0


# --- replay --------------------------------------------------------------------------------

def _cmd_replay(args: argparse.Namespace) -> int:
    return terminal_of(kind_of_record(read_json_record(args.file))).replay(args)


def _replay_chase_the_ace(args: argparse.Namespace) -> int:
    """Chase the Ace's ``replay``: the record checked event by event, and told unless ``--check``."""
    from .console import make_console
    from .play import tell

    data = read_json_record(args.file)
    try:
        game = Game.from_record(data)
    except RecordError as exc:
        raise RecordError(f"{args.file}: {exc}") from None
    console = make_console()
    if not args.check:
        # a seat named "You" (play's default name) is told in the second person
        you = game.names.index("You") if "You" in game.names else None
        tell(console, Narrator(game.names, game.rules, viewer=you),
             [event.to_dict() for event in game.events])
    hands = game.hand
    if game.over:
        end = ("won by " + " and ".join(game.names[s] for s in game.winners)) if game.winners \
            else "with no winner"
        console.print(f"The record is valid: {len(game.events)} events, {hands} hands, "
                      f"the game {end}.", markup=False)
    else:
        console.print(f"The record is valid: {len(game.events)} events; it stops in hand {hands} "
                      f"with {game.names[game.to_act or 0]} to act.", markup=False)
    return 0


TERMINAL = Terminal(play=_play_chase_the_ace, simulate=_simulate_chase_the_ace,
                    replay=_replay_chase_the_ace)
"""Chase the Ace at the terminal (``GameKind.terminal`` of :data:`chasetheace.registry.CHASE_THE_ACE`)."""


# --- the parser ----------------------------------------------------------------------------

def _version() -> str:
    """The installed package's version (the facade's ``__version__`` sits above this layer)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("chase-the-ace")
    except PackageNotFoundError:
        return "(not installed: run from a checkout)"


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: play, simulate, rules, replay, then :data:`COMMANDS`."""
    parser = _Parser(prog=PROG, description="Chase the Ace (Ranter-Go-Round, Cuckoo, Screw Your "
                     "Neighbour, Le Her): play it against bots, or study it by simulation.")
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser("play", help="play against bots at the terminal",
                          description="You against bots. Answer k (keep, stand) or s (swap, change).")
    play.add_argument("--game", default="chase-the-ace", help=f"the game: {_games()}")
    add_rules_arguments(play)
    play.add_argument("--players", type=int, metavar="N", help="players at the table, you included "
                      "(default 5, or the preset's own)")
    play.add_argument("--name", default="You", help="your name at the table")
    play.add_argument("--bot", action="append", metavar="SPEC", help=_bot_help() + "; default counting")
    play.add_argument("--seed", type=int, help="seed for the shuffles (default: a fresh one, shown)")
    play.add_argument("--save", metavar="FILE", help="write the game record (JSON) to FILE")
    play.add_argument("--rules-help", action="store_true", help="explain the rules in force and stop")
    play.add_argument("--hints", action="store_true", help="show the solver's hint at each of your "
                      "decisions (h shows it on demand); Ace Chasing: the odds of each decision")
    play.add_argument("--stats", metavar="FILE", help="keep your stats in FILE (default: "
                      "$CHASE_THE_ACE_STATS, or your data directory; see chase-the-ace stats)")
    play.add_argument("--delay", type=parse_delay, metavar="SECONDS",
                      help=f"pause between moves (default {DEFAULT_DELAY} at a terminal; 0 for none)")
    play.set_defaults(func=_cmd_play)

    sim = sub.add_parser("simulate", help="bots against bots, with statistics",
                         description="Bots against bots: loss rate per hand by position and win "
                         "rate per game by seat, with 95% (Wilson) confidence intervals.")
    sim.add_argument("--game", default="chase-the-ace", help=f"the game: {_games()}")
    add_rules_arguments(sim)
    amount = sim.add_mutually_exclusive_group()
    amount.add_argument("--games", type=_positive, metavar="N", help="play N whole games (default 1000)")
    amount.add_argument("--hands", type=_positive, metavar="N", help="play N hands instead")
    sim.add_argument("--players", type=int, metavar="N", help="seats (default 5, or the preset's own)")
    sim.add_argument("--bot", action="append", metavar="SPEC",
                     help=_bot_help() + "; default threshold:8")
    sim.add_argument("--seed", type=int, default=1, help="seed (default 1): same seed, same numbers")
    sim.add_argument("--workers", type=_positive, default=1, metavar="K",
                     help="processes to share the work (the numbers do not depend on K)")
    sim.add_argument("--engine", choices=("python", "auto", "fast"), default="auto",
                     help="auto (default): the compiled kernel (extra [fast]) when it can play every "
                     "bot, else the Python engine, with a note; fast: the same, asked for by name; "
                     "python: the Python engine. The same seed gives the same numbers on the same engine")
    sim.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    sim.add_argument("--csv", metavar="FILE", help="also write the rates to FILE as CSV")
    sim.add_argument("--plot", metavar="FILE.png", help="also draw the loss rates (needs matplotlib)")
    sim.add_argument("--save", metavar="FILE", help="also write the record of the run's first game "
                     "(JSON, for replay and review)")
    sim.add_argument("--shuffle-seats", action="store_true",
                     help="ace-chasing only: " + ace_chasing_command.SHUFFLE_HELP)
    sim.set_defaults(func=_cmd_simulate)

    rules = sub.add_parser("rules", help="the presets, or every option of one",
                           description="Without NAME: the presets. With NAME: every option with "
                           "its value, meaning and source.")
    rules.add_argument("name", nargs="?", metavar="NAME", help="a preset or alias")
    rules.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                       help="change one option (repeatable)")
    rules.set_defaults(func=_cmd_rules)

    replay = sub.add_parser("replay", help="check a saved game record and tell it hand by hand",
                            description="Replays a record written by `play --save`, checking every "
                            "event against the rules, and tells the game with every card.")
    replay.add_argument("file", metavar="FILE", help="a game record (JSON)")
    replay.add_argument("--check", action="store_true", help="only check it; print one line")
    replay.set_defaults(func=_cmd_replay)

    for module in COMMANDS:
        module.register(sub)
    return parser


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        where = exc.filename if exc.filename is not None else ""
        return f"{where}: {exc.strerror}" if where else exc.strerror
    return " ".join(str(exc).split()) or type(exc).__name__


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 fine, 2 a user's mistake)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or an argument error already printed on one line
        return exc.code if isinstance(exc.code, int) else 2
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 0
    try:
        status: int = func(args)
    except BrokenPipeError:  # the reader went away (| head): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except (ValueError, OSError) as exc:  # RecordError is a ValueError
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] != "rich":
            raise
        print(f"{PROG}: error: {needs_extra_text('this command', 'cli', missing='rich')}", file=sys.stderr)
        return 2
    return status
