"""PettingZoo AEC environment ``chase_the_ace_v0``: every seat is an agent.

>>> from chasetheace.adapters.pettingzoo import env
>>> e = env(players=3, single_hand=True)
>>> e.reset(seed=1)
>>> e.agent_selection in e.agents, sorted(e.observe(e.agent_selection))
(True, ['action_mask', 'observation'])

Options: ``players`` (default 3), ``preset`` (default ``standard``), any rule key of RULES.md A2,
``single_hand`` (default False: an episode is a whole game with lives; True: only its first hand),
``win_reward`` (default 1.0) and ``render_mode`` (``"human"`` prints, ``"ansi"`` returns text).
Actions: 0 keeps, 1 swaps. Observations: ``{"observation": float32 vector, "action_mask": int8
[keep, swap]}``, the vector from the shared encoder over ``game.observation(seat)`` only. Rewards
as in :mod:`chasetheace.adapters.episode`. An eliminated seat's agent is terminated (and must then
step with ``None``, as PettingZoo requires); at the end every agent is terminated. Ace Chasing
(RULES.md part B) has its own: :mod:`chasetheace.adapters.ace_chasing` (``ace_chasing_v0``).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pettingzoo import AECEnv

from .aec import SeatAgents, wrapped
from .encoding import Encoder
from .episode import Episode, table_options

__all__ = ["env", "raw_env", "NAME"]

NAME = "chase_the_ace_v0"


def env(**options: Any) -> AECEnv:
    """The environment wrapped as PettingZoo recommends (bounds and call-order checks)."""
    return wrapped(raw_env(**options))


class raw_env(SeatAgents):
    """The unwrapped AEC environment; see the module docstring for the options."""

    metadata: ClassVar[dict[str, Any]] = {**SeatAgents.metadata, "name": NAME}

    def __init__(self, players: int = 3, preset: str = "standard", single_hand: bool = False,
                 win_reward: float = 1.0, render_mode: str | None = None, **rules: Any) -> None:
        super().__init__()
        chosen, n = table_options(players, preset, **rules)
        self.episode = Episode(chosen, n, single_hand=bool(single_hand), win_reward=win_reward)
        self.encoder = Encoder(chosen, n)
        self.seat_agents(n, self.encoder.size, 0.0, 2, render_mode)

    def new_game(self, seed: int) -> None:
        """A new game (or hand) of the episode."""
        self.episode.reset(seed=seed)

    def to_act(self) -> int | None:
        """The seat to act, or None once the episode is over."""
        return self.episode.to_act

    def out(self, seat: int) -> bool:
        """Whether ``seat`` is eliminated, or the episode over."""
        return self.episode.out(seat)

    def observe(self, agent: str) -> dict[str, Any]:
        """What ``agent``'s seat may know, encoded, with the mask of its legal actions."""
        seat = self.seat[agent]
        ep = self.episode
        obs = ep.observation(seat)
        mask = np.array([1, 1] if ep.to_act == seat else [0, 0], np.int8)
        return {"observation": self.encoder.tensor(obs, hand=ep.encoded_hand), "action_mask": mask}

    def play(self, seat: int, action: int | None) -> list[float]:
        """The seat keeps (0) or swaps (1)."""
        if action is None:
            raise ValueError(f"{self.possible_agents[seat]} is to act: the action must be 0 (keep) or "
                             "1 (swap), not None")
        return self.episode.act(int(action))

    def public_text(self) -> str:
        """The table as the public sees it, with this hand's events."""
        game = self.episode.game
        return self.encoder.text(game.observation(None), hand=self.episode.encoded_hand, history=True)
