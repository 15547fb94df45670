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
from typing import Any, NamedTuple, assert_never

import numpy as np
import numpy.typing as npt

from ..cards import Card, pack
from ..events import (
    Blocked,
    CollectedSeen,
    CutDraw,
    DealerChosen,
    DealerDraw,
    DealerDrewBlocker,
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
    SeenEvent,
    ShowBlocker,
    Showdown,
    ShuffleSeen,
    SwapSeen,
    read_view,
)
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
        ev = read_view(history[i])
        if isinstance(ev, HandStarted):
            if ev.hand == want:
                return list(history[i:end])
            if ev.hand > want:
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

    def _card(self, block: npt.NDArray[np.float32], at: int, card: Card | str | None) -> None:
        if card is not None:
            block[at + self.index[str(card)]] = 1.0

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
        for view in events:
            ev = read_view(view)
            if isinstance(ev, DealtSeen):
                for s, card in ev.cards:
                    if s == seat:
                        self._card(block, 0, card)
                continue
            turn = _turn(ev)
            if turn is None:
                continue
            at = d + slot * size
            slot += 1
            block[at + TURN_KINDS.index(ev.type)] = 1.0
            at += len(TURN_KINDS)
            block[at + turn.seat] = 1.0
            if turn.neighbour is not None:
                block[at + n + turn.neighbour] = 1.0
            at += 2 * n
            self._card(block, at, turn.first)
            self._card(block, at + d, turn.second)
            at += 2 * d
            if turn.announced in (1, 2):
                block[at + turn.announced - 1] = 1.0
            if turn.position is not None:
                block[at + 2] = turn.position / d

    def _outcome(self, events: Sequence[Mapping[str, Any]], block: npt.NDArray[np.float32]) -> None:
        n, d = self.players, len(self.pack)
        for view in events:
            match read_view(view):
                case Showdown(cards=cards, losers=losers):
                    for s, card in cards:
                        self._card(block, s * d, card)
                    for s in losers:
                        block[n * d + s] = 1.0
                case LivesLost(payments=payments):
                    for s, paid in payments:
                        block[n * d + n + s] = paid / 2
                case Eliminated(seats=seats):
                    for s in seats:
                        block[n * d + 2 * n + s] = 1.0
                case FinalTie():
                    block[n * d + 3 * n] = 1.0
                case DealerDrewBlocker(rule="dealer-loses") | DealerSameRank(rule="dealer-wins"):
                    block[n * d + 3 * n + 1] = 1.0  # the hand ended with no showdown
                case (ShuffleSeen() | Pick() | DealerDraw() | DealerChosen() | HandStarted()
                      | DealtSeen() | KingJerk() | Keep() | SwapSeen() | Blocked() | ShowBlocker()
                      | DealerExchangeSeen() | DealerDrewBlocker() | DealerSameRank() | CutDraw()
                      | CollectedSeen() | GameOver()):
                    pass  # no outcome of the hand
                case other:
                    assert_never(other)

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
            describe(ev, obs["seat"]) for ev in events
            if isinstance(read_view(ev), Showdown | LivesLost | Eliminated | FinalTie)]
        parts.extend(s for s in shown if s)
        return " | ".join(parts)


class _Turn(NamedTuple):
    """What the ``history`` block records of one turn: who, with whom, the cards it showed or
    moved (as the seat saw them), the rank announced and where the dealer cut."""

    seat: int
    neighbour: int | None = None
    first: Card | None = None
    second: Card | None = None
    announced: int | None = None
    position: int | None = None


def _turn(ev: SeenEvent) -> _Turn | None:
    """The turn an event records, or None for an event that is no turn (:data:`TURN_KINDS`)."""
    match ev:
        case KingJerk(seat=seat, card=card) | ShowBlocker(seat=seat, card=card):
            return _Turn(seat, first=card)
        case Keep(seat=seat):
            return _Turn(seat)
        case SwapSeen(seat=seat, neighbour=neighbour, given=given, received=received, announced=announced):
            return _Turn(seat, neighbour, given, received, announced)
        case Blocked(seat=seat, neighbour=neighbour, card=card):
            return _Turn(seat, neighbour, card)
        case DealerExchangeSeen(seat=seat, position=position, given=given, drawn=drawn):
            return _Turn(seat, first=given, second=drawn, position=position)
        case DealerDrewBlocker(seat=seat, card=card):
            return _Turn(seat, first=card)
        case DealerSameRank(seat=seat, given=given, drawn=drawn):
            return _Turn(seat, first=given, second=drawn)
        case (ShuffleSeen() | Pick() | DealerDraw() | DealerChosen() | HandStarted() | DealtSeen()
              | Showdown() | LivesLost() | FinalTie() | CutDraw() | Eliminated() | CollectedSeen()
              | GameOver()):
            return None  # no turn
        case other:
            assert_never(other)


def describe(view: Mapping[str, Any], seat: int | None) -> str:
    """One event of a seat's view in a few words ('' for bookkeeping events)."""
    match read_view(view):
        case DealtSeen(cards=cards):
            own = [card for s, card in cards if s == seat]
            return f"dealt {own[0]}" if own else "dealt"
        case Keep(seat=who):
            return f"p{who} keep"
        case ShowBlocker(seat=who, card=card):
            return f"p{who} show blocker {card}"
        case KingJerk(seat=who, card=card):
            return f"p{who} king jerk {card}"
        case SwapSeen(seat=who, neighbour=nb, given=given, received=received, announced=announced):
            seen = f" gave {given} got {received}" if given is not None else ""
            said = f" announced {announced}" if announced else ""
            return f"p{who} swap p{nb}{seen}{said}"
        case Blocked(seat=who, neighbour=nb, card=card):
            return f"p{who} blocked by p{nb} {card}"
        case DealerExchangeSeen(seat=who, position=position, given=given, drawn=drawn):
            seen = f" gave {given} drew {drawn}" if given is not None else ""
            return f"p{who} cut {position}{seen}"
        case DealerDrewBlocker(seat=who, card=card, rule=rule):
            return f"p{who} drew blocker {card} ({rule})"
        case DealerSameRank(seat=who, given=given, drawn=drawn, rule=rule):
            return f"p{who} drew same rank {given} {drawn} ({rule})"
        case Showdown(cards=cards, losers=losers):
            shown = " ".join(f"p{s}:{c}" for s, c in cards)
            return f"showdown {shown} losers {' '.join(f'p{s}' for s in losers)}"
        case LivesLost(payments=payments):
            return "paid " + " ".join(f"p{s}:{paid}" for s, paid in payments)
        case Eliminated(seats=seats):
            return "out " + " ".join(f"p{s}" for s in seats)
        case FinalTie(rule=rule):
            return f"final tie {rule}"
        case (ShuffleSeen() | Pick() | DealerDraw() | DealerChosen() | HandStarted() | CutDraw()
              | CollectedSeen() | GameOver()):
            return ""  # bookkeeping
        case other:
            assert_never(other)
