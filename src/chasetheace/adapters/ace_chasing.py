"""PettingZoo AEC environment ``ace_chasing_v0``: Ace Chasing (RULES.md part B), every seat an agent.

>>> from chasetheace.adapters.ace_chasing import env
>>> e = env(players=4)
>>> e.reset(seed=1)
>>> e.agent_selection, sorted(e.observe(e.agent_selection))
('player_1', ['action_mask', 'observation'])

Options: ``players`` (4 to 52, default 4), ``max_offer`` (the largest bet an agent may offer,
default 10), ``win_reward`` (default 1.0) and ``render_mode`` (``"human"`` prints, ``"ansi"``
returns text).

Actions, ``Discrete(4 + max_offer + 1)``: 0 keeps, 1 swaps, 2 accepts the offer made to the
matador, 3 declines it, and ``4 + k`` offers to bet ``k`` that the matador is knocked out (``4``:
no bet, or withdraw). ``action_mask`` marks the legal ones. Observations: ``{"observation":
float32 vector, "action_mask": int8}``, the vector built from ``game.observation(seat)`` alone
(:class:`AceEncoder`): what the seat may know, never another seat's unshown card. Rewards: the
change in each seat's money at each step; at the end the winner also gets ``win_reward``. A seat
that is out is terminated (and steps with ``None``, as PettingZoo requires).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from pettingzoo import AECEnv

from ..acechasing.game import AceAction, AceChasingGame, Offer
from ..acechasing.render import narrate
from ..cards import pack
from .aec import SeatAgents, wrapped

__all__ = ["env", "raw_env", "NAME", "AceEncoder", "ACTION_WORDS"]

NAME = "ace_chasing_v0"
ACTION_WORDS = ("keep", "swap", "accept", "decline")
"""The actions before the offers: action ``i`` is ``ACTION_WORDS[i]``, ``4 + k`` offers ``k``."""
_PHASES = ("betting", "exchanges")


def env(**options: Any) -> AECEnv:
    """The environment wrapped as PettingZoo recommends (bounds and call-order checks)."""
    return wrapped(raw_env(**options))


class AceEncoder:
    """An Ace Chasing observation (``AceChasingGame.observation(seat)``) as a float32 vector.

    Blocks, in order: the seat's own card (52); every card the seat knows, by seat (52 per seat:
    its own, a card swapped with it, cards shown); the matador, the seat to act, the seats still
    in, the seat itself (one per seat each); the phase (betting, exchanges); the offer the
    matador is asked about (its seat, and its amount); each seat's money, standing bet and
    offers made so far (scaled by ``max_offer``); the round.
    """

    def __init__(self, players: int, max_offer: int) -> None:
        self.players, self.max_offer = players, max_offer
        self.index = {str(c): i for i, c in enumerate(pack(52))}
        n = players
        self.size = 52 + 52 * n + 4 * n + len(_PHASES) + n + 1 + 3 * n + 1

    def tensor(self, obs: Mapping[str, Any]) -> npt.NDArray[np.float32]:
        """The vector of one seat's observation."""
        n, scale = self.players, float(max(1, self.max_offer))
        out = np.zeros(self.size, np.float32)
        at = 0
        if obs["card"] is not None:
            out[at + self.index[str(obs["card"])]] = 1.0
        at += 52
        for seat, card in enumerate(obs["cards"]):
            if card is not None:
                out[at + 52 * seat + self.index[str(card)]] = 1.0
        at += 52 * n
        out[at + obs["matador"]] = 1.0
        at += n
        if obs["to_act"] is not None:
            out[at + obs["to_act"]] = 1.0
        at += n
        out[at:at + n] = np.asarray(obs["in"], np.float32)
        at += n
        if obs["seat"] is not None:
            out[at + obs["seat"]] = 1.0
        at += n
        if obs["phase"] in _PHASES:
            out[at + _PHASES.index(obs["phase"])] = 1.0
        at += len(_PHASES)
        offer = obs["offer"]
        if offer is not None:
            out[at + offer["seat"]] = 1.0
            out[at + n] = offer["amount"] / scale
        at += n + 1
        out[at:at + n] = np.asarray(obs["money"], np.float32) / scale
        at += n
        for seat, amount in obs["bets"]:
            out[at + seat] = amount / scale
        at += n
        out[at:at + n] = np.asarray(obs["offers_made"], np.float32) / max(1, obs["max_offers"])
        at += n
        out[at] = obs["round"] / n
        return out


class raw_env(SeatAgents):
    """The unwrapped AEC environment; see the module docstring for the options."""

    metadata: ClassVar[dict[str, Any]] = {**SeatAgents.metadata, "name": NAME}

    def __init__(self, players: int = 4, max_offer: int = 10, win_reward: float = 1.0,
                 render_mode: str | None = None) -> None:
        super().__init__()
        if isinstance(players, bool) or not isinstance(players, int) or not 4 <= players <= 52:
            raise ValueError(f"bad players {players!r}: allowed 4..52")
        if isinstance(max_offer, bool) or not isinstance(max_offer, int) or not 0 <= max_offer <= 1000:
            raise ValueError(f"bad max_offer {max_offer!r}: allowed 0..1000")
        self.players, self.max_offer, self.win_reward = players, max_offer, float(win_reward)
        self.encoder = AceEncoder(players, max_offer)
        self.actions = len(ACTION_WORDS) + max_offer + 1
        self.seat_agents(players, self.encoder.size, -np.inf, self.actions, render_mode)
        self.game = AceChasingGame(players, seed=0)

    def new_game(self, seed: int) -> None:
        """A new game of Ace Chasing."""
        self.game = AceChasingGame(self.players, seed=seed)

    def to_act(self) -> int | None:
        """The seat to act, or None once the game is over."""
        return self.game.to_act

    def out(self, seat: int) -> bool:
        """Whether ``seat`` is out, or the game over."""
        return self.game.over or not self.game.observation(None)["in"][seat]

    def action_mask(self, seat: int) -> npt.NDArray[np.int8]:
        """Which actions ``seat`` may take now (all 0 when it is not its turn)."""
        mask = np.zeros(self.actions, np.int8)
        if self.game.to_act != seat:
            return mask
        for kind in self.game.legal_actions():
            if kind == AceAction.OFFER:
                mask[len(ACTION_WORDS):] = 1
            else:
                mask[ACTION_WORDS.index(kind.value)] = 1
        return mask

    def action_of(self, action: int) -> AceAction | Offer:
        """The game's action for an action number (see the module docstring)."""
        if action >= len(ACTION_WORDS):
            return Offer(action - len(ACTION_WORDS))
        return AceAction(ACTION_WORDS[action])

    def observe(self, agent: str) -> dict[str, Any]:
        """What ``agent``'s seat may know, encoded, with the mask of its legal actions."""
        seat = self.seat[agent]
        return {"observation": self.encoder.tensor(self.game.observation(seat)),
                "action_mask": self.action_mask(seat)}

    def play(self, seat: int, action: int | None) -> list[float]:
        """The seat acts (see the module docstring): each seat's change in money, and at the end
        the winner's ``win_reward``."""
        if action is None or not self.action_mask(seat)[int(action)]:
            raise ValueError(f"{self.possible_agents[seat]} is to act: action {action!r} is not legal "
                             f"now (legal: {np.flatnonzero(self.action_mask(seat)).tolist()})")
        game = self.game
        before = list(game.money)
        game.act(self.action_of(int(action)), seat)
        gained = [float(after - was) for after, was in zip(game.money, before)]
        if game.over:
            for winner in game.winners:
                gained[winner] += self.win_reward
        return gained

    def public_text(self) -> str:
        """The last events as the public sees them, in words."""
        obs = self.game.observation(None)
        return "\n".join(line for view in obs["history"][-12:] for line in narrate(view, obs["names"]))
