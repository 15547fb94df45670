"""Pictures of a solution (needs matplotlib: the ``plot`` extra)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..seats import position_name
from .words import rank_name

if TYPE_CHECKING:
    from .solution import Solution

__all__ = ["plot_solution"]


def plot_solution(sol: Solution, path: str) -> None:
    """Write a PNG: how often each position keeps each card, and each position's chance of losing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ValueError("plotting needs matplotlib: pip install 'chase-the-ace[plot]'") from None
    n, deck = sol.players, sol.deck
    names = [position_name(i, n) for i in range(n)]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 0.5 * n + 2.5),
                                      gridspec_kw={"width_ratios": [3, 1]})
    grid = sol.keep_by_card()
    image = left.imshow(grid, aspect="auto", cmap="RdYlGn", vmin=0, vmax=1)
    left.set_xticks(range(deck.kinds), [rank_name(deck, c) for c in range(deck.kinds)])
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
    fig.suptitle(f"Chase the Ace equilibrium, {n} players, {rules} (NashConv {sol.nash_conv:.1e})")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
