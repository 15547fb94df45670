"""Gymnasium environment: the agent holds one seat, engine bots hold the others.

>>> from chasetheace.adapters.gymnasium import env
>>> e = env(players=3, seat=0, opponents="threshold:8", single_hand=True)
>>> obs, info = e.reset(seed=1)
>>> obs.shape == e.observation_space.shape, int(e.action_space.n)
(True, 2)

Options: ``players`` (default 3), ``seat`` (the agent's seat, default 0), ``opponents`` (one
:func:`chasetheace.make_bot` spec for every other seat, or a list with one per other seat in seat
order; default ``threshold``), ``preset``, any rule key of RULES.md A2, ``single_hand`` (default
False: a whole game; True: one hand), ``win_reward`` and ``render_mode`` (``human`` or ``ansi``).
Actions: 0 keeps, 1 swaps (both are legal at every decision of this game, so no mask is needed).
The observation is the shared encoder's vector of ``game.observation(seat)``; bots see only their
own observations. Rewards as in :mod:`chasetheace.adapters.episode`. The episode ends when the
game (or hand) ends or the agent is eliminated. A game in which the agent would have no decision
at all (it holds a blocker, say) is skipped at reset.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ..bots import Bot
from ..registry import make_bot
from .encoding import Encoder
from .episode import Episode, table_options

__all__ = ["ChaseTheAceEnv", "env", "ID"]

ID = "ChaseTheAce-v0"


def env(**options: Any) -> ChaseTheAceEnv:
    """The environment; see the module docstring for the options."""
    return ChaseTheAceEnv(**options)


class ChaseTheAceEnv(gym.Env[npt.NDArray[np.float32], np.int64]):
    """One seat of Chase the Ace against engine bots."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}  # noqa: RUF012 (declared so by gymnasium.Env)

    def __init__(self, players: int = 3, seat: int = 0, opponents: str | Sequence[str] = "threshold",
                 preset: str = "standard", single_hand: bool = False, win_reward: float = 1.0,
                 render_mode: str | None = None, **rules: Any) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"bad render_mode {render_mode!r}: allowed human, ansi")
        chosen, n = table_options(players, preset, **rules)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"bad seat {seat!r}: allowed 0..{n - 1}")
        specs = [opponents] * (n - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != n - 1:
            raise ValueError(f"bad opponents: {n - 1} bot specs needed, one per other seat, got {len(specs)}")
        for spec in specs:
            make_bot(spec, chosen, n)  # fail now, with the bot's own message, on a bad spec
        self.specs, self.seat, self.render_mode = specs, seat, render_mode
        self.episode = Episode(chosen, n, single_hand=bool(single_hand), win_reward=win_reward)
        self.encoder = Encoder(chosen, n)
        self.observation_space = spaces.Box(0.0, 1.0, (self.encoder.size,), np.float32)
        self.action_space = spaces.Discrete(2)
        self.bots: dict[int, Bot] = {}
        self.bot_rng = random.Random(0)

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """A new game (the first one from ``seed`` in which the agent has a decision)."""
        super().reset(seed=seed)
        while True:
            self.episode.reset(seed=int(self.np_random.integers(2**63)))
            self.bot_rng = random.Random(int(self.np_random.integers(2**63)))
            others = [s for s in range(self.episode.players) if s != self.seat]
            self.bots = {s: make_bot(spec, self.episode.rules, self.episode.players)
                         for s, spec in zip(others, self.specs)}
            self._bots_play()
            if self.episode.to_act == self.seat:
                return self._observe(), self._info()

    def step(self, action: Any) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        """The agent keeps (0) or swaps (1); the bots play on to the agent's next decision."""
        if not self.action_space.contains(action):
            raise ValueError(f"bad action {action!r}: 0 (keep) or 1 (swap)")
        if self.episode.to_act != self.seat:
            raise ValueError("the episode is over: call reset()")
        reward = self.episode.act(int(action))[self.seat]
        reward += self._bots_play()
        terminated = self.episode.out(self.seat)
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, False, self._info()

    def _bots_play(self) -> float:
        """Let the bots act until the agent's turn or the end; the agent's reward meanwhile."""
        ep, gained = self.episode, 0.0
        while ep.to_act is not None and ep.to_act != self.seat and not ep.out(self.seat):
            seat = ep.to_act
            choice = self.bots[seat].choose(ep.observation(seat), ep.game.legal_actions(), self.bot_rng)
            gained += ep.act(choice)[self.seat]
        return gained

    def _observe(self) -> npt.NDArray[np.float32]:
        obs = self.episode.observation(self.seat)
        return self.encoder.tensor(obs, hand=self.episode.encoded_hand)

    def _info(self) -> dict[str, Any]:
        game = self.episode.game
        return {"hand": game.hand, "lives": list(game.lives), "winners": list(game.winners)}

    def render(self) -> str | None:
        """The agent's view of the table as text, printed (``human``) or returned (``ansi``)."""
        if self.render_mode is None:
            return None
        text = self.encoder.text(self.episode.observation(self.seat), hand=self.episode.encoded_hand,
                                 history=True)
        if self.render_mode == "human":
            print(text)
            return None
        return text


if ID not in gym.registry:
    gym.register(id=ID, entry_point="chasetheace.adapters.gymnasium:ChaseTheAceEnv")
if "ChaseTheAceVector-v0" not in gym.registry:  # the same game, many tables in the kernel ([fast])
    gym.register(id="ChaseTheAceVector-v0", vector_entry_point="chasetheace.adapters.vector:make")
