"""What one seat may know of a Chase the Ace game (RULES.md A4), as a typed, JSON-ready dict.

:meth:`chasetheace.Game.observation` is the only place an observation is made; bots, the solver's
hints, the adapters' encoders, the renderers and the web table read this type. It is a plain
``dict`` at run time, so ``json.dumps`` writes it as it is.

The ``rules`` and ``history`` of an observation are the game's own objects, shared between calls
and seats rather than copied each time (building observations is most of a simulation's time):
the types say read-only, and a caller must never change them. ``history`` is the seat's view of
the game's log, so it grows as the game goes on: keep ``len(obs["history"])`` (or a copy) to
remember how far it went.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

__all__ = ["Observation", "EventView"]

EventView = Mapping[str, Any]
"""One event as a seat sees it: ``{"type": ..., ...}`` (``Event.view(seat)`` written out)."""

Observation = TypedDict("Observation", {
    "seat": int | None,            # whose view this is; None: a spectator's
    "players": int,
    "names": list[str],
    "rules": Mapping[str, Any],    # every option, as Rules.to_dict() gives it (shared: read-only)
    "hand": int,                   # the number of the hand being played, from 1
    "dealer": int,
    "eldest": int | None,
    "order": list[int],            # the seats in this hand, in turn order (the dealer last)
    "to_act": int | None,
    "legal": list[str],            # the actions open to this seat now ([] if not its turn)
    "lives": list[int],
    "in": list[bool],              # who is still in the game
    "kitty": int,
    "pot": int,
    "card": str | None,            # this seat's own card
    "cards": list[str | None],     # every seat's card where this seat may know it
    "set_aside": str | None,       # the dealer's given-up card, if this seat knows it
    "done": list[int],             # seats that have taken their turn this hand
    "stock_size": int,
    "over": bool,
    "winners": list[int],
    "history": Sequence[EventView],  # every event as this seat sees it (shared: read-only)
})
"""Exactly what a seat may know; see the module's docstring."""
