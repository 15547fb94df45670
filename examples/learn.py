"""A learning agent, measured: OpenSpiel's outcome-sampling MCCFR learns a hand of Chase the Ace
through the ``python_chase_the_ace`` adapter, and the project's exact best response measures it.

The algorithm is OpenSpiel's own (``open_spiel.python.algorithms.outcome_sampling_mccfr``), on the
full 52-card game with the standard rules; nothing here trains. At each checkpoint the learned
average policy is read at every situation of the project's solver (``infoset_of`` of a seat's
observation: its place, its card's rank, the moves so far; OpenSpiel's information states also
tell the suit, which does not matter here, so the states of one situation are averaged) and
measured exactly in the true game (``chasetheace.solver.methods.measure``: NashConv, in lives
per hand). The solver's own equilibrium is measured the same way, for comparison.

    python examples/learn.py --players 3 --minutes 10 --json learn-3.json
    python examples/learn.py --plot docs/learning.png learn-3.json learn-4.json

Needs the ``spiel``, ``solve`` and (for ``--plot``) ``plot`` extras.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pyspiel
from open_spiel.python.algorithms import mccfr, outcome_sampling_mccfr

import chasetheace as cta
import chasetheace.adapters.openspiel  # registers python_chase_the_ace
from chasetheace.solver.methods.measure import measure
from chasetheace.solver.model.hand import Hand, InfoKey, deck_of, infoset_of


def situations(game: Any, rules: cta.Rules, samples: int, seed: int) -> dict[str, InfoKey]:
    """OpenSpiel's information states met in ``samples`` random hands, each with the solver's
    situation it belongs to (read from the engine's observation of that seat)."""
    rng = random.Random(seed)
    deck = deck_of(rules)
    found: dict[str, InfoKey] = {}
    for _ in range(samples):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            seat = state.current_player()
            key = state.information_state_string(seat)
            if key not in found:
                found[key] = infoset_of(state.observation_for(seat), deck, kings_jerk=rules.kings_jerk)
            state.apply_action(rng.choice(state.legal_actions()))
    return found


def learned_keep(solver: Any, found: dict[str, InfoKey]) -> dict[InfoKey, float]:
    """The average policy's chance of keeping (action 0) in each situation: the mean over its
    information states (a state MCCFR has not met yet counts as uniform)."""
    totals: dict[InfoKey, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for key, situation in found.items():
        entry = solver._infostates.get(key)  # OpenSpiel's table: [regrets, average strategy]
        keep = 0.5 if entry is None else float(entry[mccfr.AVG_POLICY_INDEX][0]
                                               / entry[mccfr.AVG_POLICY_INDEX].sum())
        totals[situation][0] += keep
        totals[situation][1] += 1
    return {situation: k / n for situation, (k, n) in totals.items()}


def train(players: int, minutes: float, checkpoints: int, samples: int, seed: int) -> dict[str, Any]:
    """MCCFR for ``minutes``, measured at checkpoints spaced evenly in log time."""
    rules = cta.Rules()
    game = pyspiel.load_game("python_chase_the_ace", {"players": players, "dealer": 0})
    hand = Hand(rules, players)
    found = situations(game, rules, samples, seed)
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    budget = minutes * 60.0
    marks = [budget * 2.0 ** (k - checkpoints + 1) for k in range(checkpoints)]
    curve = []
    spent = 0.0
    iterations = 0
    for mark in marks:
        start = time.perf_counter()
        while spent + (time.perf_counter() - start) < mark:
            for _ in range(100):
                solver.iteration()
            iterations += 100
        spent += time.perf_counter() - start
        keep = learned_keep(solver, found)
        nash_conv = measure(hand, lambda key, keep=keep: keep.get(key, 0.5)).nash_conv
        curve.append({"seconds": round(spent, 1), "iterations": iterations, "nash_conv": nash_conv})
        print(f"{players} players: {iterations:,} iterations in {spent:.0f} s: NashConv {nash_conv:.4f}",
              flush=True)
    start = time.perf_counter()
    solution = cta.solve(rules, players)
    solved = {"seconds": round(time.perf_counter() - start, 1), "nash_conv": solution.nash_conv,
              "method": solution.method}
    print(f"{players} players: the solver ({solution.method}) in {solved['seconds']} s: "
          f"NashConv {solution.nash_conv:.2e}")
    return {"players": players, "algorithm": "OpenSpiel outcome-sampling MCCFR", "minutes": minutes,
            "situations": len(set(found.values())), "information_states": len(found),
            "curve": curve, "solver": solved}


def solver_point(solver: dict[str, Any]) -> tuple[list[float], list[float]]:
    """Where the solver's star goes: at its own seconds (a solve rounded to 0.0 s at 0.01 s, the
    least a log axis can show) and its NashConv (1e-9 at least)."""
    return [max(solver["seconds"], 0.01)], [max(solver["nash_conv"], 1e-9)]


def plot(results: list[dict[str, Any]], path: str) -> None:
    """NashConv against training time, one line per table size, the solver's as a marker."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for result in results:
        curve = result["curve"]
        line, = ax.plot([c["seconds"] for c in curve], [c["nash_conv"] for c in curve], marker="o",
                        label=f"MCCFR (OpenSpiel), {result['players']} players")
        solver = result["solver"]
        ax.plot(*solver_point(solver), marker="*", markersize=14, color=line.get_color(), linestyle="none",
                label=f"the solver ({solver['method']}), {result['players']} players, "
                      f"{solver['seconds']} s")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("seconds of training on this machine")
    ax.set_ylabel("NashConv (lives per hand), exact")
    ax.set_title("A learning agent against the equilibrium: standard rules, one hand")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> None:
    """Train and measure, or plot saved results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="*", help="with --plot: JSON files written by --json")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--minutes", type=float, default=10.0, help="training time (default 10)")
    parser.add_argument("--checkpoints", type=int, default=7)
    parser.add_argument("--samples", type=int, default=20_000,
                        help="random hands played to find the information states (default 20,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", metavar="FILE", help="write the curve as JSON")
    parser.add_argument("--plot", metavar="PNG", help="plot the JSON results given")
    args = parser.parse_args(argv)
    if args.plot:
        plot([json.loads(Path(f).read_text()) for f in args.results], args.plot)
        return
    result = train(args.players, args.minutes, args.checkpoints, args.samples, args.seed)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
