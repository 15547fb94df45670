"""You against bots at a terminal table, drawn with Rich (the ``[cli]`` extra).

Everything the person sees comes from ``game.observation(you)``: the table, their card, and the
story of the hand told by :class:`chasetheace.render.Narrator`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, assert_never

from ..bots import Bot
from ..events import (
    Blocked,
    CollectedSeen,
    CutDraw,
    DealerChosen,
    DealerDraw,
    DealerDrewBlocker,
    DealerExchange,
    DealerExchangeSeen,
    DealerSameRank,
    DealtSeen,
    Eliminated,
    FinalTie,
    GameOver,
    HandStarted,
    Keep,
    KingJerk,
    LivesLost,
    Pick,
    ShowBlocker,
    Showdown,
    ShuffleSeen,
    Swap,
    SwapSeen,
    read_view,
)
from ..game import Action, Game
from ..kinds import bot_specs
from ..observation import Observation
from ..registry import make_bot
from ..render import Narrator, card_text, explain_rules
from ..rules import Rules, preset_info
from ..seats import DEFAULT_NAMES
from ..session import Session
from ..solver.solutions.cache import Progress
from .console import make_console
from .pacing import DEFAULT_DELAY, NEXT_HAND_PROMPT, QUIT_WORDS, Pace, QuitGame
from .stats import keep_game, open_stats

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

__all__ = ["table_view", "bot_specs", "bot_names",
           "parse_answer", "QuitGame", "tell", "ask", "run_table", "numbered", "record_path",
           "check_new_record", "play_chase_the_ace",
           "hint_line", "solving_progress", "game_heading", "make_pace", "play_again"]

KEEP_WORDS = {"k", "keep", "stand", "st", "stay", "stick"}
SWAP_WORDS = {"s", "swap", "change", "c", "ch", "cut", "t", "take", "draw"}  # the dealer cuts or takes
HELP_WORDS = {"?", "help"}
HINT_WORDS = {"h", "hint"}
RULES_WORDS = {"r", "rules"}


def bot_names(human: str, count: int) -> list[str]:
    """Names for ``count`` bots that differ from the person's name."""
    pool = [n for n in DEFAULT_NAMES[1:] if n.lower() != human.strip().lower()]
    pool += [f"Bot {i + 1}" for i in range(count)]
    return pool[:count]


def parse_answer(text: str) -> str | None:
    """``'keep'``, ``'swap'``, ``'quit'``, ``'help'``, ``'rules'``, ``'hint'`` from a short answer, else None.

    >>> [parse_answer(a) for a in ("k", "Stand", " S ", "change", "q", "maybe")]
    ['keep', 'keep', 'swap', 'swap', 'quit', None]
    """
    word = text.strip().lower().rstrip("!.")
    for meaning, words in (("keep", KEEP_WORDS), ("swap", SWAP_WORDS), ("quit", QUIT_WORDS),
                           ("help", HELP_WORDS), ("rules", RULES_WORDS), ("hint", HINT_WORDS)):
        if word in words:
            return meaning
    return None


def _lives_cell(lives: int, alive: bool) -> str:
    if not alive:
        return "[dim]out[/dim]"
    if lives == 0:
        return "[yellow]on the bum[/yellow]"
    hearts = " ".join("♥" for _ in range(lives)) if lives <= 8 else f"♥ x{lives}"
    return f"[red]{hearts}[/red]"


def table_view(obs: Observation) -> Table:
    """The table as a viewer sees it: seats, lives, dealer button, whose turn, known cards."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    me, order, done = obs["seat"], list(obs["order"]), set(obs["done"])
    moves = moves_this_hand(obs)
    caption = (f"kitty {obs['kitty']} · pot {obs['pot']} · "
               f"stock {obs['stock_size']} cards")
    title = "Game over" if obs["over"] else f"Hand {obs['hand']}"
    table = Table(title=title, caption=caption, box=box.ROUNDED, title_style="bold",
                  caption_style="dim", min_width=52)
    table.add_column("", width=2)
    table.add_column("Player", min_width=10)
    table.add_column("Lives", min_width=9)
    table.add_column("Card", justify="center", min_width=5)
    table.add_column("", min_width=10)
    for seat, name in enumerate(obs["names"]):
        alive = obs["in"][seat]
        marker = "[bold cyan]▶[/]" if seat == obs["to_act"] else ""
        label = escape(name) + (" [dim](you)[/dim]" if seat == me and name != "You" else "")
        if seat == obs["dealer"] and alive:
            label += " [bold yellow]Ⓓ[/]"
        card = obs["cards"][seat]
        if not alive or (card is None and not order):
            cell = ""
        elif card is None:
            cell = "[dim]?[/dim]"
        else:
            text = card_text(card)
            style = "bold red" if card[1] in "hd" else "bold"
            cell = f"[{style}]{text}[/]" if seat == me else f"[{style} dim]{text}[/]"
        if seat in obs["winners"]:
            status = "[bold green]winner[/]"
        elif not alive:
            status = ""
        elif seat == obs["to_act"]:
            status = "[bold cyan]to act[/]"
        elif seat in done:
            status = f"[dim]{moves.get(seat, 'done')}[/dim]"
        elif order and seat == order[0]:
            status = "eldest"
        else:
            status = ""
        table.add_row(marker, label, _lives_cell(obs["lives"][seat], alive), cell, status,
                      style=None if alive else "dim")
    return table


def moves_this_hand(obs: Observation) -> dict[int, str]:
    """What each seat did so far in this hand, in a word or two for the table (so that at a big
    table the moves that scrolled off the screen are still in front of the person).

    >>> import chasetheace as cta
    >>> game = cta.Game(cta.Rules(), players=4, stack=["2c", "Kd", "8h", "9c"], dealer=3)
    >>> _ = game.act("swap"); _ = game.act("keep")
    >>> moves_this_hand(game.observation(3))
    {0: 'blocked', 1: 'showed K♦', 2: 'stood'}
    """
    history = obs["history"]
    start = len(history)
    while start > 0 and not isinstance(read_view(history[start - 1]), HandStarted):
        start -= 1
    moves: dict[int, str] = {}
    for view in history[start:]:
        match read_view(view):
            case Keep(seat=seat):
                moves[seat] = "stood"
            case SwapSeen(seat=seat):
                moves[seat] = "changed"
            case Blocked(seat=seat, neighbour=neighbour, card=card):
                moves[seat] = "blocked"
                moves.setdefault(neighbour, f"showed {card_text(str(card))}")  # its turn is done too
            case ShowBlocker(seat=seat, card=card):
                moves[seat] = f"showed {card_text(str(card))}"
            case DealerExchangeSeen(seat=seat):
                moves[seat] = "cut" if obs["rules"]["dealer_exchange"] == "cut" else "drew"
            case (ShuffleSeen() | Pick() | DealerDraw() | DealerChosen() | HandStarted() | DealtSeen()
                  | KingJerk() | DealerDrewBlocker() | DealerSameRank() | Showdown() | LivesLost()
                  | FinalTie() | CutDraw() | Eliminated() | CollectedSeen() | GameOver()):
                pass  # not a seat's move of this hand
            case other:
                assert_never(other)
    return moves


def _neighbour(obs: Observation) -> int:
    order, seat = obs["order"], obs["seat"]
    assert seat is not None, "a spectator has no neighbour"
    return order[(order.index(seat) + 1) % len(order)]


def prompt_of(obs: Mapping[str, Any]) -> str:
    """The short prompt under the question: the dealer is asked what it may do, not to swap.

    >>> dealer = {"seat": 1, "dealer": 1, "rules": {"dealer_exchange": "cut"}}
    >>> prompt_of({"seat": 0, "dealer": 1}), prompt_of(dealer)
    ('keep or swap? [k/s]', 'keep or cut? [k/c]')
    """
    if obs["seat"] != obs["dealer"]:
        return "keep or swap? [k/s]"
    return "keep or cut? [k/c]" if obs["rules"]["dealer_exchange"] == "cut" else "keep or take? [k/t]"


def _question(obs: Observation) -> str:
    card = card_text(obs["card"])
    if obs["seat"] == obs["dealer"]:
        how = ("cut the stock for a new card" if obs["rules"]["dealer_exchange"] == "cut"
               else "take the top card of the stock")
        return f"You hold {card}. Keep it, or {how}?"
    name = obs["names"][_neighbour(obs)]
    return f"You hold {card}. Keep it, or swap with {name}?"


@contextlib.contextmanager
def solving_progress() -> Iterator[Progress]:
    """A :data:`~chasetheace.solver.solutions.cache.Progress` that shows a solve on stderr (a bar on a
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


def hint_line(obs: Observation) -> str:
    """The solver's hint for the seat of ``obs`` (from that observation alone), as one line;
    solving first, with a progress bar, if the solution is not cached yet."""
    from ..extras import needs_solver_text, solver_missing

    if solver_missing():  # say so at once, before announcing a solve that cannot start
        return needs_solver_text("Hints", plural=True)
    from ..solver.uses.advice import hint_for

    try:
        with solving_progress() as progress:
            return "Hint: " + hint_for(obs, progress=progress).text()
    except ValueError as exc:  # rules the solver does not model, or a situation it never met
        return f"No hint here: {exc}"
    except ImportError as exc:
        return needs_solver_text("Hints", missing=exc.name, plural=True)


def ask(console: Console, obs: Observation, rules: Rules, hints: bool = False) -> Action:
    """Ask the person to keep or swap until they answer; QuitGame if they quit. ``hints``: show
    the solver's hint first (``h`` shows it on demand)."""
    from rich.markup import escape

    from ..extras import solver_missing

    console.print(f"[bold]{escape(_question(obs))}[/bold]")
    can_hint = solver_missing() is None
    if hints and can_hint:  # without the solver, the start of the game said so once
        console.print("  " + hint_line(obs), markup=False)
    while True:
        answer = parse_answer(console.input(f"[bold cyan]{escape(prompt_of(obs))}[/] "))
        if answer == "keep":
            return Action.KEEP
        if answer == "swap":
            return Action.SWAP
        if answer == "quit":
            raise QuitGame
        if answer == "hint":
            console.print("  " + hint_line(obs), markup=False)
            continue
        if answer == "rules":
            for line in explain_rules(rules, obs["players"]):
                console.print("  " + line, markup=False)
            console.print(f"[bold]{escape(_question(obs))}[/bold]")  # your card again, after the rules
            continue
        other = ("[bold]s[/] (swap, change)" if obs["seat"] != obs["dealer"] else
                 "[bold]c[/] (cut the stock)" if obs["rules"]["dealer_exchange"] == "cut"
                 else "[bold]t[/] (take the top card)")
        console.print(f"  Answer [bold]k[/] (keep, stand) or {other}; "
                      + ("[bold]h[/] for a hint, " if can_hint else "")
                      + "[bold]r[/] for the rules, [bold]q[/] to leave.")


def _save(path: str | None, game: Game) -> None:
    if path is not None:
        Path(path).write_text(json.dumps(game.record(), indent=1) + "\n", encoding="utf-8")


def tell(console: Console, narrator: Narrator, events: Sequence[Mapping[str, Any]],
         pace: Pace | None = None, recap: Recap | None = None) -> None:
    """Print what ``narrator`` says of ``events``, with a rule at the start of each hand.

    With a ``pace``: wait for Enter before a hand that follows one the person sat out, offer to
    watch or skip when the person is out, and, skipping, say only how the game ends. A ``recap``
    follows what was told (:class:`Recap`)."""
    from rich.text import Text

    for index, view in enumerate(events):
        if pace is not None and _paced(console, narrator, events, index, pace):
            continue
        ev = read_view(view)
        lines = narrator.tell_event(ev)
        if recap is not None:
            recap.told(ev, lines, narrator.viewer)
        if isinstance(ev, HandStarted):
            console.rule(Text(lines[0].rstrip("."), style="bold"), style="dim")
            continue
        for line in lines:
            console.print("  " + line, markup=False)


class Recap:
    """The last hand's result and the person's own move in it, said again just above the table at
    the person's next decision when so much was told since that it has scrolled off the screen
    (a big table on a small terminal): the result stays in view until the person moves on."""

    def __init__(self) -> None:
        self._hand: list[str] = []       # this hand's lines worth repeating
        self.last: list[str] = []        # the last finished hand's
        self.lines_since = 0             # lines printed since the last hand's result

    def told(self, ev: Any, lines: Sequence[str], viewer: int | None) -> None:
        """``lines`` were printed for ``ev``."""
        if isinstance(ev, HandStarted):
            if self._hand:
                self.last, self._hand = self._hand, []
            self.lines_since += 1
            return
        mine = getattr(ev, "seat", None) == viewer and isinstance(ev, Keep | Swap | SwapSeen |
                                                                   DealerExchange | DealerExchangeSeen)
        if mine or isinstance(ev, Showdown | LivesLost):
            if not self._hand:
                self.lines_since = 0  # counted from the first line worth repeating
            self._hand += [line for line in lines if line]
        self.lines_since += len(lines)

    def lines_for(self, height: int, table_rows: int) -> list[str]:
        """What to repeat before a table of ``table_rows`` lines on a screen ``height`` lines high
        (nothing when the last hand's result is still in view above the table, the question and
        the prompt)."""
        if not self.last or self.lines_since + table_rows + 2 <= height:
            return []
        return ["Last hand: " + " ".join(self.last)]


def _paced(console: Console, narrator: Narrator, events: Sequence[Mapping[str, Any]], index: int,
           pace: Pace) -> bool:
    """Pace the telling of ``events[index]``; True if it is not to be told (skipping)."""
    ev = read_view(events[index])
    if isinstance(ev, HandStarted):
        pace.hand_started()
    if pace.skipping:
        return not isinstance(ev, GameOver)
    if isinstance(ev, Eliminated) and narrator.viewer in ev.seats and \
            not any(isinstance(read_view(later), GameOver) for later in events[index:]):
        for line in narrator.tell_event(ev):
            console.print("  " + line, markup=False)
        if not pace.out():
            console.print("[dim]Skipping to the end of the game.[/dim]")
        return True
    return False


def run_table(console: Console, game: Game, bots: Sequence[Bot | None], you: int,
              rng: random.Random, save: str | None = None, hints: bool = False,
              pace: Pace | None = None) -> None:
    """Play ``game`` to the end: the person at seat ``you`` is asked, bots choose for the others.

    ``hints`` shows the solver's hint at each of the person's decisions; ``pace`` sets the pauses
    between moves and hands (none without it)."""
    narrator = Narrator(game.names, game.rules, viewer=you)
    recap = Recap()
    told = 0
    watching = False
    while True:
        obs = game.observation(you)
        history = obs["history"]
        tell(console, narrator, history[told:], pace, recap)
        told = len(history)
        seat = game.to_act
        if seat is None:
            break
        if not obs["in"][you] and not watching:
            watching = True
            if pace is None:  # with a pace, the person was asked to watch or skip
                console.print("[dim]You are out: the bots play on to the end.[/dim]")
        if seat == you:
            _save(save, game)  # a game left at this question is saved up to it
            table = table_view(obs)
            rows = len(console.render_lines(table, console.options, pad=False))
            for line in recap.lines_for(console.size.height, rows):
                console.print(line, style="dim", markup=False)
            recap.last = []  # said once
            console.print(table)
            if pace is not None:
                pace.asked()
            game.act(ask(console, obs, game.rules, hints))
        else:
            bot = bots[seat]
            assert bot is not None
            if pace is not None:
                pace.before_bot_move()
            game.act(bot.choose(game.observation(seat), game.legal_actions(), rng))
    _save(save, game)
    console.print(table_view(game.observation(you)))


def play_chase_the_ace(args: argparse.Namespace, console: Console, rules: Rules) -> int:
    """``chase-the-ace play`` for Chase the Ace: you at seat 0, bots around you, game after game.

    The games form one session (RULES.md A1): antes go into the pot each game and a pot nobody
    won carries over. With ``--save FILE`` the first game's record goes to FILE, the next to
    FILE-2, and so on.
    """
    from rich.markup import escape

    from ..extras import needs_solver_text, solver_missing

    players = args.players if args.players is not None else (
        len(args.bot) + 1 if args.bot and len(args.bot) > 1 else args.default_players)
    if players < 2:
        raise ValueError(f"bad number of players {players}: allowed 2..{rules.max_players} "
                         f"with a {rules.deck}-card pack")
    meant = preset_info(args.preset).players
    if meant is not None and players != meant:
        raise ValueError(f"{preset_info(args.preset).title} is a game for {meant} players, not "
                         f"{players}: drop --players (its rules at {players} players: "
                         f"chase-the-ace simulate --preset {preset_info(args.preset).name} "
                         f"--players {players})")
    specs = bot_specs(args.bot, players - 1, "counting", seats="bot seats")
    if getattr(args, "hints", False):  # a table the solver cannot do fails before the first deal
        from ..solver.solutions.choice import check_players

        check_players(rules, players)
    names = [args.name, *bot_names(args.name, players - 1)]
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    session = Session(rules, names, seed=seed)
    for spec in specs:
        make_bot(spec, rules, players)  # a bad spec fails before the first deal
    stats = open_stats(getattr(args, "stats", None))
    who = ", ".join(f"{n} ({s})" for n, s in zip(names[1:], specs))
    heading = escape(game_heading(args.preset, args.rule))
    console.print(f"[bold]{heading}[/] · {players} players · seed {seed}")
    you = "You" if args.name == "You" else f"You ({args.name})"
    console.print(f"{you} against {who}.", markup=False)
    console.print(f"Lowest card loses a life. Answer [bold]k[/] to keep (stand), [bold]s[/] to swap "
                  f"(change); {'' if solver_missing() else '[bold]h[/] hint, '}[bold]r[/] rules, "
                  "[bold]q[/] quit.")
    if solver_missing():
        console.print(needs_solver_text("Hints", plural=True) + ".", markup=False)
    choices = random.Random(seed)
    number = 1
    while True:
        if number > 1:
            console.rule(f"[bold]Game {number}[/]", style="dim")
        game = session.new_game()
        path = record_path(args.save, number) if number > 1 else args.save
        _save(path, game)  # fail now, not after the game, if the file cannot be written
        bots: list[Bot | None] = [None, *(make_bot(s, rules, players) for s in specs)]
        run_table(console, game, bots, 0, choices, path, hints=getattr(args, "hints", False),
                  pace=make_pace(console, args))
        keep_game(stats, game, you=0, bots=specs, preset=preset_info(args.preset).name)
        ledger = " · ".join(f"{n} {m:+d}" for n, m in zip(names, session.money))
        console.print(f"Money after {number} game{'s' if number > 1 else ''}: {ledger}"
                      + (f" (pot carried over: {session.carry})" if session.carry else ""),
                      markup=False)
        if path is not None:
            console.print(f"The game record is in {path}.", markup=False)
        if not play_again(console):
            return 0
        number += 1


def game_heading(preset: str, rule_specs: Sequence[str] = ()) -> str:
    """The game played, as the table's heading names it: the preset's game, its rules, changes.

    >>> game_heading("cuckoo"), game_heading("le-her"), game_heading("standard", ["lives=4"])
    ('Cuckoo', 'Le Her', 'Chase the Ace (standard rules with lives=4)')
    >>> game_heading("hoffmann-1891")
    'Chase the Ace (hoffmann-1891 rules)'
    """
    info = preset_info(preset)
    changes = f" with {', '.join(rule_specs)}" if rule_specs else ""
    plain = info.title.lower().replace(" ", "-") == info.name or not info.rules.changes()
    if plain and not changes:
        return info.title
    return f"{info.title} ({info.name} rules{changes})"


def make_pace(console: Console, args: argparse.Namespace, unit: str = "hand") -> Pace:
    """The pace of play from ``--delay`` (default: a human pace at a terminal, none otherwise)."""
    from rich.markup import escape

    delay = getattr(args, "delay", None)
    if delay is None:
        delay = DEFAULT_DELAY if console.is_terminal else 0.0
    def ask(prompt: str) -> str:
        style = "dim" if prompt.startswith(NEXT_HAND_PROMPT.split(" for ")[0]) else "bold cyan"
        return console.input(f"[{style}]{escape(prompt)}[/]")

    return Pace(delay=delay, ask=ask, unit=unit)


def check_new_record(path: str) -> None:
    """Refuse (ValueError, one line) a ``--save`` file that exists: a saved game is never overwritten."""
    if Path(path).exists():
        raise ValueError(f"{path} already exists, and --save does not overwrite a saved game: give "
                         f"another name (for example {record_path(path, 2)}) or delete it")


def record_path(path: str | None, number: int) -> str | None:
    """The file of the ``number``-th game's record: :func:`numbered`, or if a file of that name
    already exists (an earlier session's), the next numbered name that is free."""
    name = numbered(path, number)
    while name is not None and Path(name).exists():
        number += 1
        name = numbered(path, max(number, 2))
    return name


def numbered(path: str | None, number: int) -> str | None:
    """The record file of the ``number``-th game: FILE, then FILE-2, FILE-3 (before the suffix).

    >>> numbered("game.json", 1), numbered("game.json", 3), numbered(None, 2)
    ('game.json', 'game-3.json', None)
    """
    if path is None or number == 1:
        return path
    p = Path(path)
    return str(p.with_name(f"{p.stem}-{number}{p.suffix}"))


def play_again(console: Console) -> bool:
    try:
        answer = console.input("[bold cyan]Another game? \\[y/N][/] ")
    except EOFError:
        console.print()
        return False
    return answer.strip().lower() in ("y", "yes")
