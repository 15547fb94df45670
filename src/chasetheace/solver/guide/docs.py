"""Write ``docs/strategy.md`` (and its PNG plots) from the solver's own output.

    python -m chasetheace.solver.guide.docs [--out docs] [--players 3 4 5 6 7 8 9] [--game-lives 3]

The whole game's section alone is rewritten by ``python -m chasetheace.solver.guide.docs_game``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence

from ...rules import Rules, preset_info
from ...seats import position_name
from ..model.words import rank_name
from ..solutions.solution import Solution
from ..solutions.solving import solve
from ..uses.explain import hardest_cards, nash_conv_text, rules_of_thumb
from .docs_big import PRESETS, big_tables_section

__all__ = ["PRESETS", "write_docs", "main"]



def _section(sol: Solution, preset: str, image: str | None) -> list[str]:
    n, deck = sol.players, sol.deck
    out = [f"### {n} players", ""]
    how = {"dcfr": "discounted CFR on the exact tree", "lp": "linear programming",
           "iid": "discounted CFR on the hand without card removal"}.get(sol.method, sol.method)
    if sol.measured == "exact":
        out.append(f"NashConv {sol.nash_conv:.1e} lives, measured by an exact best response in the true "
                   f"game ({how}, {sol.iterations} iterations, {sol.seconds:.0f} s).")
    elif sol.measured == "abstract":
        out.append(f"NashConv {sol.nash_conv:.1e} lives in the hand without card removal, where it was "
                   f"solved ({sol.iterations} iterations, {sol.seconds:.0f} s); not measured in the true "
                   f"game (see the note at the top). Losses are those without card removal.")
    else:
        out.append(f"NashConv: {nash_conv_text(sol)}.")
    out += [f"Note: {c}." for c in sol.caveats]
    out.append("")
    out.append("| position | P(lose) | main situation: keep from | hardest card (mean gap, lives) |")
    out.append("|---|---|---|---|")
    thumbs = rules_of_thumb(sol)
    for i, (card, gap) in enumerate(hardest_cards(sol)):
        main = next((r for r in thumbs if r.position == i), None)
        keep = "-" if main is None else (
            "never" if main.threshold is None else rank_name(deck, main.threshold))
        if main is not None and main.mixed:
            keep += " (mixes " + ", ".join(f"{rank_name(deck, c)}: keep {p:.2f}" for c, p in main.mixed) + ")"
        hard = "-" if card < 0 else f"{rank_name(deck, card)} ({gap:.3f})"
        out.append(f"| {position_name(i, n)} | {sol.loss_probabilities[i]:.4f} | {keep} | {hard} |")
    out.append("")
    out.append("The most frequent situations of each position (share of hands in brackets):")
    out.append("")
    for i in range(n):
        mine = [r for r in thumbs if r.position == i][:3]
        for r in mine:
            out.append(f"- {position_name(i, n)} [{r.chance:.1%}]: {r.text(deck, n)}")
    out.append("")
    if image:
        out += [f"![{preset}, {n} players]({image})", ""]
    return out


EVALUATION_SECTION = [
    "## How the exact tree is evaluated in parts",
    "",
    "From 7 players the exact tree (true card removal) is too large to hold at once and is evaluated",
    "in parts (`chasetheace/solver/methods/parts.py`); a pass (every part once) gives every",
    "counterfactual value, hence a CFR iteration or an exact best response. A node of the tree is",
    "the public history, the cards drawn so far (as a multiset), the actor's card and the card it",
    "gave its neighbour; the cards drawn, which no seat sees, are what make the tree large: each",
    "position has about ten times the nodes of the one before. After a node, those cards matter only",
    "through the cards left (each later draw is a card of a kind with a chance proportional to how",
    "many of it are left), so a node's continuation is a polynomial in the counts left, of one",
    "degree per later draw, whose coefficients depend only on what the seats see; the",
    "counterfactual values are inner products of those coefficients with moments of the reach over",
    "the cards drawn.",
    "",
    "Two things use this. First, the last three positions (the dealer, its right neighbour and the",
    "seat before) are never built as nodes. The nodes of the third-to-last position fall into",
    "groups whose children are the same nodes (those that keep into one history with the same",
    "cards drawn; those that swap holding the same card), so each child is evaluated once per",
    "group, in closed form over the dealer's card and its cut of the stock, with the group's reach,",
    "and the group's sums serve every node in it. Only the order of the additions changes: every",
    "figure (values, reach, counterfactual values, lives, losses) equals the evaluation that builds",
    "the dealer's neighbour's nodes to 1e-12 (`tests/test_solver_sharper.py`, 3 to 7 players and",
    "random rules). The design and why it is exact: the docstring of",
    "`chasetheace/solver/model/tail.py`.",
    "",
    "Second, the parts are cut where that work is. A part is named by the three weakest cards dealt",
    "to the first n - 2 seats (455 tuples of 13 strengths, fewer where no deal makes them: 364 at 9",
    "players; four cards from 10 players). Every node of the third-to-last position holds all",
    "those cards, so it and its groups are in exactly one part: the closed forms, most of a pass,",
    "are evaluated once. A node of an earlier position may be in several parts (each with the",
    "deals that end in it; its reach counts in one). The parts used before were the pairs of",
    "strengths dealt to the eldest and the 2nd (91 parts); a node whose cards hold several such",
    "pairs was built and evaluated in each of their parts. Every figure summed over the parts",
    "equals the whole tree's to 1e-12 (`tests/test_solver_parts.py`, random rules).",
    "",
    "A pass over every part, standard rules, two worker processes on the shared two-core machine",
    "(the largest part measured alone in a process of its own: `python benchmarks/part_cost.py`):",
    "the weakest cards build about a third of the nodes the pairs built at 8 and 9 players; a pass",
    "takes 2.8 times less CPU at 8 players, and 13 minutes on two workers at 9 where the pairs",
    "would take at least 48 (1.6 CPU hours on two cores).",
    "",
    "| Players | Parts | Nodes built in a pass | Largest part | A pass: wall clock (CPU) |",
    "|---|---|---|---|---|",
    "| 7, weakest cards | 454 | 1.7 M | 26,590 nodes, 0.22 GB, 1.7 s | 23 s (41 CPU s), quiet |",
    "| 8, pairs (before) | 91 | about 31 M (91 x 0.34 M) | 0.34 M nodes, 0.55 GB, 8 s "
    "| 852 s (630 CPU s), load 6 to 10 |",
    "| 8, weakest cards | 442 | 15.3 M | 0.35 M nodes, 0.41 GB, 4.7 s | 118 s (223 CPU s), quiet |",
    "| 9, pairs (before) | 91 | about 330 M (91 x 3.6 M) | 3.6 M nodes, 3.4 GB, 65 s "
    "| about 1.6 CPU hours (91 x 65 s) |",
    "| 9, weakest cards | 364 | 119.4 M | 3.5 M nodes, 2.1 GB, 40 s | 769 to 815 s (the solve below) |",
    "",
]
"""The method section (static text; its figures measured by ``benchmarks/part_cost.py`` and the 9-player
solve of :data:`NINE_SECTION`)."""

NINE_SECTION = [
    "### 9 players in the true game",
    "",
    "`chase-the-ace solve --players 9 --method dcfr --iterations 10 --check-every 5 --workers 2",
    "--checkpoint ck9` (in Python `cta.solve(cta.Rules(), 9, method=\"dcfr\", iterations=10,",
    "check_every=5, workers=2, checkpoint=\"ck9\")`) solves the standard rules at 9 players on the",
    "exact tree, in parts: discounted CFR started from the strategy solved without card removal.",
    "That strategy's NashConv in the true game, read from CFR's first pass, is 1.34e-3 lives per",
    "hand (in the model without card removal, where it was solved, 9.6e-5): card removal matters at",
    "9 players. After 5 iterations the average strategy's NashConv, by an exact best response in",
    "the true game, is **3.95e-5 lives per hand** (3.9468e-05; what a best response saves, by",
    "position from the eldest: 2.4e-7, 6.2e-9, 1.1e-8, 2.0e-8, 9.8e-6, 9.4e-7, 4.6e-6, 1.2e-5,",
    "1.2e-5).",
    "",
    "Measured on the shared two-core machine, two worker processes: **5,373 s (90 minutes) in",
    "all**: 316 s for the strategy without card removal, then six passes over the 364 parts (five",
    "iterations and the check) of 769 to 815 s each (the first, 1,129 s, shared the machine with",
    "tests). Memory: the solving process at most 6.8 GB (it holds the model without card removal",
    "and the sums of the parts), each worker at most 4.7 GB (its peak resident set; sampled every",
    "5 s, under 1.7 GB), and in use on the machine at most 10.1 GB (sampled every 10 s). The",
    "checkpoint folder keeps a pass's parts (about 6 GB at 9 players) until the next iterate is",
    "written.",
    "",
    "Chance of losing the hand by position, eldest to dealer, in the true game at this",
    "equilibrium: 0.0696, 0.0993, 0.1262, 0.1423, 0.1518, 0.1572, 0.1614, 0.1628, 0.1179 (without",
    "card removal the model said 0.0782 to 0.1715, dealer 0.1284: with the cards dealt from one",
    "pack, ties for the lowest card are rarer, as 3 of the 51 cards left share a dealt card's rank",
    "where the model draws it again 1 time in 13, so fewer hands have several losers).",
    "",
]
"""The 9-player solve on the exact tree (static text: it takes an hour and a half on this machine;
its figures come from the command it names)."""


def write_docs(out_dir: str = "docs", players: Sequence[int] = tuple(range(3, 10)), plots: bool = True,
               game_lives: int = 3, progress: Callable[[str], None] | None = None) -> str:
    """Solve every configuration, write the Markdown and the plots; return the Markdown's path."""
    os.makedirs(out_dir, exist_ok=True)
    lines = [
        "# How to play one hand of Chase the Ace: equilibrium strategies",
        "",
        "Generated by `python -m chasetheace.solver.guide.docs` from the solver's own output; every number",
        "below was computed by it (`chase-the-ace solve` prints the same for any rules).",
        "",
        "Each player minimises the lives it expects to lose in the hand, knowing only what RULES.md A4",
        "lets it know: its card, the card it gave when its right neighbour swapped with it, and every",
        "public action. 'Keep 8 or better' means: keep an 8 or better, swap anything weaker (the",
        "blocker is always shown); 'always swap (you hold A to 6 here)' says that in this situation",
        "the seat (almost) never holds a card worth keeping. NashConv is the sum over players of what a",
        "best response would save, in lives per hand. 'Hardest card' is the card whose keep/swap",
        "decision is closest: the smallest mean gap in expected lives lost between keeping and",
        "swapping, over the situations in which the position holds it.",
        "",
        f"Player counts: {min(players)} to {max(players)}. Up to 6 players the hand is solved on the exact",
        "tree, with true card removal (from 3 players started from the strategy solved without card",
        "removal; `solve(method=\"auto\")` does the same, the table `AUTO` in",
        "`chasetheace/solver/solutions/choice.py`). From 7 players it is solved without card removal",
        "(every card dealt independently from the full pack: the tree is then about as small as the",
        "list of situations). An exact best response in the true game then takes far longer (`python",
        "benchmarks/solver.py --methods 7 --parts`), so the NashConv printed there is the one",
        "without card removal: an equilibrium of that model, whose distance from the true game's",
        "equilibrium is measured by that benchmark and bracketed in 'Big tables' below (an upper",
        "bound at 95 % confidence), and its losses are the model's too. At 9",
        "players the standard rules are also solved on the true game, in parts, with an exact best",
        "response: see '9 players in the true game' below. Hints and",
        "reviews (docs/review.md) solve on the exact tree up to 5 players, and say how close a",
        "solution is in words: 'within 0.000053 lives of perfect play (exact)' is an exact NashConv",
        "of 5.3e-05; a solution without card removal says its distance from perfect play is not",
        "measured in the true game (its model's own figure is no such distance), a sampled one gives",
        "'about' its sampled estimate.",
        "",
        "Every table size from 2 to 20 players, as a player at the table gets it (with a NashConv",
        "bracket where no exact best response is within reach), is in the section 'Big tables' below",
        "(`python -m chasetheace.solver.guide.docs_big` rewrites it alone).",
        "",
        "The `chase-the-ace` preset collects the cards under the stock unshuffled (`between_hands =",
        "to-bottom`): its tables hold for the first hand of a game, dealt from a shuffled pack.",
        "",
    ]
    start = time.perf_counter()
    le_her = solve(Rules.preset("le-her"), 2)
    lines += [
        "## Two players: Le Her (exact)",
        "",
        "The `le-her` preset is constant-sum, so the linear program gives the exact equilibrium: the eldest",
        f"loses with probability **{le_her.value}** (= {float(le_her.value or 0):.6f}).",
        "",
    ]
    for r in rules_of_thumb(le_her)[:2]:
        lines.append(f"- {position_name(r.position, 2)}: {r.text(le_her.deck, 2)}")
    lines.append("")
    for preset in PRESETS:
        info = preset_info(preset)
        lines += [f"## `{preset}`: {info.description}", ""]
        losses = []
        for n in players:
            if progress is not None:
                progress(f"{preset}, {n} players ({time.perf_counter() - start:.0f} s so far)")
            method = "dcfr" if n <= 6 else "iid"
            sol = solve(info.rules, n, method=method, workers=2)
            image = None
            if plots:
                from ..uses.plot import plot_solution

                image = f"strategy-{preset}-{n}.png"
                plot_solution(sol, os.path.join(out_dir, image))
            lines += _section(sol, preset, image)
            losses.append(sol)
        lines += ["#### Is the dealer's seat cursed?", ""]
        for sol in losses:
            worst = max(range(sol.players), key=lambda i: sol.loss_probabilities[i])
            lines.append(f"- {sol.players} players: the dealer loses {sol.loss_probabilities[-1]:.4f}, "
                         f"the eldest {sol.loss_probabilities[0]:.4f}; the worst seat is the "
                         f"{position_name(worst, sol.players)} ({sol.loss_probabilities[worst]:.4f}).")
        lines.append("")
    from .docs_game import whole_game_section

    lines += big_tables_section(out_dir, PRESETS, plots=plots, progress=progress)
    lines += EVALUATION_SECTION
    lines += NINE_SECTION
    lines += whole_game_section(out_dir, game_lives, plots=plots, progress=progress)
    lines.append(f"_Solved in {time.perf_counter() - start:.0f} s in all._")
    path = os.path.join(out_dir, "strategy.md")
    os.makedirs(out_dir, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """The command line."""
    parser = argparse.ArgumentParser(description="Write docs/strategy.md from the solver's output.")
    parser.add_argument("--out", default="docs")
    parser.add_argument("--players", type=int, nargs="*", default=list(range(3, 10)))
    parser.add_argument("--game-lives", type=int, default=3)
    parser.add_argument("--no-plots", action="store_true")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    print(write_docs(args.out, args.players, not args.no_plots, args.game_lives,
                     progress=lambda text: print(text, file=sys.stderr, flush=True)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
