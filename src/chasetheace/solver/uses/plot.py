"""Pictures of a solution (needs matplotlib: the ``plot`` extra)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...extras import needs_extra_text
from ...seats import position_name
from ..model.words import rank_name

if TYPE_CHECKING:
    from ..model.hand import Deck
    from ..solutions.solution import Solution

__all__ = ["plot_game_gain", "plot_game_shifts", "plot_solution", "plot_thresholds"]


def plot_solution(sol: Solution, path: str) -> None:
    """Write a PNG: how often each position keeps each card, and each position's chance of losing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ValueError(needs_extra_text("plotting", "plot", missing="matplotlib")) from None
    n, deck = sol.players, sol.deck
    names = [position_name(i, n) for i in range(n)]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 0.5 * n + 2.5),
                                      gridspec_kw={"width_ratios": [3, 1]})
    grid = sol.keep_by_card()
    image = left.imshow(grid, aspect="auto", cmap="RdYlGn", vmin=0, vmax=1)
    left.set_xticks(range(deck.rank_count), [rank_name(deck, c) for c in range(deck.rank_count)])
    left.set_yticks(range(n), names)
    left.set_xlabel("card held at your turn (weakest to strongest)")
    left.set_title("P(keep), averaged over the situations met")
    fig.colorbar(image, ax=left, fraction=0.04)
    right.barh(range(n), sol.loss_probabilities, color="tab:red")
    right.set_yticks(range(n), names)
    right.invert_yaxis()
    right.set_xlabel("P(lose the hand)")
    right.set_title("who loses")
    rules = ", ".join(f"{k}={v}" for k, v in sol.rules.changes().items()) or "standard rules"
    about = {"abstract": " in the model without card removal", "sampled": ", a sampled estimate"}
    fig.suptitle(f"Chase the Ace equilibrium, {n} players, {rules} "
                 f"(NashConv {sol.nash_conv:.1e}{about.get(sol.measured, '')})")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ValueError(needs_extra_text("plotting", "plot", missing="matplotlib")) from None
    return plt


def plot_game_shifts(tables: Sequence[tuple[int, Mapping[tuple[int, int, int], float]]], path: str) -> None:
    """Write a PNG: per player count, a grid of positions by (own lives, fewest lives of the others)
    holding how many more weak cards the whole-game strategy swaps than the one-hand strategy."""
    plt = _pyplot()
    fig, axes = plt.subplots(len(tables), 1, figsize=(10, sum(0.45 * n + 1.5 for n, _ in tables)),
                             squeeze=False, gridspec_kw={"height_ratios": [n + 1.5 for n, _ in tables]},
                             layout="constrained")
    top = max((abs(v) for _, shifts in tables for v in shifts.values()), default=1.0) or 1.0
    image = None
    for ax, (n, shifts) in zip(axes[:, 0], tables):
        columns = sorted({(own, others) for _, own, others in shifts})
        grid = [[shifts.get((i, own, others), float("nan")) for own, others in columns] for i in range(n)]
        image = ax.imshow(grid, aspect="auto", cmap="RdBu_r", vmin=-top, vmax=top)
        for i, row in enumerate(grid):
            for c, v in enumerate(row):
                if v == v:  # not NaN
                    ax.text(c, i, f"{v:+.2f}", ha="center", va="center", fontsize=7)
        ax.set_xticks(range(len(columns)), [f"{own} vs {others}" for own, others in columns], fontsize=8)
        ax.set_yticks(range(n), [position_name(i, n) for i in range(n)])
        ax.set_title(f"{n} players: more weak cards swapped than in one hand "
                     f"(own lives vs the others' fewest)", fontsize=9)
    if image is not None:
        fig.colorbar(image, ax=axes[:, 0].tolist(), fraction=0.03)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_game_gain(rows: Sequence[tuple[int, float, float, float, float]], path: str) -> None:
    """Write a PNG: per player count, the whole-game strategy's gain in chance of winning the game,
    exact ``(players, exact, simulated, low, high)`` with the simulation's confidence interval."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.6))
    xs = [r[0] for r in rows]
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.errorbar(xs, [r[2] for r in rows], yerr=[[r[2] - r[3] for r in rows], [r[4] - r[2] for r in rows]],
                fmt="s", color="tab:blue", capsize=4, label="simulated, 95% CI")
    ax.plot(xs, [r[1] for r in rows], "o", color="tab:red", label="exact")
    ax.set_xticks(xs)
    ax.set_xlabel("players (3 lives each, standard rules)")
    ax.set_ylabel("gain in P(win the game)")
    ax.set_title("One player on the whole-game strategy, the others on the one-hand one")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_thresholds(rows: Sequence[tuple[int, Sequence[int | None], Sequence[float]]], deck: Deck, title: str,
                    path: str) -> None:
    """Write a PNG of every table size: position (eldest at the bottom, the dealer at the top of each
    column) against players, coloured by the position's keep threshold (the weakest card it keeps,
    ``None``: it keeps nothing) on the left, and by its chance of losing times the players (1: a fair
    share) on the right; ``rows`` is ``(players, thresholds, losses)`` per table size."""
    import numpy as np

    plt = _pyplot()
    sizes = [n for n, _, _ in rows]
    top = max(sizes)
    keep = np.full((top, len(rows)), np.nan)
    loss = np.full((top, len(rows)), np.nan)
    for c, (n, thresholds, losses) in enumerate(rows):
        for i in range(n):
            keep[i, c] = deck.rank_count if thresholds[i] is None else thresholds[i]
            loss[i, c] = losses[i] * n
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 0.32 * top + 2.2), layout="constrained")
    image = left.imshow(keep, origin="lower", aspect="auto", cmap="viridis", vmin=0, vmax=deck.rank_count)
    for c, (n, thresholds, _) in enumerate(rows):
        for i in range(n):
            name = "-" if thresholds[i] is None else rank_name(deck, int(thresholds[i] or 0))
            left.text(c, i, name, ha="center", va="center", fontsize=6, color="white")
    bar = fig.colorbar(image, ax=left, fraction=0.04)
    names = [rank_name(deck, k) for k in range(deck.rank_count)] + ["never"]
    bar.set_ticks(list(range(deck.rank_count + 1)), labels=names)
    bar.set_label("keeps from (weakest card kept)")
    left.set_title("keep threshold by position", fontsize=10)
    shade = right.imshow(loss, origin="lower", aspect="auto", cmap="RdBu_r", vmin=0, vmax=2)
    fig.colorbar(shade, ax=right, fraction=0.04).set_label("P(lose) x players (1: a fair share)")
    right.set_title("who loses most", fontsize=10)
    for ax in (left, right):
        ax.set_xticks(range(len(rows)), [str(n) for n in sizes], fontsize=8)
        ax.set_yticks(range(top), [str(i + 1) for i in range(top)], fontsize=7)
        ax.set_xlabel("players at the table")
        ax.set_ylabel("position from the eldest (1); the dealer tops each column")
    fig.suptitle(title)
    fig.savefig(path, dpi=100)
    plt.close(fig)
