"""Ace Chasing at the command line: you against bots (:func:`play_ace_chasing`), and bots against
bots with statistics (:func:`chasetheace.acechasing.sim.simulate_ace_chasing`, the game's own
simulator, told here).

Both are plain functions with injected input and output, so they need no terminal library.
:func:`register` (called by :mod:`chasetheace.cli`) makes ``chase-the-ace play --game
ace-chasing`` and ``chase-the-ace simulate --game ace-chasing`` run them, and adds
``chase-the-ace ace-chasing play|simulate|replay`` (``replay`` checks a saved record and tells it,
every card shown).

Everything a person is told comes from ``game.observation(you)``, through the game's narrator
(:func:`chasetheace.acechasing.render.narrate`), which says only what the event views it is given
hold.

>>> result = simulate_ace_chasing(players=5, bots=["odds"], games=20, seed=1)
>>> result["games"], sum(row["wins"] for row in result["win_rate_by_seat"])
(20, 20)
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import shutil
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..acechasing.bots import AceChasingBot, OddsBot
from ..acechasing.estimate import estimate
from ..acechasing.events import RoundStarted, read_view
from ..acechasing.game import MAX_OFFERS, AceAction, AceChasingGame, Offer
from ..acechasing.kind import BOTS as ACE_CHASING_BOTS
from ..acechasing.kind import NAME, AceChasingConfig, make_ace_chasing_bot
from ..acechasing.odds import DEFAULT_THRESHOLD
from ..acechasing.render import narrate
from ..acechasing.review import exchange_call, odds_hint, stake_call
from ..acechasing.sim import format_simulation, simulate_ace_chasing
from ..errors import RecordError
from ..events import Eliminated, GameOver
from ..files import check_writable, read_json_record
from ..record import FORMAT as GAME_FORMAT
from ..render import card_text
from .ace_view import left_neighbour
from .fronts import Terminal
from .pacing import QUIT_WORDS, Pace, QuitGame, parse_delay
from .play import (
    HELP_WORDS,
    HINT_WORDS,
    RULES_WORDS,
    bot_names,
    bot_specs,
    check_new_record,
    make_pace,
    parse_answer,
    play_again,
    record_path,
)

if TYPE_CHECKING:
    from rich.console import Console

__all__ = [
    "narrate", "parse_reply", "play_ace_chasing", "simulate_ace_chasing", "format_simulation",
    "replay_ace_chasing", "register", "run_play", "run_simulate", "run_replay", "TERMINAL",
]


# --- play --------------------------------------------------------------------------------------

def parse_reply(text: str, legal: Sequence[str]) -> AceAction | Offer | str | None:
    """A person's reply as an action, ``'quit'``, ``'help'``, ``'rules'`` or ``'hint'``; None if it
    makes no sense.

    >>> parse_reply("5", ["offer"]), parse_reply("no", ["accept", "decline"])
    (Offer(amount=5), <AceAction.DECLINE: 'decline'>)
    """
    if legal[0] == "keep":  # the words of part A: keep, stand, swap, change, ...
        answer = parse_answer(text)
        return {"keep": AceAction.KEEP, "swap": AceAction.SWAP}.get(answer or "", answer)
    word = text.strip().lower().rstrip("!.")
    for meaning, words in (("quit", QUIT_WORDS), ("help", HELP_WORDS), ("rules", RULES_WORDS),
                           ("hint", HINT_WORDS)):
        if word in words:
            return meaning
    replies: dict[str, dict[str, AceAction | Offer]] = {
        "offer": {"n": Offer(0), "no": Offer(0), "none": Offer(0), "pass": Offer(0), "w": Offer(0),
                  "withdraw": Offer(0)},
        "accept": {"a": AceAction.ACCEPT, "accept": AceAction.ACCEPT, "y": AceAction.ACCEPT,
                   "yes": AceAction.ACCEPT, "d": AceAction.DECLINE, "decline": AceAction.DECLINE,
                   "n": AceAction.DECLINE, "no": AceAction.DECLINE},
    }
    if legal[0] == "offer" and word.isdigit():
        return Offer(int(word))
    return replies[legal[0]].get(word)


PROMPTS = {
    "offer": ("Bet how much that the matador is knocked out? [a whole number, 0 or n for no bet] ",
              "Answer a whole number to offer (0 or n: no bet); h for the odds, r for the rules, "
              "q to leave."),
    "accept": ("Accept or decline? [a/d] ",
               "Answer a to accept the bet, d to decline it; h for the odds, r for the rules, "
               "q to leave."),
    "keep": ("Keep or swap with your left neighbour? [k/s] ",
             "Answer k to keep your card, s to swap with the player on your left; h for the odds, "
             "r for the rules, q to leave."),
}
ODDS_NOTE = ("(The odds take the cards you have not seen as equally likely anywhere, and the players "
             "still to exchange as keeping 7 or more and swapping lower.)")


def _status(obs: Mapping[str, Any]) -> str:
    names, me = obs["names"], obs["seat"]
    money = ", ".join(f"{'You' if s == me else names[s]} {obs['money'][s]:+d}"
                      + ("" if obs["in"][s] else " (out)") for s in range(obs["players"]))
    card = card_text(obs["card"]) if obs["card"] else "no card"
    return f"[round {obs['round']} · matador {names[obs['matador']]} · you hold {card} · money: {money}]"


def play_ace_chasing(*, players: int = 5, name: str = "You", bots: Sequence[str] = ("odds",),
                     seed: int | None = None, matador: int = 0, save: str | None = None,
                     ask: Callable[[str], str] = input,
                     say: Callable[[str], None] = print,
                     show: Callable[[Mapping[str, Any]], None] | None = None,
                     pace: Pace | None = None, hints: bool = False,
                     tell_money: bool = True) -> AceChasingGame:
    """You (seat 0) against bots at an Ace Chasing table, until the game ends or you leave.

    ``bots`` is one spec for every bot seat or one per bot seat; ``ask`` reads a reply to a
    prompt and ``say`` prints a line; ``show(observation)`` draws the table before each of your
    decisions (by default a one-line status); ``pace`` sets the pauses (none without it);
    ``hints`` tells the odds of each of your decisions before it (``h`` does at any question);
    ``tell_money`` ends with a line of the money (off when the caller tells it).
    Raises :class:`chasetheace.play.QuitGame` if you quit (the record, if saved, stays as far as
    it went). Returns the finished game.
    """
    specs = _specs(bots, players - 1, "bot seats")
    AceChasingGame(players)  # checks the player count
    names = [name, *bot_names(name, players - 1)]
    seed = seed if seed is not None else random.SystemRandom().randrange(10**6)
    game = AceChasingGame(names, seed=seed, matador=matador)
    robots: list[AceChasingBot | None] = [None, *(make_ace_chasing_bot(s) for s in specs)]
    rng = random.Random(seed)
    _save(save, game)
    say(f"Ace Chasing · {players} players · seed {seed}: you against "
        + ", ".join(f"{n} ({s})" for n, s in zip(names[1:], specs)) + ".")
    told = 0
    watching = False
    matador_now: int | None = None
    while True:
        obs = game.observation(0)
        batch = obs["history"][told:]
        for index, view in enumerate(batch):
            if pace is not None and _paced(batch, index, names, say, pace):
                continue
            ev = read_view(view)
            if isinstance(ev, RoundStarted):
                matador_now = ev.matador
            for line in narrate(view, names, 0, matador_now):
                say(line)
        told = len(obs["history"])
        seat = game.to_act
        if seat is None:
            break
        if not obs["in"][0] and not watching:
            watching = True
            if pace is None:  # with a pace, you were asked to watch or skip
                say("You are out: the bots play on to the end.")
        if seat == 0:
            (show or (lambda o: say(_status(o))))(obs)
            if pace is not None:
                pace.asked()
            table = {s: b for s, b in enumerate(robots) if b is not None}
            if hints:
                for line in _hint_lines(game, table, seed):
                    _say_wrapped(say, line)
            game.act(_ask(game, ask, say, table, seed))
        else:
            bot = robots[seat]
            assert bot is not None
            if pace is not None:
                pace.before_bot_move()
            game.act(bot.choose(game.observation(seat), game.legal_actions(), rng))
        _save(save, game)
    if tell_money:
        say("Money: " + " · ".join(f"{n} {m:+d}" for n, m in zip(names, game.money)))
    if save is not None:
        say(f"The game record is in {save} (chase-the-ace ace-chasing replay {save} tells it).")
    return game


def _paced(batch: Sequence[Mapping[str, Any]], index: int, names: Sequence[str],
           say: Callable[[str], None], pace: Pace) -> bool:
    """Pace the telling of ``batch[index]``; True if it is not to be told (skipping to the end)."""
    view = batch[index]
    ev = read_view(view)
    if isinstance(ev, RoundStarted):
        pace.hand_started()
    if pace.skipping:
        return not isinstance(ev, GameOver)
    if isinstance(ev, Eliminated) and 0 in ev.seats and \
            not any(isinstance(read_view(later), GameOver) for later in batch[index:]):
        for line in narrate(view, names, 0):
            say(line)
        if not pace.out():
            say("Skipping to the end of the game.")
        return True
    return False


def _prompt(game: AceChasingGame, phase: str) -> str:
    """The question for ``phase``; an exchange names the neighbour you would swap with."""
    if phase != "keep":
        return PROMPTS[phase][0]
    obs = game.observation(0)
    left = left_neighbour(obs)
    if left is None:
        return PROMPTS[phase][0]
    who = obs["names"][left] + (", the matador" if left == obs["matador"] else "")
    return f"Keep your card or swap with {who}? [k/s] "


def _say_wrapped(say: Callable[[str], None], text: str) -> None:
    """``text`` indented and broken between words to the terminal's width (``COLUMNS``)."""
    width = max(40, shutil.get_terminal_size().columns - 1)
    for line in textwrap.wrap(text, width, initial_indent="  ", subsequent_indent="    "):
        say(line)


def _plays_the_rule(bot: AceChasingBot) -> bool:
    """Whether ``bot`` exchanges as the exact odds assume (keep 7 or more, swap lower)."""
    return isinstance(bot, OddsBot) and bot.threshold == DEFAULT_THRESHOLD


def _hint_lines(game: AceChasingGame, table: Mapping[int, AceChasingBot], seed: int) -> list[str]:
    """The odds of your decision; where a player still to act does not exchange by the rule the
    odds assume, also the table's own figures, sampled against its bots (seeded by the game; your
    own exchange to come, if any, taken by the rule)."""
    obs = game.observation(0)
    order = obs["order"]
    start = order.index(obs["to_act"]) + 1 if obs["phase"] == "exchanges" else 0
    later = [s for s in order[start:-1] if s != 0]
    if all(_plays_the_rule(table[s]) for s in later):
        return ["Odds: " + odds_hint(obs)]
    # the players still to act do not exchange by the rule: the figure against them makes the call
    lines = ["Odds if everyone still to exchange kept 7 or more: " + odds_hint(obs, call=False)]
    rng = random.Random(f"{seed}/{game.round}/{len(game.events)}")
    table = {**table, 0: OddsBot(stake=0)}  # your own exchange to come, if any: by the rule
    if "keep" in obs["legal"]:
        keep = estimate(obs, table, rng=rng, samples=SAMPLES, action="keep")
        swap = estimate(obs, table, rng=rng, samples=SAMPLES, action="swap")
        assert keep.seat_out is not None and swap.seat_out is not None
        lines.append(f"Against these bots (sampled, {SAMPLES} rounds, +- {keep.seat_error:.0%}): you are "
                     f"knocked out {keep.seat_out:.0%} if you keep, {swap.seat_out:.0%} if you swap: "
                     f"{exchange_call(keep.seat_out, swap.seat_out)}.")
    else:
        got = estimate(obs, table, rng=rng, samples=SAMPLES)
        lines.append(f"Against these bots (sampled, {SAMPLES} rounds): the matador is knocked out "
                     f"{got.matador_out:.0%} (+- {got.matador_error:.0%}); "
                     f"{stake_call(obs, got.matador_out)}")
    return lines


SAMPLES = 1000
"""Rounds sampled for a hint against bots that do not exchange by the rule (about a second)."""


def _ask(game: AceChasingGame, ask: Callable[[str], str], say: Callable[[str], None],
         table: Mapping[int, AceChasingBot] | None = None, seed: int = 0) -> AceAction | Offer:
    legal = [a.value for a in game.legal_actions()]
    help_text = PROMPTS[legal[0]][1]
    prompt = _prompt(game, legal[0])
    while True:
        reply = parse_reply(ask(prompt), legal)
        if reply == "quit":
            raise QuitGame
        if reply == "rules":
            for line in RULES_SUMMARY:
                _say_wrapped(say, line)
            continue
        if reply == "hint":
            for line in (_hint_lines(game, table, seed) if table is not None
                         else ["Odds: " + odds_hint(game.observation(0))]):
                _say_wrapped(say, line)
            _say_wrapped(say, ODDS_NOTE)
            continue
        if isinstance(reply, AceAction | Offer) and game.can_act(reply):
            return reply
        say(help_text)


def _specs(bots: Sequence[str] | None, count: int, seats: str) -> list[str]:
    specs = bot_specs(bots, count, "odds", seats=seats)
    for spec in specs:
        make_ace_chasing_bot(spec)  # a bad spec fails before the first deal
    return specs


def _save(path: str | None, game: AceChasingGame) -> None:
    if path is not None:
        Path(path).write_text(json.dumps(game.record(), indent=1) + "\n", encoding="utf-8")


# --- the command line ----------------------------------------------------------------------------

RULES_SUMMARY = (
    "One player is the matador; one card each, dealt clockwise from the matador's left, the matador last.",
    "Each other player may bet against the matador: offer an amount; the matador accepts or declines; "
    f"after a decline, offer again or withdraw ({MAX_OFFERS} offers at most).",
    "Then each player but the matador keeps or swaps with the left neighbour; the matador takes no turn "
    "and gets whatever the player on its right passes.",
    "The matador shows its card; everyone holding a lower one shows it (K high, A low); if an ace is "
    "face up, everyone holding a card of its suit shows it.",
    "If anyone but the matador showed a card, they are out and the matador collects every bet; "
    "otherwise the matador is out and pays every bet.",
    "The next matador is the nearest player still in to the right. The last player left wins.",
)
"""Part B of RULES.md in a few lines, for ``play --rules-help``."""


def play_from_cli(args: argparse.Namespace, console: Console, config: AceChasingConfig) -> int:
    """``chase-the-ace play --game ace-chasing`` (:data:`TERMINAL`); ``config`` is the game's
    (no rule options: :attr:`~chasetheace.kinds.GameKind.config_from_args` refused any)."""
    if args.rules_help:
        console.print("[bold]Ace Chasing[/] (RULES.md part B):")
        for line in RULES_SUMMARY:
            console.print("• " + line, markup=False)
        return 0
    players = args.players if args.players is not None else (
        len(args.bot) + 1 if args.bot and len(args.bot) > 1 else 5)
    return play_games(args, console, players)


def play_games(args: argparse.Namespace, console: Console, players: int, matador: int = 0) -> int:
    """Games of Ace Chasing at the terminal, one after another while you answer yes, with the
    table drawn by Rich, the pace of ``--delay`` and the money over the games."""
    from rich.markup import escape

    from .ace_view import ace_table

    AceChasingGame(players)  # a bad player count is one error line before anything is said
    if args.save is not None:
        check_writable(args.save)
        check_new_record(args.save)
    pace = make_pace(console, args, "round")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    ledger = [0] * players
    number = 1
    from .stats import keep_ace_game, open_stats

    stats = open_stats(getattr(args, "stats", None))
    hints = bool(getattr(args, "hints", False))
    if hints:
        console.print(ODDS_NOTE, markup=False)
    while True:
        if number > 1:
            console.rule(f"[bold]Game {number}[/]", style="dim")
        game = play_ace_chasing(
            players=players, name=args.name, bots=args.bot, seed=seed if number == 1 else
            random.Random(f"{seed}/{number}").randrange(10**6), matador=matador,
            save=record_path(args.save, number) if number > 1 else args.save,
            ask=lambda prompt: console.input(f"[bold cyan]{escape(prompt)}[/]"),
            say=lambda line: console.print(line, markup=False),
            show=lambda obs: console.print(ace_table(obs)), pace=pace, hints=hints, tell_money=False)
        console.print(ace_table(game.observation(0)))
        keep_ace_game(stats, game, you=0, bots=_specs(args.bot, players - 1, "bot seats"))
        ledger = [a + b for a, b in zip(ledger, game.money)]
        console.print(f"Money after {number} game{'s' if number > 1 else ''}: "
                      + " · ".join(f"{n} {m:+d}" for n, m in zip(game.names, ledger)), markup=False)
        if not play_again(console):
            return 0
        number += 1
        pace = make_pace(console, args, "round")


def simulate_from_cli(args: argparse.Namespace, config: AceChasingConfig) -> int:
    """``chase-the-ace simulate --game ace-chasing`` (:data:`TERMINAL`). ``--workers`` is accepted,
    but one process plays."""
    if args.save is not None:
        raise ValueError(f"--save is for chase-the-ace, not {NAME}")
    if args.engine == "fast":
        raise ValueError(f"--engine fast: the fast engine plays chase-the-ace only, not {NAME} "
                         "(leave --engine out)")
    for flag, value in (("--hands", args.hands), ("--plot", args.plot)):
        if value is not None:
            raise ValueError(f"{flag} is not available for Ace Chasing (use --games, --json, --csv)")
    players = args.players if args.players is not None else (
        len(args.bot) if args.bot and len(args.bot) > 1 else 5)
    if args.csv is not None:
        check_writable(args.csv)  # before the run, not after it
    result = simulate_ace_chasing(players=players, bots=args.bot or ["odds"], games=args.games or 1000,
                                  seed=args.seed, shuffle_seats=bool(getattr(args, "shuffle_seats", False)))
    print(json.dumps(result, indent=2) if args.json else "\n".join(format_simulation(result)))
    if args.csv is not None:
        write_csv(result, args.csv)
    return 0


def write_csv(result: Mapping[str, Any], path: str) -> None:
    """The rates of :func:`simulate_ace_chasing` as CSV rows (table, key, trials, count, rate, CI)."""
    with Path(path).open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["table", "key", "trials", "count", "rate", "ci95_low", "ci95_high"])
        rows: list[tuple[str, str, int, int, dict[str, Any]]] = [
            ("matador_survival", "matador", result["matador_survival"]["rounds"],
             result["matador_survival"]["survived"], result["matador_survival"])]
        rows += [("knocked_out_by_place", r["place"], r["rounds"], r["out"], r)
                 for r in result["knocked_out_by_place"]]
        rows += [("win_by_seat", f"{r['seat']} {r['bot']}", r["games"], r["wins"], r)
                 for r in result["win_rate_by_seat"]]
        for table, key, trials, count, r in rows:
            out.writerow([table, key, trials, count, r["rate"], *r["ci95"]])


def run_play(args: argparse.Namespace) -> int:
    """``play`` with the arguments of :func:`add_play_arguments`; the exit status."""
    from .console import make_console

    try:
        return play_games(args, make_console(), args.players, args.matador)
    except (QuitGame, EOFError):
        print("You leave the table; the game is left unfinished.")
    return 0


def run_simulate(args: argparse.Namespace) -> int:
    """``simulate`` with the arguments of :func:`add_simulate_arguments`; the exit status."""
    result = simulate_ace_chasing(players=args.players, bots=args.bot or ["odds"], games=args.games,
                                  seed=args.seed, shuffle_seats=args.shuffle_seats)
    print(json.dumps(result, indent=2) if args.json else "\n".join(format_simulation(result)))
    return 0


def replay_ace_chasing(path: str, *, check: bool = False,
                       say: Callable[[str], None] = print) -> AceChasingGame:
    """Replay the record in ``path``, checking every event; tell it with every card unless ``check``.

    Raises RecordError (naming the file and the first bad event) or OSError.
    """
    data = read_json_record(path)
    if isinstance(data, dict) and data.get("format") == GAME_FORMAT:
        raise RecordError(f"{path} is a Chase the Ace record, not Ace Chasing: "
                          f"use chase-the-ace replay {path}")
    try:
        game = AceChasingGame.from_record(data)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None
    if not check:
        for event in game.events:
            for line in narrate(event.to_dict(), game.names):
                say(line)
    if game.over:
        say(f"The record is valid: {len(game.events)} events, {game.round} rounds, "
            f"won by {game.names[game.winners[0]]}.")
    else:
        say(f"The record is valid: {len(game.events)} events; it stops in round {game.round} "
            f"with {game.names[game.to_act or 0]} to act.")
    return game


def run_replay(args: argparse.Namespace) -> int:
    """``replay FILE [--check]``; the exit status."""
    replay_ace_chasing(args.file, check=args.check)
    return 0


TERMINAL = Terminal(play=play_from_cli, simulate=simulate_from_cli, replay=run_replay)
"""Ace Chasing at ``chase-the-ace play``, ``simulate`` and ``replay`` (``GameKind.terminal``)."""


SHUFFLE_HELP = ("seat the bots in a fresh random order every game, so each meets every place and "
                "neighbour (for comparing bots: see the by-bot table)")


def _bot_help() -> str:
    kinds = "; ".join(kind.help for kind in ACE_CHASING_BOTS.values())
    return f"a bot, once for every bot seat or once per seat ({kinds}); default odds"


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of Ace Chasing's ``play``."""
    parser.add_argument("--players", type=int, default=5, metavar="N",
                        help="players, you included (4..52, default 5)")
    parser.add_argument("--name", default="You", help="your name at the table")
    parser.add_argument("--bot", action="append", metavar="SPEC", help=_bot_help())
    parser.add_argument("--seed", type=int, help="seed for the shuffles (default: a fresh one, shown)")
    parser.add_argument("--matador", type=int, default=0, metavar="SEAT",
                        help="the first matador's seat (default 0: you)")
    parser.add_argument("--save", metavar="FILE", help="write the game record (JSON) to FILE")
    parser.add_argument("--delay", type=parse_delay, metavar="SECONDS",
                        help="pause between moves (default 0.6 at a terminal; 0 for none)")
    parser.add_argument("--hints", action="store_true",
                        help="tell the odds of each of your decisions before it (h: at any question)")
    parser.add_argument("--stats", metavar="FILE", help="keep your stats in FILE (default: "
                        "$CHASE_THE_ACE_STATS, or your data directory; see chase-the-ace stats)")


def add_simulate_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of Ace Chasing's ``simulate``."""
    parser.add_argument("--players", type=int, default=5, metavar="N", help="seats (4..52, default 5)")
    parser.add_argument("--bot", action="append", metavar="SPEC", help=_bot_help())
    parser.add_argument("--games", type=int, default=1000, metavar="N", help="games to play (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="seed (default 1): same seed, same numbers")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument("--shuffle-seats", action="store_true", help=SHUFFLE_HELP)


def register(subparsers: Any) -> None:
    """Add ``ace-chasing play``, ``simulate`` and ``replay`` to the ``chase-the-ace`` command."""
    top = subparsers.add_parser("ace-chasing", help="Ace Chasing, the matador game (RULES.md part B)",
                                description="Ace Chasing: bet against the matador, then keep or swap.")
    sub = top.add_subparsers(dest="ace_chasing_command", metavar="COMMAND", required=True)
    play = sub.add_parser("play", help="you against bots at the terminal")
    add_play_arguments(play)
    play.set_defaults(func=run_play)
    sim = sub.add_parser("simulate", help="bots against bots, with statistics")
    add_simulate_arguments(sim)
    sim.set_defaults(func=run_simulate)
    replay = sub.add_parser("replay", help="check a saved Ace Chasing record and tell it")
    replay.add_argument("file", metavar="FILE", help="a record written by play --save")
    replay.add_argument("--check", action="store_true", help="only check it; print one line")
    replay.set_defaults(func=run_replay)
