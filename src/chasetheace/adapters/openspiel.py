"""OpenSpiel game ``python_chase_the_ace``: one hand of Chase the Ace; importing this registers it.

>>> import pyspiel
>>> import chasetheace.adapters.openspiel
>>> game = pyspiel.load_game("python_chase_the_ace", {"players": 3})
>>> game.num_players(), game.num_distinct_actions()
(3, 2)
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())
(True, 3)

Parameters: ``players`` (default 3), ``preset`` (a name of RULES.md A5, default ``standard``), every
rule key of RULES.md A2 typed as OpenSpiel expects (``lives`` and ``ante`` and ``deck`` ints, the
yes/no options bools, the others strings), ``dealer`` (a seat, or -1 for a chance node that picks
it uniformly) and ``cards`` (the cards chance deals and draws from, e.g. ``"Kc 9c 5c 2c Ac"``; empty
for the whole pack: a reduced deck for small solvable games). A rule key left at its standard
default takes the preset's value; any other value overrides the preset.

Chance is explicit and OpenSpiel owns all of it. Chance nodes: the dealer (unless fixed), then one
card for each seat in turn order (eldest first, dealer last), each uniform over the cards not yet
dealt, then, when the dealer swaps with the stock, the card the dealer draws, uniform over the
undealt cards. The engine then plays the hand from a stacked pack: the dealt cards on top, then the
drawn card, and its cut (``dealer_exchange = cut``) is always made at the top of the stock. Because
the stock under the dealt cards is in a uniformly random order, the card at any fixed cut position
is uniform over the undealt cards, so this is the same game with chance moved to one node; the
engine still judges every rule. Outcome: returns are minus the chips (lives) each seat paid in the
hand (0 when ``final_tie = replay`` cancels the losses).

Observations come only from the engine's ``observation(seat)`` through the shared
:class:`~chasetheace.adapters.encoding.Encoder`; the information state adds the hand's history.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any, assert_never

import numpy as np
import numpy.typing as npt
import pyspiel
from open_spiel.python import policy as policy_lib

from ..bots import Bot
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
    ShowBlocker,
    Showdown,
    ShuffleSeen,
    SwapSeen,
    read_view,
)
from ..game import Action, Game
from ..observation import Observation
from ..registry import make_bot
from ..rules import OPTIONS, Rules
from .encoding import Encoder, hand_events
from .episode import chip_rewards

__all__ = ["GAME_TYPE", "BotPolicy", "ChaseTheAceGame", "ChaseTheAceState", "ChaseTheAceObserver",
           "DEFAULTS", "Memo", "rules_from_params", "parse_cards"]

SHORT_NAME = "python_chase_the_ace"
DEFAULTS: dict[str, Any] = {
    "players": 3, "preset": "standard", "dealer": -1, "cards": "",
    **{key: option.default for key, option in OPTIONS.items()},
}
"""Every parameter of the game with its default."""

ACTIONS = (Action.KEEP, Action.SWAP)  # OpenSpiel action 0 keeps, 1 swaps

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Chase the Ace (one hand)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=51,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


def rules_from_params(params: Mapping[str, Any]) -> Rules:
    """The rules of a parameter set: the preset, then every rule key not at its standard default."""
    rules = Rules.preset(str(params.get("preset", "standard")))
    changes = {k: v for k, v in params.items() if k in OPTIONS and v != OPTIONS[k].default}
    return rules.replace(**changes)


def parse_cards(text: str, rules: Rules) -> list[Card]:
    """The cards of the ``cards`` parameter (spaces, commas or nothing between them; '' = the pack)."""
    full = pack(rules.deck)
    flat = "".join(ch for ch in text if ch not in " ,;").replace("10", "T")
    if not flat:
        return full
    if len(flat) % 2:
        raise ValueError(f"bad cards {text!r}: write them like 'Kc 9c 5c 2c Ac'")
    cards = [Card.parse(flat[i:i + 2]) for i in range(0, len(flat), 2)]
    for card in cards:
        if card not in full:
            raise ValueError(f"bad cards {text!r}: {card} is not in the {rules.deck}-card pack")
    if len(set(cards)) != len(cards):
        raise ValueError(f"bad cards {text!r}: a card appears twice")
    return sorted(cards)


class _Setup:
    """What a parameter set means: the rules, the cards to deal from, the dealer, the encoder."""

    def __init__(self, params: Mapping[str, Any]) -> None:
        merged = {**DEFAULTS, **params}
        unknown = set(merged) - set(DEFAULTS)
        if unknown:
            raise ValueError(f"unknown parameter {sorted(unknown)[0]!r}: allowed {', '.join(DEFAULTS)}")
        self.params = merged
        self.rules = rules = rules_from_params(merged)
        self.players = n = merged["players"]
        if not 2 <= n <= rules.max_players:
            raise ValueError(f"bad players {n!r}: allowed 2..{rules.max_players} "
                             f"with a {rules.deck}-card pack")
        self.deal_from = parse_cards(merged["cards"], rules)
        if len(self.deal_from) < n + 1:
            raise ValueError(f"bad cards {merged['cards']!r}: {n} players need at least {n + 1} cards")
        dealer = merged["dealer"]
        if not -1 <= dealer < n:
            raise ValueError(f"bad dealer {dealer!r}: a seat 0..{n - 1}, or -1 for chance")
        self.fixed_dealer: int | None = None if dealer == -1 else dealer
        self.encoder = Encoder(rules, n)
        self.memo = Memo()

    def info(self) -> Any:
        """OpenSpiel's GameInfo for these parameters."""
        worst = 2 if self.rules.ace_pays_double and self.rules.lives >= 2 else 1
        return pyspiel.GameInfo(
            num_distinct_actions=len(ACTIONS),
            max_chance_outcomes=52,  # chance outcomes are card ids (and seats for the dealer)
            num_players=self.players,
            min_utility=-float(worst),
            max_utility=0.0,
            max_game_length=2 * self.players + 2)


class ChaseTheAceGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game: parameters as in the module docstring."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        setup = _Setup(params or {})
        super().__init__(GAME_TYPE, setup.info(), setup.params)
        self.__dict__["_setup"] = setup

    @property
    def setup(self) -> _Setup:
        """The meaning of the parameters (worked out again after unpickling, which skips __init__)."""
        setup = self.__dict__.get("_setup")
        if setup is None:
            setup = self.__dict__["_setup"] = _Setup(self.get_parameters())
        return setup

    @property
    def rules(self) -> Rules:
        """The rules of the hand."""
        return self.setup.rules

    @property
    def deal_from(self) -> list[Card]:
        """The cards chance deals and draws from."""
        return self.setup.deal_from

    @property
    def fixed_dealer(self) -> int | None:
        """The dealer's seat, or None when chance picks it."""
        return self.setup.fixed_dealer

    @property
    def encoder(self) -> Encoder:
        """The shared encoder for this table."""
        return self.setup.encoder

    @property
    def memo(self) -> Memo:
        """What this game's states worked out."""
        return self.setup.memo

    def new_initial_state(self) -> ChaseTheAceState:
        """The start of a hand: chance picks the dealer (unless fixed) and deals."""
        return ChaseTheAceState(self)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: Mapping[str, Any] | None = None) -> ChaseTheAceObserver:
        """An observer for tensors and strings (information state when ``perfect_recall``)."""
        return ChaseTheAceObserver(
            self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class Memo:
    """What states of one game worked out, by action path: solvers revisit the same states often.

    Bounded: it starts afresh once what it holds weighs ``limit`` (a tensor weighs its length, a
    string an eighth of its length, anything else 1), about 4 bytes a unit.
    """

    def __init__(self, limit: int = 16_000_000) -> None:
        self.limit = limit
        self.weight = 0
        self.facts: dict[tuple[Any, ...], Any] = {}

    def get(self, key: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
        """The value stored under ``key``, computing and storing it the first time."""
        facts = self.facts
        if key in facts:
            return facts[key]
        value = compute()
        weight = value.size if isinstance(value, np.ndarray) else (
            len(value) // 8 + 1 if isinstance(value, str) else 1)
        if self.weight + weight > self.limit:
            facts.clear()
            self.weight = 0
        facts[key] = value
        self.weight += weight
        return value


class _CutAtTop(random.Random):
    """The engine's chance when OpenSpiel owns it: the dealer's cut is made at the top."""

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        """Always the first position: the card there was chosen by an OpenSpiel chance node."""
        return 0


class ChaseTheAceState(pyspiel.State):  # type: ignore[misc]
    """One hand in progress; the engine :class:`~chasetheace.Game` judges it once dealt."""

    def __init__(self, game: ChaseTheAceGame) -> None:
        super().__init__(game)
        # OpenSpiel clones a state by deep-copying its attributes: keep them small, and let a
        # copy rebuild the engine's game from them when it needs it.
        self.dealer: int | None = game.fixed_dealer
        self.dealt: list[Card] = []
        self.moves: list[Action] = []
        self.drawing = False  # the dealer chose to swap; chance picks the card drawn
        self.drawn: Card | None = None
        self.path: tuple[int, ...] = ()  # every action so far: the key of the game's memo
        self._cache = _Cache()

    @property
    def spec(self) -> ChaseTheAceGame:
        """The game this state belongs to."""
        game: ChaseTheAceGame = self.get_game()
        return game

    @property
    def table(self) -> Game | None:
        """The engine's game once the cards are dealt (omniscient: never shown to a player)."""
        cache = self._cache
        if cache.table is None and len(self.dealt) == self.spec.num_players():
            cache.table = self._engine()
        return cache.table

    # --- OpenSpiel API ------------------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to act, CHANCE, or TERMINAL."""
        if self.dealer is None or self.drawing or len(self.dealt) < self.spec.num_players():
            return int(pyspiel.PlayerId.CHANCE)
        player: int = self.spec.memo.get(("player", self.path), self._player_now)
        return player

    def _player_now(self) -> int:
        table = self.table
        assert table is not None
        if table.over or table.hand > 1:
            return int(pyspiel.PlayerId.TERMINAL)
        assert table.to_act is not None
        return table.to_act

    def is_terminal(self) -> bool:
        """Whether the hand is over."""
        return bool(self.current_player() == pyspiel.PlayerId.TERMINAL)

    def _legal_actions(self, player: int) -> list[int]:
        return list(range(len(ACTIONS)))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Uniform over the seats (the dealer) or over the cards still in the stock."""
        if self.dealer is None:
            n = self.spec.num_players()
            return [(s, 1.0 / n) for s in range(n)]
        left = self._undealt()
        return [(c.id, 1.0 / len(left)) for c in left]

    def _undealt(self) -> list[Card]:
        dealt = set(self.dealt)
        return [c for c in self.spec.deal_from if c not in dealt]

    def _apply_action(self, action: int) -> None:
        self._apply(action)
        self.path += (action,)

    def _apply(self, action: int) -> None:
        if self.dealer is None:
            self.dealer = action
        elif len(self.dealt) < self.spec.num_players():
            self.dealt.append(_card(action))
        elif self.drawing:
            self.drawing = False
            self.drawn = _card(action)
            self._cache.table = None  # rebuilt on the stacked pack with the drawn card
            self.moves.append(Action.SWAP)
        else:
            move = ACTIONS[action]
            if move is Action.SWAP and self.current_player() == self.dealer:
                self.drawing = True
                return
            table = self._cache.table  # else a copy rebuilds the engine's game when it needs it
            if table is not None:
                table.act(move)
            self.moves.append(move)

    def _engine(self) -> Game:
        """The engine's game on the stacked pack, replaying the decisions made so far."""
        drawn = self.drawn
        deck = self.dealt + ([drawn] if drawn is not None else [])
        table = Game(self.spec.rules, players=self.spec.num_players(), stack=deck,
                     dealer=self.dealer, rng=_CutAtTop(0))
        for move in self.moves:
            table.act(move)
        return table

    def _action_to_string(self, player: int, action: int) -> str:
        if player != pyspiel.PlayerId.CHANCE:
            return ACTIONS[action].value
        if self.dealer is None:
            return f"dealer p{action}"
        return f"{'draw' if self.drawing else 'deal'} {_card(action)}"

    def returns(self) -> list[float]:
        """Minus the chips each seat paid in the hand (zeros until it is over)."""
        if not self.is_terminal():
            return [0.0] * self.spec.num_players()
        paid: list[float] = self.spec.memo.get(("returns", self.path), self._returns_now)
        return list(paid)

    def _returns_now(self) -> list[float]:
        table = self.table
        assert table is not None
        return chip_rewards(table.events, self.spec.num_players(), hand=1)

    def observation_for(self, seat: int | None) -> Observation | None:
        """The engine's observation of ``seat`` (None: public), or None while dealing."""
        return None if self.table is None else self.table.observation(seat)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> ChaseTheAceState:
        """A state ``player_id`` cannot tell from this one, with every card it does not know redrawn.

        Cards the player knows stay where they were dealt; the others are drawn uniformly with
        ``probability_sampler`` (a callable giving floats in [0, 1)); a draw that the player's
        information state would tell apart (a different blocker shown, say) is drawn again.
        """
        uniform = _uniform(probability_sampler)
        target = self.information_state_string(player_id)
        fixed = self._known_slots(player_id)
        for _ in range(10_000):
            candidate = self._replay(self._redeal(fixed, uniform))
            if (candidate is not None and candidate.current_player() == self.current_player()
                    and candidate.information_state_string(player_id) == target):
                return candidate
        raise RuntimeError("no consistent deal found in 10000 tries")

    def _known_slots(self, seat: int) -> dict[int, Card]:
        """Which dealt card (slot k = k-th card dealt; slot n = the card drawn) the seat knows."""
        n = self.spec.num_players()
        obs = self.observation_for(seat)
        if obs is None:
            return {}  # while dealing, a seat knows only the dealer (see the observer)
        slot = {s: k for k, s in enumerate(self._order())}
        fixed: dict[int, Card] = {}
        before_draw = None
        for view in hand_events(obs, 1):
            match read_view(view):
                case DealtSeen(cards=cards) | Showdown(cards=cards):
                    for s, c in cards:
                        fixed[slot[s]] = c
                case KingJerk(seat=seat, card=card) | ShowBlocker(seat=seat, card=card):
                    fixed[slot[seat]] = card
                case Blocked(neighbour=neighbour, card=card):
                    fixed[slot[neighbour]] = card
                case SwapSeen(seat=a, neighbour=b, given=given, received=received):
                    if given is not None and received is not None:
                        fixed[slot[a]], fixed[slot[b]] = given, received
                    slot[a], slot[b] = slot[b], slot[a]
                case DealerExchangeSeen(seat=d, given=given, drawn=drawn):
                    if given is not None and drawn is not None:
                        fixed[slot[d]], fixed[n] = given, drawn
                    before_draw, slot[d] = slot[d], n
                case DealerDrewBlocker(seat=seat, card=card, rule=rule):
                    fixed[n] = card
                    if rule == "void" and before_draw is not None:
                        slot[seat] = before_draw
                case DealerSameRank(given=given, drawn=drawn):
                    fixed[n] = drawn
                    if before_draw is not None:
                        fixed[before_draw] = given
                case (ShuffleSeen() | Pick() | DealerDraw() | DealerChosen() | HandStarted() | Keep()
                      | LivesLost() | FinalTie() | CutDraw() | Eliminated() | CollectedSeen() | GameOver()):
                    pass  # fixes no card
                case other:
                    assert_never(other)
        return fixed

    def _order(self) -> list[int]:
        n, d = self.spec.num_players(), self.dealer
        assert d is not None
        return [(d + 1 + k) % n for k in range(n)]

    def _redeal(self, fixed: Mapping[int, Card], uniform: Callable[[], float]) -> list[Card]:
        slots = len(self.dealt) + (1 if self._dealer_swapped() else 0)
        pool = [c for c in self.spec.deal_from if c not in fixed.values()]
        out = []
        for k in range(slots):
            if k in fixed:
                out.append(fixed[k])
            else:
                out.append(pool.pop(min(len(pool) - 1, int(uniform() * len(pool)))))
        return out

    def _dealer_swapped(self) -> bool:
        """Whether the dealer has asked to swap with the stock (a public fact)."""
        obs = self.observation_for(None)
        return self.drawing or (obs is not None and any(
            isinstance(read_view(ev), DealerExchangeSeen) for ev in hand_events(obs, 1)))

    def _replay(self, cards: list[Card]) -> ChaseTheAceState | None:
        """This state's decisions on another deal (None if they do not fit it)."""
        state = self.spec.new_initial_state()
        n = self.spec.num_players()
        if self.spec.fixed_dealer is None and self.dealer is not None:
            state.apply_action(self.dealer)
        for card in cards[:n]:
            state.apply_action(card.id)
        moves = list(self.moves) + ([Action.SWAP] if self.drawing else [])
        for move in moves:
            if state.current_player() < 0:
                return None
            state.apply_action(ACTIONS.index(move))
            if state.drawing and len(cards) > n and not self.drawing:
                state.apply_action(cards[n].id)
        if self.drawing != state.drawing:
            return None
        return state

    def __str__(self) -> str:
        """Every card dealt (omniscient, for debugging) and the decisions so far."""
        order = self._order() if self.dealer is not None else []
        dealt = " ".join(f"p{s}:{c}" for s, c in zip(order, self.dealt))
        moves = " ".join(m.value for m in self.moves) + (" swap" if self.drawing else "")
        drawn = self.drawn
        parts = [f"dealer {'?' if self.dealer is None else f'p{self.dealer}'}", f"dealt {dealt}".strip(),
                 f"drawn {drawn}" if drawn is not None else "", moves]
        return " | ".join(p for p in parts if p)


class _Cache:
    """Holds a state's engine game; a deep copy starts empty (the copy rebuilds its own)."""

    def __init__(self) -> None:
        self.table: Game | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> _Cache:
        return _Cache()


def _card(action: int) -> Card:
    return _BY_ID[action]


_BY_ID = {c.id: c for c in pack(52)}


def _uniform(sampler: Any) -> Callable[[], float]:
    if callable(sampler):
        return lambda: float(sampler())
    rng = random.Random(0)
    return rng.random


class ChaseTheAceObserver:
    """OpenSpiel's Python observer: ``tensor``, ``dict``, ``set_from`` and ``string_from``.

    Private information is the observing seat's (``SINGLE_PLAYER``) or nobody's (``NONE``: the
    engine's spectator view); ``perfect_recall`` adds the hand's history.
    """

    def __init__(self, game: ChaseTheAceGame, iig_obs_type: Any,
                 params: Mapping[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {dict(params)}")
        private = iig_obs_type.private_info
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("an observer of every player's private cards is not offered")
        self.public = private == pyspiel.PrivateInfoType.NONE
        self.recall = bool(iig_obs_type.perfect_recall)
        self.encoder = enc = game.encoder
        self.tensor = np.zeros(enc.size, np.float32)
        a, b = enc.state_size, enc.state_size + enc.history_size
        self.dict = {"state": self.tensor[:a], "history": self.tensor[a:b], "outcome": self.tensor[b:]}

    def set_from(self, state: ChaseTheAceState, player: int) -> None:
        """Fill :attr:`tensor` with what ``player`` (or the public) knows in ``state``."""
        key = ("tensor", self.public, self.recall, player, state.path)
        self.tensor[:] = state.spec.memo.get(key, lambda: self._tensor(state, player))

    def _tensor(self, state: ChaseTheAceState, player: int) -> npt.NDArray[np.float32]:
        obs = state.observation_for(None if self.public else player)
        if obs is None:
            out = np.zeros(self.encoder.size, np.float32)
            if not self.public:
                out[player] = 1.0
            return out
        return self.encoder.tensor(obs, hand=1, history=self.recall)

    def string_from(self, state: ChaseTheAceState, player: int) -> str:
        """What ``player`` (or the public) knows in ``state``, as one line."""
        key = ("string", self.public, self.recall, player, state.path)
        text: str = state.spec.memo.get(key, lambda: self._string(state, player))
        return text

    def _string(self, state: ChaseTheAceState, player: int) -> str:
        seat = None if self.public else player
        obs = state.observation_for(seat)
        if obs is None:
            who = "-" if seat is None else seat
            return f"seat {who} | dealing | dealer {'?' if state.dealer is None else state.dealer}"
        return self.encoder.text(obs, hand=1, history=self.recall)


class BotPolicy(policy_lib.Policy):  # type: ignore[misc]
    """An engine bot (a :func:`chasetheace.make_bot` spec or a :class:`~chasetheace.Bot`) as an
    OpenSpiel policy, for every seat; it sees only its seat's observation.

    ``seed`` seeds the generator handed to the bot (a RandomBot's choice becomes a coin flip's
    probabilities only in expectation; deterministic bots give one action probability 1).
    """

    def __init__(self, game: ChaseTheAceGame, bot: str | Bot, seed: int = 0) -> None:
        super().__init__(game, list(range(game.num_players())))
        self.bot = make_bot(bot, game.rules, game.num_players()) if isinstance(bot, str) else bot
        self.rng = random.Random(seed)

    def action_probabilities(self, state: ChaseTheAceState,
                             player_id: int | None = None) -> dict[int, float]:
        """Probability 1 on the bot's choice for the seat to act."""
        seat = state.current_player() if player_id is None else player_id
        obs = state.observation_for(seat)
        assert obs is not None
        choice = self.bot.choose(obs, list(ACTIONS), self.rng)
        return {a: float(ACTIONS[a] is Action(choice)) for a in range(len(ACTIONS))}


pyspiel.register_game(GAME_TYPE, ChaseTheAceGame)
