"""OpenSpiel game ``python_ace_chasing``: one round of Ace Chasing (RULES.md part B); importing this
registers it.

>>> import pyspiel
>>> import chasetheace.adapters.openspiel_ace
>>> game = pyspiel.load_game("python_ace_chasing", {"players": 4, "max_offer": 2})
>>> game.num_players(), game.num_distinct_actions()
(4, 7)
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())
(True, 52)

Parameters: ``players`` (4 to 52, default 4), ``max_offer`` (the largest bet, default 10) and
``matador`` (its seat, default 0). Chance is explicit: one chance node per card dealt, in the deal
order (the matador's left first, the matador last), each uniform over the cards not yet dealt;
the engine then plays the round from a pack stacked with those cards. Actions as in
``ace_chasing_v0`` (:mod:`chasetheace.adapters.ace_chasing`): 0 keep, 1 swap, 2 accept, 3 decline,
``4 + k`` offer ``k``. The round ends when it is settled; the returns are each seat's money won
or lost in it (zero-sum).

Observations come only from ``AceChasingGame.observation(seat)``: the tensor is
:class:`~chasetheace.adapters.ace_chasing.AceEncoder`'s, and the information state adds the round's
decisions so far (each bettor's offers and the matador's answers, each exchange), which every
seat sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, assert_never

import numpy as np
import numpy.typing as npt
import pyspiel

from ..acechasing.events import (
    BetAccepted,
    BetDeclined,
    BettingClosed,
    Offered,
    RoundStarted,
    Settled,
    Shown,
    read_view,
)
from ..acechasing.game import MAX_OFFERS, AceChasingGame
from ..cards import CARDS, Card
from ..events import DealtSeen, Eliminated, GameOver, Keep, ShuffleSeen, SwapSeen
from .ace_chasing import ACTION_WORDS, AceEncoder, raw_env

__all__ = ["GAME_TYPE", "AceChasingSpielGame", "AceChasingState", "AceChasingObserver", "DEFAULTS"]

SHORT_NAME = "python_ace_chasing"
DEFAULTS: dict[str, Any] = {"players": 4, "max_offer": 10, "matador": 0}
"""Every parameter of the game with its default."""

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Ace Chasing (one round)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=52,
    min_num_players=4,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


class AceChasingSpielGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game: parameters as in the module docstring."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        merged = {**DEFAULTS, **(params or {})}
        unknown = set(merged) - set(DEFAULTS)
        if unknown:
            raise ValueError(f"unknown parameter {sorted(unknown)[0]!r}: allowed {', '.join(DEFAULTS)}")
        n, top, matador = merged["players"], merged["max_offer"], merged["matador"]
        if not 4 <= n <= 52:
            raise ValueError(f"bad players {n!r}: allowed 4..52")
        if not 0 <= top <= 1000:
            raise ValueError(f"bad max_offer {top!r}: allowed 0..1000")
        if not 0 <= matador < n:
            raise ValueError(f"bad matador {matador!r}: allowed 0..{n - 1}")
        info = pyspiel.GameInfo(
            num_distinct_actions=len(ACTION_WORDS) + top + 1,
            max_chance_outcomes=52,
            num_players=n,
            min_utility=-float(max(1, top * (n - 1))),  # bounds (OpenSpiel wants min < max)
            max_utility=float(max(1, top * (n - 1))),
            utility_sum=0.0,
            max_game_length=n * (2 * MAX_OFFERS + 1))
        super().__init__(GAME_TYPE, info, merged)
        # the action numbers and the legal masks of ace_chasing_v0, without its environment: one
        # for the game's states (built per state, it was most of a state's cost)
        self.actions = raw_env(players=n, max_offer=top)

    @property
    def players(self) -> int:
        """The number of seats."""
        return int(self.get_parameters()["players"])

    @property
    def max_offer(self) -> int:
        """The largest bet an offer may name."""
        return int(self.get_parameters()["max_offer"])

    @property
    def matador(self) -> int:
        """The matador's seat."""
        return int(self.get_parameters()["matador"])

    def new_initial_state(self) -> AceChasingState:
        """The start of a round: chance deals the first card."""
        return AceChasingState(self)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: Mapping[str, Any] | None = None) -> AceChasingObserver:
        """An observer for tensors and strings (information state when ``perfect_recall``)."""
        return AceChasingObserver(
            self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class AceChasingState(pyspiel.State):  # type: ignore[misc]
    """A round: chance deals, then the engine plays it from the stacked pack."""

    def __init__(self, game: AceChasingSpielGame) -> None:
        super().__init__(game)
        # OpenSpiel clones a state by deep-copying its attributes: keep them small (the cards dealt
        # and the actions taken), and let a copy replay the engine's round when it needs it
        self.dealt: list[Card] = []
        self.moves: list[int] = []
        self._round = _Round()

    @property
    def spec(self) -> AceChasingSpielGame:
        """The game this state belongs to."""
        game: AceChasingSpielGame = self.get_game()
        return game

    @property
    def table(self) -> AceChasingGame | None:
        """The engine's round on the pack dealt, the actions so far replayed (None while dealing)."""
        spec = self.spec
        if len(self.dealt) < spec.players:
            return None
        if self._round.table is None:
            table = AceChasingGame(spec.players, stack=self.dealt, matador=spec.matador, seed=0)
            for action in self.moves:
                table.act(spec.actions.action_of(action))
            self._round.table = table
        return self._round.table

    def current_player(self) -> int:
        """The seat to act, chance while dealing, or terminal."""
        table = self.table
        if table is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        seat = table.to_act
        assert seat is not None
        return seat

    def is_terminal(self) -> bool:
        """Whether the round has been settled."""
        table = self.table
        return table is not None and any(isinstance(ev, Settled) for ev in table.events)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The next card dealt, uniform over the cards not yet dealt."""
        left = [c.id for c in CARDS if c not in self.dealt]
        return [(card, 1.0 / len(left)) for card in left]

    def _legal_actions(self, player: int) -> list[int]:
        table, actions = self.table, self.spec.actions
        assert table is not None
        actions.game = table
        return [int(a) for a in np.flatnonzero(actions.action_mask(player))]

    def _apply_action(self, action: int) -> None:
        table = self.table
        if table is None:
            self.dealt.append(CARDS[action])
            return
        table.act(self.spec.actions.action_of(action))
        self.moves.append(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {CARDS[action]}"
        if action >= len(ACTION_WORDS):
            return f"offer {action - len(ACTION_WORDS)}"
        return ACTION_WORDS[action]

    def returns(self) -> list[float]:
        """Each seat's money won or lost in the round (0 before it is settled)."""
        table = self.table
        if table is None or not self.is_terminal():
            return [0.0] * self.spec.players
        return [float(m) for m in table.money]

    def observation_for(self, seat: int | None) -> dict[str, Any] | None:
        """``seat``'s observation from the engine (None while chance deals)."""
        table = self.table
        return None if table is None else table.observation(seat)

    def __str__(self) -> str:
        table = self.table
        if table is None:
            return f"dealing: {len(self.dealt)} of {self.spec.players} cards"
        obs = table.observation(None)
        return f"round 1, matador {obs['matador']}, to act {obs['to_act']}, money {obs['money']}"


class _Round:
    """Holds a state's engine round; a deep copy starts empty (the copy replays its own)."""

    def __init__(self) -> None:
        self.table: AceChasingGame | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> _Round:
        return _Round()


def decisions(obs: Mapping[str, Any], players: int, max_offer: int) -> npt.NDArray[np.float32]:
    """The round's decisions so far, which every seat sees: per seat, each offer it made (scaled
    by ``max_offer``, 1 more than the amount so that 0 is "no offer yet"), each answer to it
    (1 accepted, -1 declined), and its exchange (1 keep, -1 swap)."""
    out = np.zeros((players, 2 * MAX_OFFERS + 1), np.float32)
    scale = float(max(1, max_offer))
    for view in obs["history"]:
        match read_view(view):
            case Offered(seat=seat, amount=amount, number=number):
                out[seat, number - 1] = (amount + 1) / scale
            case BetAccepted(seat=seat):
                out[seat, MAX_OFFERS + int(np.count_nonzero(out[seat, MAX_OFFERS:2 * MAX_OFFERS]))] = 1.0
            case BetDeclined(seat=seat):
                out[seat, MAX_OFFERS + int(np.count_nonzero(out[seat, MAX_OFFERS:2 * MAX_OFFERS]))] = -1.0
            case Keep(seat=seat):
                out[seat, 2 * MAX_OFFERS] = 1.0
            case SwapSeen(seat=seat):
                out[seat, 2 * MAX_OFFERS] = -1.0
            case (ShuffleSeen() | RoundStarted() | DealtSeen() | BettingClosed() | Shown() | Settled()
                  | Eliminated() | GameOver()):
                pass  # no decision of the round
            case other:
                assert_never(other)
    return out.reshape(-1)


class AceChasingObserver:
    """OpenSpiel's Python observer: ``tensor``, ``dict``, ``set_from`` and ``string_from``.

    Private information is the observing seat's (``SINGLE_PLAYER``) or nobody's (``NONE``: the
    engine's spectator view); ``perfect_recall`` adds the round's decisions.
    """

    def __init__(self, game: AceChasingSpielGame, iig_obs_type: Any,
                 params: Mapping[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {dict(params)}")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("an observer of every player's private cards is not offered")
        self.public = iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        self.recall = bool(iig_obs_type.perfect_recall)
        self.players, self.max_offer = game.players, game.max_offer
        self.encoder = AceEncoder(game.players, game.max_offer)
        extra = game.players * (2 * MAX_OFFERS + 1) if self.recall else 0
        self.tensor = np.zeros(self.encoder.size + extra, np.float32)
        size = self.encoder.size
        self.dict = {"observation": self.tensor[:size], "decisions": self.tensor[size:]}

    def set_from(self, state: AceChasingState, player: int) -> None:
        """Fill :attr:`tensor` with what ``player`` (or the public) knows in ``state``."""
        self.tensor[:] = 0.0
        obs = state.observation_for(None if self.public else player)
        if obs is None:
            return
        self.tensor[:self.encoder.size] = self.encoder.tensor(obs)
        if self.recall:
            self.tensor[self.encoder.size:] = decisions(obs, self.players, self.max_offer)

    def string_from(self, state: AceChasingState, player: int) -> str:
        """What ``player`` (or the public) knows in ``state``, as one line."""
        seat = None if self.public else player
        obs = state.observation_for(seat)
        if obs is None:
            return f"seat {'-' if seat is None else seat} | dealing"
        known = " ".join(card or "?" for card in obs["cards"])
        offer = obs["offer"]
        parts = [f"seat {'-' if seat is None else seat}", f"card {obs['card'] or '?'}",
                 f"known {known}", f"phase {obs['phase']}", f"to act {obs['to_act']}",
                 f"bets {obs['bets']}",
                 f"offer {None if offer is None else (offer['seat'], offer['amount'])}"]
        if self.recall:
            made = decisions(obs, self.players, self.max_offer)
            parts.append("decisions " + " ".join(f"{x:g}" for x in made))
        return " | ".join(parts)


pyspiel.register_game(GAME_TYPE, AceChasingSpielGame)
