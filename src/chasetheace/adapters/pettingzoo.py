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
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .encoding import Encoder
from .episode import Episode, table_options

__all__ = ["env", "raw_env", "NAME"]

NAME = "chase_the_ace_v0"


def env(**options: Any) -> AECEnv:
    """The environment wrapped as PettingZoo recommends (bounds and call-order checks)."""
    out: AECEnv = raw_env(**options)
    out = wrappers.AssertOutOfBoundsWrapper(out)
    return wrappers.OrderEnforcingWrapper(out)


class raw_env(AECEnv):  # type: ignore[misc]
    """The unwrapped AEC environment; see the module docstring for the options."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"], "name": NAME, "is_parallelizable": False, "render_fps": 1}

    def __init__(self, players: int = 3, preset: str = "standard", single_hand: bool = False,
                 win_reward: float = 1.0, render_mode: str | None = None, **rules: Any) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"bad render_mode {render_mode!r}: allowed human, ansi")
        chosen, n = table_options(players, preset, **rules)
        self.episode = Episode(chosen, n, single_hand=bool(single_hand), win_reward=win_reward)
        self.encoder = Encoder(chosen, n)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{s}" for s in range(n)]
        self.seat = {a: s for s, a in enumerate(self.possible_agents)}
        box = spaces.Box(0.0, 1.0, (self.encoder.size,), np.float32)
        mask = spaces.Box(0, 1, (2,), np.int8)
        self.observation_spaces = {a: spaces.Dict({"observation": box, "action_mask": mask})
                                   for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(2) for a in self.possible_agents}
        self._rng = np.random.default_rng()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """Discrete(2): 0 keeps, 1 swaps."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` fixes all of its chance, later resets without one follow on."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.episode.reset(seed=int(self._rng.integers(2**63)))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._select()

    def observe(self, agent: str) -> dict[str, Any]:
        """What ``agent``'s seat may know, encoded, with the mask of its legal actions."""
        seat = self.seat[agent]
        ep = self.episode
        obs = ep.observation(seat)
        mask = np.array([1, 1] if ep.to_act == seat else [0, 0], np.int8)
        return {"observation": self.encoder.tensor(obs, hand=ep.encoded_hand), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """The selected agent keeps (0) or swaps (1); a terminated agent steps with None."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: the action must be 0 (keep) or 1 (swap), not None")
        ep = self.episode
        self._cumulative_rewards[agent] = 0.0
        gained = ep.act(int(action))
        self.rewards = {a: gained[self.seat[a]] for a in self.agents}
        for a in self.agents:
            if ep.out(self.seat[a]):
                self.terminations[a] = True
        self._select()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _select(self) -> None:
        seat = self.episode.to_act
        if seat is not None:
            self.agent_selection = self.possible_agents[seat]
        else:
            self.agent_selection = self.agents[0]
        self._deads_step_first()

    def render(self) -> str | None:
        """The table as the public sees it (no hidden card), printed or returned."""
        if self.render_mode is None:
            return None
        game = self.episode.game
        text = self.encoder.text(game.observation(None), hand=self.episode.encoded_hand, history=True)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""
