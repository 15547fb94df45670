"""What the reinforcement-learning adapters share: options, an episode over the engine, rewards.

An episode is a whole game (hands until one player is left) or, with ``single_hand=True``, only
its first hand. Rewards are the change in each seat's lives (minus the chips it paid, plus any
chip Kings Jerk gave it); in whole-game mode each winner also gets ``win_reward`` at the end
(shared equally by a split pot).

>>> ep = Episode(*table_options(players=3, lives=1), single_hand=True)
>>> ep.reset(seed=4)
>>> while not ep.over:
...     rewards = ep.act("keep")
>>> ep.total
[0.0, 0.0, -1.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..events import Event, FinalTie, GameOver, HandStarted, KingJerk, LivesLost
from ..game import Action, Game
from ..observation import Observation
from ..rules import OPTIONS, Rules

__all__ = ["Episode", "chip_rewards", "table_options"]


def table_options(players: int = 3, preset: str = "standard", **rules: Any) -> tuple[Rules, int]:
    """The rules and player count of an adapter's options: a preset, then any rule keys."""
    unknown = [k for k in rules if k not in OPTIONS]
    if unknown:
        raise ValueError(f"unknown option {unknown[0]!r}: allowed players, preset, single_hand, "
                         f"{', '.join(OPTIONS)}")
    chosen = Rules.preset(preset).replace(**rules)
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= chosen.max_players:
        raise ValueError(f"bad players {players!r}: allowed 2..{chosen.max_players} "
                         f"with a {chosen.deck}-card pack")
    return chosen, players


class Episode:
    """One game (or one hand of it) of the engine, with rewards per seat."""

    def __init__(self, rules: Rules, players: int, *, single_hand: bool = False,
                 win_reward: float = 1.0) -> None:
        self.rules, self.players = rules, players
        self.single_hand, self.win_reward = single_hand, win_reward
        self.game = Game(rules, players, seed=0)
        self.hand = 1
        self.total = [0.0] * players

    def reset(self, seed: int | None = None) -> None:
        """A new game, its chance drawn from ``seed``."""
        self.game = Game(self.rules, self.players, seed=seed)
        self.hand = self.game.hand
        self.total = [0.0] * self.players

    @property
    def over(self) -> bool:
        """Whether the episode has ended."""
        game = self.game
        return game.over or (self.single_hand and game.hand != self.hand)

    @property
    def to_act(self) -> int | None:
        """The seat to act, or None once the episode is over."""
        return None if self.over else self.game.to_act

    def out(self, seat: int) -> bool:
        """Whether ``seat`` takes no further part (eliminated, or the episode is over)."""
        return self.over or not self.game.alive[seat]

    def observation(self, seat: int) -> Observation:
        """The engine's observation of ``seat`` (RULES.md A4)."""
        return self.game.observation(seat)

    @property
    def encoded_hand(self) -> int | None:
        """The hand an encoder should show: the episode's hand in single-hand mode, else the current."""
        return self.hand if self.single_hand else None

    def act(self, action: Action | str | int) -> list[float]:
        """The seat to act keeps (0) or swaps (1); returns each seat's reward for what followed."""
        if self.over:
            raise ValueError("the episode is over: reset it")
        move = (Action.KEEP, Action.SWAP)[action] if isinstance(action, int) else action
        rewards = self.rewards(self.game.act(move))
        self.total = [t + r for t, r in zip(self.total, rewards)]
        return rewards

    def rewards(self, events: Sequence[Event]) -> list[float]:
        """Each seat's reward for these events (in single-hand mode, only the episode's hand's)."""
        return chip_rewards(events, self.players, hand=self.hand if self.single_hand else None,
                            win_reward=0.0 if self.single_hand else self.win_reward)


def chip_rewards(events: Sequence[Event], players: int, *, hand: int | None = None,
                 win_reward: float = 0.0) -> list[float]:
    """Each seat's change in lives over ``events``, plus ``win_reward`` shared by the winners.

    With ``hand``, events after that hand (the next hand's deal) are not counted.
    """
    out = [0.0] * players
    last: tuple[tuple[int, int], ...] = ()
    for ev in events:
        if isinstance(ev, HandStarted) and hand is not None and ev.hand > hand:
            break
        if isinstance(ev, LivesLost):
            last = ev.payments
            for s, paid in last:
                out[s] -= paid
        elif isinstance(ev, FinalTie) and ev.rule == "replay":
            for s, paid in last:
                out[s] += paid
        elif isinstance(ev, KingJerk) and ev.took:
            out[ev.seat] += 1
        elif isinstance(ev, GameOver) and ev.winners:
            for s in ev.winners:
                out[s] += win_reward / len(ev.winners)
    return out
