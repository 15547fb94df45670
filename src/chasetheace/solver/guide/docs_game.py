"""The whole game's section of ``docs/strategy.md``, its plots, and the games simulated for it.

    python -m chasetheace.solver.guide.docs_game [--out docs] [--lives 3] [--players 2 3 4 5]
                                           [--games 50000] [--seed 12]

rewrites only that section of an existing ``docs/strategy.md`` (from its heading to the closing
line), so the one-hand sections need not be solved again; ``python -m chasetheace.solver.guide.docs``
writes the whole file, this section included. Whole-game solutions come from the disk cache
(:func:`~chasetheace.solver.solutions.game_cache.game_solution_for`), so a solve already made is reused.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...bots import Player, play_game
from ...game import Game
from ...rules import Rules
from ...seats import position_name
from ..model.words import rank_name, situation
from ..solutions.solution import Solution
from ..solutions.solving import solve
from ..uses.bot import SolvedBot

if TYPE_CHECKING:
    from ..methods.whole_game import Difference, GameSolution
    from ..model.hand import InfoKey

__all__ = ["HEADING", "Duel", "duel", "keep_from", "whole_game_section", "write_game_section", "main"]

HEADING = "## The whole game: lives, and winning the game"
END = "_Solved in "
"""The line that closes ``docs/strategy.md`` (the one-hand sections' total time)."""
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Duel:
    """Whole games in pairs: the same deals and the same random draws, once with one seat (the
    *hero*, a different seat each game in turn) playing the whole-game equilibrium and once with it
    playing the one-hand equilibrium; every other seat plays the one-hand equilibrium."""

    games: int
    seed: int
    game_wins: int       # the hero's wins with the whole-game strategy
    hand_wins: int       # ... with the one-hand strategy, same deals
    difference: float    # mean of (won with the whole-game strategy) - (won with the one-hand one)
    low: float           # its 95% confidence interval (normal, over the paired games)
    high: float


def duel(rules: Rules, game: GameSolution, hands: Mapping[int, Solution], games: int, seed: int) -> Duel:
    """Play ``games`` pairs of whole games (see :class:`Duel`) with the solution ``game`` for ``rules``
    and the one-hand solutions ``hands[players]``."""
    from ..methods.whole_game import GameBot

    n = game.players
    one = SolvedBot(rules, dict(hands))
    whole = GameBot(game)
    diffs: list[int] = []
    wins = [0, 0]
    for g in range(games):
        hero = g % n
        won = []
        players: tuple[Player, Player] = (whole, one)
        for which, bot in enumerate(players):
            bots = [bot if seat == hero else one for seat in range(n)]
            table = Game(rules, players=n, seed=seed + g)
            play_game(table, bots, rng=random.Random(seed + g))
            won.append(int(table.winner == hero))
            wins[which] += won[-1]
        diffs.append(won[0] - won[1])
    mean = sum(diffs) / games
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / max(games - 1, 1))
    half = Z95 * sd / math.sqrt(games)
    return Duel(games, seed, wins[0], wins[1], mean, mean - half, mean + half)


def keep_from(keep: Callable[[InfoKey], float | None], position: int, rank_count: int) -> float:
    """How many of the weakest strengths a position swaps in its most frequent situation (everybody
    before it kept, nobody swapped with it), counting a card kept with probability p as 1 - p
    swapped: 6.3 means it swaps A to 6 and a 7 three times in ten. ``keep(key)`` is None where
    the situation has no decision (the blocker)."""
    total = 0.0
    for card in range(rank_count):
        p = keep((position, ("k",) * position, card, -1))
        if p is not None:
            total += 1 - p
    return total


@dataclass
class _Table:
    players: int
    game: GameSolution
    hands: dict[int, Solution]
    base: float
    hero: float
    duel: Duel


def whole_game_section(out_dir: str, lives: int = 3, players: Sequence[int] = (2, 3, 4, 5),
                       games: int = 50000, seed: int = 12, plots: bool = True,
                       progress: Callable[[str], None] | None = None) -> list[str]:
    """The section's Markdown lines (and its PNGs in ``out_dir`` with ``plots``), standard rules."""
    from ..methods.whole_game import differences, hero_win
    from ..solutions.game_cache import game_solution_for

    rules = Rules()
    out = [HEADING, "",
           "`cta.solve_game(rules, players)` solves the game people play: a run of hands, each player",
           "maximising its chance of being the last one in (a shared win counts as its share). Every",
           "lives state (each living player's lives, in turn order from the eldest) has its own hand",
           "equilibrium, solved by backward induction over lives states with the values of the states",
           "a hand leads to as its payoffs (`final_tie = replay` cycles iterated to their fixed point).",
           "Each hand is exact (true card removal): a merged tree of the hand whose nodes also remember",
           "who holds the weakest card so far, so that its ends say who loses (2.4 M nodes at 5 players;",
           "pairing, where every card decides the loser, is listed path by path and solved to 4 players).",
           "`--bot solved-game` seats this equilibrium at `simulate` and `play`.", "",
           "How much it gains over the one-hand equilibrium is measured twice. Exactly: the chance that",
           "one player wins when it plays the whole-game strategy and everybody else the one-hand one,",
           f"against 1/players when it too plays the one-hand one. And by simulation: {games:,} pairs of",
           f"whole games per table (seeds {seed} to {seed + games - 1}, the hero's seat turning), each pair",
           "on the same deals and random draws, once with the hero on the whole-game strategy and once on",
           "the one-hand one; the difference of its wins with a 95% confidence interval over the pairs.",
           "The one-hand equilibria here are solved to a NashConv of 1e-6 lives",
           "(`cta.solve(rules, players, tolerance=1e-6)`), the whole game to 1e-5 per state's hand",
           "(`cta.solve_game`'s default): the figures reproduce with these tolerances; with `cta.solve`'s",
           "default of 1e-4 the one-hand strategies, and so these figures, differ a little.",
           ""]
    tables: list[_Table] = []
    hands: dict[int, Solution] = {}
    for n in players:
        if progress is not None:
            progress(f"whole game, {n} players, {lives} lives")
        game = game_solution_for(rules, n, lives, progress=progress)
        for m in range(2, n + 1):
            hands.setdefault(m, solve(rules, m, tolerance=1e-6))
        mine = {m: hands[m] for m in range(2, n + 1)}
        base, hero = hero_win(game, mine, hero_plays_game=False), hero_win(game, mine)
        if progress is not None:
            progress(f"whole game, {n} players: simulating {games} pairs of games")
        fight = duel(rules, game, mine, games, seed)
        tables.append(_Table(n, game, mine, base, hero, fight))
        out += _table_lines(tables[-1], lives, differences(game, mine, threshold=0.1))
    if plots:
        from ..uses.plot import plot_game_gain, plot_game_shifts

        plot_game_shifts([(t.players, _shifts(t)) for t in tables],
                         os.path.join(out_dir, "whole-game-shifts.png"))
        gains = [(t.players, t.hero - t.base, t.duel.difference, t.duel.low, t.duel.high) for t in tables]
        plot_game_gain(gains, os.path.join(out_dir, "whole-game-gain.png"))
        out += ["### Pictures", "",
                "Where the whole-game strategy keeps other cards than the one-hand strategy: for each",
                "position, by its own lives and the fewest lives among the others, how many more of the",
                "weakest cards it swaps in its most frequent situation (everybody before it kept), averaged",
                "over the lives states of that kind. Positive: it swaps more; negative: it keeps more.", "",
                "![whole game: keep thresholds against the one-hand strategy](whole-game-shifts.png)", "",
                "What playing the whole-game strategy gains, in chance of winning the game: exact (dot)",
                "and simulated with its 95% confidence interval (bar).", "",
                "![whole game: the gain of the whole-game bot](whole-game-gain.png)", ""]
    return out


def _shifts(table: _Table) -> dict[tuple[int, int, int], float]:
    """(position, own lives, fewest lives of the others) -> mean change in cards swapped."""
    game, n = table.game, table.players
    rank_count, hand, known = game.deck.rank_count, table.hands[n], set(game.infosets(n))
    sums: dict[tuple[int, int, int], list[float]] = {}
    for state in game.states:
        if len(state) != n:
            continue

        def mine(key: InfoKey, state: tuple[int, ...] = state) -> float | None:
            return game.keep_probability(state, key) if key in known else None

        def theirs(key: InfoKey) -> float | None:
            return hand.played_keep(key) if key in known else None

        for i in range(n):
            shift = keep_from(mine, i, rank_count) - keep_from(theirs, i, rank_count)
            others = min(x for j, x in enumerate(state) if j != i)
            sums.setdefault((i, state[i], others), []).append(shift)
    return {k: sum(v) / len(v) for k, v in sums.items()}


def _table_lines(t: _Table, lives: int, found: list[Difference]) -> list[str]:
    game, n, d = t.game, t.players, t.duel
    hand = t.hands[n]
    deck = hand.deck
    out = [f"### {n} players, {lives} lives each, standard rules", "",
           f"Solved in {game.seconds:.0f} s (wall clock, a shared machine): {len(game.states)} lives states, "
           f"NashConv {game.nash_conv:.1e} in chance of winning the game (a player deviating in every "
           f"lives state; the largest of a state's hand on its own {game.hand_nash_conv:.1e}). "
           f"Starting on equal lives, "
           f"the chance of winning by position of the first hand: "
           + ", ".join(f"{position_name(i, n)} {v:.4f}" for i, v in enumerate(game.start.value)) + ".", "",
           f"One player playing the whole-game equilibrium against players of the one-hand equilibrium wins "
           f"with probability {t.hero:.5f}, against {t.base:.5f} when it too plays the one-hand equilibrium "
           f"(exact, over a random first dealer): a gain of {t.hero - t.base:+.5f}. Simulated: it won "
           f"{d.game_wins:,} of {d.games:,} games with the whole-game strategy and {d.hand_wins:,} of the "
           f"same games with the one-hand one: a gain of {d.difference:+.4f} (95% CI {d.low:+.4f} to "
           f"{d.high:+.4f}).", ""]

    def keep(key: InfoKey) -> float | None:
        return hand.played_keep(key) if hand.knows(key) else None

    thresholds = []
    for i in range(n):
        x = keep_from(keep, i, deck.rank_count)
        first = rank_name(deck, min(round(x), deck.rank_count - 1))
        thresholds.append(f"{position_name(i, n)} {x:.1f} (keeps from {first})")
    out += ["The one-hand strategy swaps, in each position's most frequent situation (everybody before "
            "it kept), this many of the weakest cards: " + ", ".join(thresholds) + ".", ""]
    mine = [x for x in found if len(x.state) == n]
    out += [f"Situations of {n}-player hands (over all lives states) where the whole-game strategy keeps "
            f"with a probability more than 0.1 away from the one-hand strategy: {len(mine)}, many of them "
            f"near indifference. The most frequent:", ""]
    for diff in mine[:8]:
        state, key, m = diff.state, diff.key, len(diff.state)
        lives_text = ", ".join(f"{position_name(i, m)} {x}" for i, x in enumerate(state))
        out.append(f"- lives {lives_text}: {position_name(key[0], m)} holding {rank_name(deck, key[2])} "
                   f"({situation(key, deck, m)}; chance {diff.reach:.3f} in that hand): keeps "
                   f"with p={diff.keep_game:.2f}, one-hand p={diff.keep_hand:.2f}")
    out.append("")
    return out


def write_game_section(out_dir: str = "docs", **options: object) -> str:
    """Replace the whole game's section of ``out_dir/strategy.md`` (it must exist) by a new one."""
    path = os.path.join(out_dir, "strategy.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = text.find(HEADING)
    end = text.find("\n" + END, start)
    if start < 0 or end < 0:
        raise ValueError(f"{path} has no whole-game section to replace (heading {HEADING!r})")
    lines = whole_game_section(out_dir, **options)  # type: ignore[arg-type]
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:start] + "\n".join(lines) + text[end:])
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """The command line."""
    parser = argparse.ArgumentParser(description="Rewrite the whole game's section of docs/strategy.md.")
    parser.add_argument("--out", default="docs")
    parser.add_argument("--lives", type=int, default=3)
    parser.add_argument("--players", type=int, nargs="*", default=[2, 3, 4, 5])
    parser.add_argument("--games", type=int, default=50000)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--no-plots", action="store_true")
    args = parser.parse_args(argv)
    start = time.perf_counter()

    def say(text: str) -> None:
        print(f"{time.perf_counter() - start:6.0f} s  {text}", file=sys.stderr, flush=True)

    print(write_game_section(args.out, lives=args.lives, players=args.players, games=args.games,
                             seed=args.seed, plots=not args.no_plots, progress=say))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
