"""One encoder for every adapter: an engine observation as a fixed-size tensor and as text.

The input is only ever ``game.observation(seat)`` (RULES.md A4), so nothing a seat may not know can
reach a tensor or a string. The tensor has three blocks, each with a fixed size for a given number
of players and pack:

- ``state``: the live table as the seat sees it (its seat, dealer, seat to act, lives, who is in,
  kitty, pot, its own card, every card it knows the holder of, the dealer's set-aside card if it
  knows it, whose turn is done, how many cards the stock holds);
- ``history``: the hand so far, event by event (the seat's own dealt card, then every turn, shown
  blocker, Kings Jerk and dealer's exchange with the cards the seat saw in it), so two different
  histories never share a tensor (perfect recall within a hand);
- ``outcome``: the hand's showdown cards, losers, chips paid and eliminations, once known.

An encoding is always of one hand (by default the current one). Once the observation has moved on
from that hand (the engine deals the next hand as soon as one ends), the ``state`` block is left
empty, because the live table then belongs to the next hand; ``history`` and ``outcome`` still
describe the hand asked for.

>>> import chasetheace as cta
>>> game = cta.Game(cta.Rules(), players=3, stack=["2c", "Kd", "7h"], dealer=2)
>>> enc = Encoder(game.rules, 3)
>>> enc.tensor(game.observation(0)).shape == (enc.size,)
True
>>> enc.text(game.observation(0))
'seat 0 | hand 1 dealer 2 to act 0 | lives 3 3 3 kitty 0 pot 3 | card 2c | known 2c ? ? | stock 49'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..cards import pack
from ..observation import Observation
from ..rules import Rules

__all__ = ["Encoder", "hand_events", "TURN_KINDS"]


TURN_KINDS = ("king_jerk", "show_blocker", "keep", "swap", "blocked", "dealer_exchange",
              "dealer_drew_blocker", "dealer_same_rank")
"""The kinds of event the ``history`` block records, one slot each, in order of play."""


def hand_events(obs: Observation, hand: int | None = None) -> list[Mapping[str, Any]]:
    """The events of one hand (default: the current one) in the seat's view, from its start."""
    want = obs["hand"] if hand is None else hand
    history: Sequence[Mapping[str, Any]] = obs["history"]
    end = len(history)
    for i in range(len(history) - 1, -1, -1):  # from the end: the hand asked for is usually recent
        ev = history[i]
        if ev["type"] == "hand_started":
            if ev["hand"] == want:
                return list(history[i:end])
            if ev["hand"] > want:
                end = i
            else:
                break
    return []


def hand_is_live(obs: Observation, hand: int | None) -> bool:
    """Whether the observation's live table still belongs to ``hand``."""
    return not obs["over"] and (hand is None or obs["hand"] == hand)


class Encoder:
    """Turns observations of a game with ``players`` seats under ``rules`` into tensors and text."""

    def __init__(self, rules: Rules, players: int) -> None:
        self.rules, self.players = rules, players
        self.pack = [str(c) for c in pack(rules.deck)]
        self.index = {c: i for i, c in enumerate(self.pack)}
        n, d = players, len(self.pack)
        self.chips = max(1, n * rules.lives)
        self.stakes = max(1, n * rules.ante)
        # seat, dealer, to act, lives, in, done: n each; kitty, pot, stock: 1 each; card, set aside: d
        self.state_size = 6 * n + 3 + 2 * d + n * d
        self.event_size = len(TURN_KINDS) + 2 * n + 2 * d + 3
        self.max_events = 2 * n + 2  # Kings Jerks, one turn event per seat, the exchange and its result
        self.history_size = d + self.max_events * self.event_size
        self.outcome_size = n * d + 3 * n + 2
        self.size = self.state_size + self.history_size + self.outcome_size

    def card_offsets(self) -> list[int]:
        """Where each block of one card per pack position starts in a tensor (for decoding)."""
        n, d = self.players, len(self.pack)
        state = [6 * n + 3, 6 * n + 3 + d] + [6 * n + 3 + 2 * d + s * d for s in range(n)]
        past = [self.state_size] + [
            self.state_size + d + k * self.event_size + len(TURN_KINDS) + 2 * n + j * d
            for k in range(self.max_events) for j in (0, 1)]
        outcome = [self.state_size + self.history_size + s * d for s in range(n)]
        return state + past + outcome

    def cards_in(self, tensor: npt.NDArray[np.float32]) -> set[str]:
        """Every card a tensor names anywhere (what a test of hidden information looks for)."""
        d = len(self.pack)
        return {self.pack[i] for at in self.card_offsets() for i in np.flatnonzero(tensor[at:at + d])}

    # --- tensors ------------------------------------------------------------------------------

    def tensor(self, obs: Observation, *, hand: int | None = None,
               history: bool = True) -> npt.NDArray[np.float32]:
        """The observation as a float32 vector of length :attr:`size` (all values in 0..1).

        ``history=False`` leaves the ``history`` block empty (an observation without recall).
        """
        out = np.zeros(self.size, np.float32)
        state = out[:self.state_size]
        past = out[self.state_size:self.state_size + self.history_size]
        outcome = out[self.state_size + self.history_size:]
        seat = obs["seat"]
        if seat is not None:
            state[seat] = 1.0
        events = hand_events(obs, hand)
        if hand_is_live(obs, hand):
            self._state(obs, state)
        if history:
            self._history(seat, events, past)
        self._outcome(events, outcome)
        return out

    def _card(self, block: npt.NDArray[np.float32], at: int, card: str | None) -> None:
        if card is not None:
            block[at + self.index[card]] = 1.0

    def _state(self, obs: Observation, block: npt.NDArray[np.float32]) -> None:
        n, d = self.players, len(self.pack)
        block[n + obs["dealer"]] = 1.0
        if obs["to_act"] is not None:
            block[2 * n + obs["to_act"]] = 1.0
        for s in range(n):
            block[3 * n + s] = obs["lives"][s] / self.chips
            block[4 * n + s] = float(obs["in"][s])
        for s in obs["done"]:
            block[5 * n + s] = 1.0
        at = 6 * n
        block[at] = obs["kitty"] / self.chips
        block[at + 1] = min(1.0, obs["pot"] / self.stakes)
        block[at + 2] = obs["stock_size"] / d
        at += 3
        self._card(block, at, obs["card"])
        self._card(block, at + d, obs["set_aside"])
        at += 2 * d
        for s, card in enumerate(obs["cards"]):
            self._card(block, at + s * d, card)

    def _history(self, seat: int | None, events: Sequence[Mapping[str, Any]],
                 block: npt.NDArray[np.float32]) -> None:
        n, d, size = self.players, len(self.pack), self.event_size
        slot = 0
        for ev in events:
            kind = ev["type"]
            if kind == "dealt":
                for s, card in ev["cards"]:
                    if s == seat:
                        self._card(block, 0, card)
                continue
            if kind not in TURN_KINDS:
                continue
            at = d + slot * size
            slot += 1
            block[at + TURN_KINDS.index(kind)] = 1.0
            at += len(TURN_KINDS)
            block[at + ev["seat"]] = 1.0
            if "neighbour" in ev:
                block[at + n + ev["neighbour"]] = 1.0
            at += 2 * n
            first, second = _event_cards(ev)
            self._card(block, at, first)
            self._card(block, at + d, second)
            at += 2 * d
            announced = ev.get("announced")
            if announced in (1, 2):
                block[at + announced - 1] = 1.0
            if "position" in ev:
                block[at + 2] = ev["position"] / d

    def _outcome(self, events: Sequence[Mapping[str, Any]], block: npt.NDArray[np.float32]) -> None:
        n, d = self.players, len(self.pack)
        for ev in events:
            kind = ev["type"]
            if kind == "showdown":
                for s, card in ev["cards"]:
                    self._card(block, s * d, card)
                for s in ev["losers"]:
                    block[n * d + s] = 1.0
            elif kind == "lives_lost":
                for s, paid in ev["payments"]:
                    block[n * d + n + s] = paid / 2
            elif kind == "eliminated":
                for s in ev["seats"]:
                    block[n * d + 2 * n + s] = 1.0
            elif kind == "final_tie":
                block[n * d + 3 * n] = 1.0
            elif kind in ("dealer_drew_blocker", "dealer_same_rank") and ev["rule"] in (
                    "dealer-loses", "dealer-wins"):
                block[n * d + 3 * n + 1] = 1.0  # the hand ended with no showdown

    # --- text ---------------------------------------------------------------------------------

    def text(self, obs: Observation, *, hand: int | None = None, history: bool = False) -> str:
        """The observation as one line of text; ``history=True`` adds the hand's events."""
        parts = [f"seat {'-' if obs['seat'] is None else obs['seat']}"]
        events = hand_events(obs, hand)
        if hand_is_live(obs, hand):
            to_act = "-" if obs["to_act"] is None else obs["to_act"]
            parts.append(f"hand {obs['hand']} dealer {obs['dealer']} to act {to_act}")
            parts.append(f"lives {' '.join(map(str, obs['lives']))} kitty {obs['kitty']} "
                         f"pot {obs['pot']}")
            parts.append(f"card {obs['card'] or '?'}")
            parts.append("known " + " ".join(c or "?" for c in obs["cards"]))
            if obs["set_aside"] is not None:
                parts.append(f"set aside {obs['set_aside']}")
            parts.append(f"stock {obs['stock_size']}")
        else:
            parts.append(f"hand {hand if hand is not None else obs['hand']} over")
        shown = [describe(ev, obs["seat"]) for ev in events] if history else [
            describe(ev, obs["seat"]) for ev in events if ev["type"] in _OUTCOME_KINDS]
        parts.extend(s for s in shown if s)
        return " | ".join(parts)


_OUTCOME_KINDS = ("showdown", "lives_lost", "eliminated", "final_tie")


def _event_cards(ev: Mapping[str, Any]) -> tuple[str | None, str | None]:
    kind = ev["type"]
    if kind == "swap" or kind == "dealer_exchange":
        return ev.get("given"), ev.get("received", ev.get("drawn"))
    if kind == "dealer_same_rank":
        return ev["given"], ev["drawn"]
    return ev.get("card"), None


def describe(ev: Mapping[str, Any], seat: int | None) -> str:
    """One event of a seat's view in a few words ('' for bookkeeping events)."""
    kind = ev["type"]
    if kind == "dealt":
        own = [card for s, card in ev["cards"] if s == seat]
        return f"dealt {own[0]}" if own else "dealt"
    if kind in ("keep", "show_blocker", "king_jerk"):
        card = f" {ev['card']}" if "card" in ev else ""
        return f"p{ev['seat']} {kind.replace('_', ' ')}{card}"
    if kind == "swap":
        seen = f" gave {ev['given']} got {ev['received']}" if "given" in ev else ""
        said = f" announced {ev['announced']}" if ev["announced"] else ""
        return f"p{ev['seat']} swap p{ev['neighbour']}{seen}{said}"
    if kind == "blocked":
        return f"p{ev['seat']} blocked by p{ev['neighbour']} {ev['card']}"
    if kind == "dealer_exchange":
        seen = f" gave {ev['given']} drew {ev['drawn']}" if "given" in ev else ""
        return f"p{ev['seat']} cut {ev['position']}{seen}"
    if kind == "dealer_drew_blocker":
        return f"p{ev['seat']} drew blocker {ev['card']} ({ev['rule']})"
    if kind == "dealer_same_rank":
        return f"p{ev['seat']} drew same rank {ev['given']} {ev['drawn']} ({ev['rule']})"
    if kind == "showdown":
        cards = " ".join(f"p{s}:{c}" for s, c in ev["cards"])
        return f"showdown {cards} losers {' '.join(f'p{s}' for s in ev['losers'])}"
    if kind == "lives_lost":
        return "paid " + " ".join(f"p{s}:{paid}" for s, paid in ev["payments"])
    if kind == "eliminated":
        return "out " + " ".join(f"p{s}" for s in ev["seats"])
    if kind == "final_tie":
        return f"final tie {ev['rule']}"
    return ""
