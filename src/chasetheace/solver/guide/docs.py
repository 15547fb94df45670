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
    "in 91 parts, one per pair of strengths dealt to the eldest and the 2nd",
    "(`chasetheace/solver/methods/parts.py`); a pass (every part once) gives every counterfactual",
    "value, hence a CFR iteration or an exact best response. A node of the tree is the public",
    "history, the cards drawn so far (as a multiset), the actor's card and the card it gave its",
    "neighbour; the cards drawn, which no seat sees, are what make the tree large: each position has",
    "about ten times the nodes of the one before. After a node, those cards matter only through the",
    "cards left (each later draw is a card of a kind with a chance proportional to how many of it",
    "are left), so a node's continuation is a polynomial in the counts left, of one degree per later",
    "draw, whose coefficients depend only on what the seats see; the counterfactual values are inner",
    "products of those coefficients with moments of the reach over the cards drawn.",
    "",
    "The parts use the low-degree end of this: the last three positions (the dealer, its right",
    "neighbour and the seat before) are never built as nodes. The nodes of the third-to-last",
    "position fall into groups whose children are the same nodes (those that keep into one history",
    "with the same cards drawn; those that swap holding the same card), so each child is evaluated",
    "once per group, in closed form over the dealer's card and its cut of the stock, with the",
    "group's reach, and the group's sums serve every node in it. Only the order of the additions",
    "changes: every figure (values, reach, counterfactual values, lives, losses) equals the",
    "evaluation that builds the dealer's neighbour's nodes to 1e-12 (`tests/test_solver_sharper.py`,",
    "3 to 7 players and random rules). The design and why it is exact: the docstring of",
    "`chasetheace/solver/model/tail.py`; `evaluate_part(..., evaluation=\"closed_dealer\")` still",
    "runs the previous evaluation.",
    "",
    "One part (the eldest and the 2nd hold a 6 and an 8, among the largest parts), standard rules,",
    "CPU seconds on a shared two-core machine (`python benchmarks/exact_tree.py`):",
    "",
    "| Players | Evaluation | Nodes | Build (s) | Passes (s) | Peak memory |",
    "|---|---|---|---|---|---|",
    "| 7 | last two in closed form | 347,672 | 0.8 | 0.8 | 0.46 GB |",
    "| 7 | last three in closed form | 27,016 | 0.2 | 0.6 | 0.30 GB |",
    "| 8 | last two in closed form | 3,641,892 | 8.4 | 8.6 | 2.6 GB |",
    "| 8 | last three in closed form | 347,672 | 1.6 | 5.5 | 0.54 GB |",
    "| 9 | last two in closed form | not run: 20.3 GB measured before | | | |",
    "| 9 | last three in closed form | 3,641,892 | 15.1 | 49.0 | 3.4 GB |",
    "",
    "The memory falls about fivefold and the build about fivefold; the arithmetic of the last",
    "three positions mostly stays (one closed form per child, as before one per node, with the",
    "sums over the stock taken once per group), so at 9 players the passes are three quarters of",
    "a part's time. The parts are about equally large (the part of an ace and a king: 3,643,534",
    "nodes), so a pass at 9 players costs about 91 x 64 s = 1.6 CPU hours: under an hour on two",
    "workers holding 3.4 GB each (a whole pass at 8 players, measured: 630 CPU seconds, the",
    "workers at most 1.6 GB each; 91 x 7.1 s predicted 646). 9 players is not solved here:",
    "discounted CFR needs tens of passes.",
    "",
]
"""The method section (static text; its figures measured by ``benchmarks/exact_tree.py``)."""


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
        "equilibrium is measured only by that benchmark, and its losses are the model's too. Hints and",
        "reviews (docs/review.md) solve on the exact tree up to 5 players, and say how close a",
        "solution is in words: 'within 0.000053 lives of perfect play' is a NashConv of 5.3e-05.",
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
