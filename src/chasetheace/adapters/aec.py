"""What the PettingZoo environments of both games share: every seat an agent, the turn order,
rewards, terminations, seeding and rendering (PettingZoo's AEC conventions), around a game told
through a few hooks.

A game's environment sets its spaces with :meth:`SeatAgents.seat_agents` and implements
:meth:`~SeatAgents.new_game`, :meth:`~SeatAgents.to_act`, :meth:`~SeatAgents.play`,
:meth:`~SeatAgents.out`, :meth:`~SeatAgents.observe` and :meth:`~SeatAgents.public_text`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

__all__ = ["SeatAgents", "wrapped"]


def wrapped(env: AECEnv) -> AECEnv:
    """An environment wrapped as PettingZoo recommends (bounds and call-order checks)."""
    out: AECEnv = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(out)


class SeatAgents(AECEnv):  # type: ignore[misc]
    """An AEC environment whose agents are the seats of one game, ``player_0`` ... ."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"], "name": "", "is_parallelizable": False, "render_fps": 1}

    def seat_agents(self, players: int, observation_size: int, low: float, actions: int,
                    render_mode: str | None) -> None:
        """The agents, their spaces (a float32 vector of ``observation_size`` bounded below by
        ``low``, and a mask of ``actions`` legal actions) and the render mode; ValueError for a bad
        render mode."""
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"bad render_mode {render_mode!r}: allowed human, ansi")
        self.render_mode = render_mode
        self.possible_agents = [f"player_{s}" for s in range(players)]
        self.seat = {a: s for s, a in enumerate(self.possible_agents)}
        high = 1.0 if low == 0.0 else np.inf
        box = spaces.Box(low, high, (observation_size,), np.float32)
        mask = spaces.Box(0, 1, (actions,), np.int8)
        self.observation_spaces = {a: spaces.Dict({"observation": box, "action_mask": mask})
                                   for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(actions) for a in self.possible_agents}
        self._rng = np.random.default_rng()

    # --- the game's hooks ------------------------------------------------------------------------

    def new_game(self, seed: int) -> None:
        """Start a new game whose chance comes from ``seed``."""
        raise NotImplementedError

    def to_act(self) -> int | None:
        """The seat to act, or None once the game is over."""
        raise NotImplementedError

    def play(self, seat: int, action: int | None) -> list[float]:
        """``seat`` (to act) takes ``action``; each seat's reward for what followed. ValueError
        naming a bad action, changing nothing."""
        raise NotImplementedError

    def out(self, seat: int) -> bool:
        """Whether ``seat`` takes no further part."""
        raise NotImplementedError

    def public_text(self) -> str:
        """What the public sees of the game (no hidden card), as text."""
        raise NotImplementedError

    # --- PettingZoo's API ------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent``."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` fixes all of its chance, later resets without one follow on."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.new_game(int(self._rng.integers(2**63)))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._select()

    def step(self, action: int | None) -> None:
        """The selected agent acts; a terminated agent steps with None."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        gained = self.play(self.seat[agent], action)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: gained[self.seat[a]] for a in self.agents}
        for a in self.agents:
            if self.out(self.seat[a]):
                self.terminations[a] = True
        self._select()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _select(self) -> None:
        seat = self.to_act()
        self.agent_selection = self.agents[0] if seat is None else self.possible_agents[seat]
        self._deads_step_first()

    def render(self) -> str | None:
        """The game as the public sees it (no hidden card), printed or returned."""
        if self.render_mode is None:
            return None
        text = self.public_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""
