"""The Ace Chasing table drawn with Rich (the ``[cli]`` extra), like part A's table at the terminal.

Everything shown comes from one seat's observation: seats in deal order, the matador, money,
standing bets, who is out, and the cards that seat may know.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..render import card_text

if TYPE_CHECKING:
    from rich.table import Table

__all__ = ["ace_table", "left_neighbour"]


def left_neighbour(obs: Mapping[str, Any]) -> int | None:
    """The seat the viewer swaps with: the next player in this round's order (the matador last)."""
    order: list[int] = list(obs["order"])
    me = obs["seat"]
    if me not in order or len(order) < 2:
        return None
    return order[(order.index(me) + 1) % len(order)]


def ace_table(obs: Mapping[str, Any]) -> Table:
    """The Ace Chasing table as ``obs["seat"]`` sees it."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    me, names = obs["seat"], obs["names"]
    bets = {seat: amount for seat, amount in obs["bets"]}
    offer = obs["offer"]
    title = "Game over" if obs["over"] else f"Round {obs['round']}"
    table = Table(title=title, box=box.ROUNDED, title_style="bold", caption_style="dim", min_width=52,
                  caption=f"stock {obs['stock_size']} cards")
    for name, justify in (("", "left"), ("Player", "left"), ("Money", "right"), ("Card", "center"),
                          ("Bet", "right"), ("", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    seats = list(obs["order"]) or list(range(obs["players"]))
    seats += [s for s in range(obs["players"]) if s not in seats]  # those who are out, last
    for seat in seats:
        alive = obs["in"][seat]
        marker = "[bold cyan]▶[/]" if seat == obs["to_act"] else ""
        label = escape(names[seat]) + (" [dim](you)[/dim]" if seat == me and names[seat] != "You" else "")
        if seat == obs["matador"] and alive and not obs["over"]:
            label += " [bold yellow]matador[/]"
        card = obs["cards"][seat]
        hidden = "" if obs["over"] else "[dim]?[/dim]"  # at game over no card is in play any more
        cell = "" if not alive else hidden if card is None else card_text(card)
        if card is not None and alive:
            style = "bold red" if card[1] in "hd" else "bold"
            cell = f"[{style}]{cell}[/]"
        if seat in bets:
            bet = str(bets[seat])
        elif offer is not None and offer["seat"] == seat:
            bet = f"[dim]offers {offer['amount']}[/dim]"
        else:
            bet = ""
        status = ("[bold green]winner[/]" if seat in obs["winners"] else "[dim]out[/dim]" if not alive
                  else "[bold cyan]to act[/]" if seat == obs["to_act"] else "")
        table.add_row(marker, label, f"{obs['money'][seat]:+d}", cell, bet, status,
                      style=None if alive else "dim")
    return table
