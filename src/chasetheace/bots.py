"""Bots: players that choose from an observation and the legal actions, never from the game.

>>> import chasetheace as cta
>>> game = cta.Game(cta.Rules(), players=4, seed=3)
>>> bots = [cta.ThresholdBot(8), cta.RandomBot(), cta.CountingBot(), cta.ThresholdBot(6)]
>>> cta.play_game(game, bots, seed=3)
>>> game.over
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, assert_never, runtime_checkable

from .cards import Card, pack, parse_rank, rank_char
from .events import (
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
    ShowBlocker,
    Showdown,
    ShuffleSeen,
    SwapSeen,
    read_view,
)
from .game import Action
from .observation import Observation
from .rules import STRENGTH, Rules

__all__ = [
    "Bot", "RandomBot", "ThresholdBot", "CountingBot", "play_game", "own_card",
]



@runtime_checkable
class Bot(Protocol):
    """Anything with ``choose(observation, legal, rng) -> Action``."""

    def choose(self, observation: Observation, legal: Sequence[Action],
               rng: random.Random) -> Action:
        """Pick one of ``legal`` knowing only ``observation``."""
        ...


def own_card(observation: Observation) -> Card:
    """The card of the seat whose observation this is (ValueError for a spectator's view or a
    seat that holds none now)."""
    text = observation["card"]
    if text is None:
        raise ValueError(f"seat {observation['seat']} holds no card now: nothing to decide")
    return Card.parse(text)


class RandomBot:
    """Keeps or swaps at random."""

    name = "random"

    def choose(self, observation: Observation, legal: Sequence[Action],
               rng: random.Random) -> Action:
        """A uniformly random legal action."""
        return rng.choice(list(legal))

    def __repr__(self) -> str:
        return "RandomBot()"


class ThresholdBot:
    """Swaps when holding a card weaker than ``threshold`` (a rank, e.g. 8 or 'T'); else keeps."""

    name = "threshold"

    def __init__(self, threshold: int | str = 8) -> None:
        self.threshold = parse_rank(threshold)

    def choose(self, observation: Observation, legal: Sequence[Action],
               rng: random.Random) -> Action:
        """Keep at or above the threshold's strength."""
        strength = STRENGTH[observation["rules"]["ranking"]]
        card = own_card(observation)
        return Action.KEEP if strength[card.rank] >= strength[self.threshold] else Action.SWAP

    def __repr__(self) -> str:
        return f"ThresholdBot({rank_char(self.threshold)!r})"


class CountingBot:
    """Uses everything its seat may know to compare the chance of losing if it keeps or swaps.

    It tracks the cards it gave and received, shown blockers and kings, announcements, and,
    with ``between_hands = to-bottom``, the order of the cards that went under the stock, so it
    knows which cards were dealt and what the dealer would draw.
    """

    name = "counting"

    def __init__(self) -> None:
        self._tracker: _Tracker | None = None

    def choose(self, observation: Observation, legal: Sequence[Action],
               rng: random.Random) -> Action:
        """Keep unless swapping lowers the estimated chance of holding the lowest card."""
        tracker = self._tracker
        if tracker is None or not tracker.follows(observation):
            tracker = self._tracker = _Tracker(observation)
        tracker.update(observation)
        keep, swap = tracker.loss_estimates(observation)
        return Action.SWAP if swap < keep - 1e-12 else Action.KEEP

    def __repr__(self) -> str:
        return "CountingBot()"


class _Tracker:
    """What one seat can work out from its observations, updated event by event."""

    def __init__(self, obs: Observation) -> None:
        self.rules = rules = Rules.from_dict(obs["rules"])
        seat = obs["seat"]
        if seat is None:
            raise ValueError("a bot plays a seat: a spectator's observation has no card to play")
        self.seat: int = seat
        self.strength = STRENGTH[rules.ranking]
        self.blocker = rules.blocker_rank
        self.pack = pack(rules.deck)
        self.stock: list[Card | None] = [None] * len(self.pack)
        self.held: dict[int, Card | None] = {}
        self.rank_at: dict[int, int] = {}
        self.set_aside: Card | None = None
        self.pending: tuple[int, Card | None] | None = None
        self.after_shuffle = False
        self.seen = 0
        self.mark: Any = None

    def follows(self, obs: Observation) -> bool:
        history = obs["history"]
        return (obs["seat"] == self.seat and len(history) >= self.seen
                and (self.seen == 0 or history[self.seen - 1] == self.mark))

    def update(self, obs: Observation) -> None:
        history = obs["history"]
        for ev in history[self.seen:]:
            self._apply(ev)
        self.seen = len(history)
        self.mark = history[-1] if history else None
        for s, text in enumerate(obs["cards"]):
            if text is not None:
                self.held[s] = Card.parse(text)

    def _apply(self, view: Mapping[str, Any]) -> None:
        match read_view(view):
            case ShuffleSeen():
                self.after_shuffle = True
                return
            case HandStarted(order=order):
                if self.after_shuffle:
                    self.stock = [None] * len(self.pack)
                self.order = list(order)
                self.held, self.rank_at, self.set_aside, self.pending = {}, {}, None, None
            case DealtSeen(count=k, cards=cards):
                for seat, card in zip(self.order, self.stock[:k]):
                    self.held[seat] = card
                del self.stock[:k]
                for seat, card in cards:
                    self.held[seat] = card
            case KingJerk(seat=seat, card=card) | ShowBlocker(seat=seat, card=card):
                self.held[seat] = card
            case Blocked(neighbour=neighbour, card=card):
                self.held[neighbour] = card
            case SwapSeen(seat=a, neighbour=b, announced=announced, given=given, received=received):
                self.held[a], self.held[b] = self.held.get(b), self.held.get(a)
                self.rank_at[a], self.rank_at[b] = self.rank_at.pop(b, 0), self.rank_at.pop(a, 0)
                if given is not None:
                    self.held[a], self.held[b] = received, given
                if announced:
                    self.rank_at[a] = announced
            case DealerExchangeSeen(seat=d, position=pos, drawn=drawn):
                self.pending = (pos, self.held.get(d))
                if drawn is None:
                    drawn = self.stock[pos]
                del self.stock[pos]
                self.set_aside = self.held.get(d)
                self.held[d] = drawn
            case DealerDrewBlocker(seat=seat, card=card, rule="void") if self.pending:
                pos, original = self.pending
                self.stock.insert(pos, card)
                self.held[seat], self.set_aside = original, None
            case DealerSameRank(seat=seat, given=given, drawn=drawn):
                self.set_aside = given
                self.held[seat] = drawn
            case Showdown(cards=cards):
                for seat, card in cards:
                    self.held[seat] = card
            case CollectedSeen(cards=collected):
                ours = [self.held.get(s) for s in self.order] + (
                    [self.set_aside] if len(collected) > len(self.order) else [])
                for known, guess in zip(collected, ours):
                    self.stock.append(known if known is not None else guess)
            case (Keep() | LivesLost() | Pick() | Eliminated() | GameOver() | DealerDrewBlocker()
                  | DealerDraw() | DealerChosen() | FinalTie() | CutDraw()):
                pass  # moves no card this seat could follow (the commonest first: a bot reads them all)
            case other:
                assert_never(other)
        self.after_shuffle = False

    # --- the decision ---------------------------------------------------------------------

    def loss_estimates(self, obs: Observation) -> tuple[float, float]:
        """Estimated chances of losing this hand if it keeps, and if it swaps."""
        me, dealer = self.seat, obs["dealer"]
        mine = own_card(obs)
        living = list(obs["order"])
        others = {s: self._strength_at(s) for s in living if s != me}
        located = {c for c in self.held.values() if c is not None} | {
            c for c in self.stock if c is not None}
        if self.set_aside is not None:
            located.add(self.set_aside)
        located.add(mine)
        pool = _Pool([c for c in self.pack if c not in located], self.strength)
        m = self.strength[mine.rank]
        keep = self._p_lose(m, others, pool.size, pool.above(m))
        if me == dealer:
            return keep, self._dealer_swap(mine, others, pool)
        nb = next(s for s in living[living.index(me) + 1:] + living if s != me)
        known = self.held.get(nb)
        if known is not None:
            return keep, self._after_swap(m, known.rank, others, nb, pool.size, pool, removed=None)
        total = 0.0
        for rank, count in pool.rank_counts.items():
            total += count * self._after_swap(m, rank, others, nb, pool.size - 1, pool, removed=rank)
        return keep, total / max(1, pool.size)

    def _after_swap(self, m: int, rank: int, others: Mapping[int, int | None], nb: int, size: int,
                    pool: _Pool, removed: int | None) -> float:
        """The chance of losing after asking the neighbour, who turns out to hold ``rank``."""
        d = self.strength[rank]
        gone = 0 if removed is None else 1
        if self.blocker is not None and rank == self.blocker:  # blocked: keep, neighbour shown
            return self._p_lose(m, {**others, nb: 14}, size, pool.above(m) - gone * (d > m))
        return self._p_lose(d, {**others, nb: m}, size, pool.above(d))

    def _strength_at(self, seat: int) -> int | None:
        card = self.held.get(seat)
        if card is not None:
            return self.strength[card.rank]
        rank = self.rank_at.get(seat)
        return self.strength[rank] if rank else None

    @staticmethod
    def _p_lose(mine: int, others: Mapping[int, int | None], size: int, higher: int) -> float:
        """The chance that ``mine`` is the lowest when the unknown others hold cards of the pool."""
        if any(v is not None and v < mine for v in others.values()):
            return 0.0
        unknown = sum(1 for v in others.values() if v is None)
        if unknown == 0:
            return 1.0
        if unknown > size:
            return 0.0
        return math.comb(higher, unknown) / math.comb(size, unknown)

    def _dealer_swap(self, mine: Card, others: Mapping[int, int | None], pool: _Pool) -> float:
        """The chance of losing if the dealer exchanges with the stock, averaged over the draw."""
        rules = self.rules
        slots: list[Card | None] = self.stock[:1] if rules.dealer_exchange == "top" else self.stock
        draws: list[tuple[int, float, bool]] = [(c.rank, 1.0, False) for c in slots if c is not None]
        unknown_slots = len(slots) - len(draws)
        if unknown_slots and pool.size:
            draws += [(rank, unknown_slots * n / pool.size, True) for rank, n in pool.rank_counts.items()]
        m = self.strength[mine.rank]
        total = 0.0
        for rank, weight, from_pool in draws:
            size = pool.size - from_pool
            d = self.strength[rank]
            if self.blocker is not None and rank == self.blocker:
                rule = rules.dealer_draws_blocker
                if rule == "void":  # shown and put back: the dealer keeps its card
                    total += weight * self._p_lose(m, others, size, pool.above(m) - (from_pool and d > m))
                    continue
                if rule == "dealer-loses":
                    total += weight
                    continue
            if rank == mine.rank and rules.dealer_same_rank != "none":
                continue  # the dealer cannot lose this hand
            total += weight * self._p_lose(d, others, size, pool.above(d))
        return total / max(1, len(slots))


class _Pool:
    """The cards whose place a seat does not know: how many, how strong, of which ranks."""

    def __init__(self, cards: list[Card], strength: Mapping[int, int]) -> None:
        self.size = len(cards)
        values = [strength[c.rank] for c in cards]
        self._above = [sum(1 for v in values if v > x) for x in range(15)]
        self.rank_counts: dict[int, int] = {}
        for c in cards:
            self.rank_counts[c.rank] = self.rank_counts.get(c.rank, 0) + 1

    def above(self, strength: int) -> int:
        """How many pool cards are strictly stronger."""
        return self._above[min(strength, 14)]




class Table(Protocol):
    """What :func:`play_game` needs of a game: either game of this package has it."""

    players: int

    @property
    def to_act(self) -> int | None:
        """The seat to act, or None once the game is over."""
        ...

    def observation(self, seat: int | None) -> Any:
        """What ``seat`` may know."""
        ...

    def legal_actions(self) -> Sequence[Any]:
        """The actions open to the seat to act."""
        ...

    def act(self, action: Any, seat: int | None = None) -> Any:
        """Play an action."""
        ...


class Player(Protocol):
    """Anything that chooses from an observation and the legal actions."""

    def choose(self, observation: Any, legal: Any, rng: random.Random) -> Any:
        """Pick one of ``legal`` knowing only ``observation`` (its game's)."""
        ...


def play_game(game: Table, bots: Sequence[Player], *, seed: int | None = None,
              rng: random.Random | None = None) -> None:
    """Let ``bots`` (one per seat) play ``game`` to the end, each seeing only its observation."""
    if len(bots) != game.players:
        raise ValueError(f"need {game.players} bots, one per seat, got {len(bots)}")
    rng = rng if rng is not None else random.Random(seed)
    while game.to_act is not None:
        seat = game.to_act
        game.act(bots[seat].choose(game.observation(seat), game.legal_actions(), rng))
