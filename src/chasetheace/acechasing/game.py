"""Ace Chasing, the matador game of RULES.md part B, as a state machine beside part A's :class:`Game`.

Each round one player is the **matador**; the others bet against it, then exchange cards
clockwise, and the resolution (five steps, suits included) knocks out either some of them or the
matador. Rounds go on until one player is left.

>>> import chasetheace as cta
>>> game = cta.AceChasingGame(["Ann", "Bob", "Cat", "Dan"], seed=3)
>>> game.to_act, game.legal_actions()
(1, [<AceAction.OFFER: 'offer'>])
>>> _ = game.act(cta.Offer(5))              # Bob offers 5 that the matador is knocked out
>>> _ = game.act("accept")                  # Ann, the matador, agrees: the bet stands
>>> _ = game.act(cta.Offer(0))              # Cat does not bet
>>> _ = game.act(cta.Offer(0))              # nor does Dan; the betting closes
>>> game.legal_actions()
[<AceAction.KEEP: 'keep'>, <AceAction.SWAP: 'swap'>]
>>> plan = {"offer": cta.Offer(0), "keep": "keep", "accept": "decline"}
>>> while not game.over:
...     _ = game.act(plan[game.legal_actions()[0]])
>>> len(game.players_in), sum(game.money)
(1, 0)

**Actions.** ``"keep"`` / ``"swap"`` in the exchanges; :class:`Offer` for a bettor (``Offer(0)``:
no bet, or withdraw after a decline); ``"accept"`` / ``"decline"`` for the matador.
:meth:`AceChasingGame.legal_actions` cannot list every amount, so for a bettor it returns
``[AceAction.OFFER]``: any ``Offer(n)`` with a whole number ``n >= 0`` is then legal.
:meth:`~AceChasingGame.verify_act` raises :class:`IllegalActionError` naming what is wrong and
:meth:`~AceChasingGame.can_act` answers yes or no, for any action including a given amount.

**Decided here** (part B is silent on these):

- Cards between rounds: every round is dealt from the whole pack, freshly shuffled (one hidden
  ``shuffle`` event per round). A stacked pack (``stack``) applies to the first round only.
- Betting: each bettor negotiates in turn until its bet stands or it withdraws: it offers, the
  matador accepts or declines, and after a decline the same bettor offers again or withdraws
  (``Offer(0)``). At most three offers per bettor per round (RULES.md); a third declined offer
  ends that bettor's turn with no bet. An amount may be offered again after a decline.
- Money: one ledger per seat (``money``), starting at 0, settled at the end of every round, so it
  always sums to 0. Each standing bet is paid in full: there is no bankroll limit.
- Fewer than four players: a game starts with 4 to 52 players (part B); later rounds are played by
  the survivors however few, down to the last two.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, cast

from ..cards import Card, pack, stacked_pack
from ..errors import IllegalActionError, RecordError
from ..events import Dealt, Eliminated, Event, GameOver, Keep, Shuffle, Swap
from ..record import Chance, EventLog, LiveChance, Record, RecordFormat, Replay, ScriptedChance, add_format
from ..seats import table_names
from .events import (
    ACE_CHASING_EVENTS,
    AceChasingEvent,
    BetAccepted,
    BetDeclined,
    BettingClosed,
    Offered,
    RoundStarted,
    Settled,
    Shown,
)

__all__ = ["AceAction", "AceChasingGame", "Offer", "MAX_OFFERS", "FORMAT", "VERSION", "RECORDS"]

MAX_OFFERS = 3
MIN_PLAYERS, MAX_PLAYERS = 4, 52
FORMAT = "chase-the-ace/ace-chasing"
VERSION = 1
RECORDS = add_format(RecordFormat(FORMAT, VERSION, "an Ace Chasing record", ACE_CHASING_EVENTS,
                                  house_rules=False, dealer_key="matador", default_dealer=0))
"""How Ace Chasing writes its records: no rules (one set of rules), the first matador's seat."""
PUBLIC = -1  # a knowledge mask with every seat's bit set
BETTING, EXCHANGES, OVER = "betting", "exchanges", "over"


class AceAction(StrEnum):
    """The kinds of decision in Ace Chasing (``OFFER`` stands for any :class:`Offer`)."""

    KEEP = "keep"
    SWAP = "swap"
    OFFER = "offer"
    ACCEPT = "accept"
    DECLINE = "decline"


@dataclass(frozen=True, slots=True)
class Offer:
    """A bettor's offer to bet ``amount`` that the matador is knocked out; ``Offer(0)``: no bet.

    Any value can be built; :meth:`AceChasingGame.verify_act` says whether it is legal.
    """

    amount: int

    def __str__(self) -> str:
        return f"offer {self.amount}"


Move = AceAction | Offer


class AceChasingGame:
    """One game of Ace Chasing: rounds until one player is left.

    ``players`` is a count or a list of names (4 to 52). ``seed`` or ``rng`` is the only source of
    chance. ``stack`` stacks the pack for the first round (top first; missing cards follow in pack
    order); ``matador`` is the first matador's seat. Everything automatic (shuffles, the deal,
    closing the betting, the resolution, settling, the next round) happens inside the constructor
    and :meth:`act`, so ``to_act`` is always a real decision.
    """

    def __init__(
        self,
        players: int | Sequence[str] = 4,
        *,
        seed: int | None = None,
        rng: random.Random | None = None,
        stack: Sequence[str | Card] | None = None,
        matador: int = 0,
        _script: Sequence[Event] | None = None,
    ) -> None:
        self.names = _names(players)
        self.players = n = len(self.names)
        if seed is not None and rng is not None:
            raise ValueError("give seed or rng, not both")
        if isinstance(matador, bool) or not isinstance(matador, int) or not 0 <= matador < n:
            raise ValueError(f"bad matador {matador!r}: allowed 0..{n - 1}")
        self.stacked = None if stack is None else stacked_pack(stack, pack(52))
        self.first_matador = matador
        self._rng = rng if rng is not None else random.Random(seed)
        self._log = EventLog(_script)
        self.events: list[AceChasingEvent] = cast("list[AceChasingEvent]", self._log.events)  # by _emit only
        """Everything that happened, in order: the game's history (hidden cards included)."""
        self._chance: Chance = LiveChance(self._rng) if _script is None else ScriptedChance(
            self._log, _script)
        self.money = [0] * n
        self.alive = [True] * n
        self.round = 0
        self.matador = matador
        self.winners: tuple[int, ...] = ()
        self.over = False
        self.to_act: int | None = None
        self.phase = BETTING
        self._stock: list[Card] = []
        self._hands: list[Card | None] = [None] * n
        self._seen = [0] * 52
        self._order: list[int] = []
        self._index = 0                    # the bettor's, then the exchanger's, place in _order
        self._offers: dict[int, int] = {}  # offers made this round, by seat
        self._pending: int | None = None   # the amount the matador must answer
        self._bets: list[tuple[int, int]] = []
        self._start_round()

    # --- the public API -------------------------------------------------------------------

    @property
    def winner(self) -> int | None:
        """The seat that won, or None while the game goes on."""
        return self.winners[0] if self.winners else None

    @property
    def players_in(self) -> list[int]:
        """The seats still in the game."""
        return [s for s in range(self.players) if self.alive[s]]

    @property
    def order(self) -> list[int]:
        """This round's deal and turn order: the matador's left first, the matador last."""
        return list(self._order)

    @property
    def bets(self) -> list[tuple[int, int]]:
        """The standing bets of this round so far, ``(seat, amount)``."""
        return list(self._bets)

    @property
    def offer(self) -> tuple[int, int] | None:
        """The offer the matador must answer now, ``(seat, amount)``, or None."""
        if self._pending is None:
            return None
        return self._order[self._index], self._pending

    @property
    def stock(self) -> list[Card]:
        """The undealt cards, top first (omniscient: for referees and tests, never for players)."""
        return list(self._stock)

    def card(self, seat: int) -> Card | None:
        """The card ``seat`` holds now (omniscient: for referees and tests, never for players)."""
        return self._hands[seat]

    def legal_actions(self) -> list[AceAction]:
        """The kinds of action open to the seat to act ([] once the game is over).

        ``[AceAction.OFFER]`` means any ``Offer(n)``, ``n`` a whole number >= 0.
        """
        if self.to_act is None:
            return []
        if self.phase == EXCHANGES:
            return [AceAction.KEEP, AceAction.SWAP]
        if self._pending is not None:
            return [AceAction.ACCEPT, AceAction.DECLINE]
        return [AceAction.OFFER]

    def verify_act(self, action: Offer | AceAction | str, seat: int | None = None) -> Move:
        """Raise IllegalActionError naming what is wrong if ``action`` (by ``seat``) is not legal now.

        Returns the action in its normal form (an :class:`AceAction` or an :class:`Offer`).
        """
        to_act = self.to_act
        if to_act is None:
            raise IllegalActionError("the game is over: no action is legal")
        if seat is not None and seat != to_act:
            raise IllegalActionError(f"seat {seat!r} acted out of turn{self._why_not(seat)}: "
                                     f"it is seat {to_act}'s turn to {self._task()}")
        if isinstance(action, Offer):
            if self.phase != BETTING:
                raise IllegalActionError(
                    f"the betting is closed: seat {to_act} must keep or swap, not offer")
            if self._pending is not None:
                raise IllegalActionError(f"seat {to_act} (the matador) must {self._task()}, not offer")
            amount = action.amount
            if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
                raise IllegalActionError(
                    f"bad offer {amount!r}: an offer is a whole number >= 0 (Offer(0): no bet)")
            return action
        try:
            move = AceAction(action.strip().lower() if isinstance(action, str) else action)
        except ValueError:
            raise IllegalActionError(f"unknown action {action!r}: allowed keep, swap, "
                                     "Offer(amount), accept, decline") from None
        if move is AceAction.OFFER:
            raise IllegalActionError("say how much: offer with Offer(amount)")
        if move not in self.legal_actions():
            raise IllegalActionError(f"seat {to_act} cannot {move.value} now: it must {self._task()}")
        return move

    def can_act(self, action: Offer | AceAction | str, seat: int | None = None) -> bool:
        """Whether :meth:`act` would accept this action."""
        try:
            self.verify_act(action, seat)
        except IllegalActionError:
            return False
        return True

    def act(self, action: Offer | AceAction | str, seat: int | None = None) -> list[AceChasingEvent]:
        """The seat to act makes its decision; returns the events that followed, up to the next one.

        Raises IllegalActionError (a ValueError) and changes nothing if the action is not legal.
        """
        move = self.verify_act(action, seat)
        start = len(self.events)
        s = self.to_act
        assert s is not None
        if isinstance(move, Offer):
            self._offer(s, move.amount)
        elif move in (AceAction.ACCEPT, AceAction.DECLINE):
            self._answer(move is AceAction.ACCEPT)
        else:
            self._exchange(s, move)
        return self.events[start:]

    def observation(self, seat: int | None) -> dict[str, Any]:
        """Exactly what ``seat`` may know, as a JSON-serialisable dict.

        That is its own card, the cards it gave or received in an exchange, every shown card and
        the public record (bets, exchanges, money, who is in). ``seat=None``: a spectator's view.
        """
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)
                                 or not 0 <= seat < self.players):
            raise ValueError(f"bad seat {seat!r}: allowed 0..{self.players - 1} or None")
        seen = self._seen
        cards: list[str | None] = []
        for c in self._hands:
            mask = 0 if c is None else seen[c.id]
            known = c is not None and (mask == PUBLIC or (seat is not None and mask >> seat & 1))
            cards.append(str(c) if known else None)
        mine = None if seat is None else self._hands[seat]
        offer = self.offer
        return {
            "game": "ace-chasing",
            "seat": seat,
            "players": self.players,
            "names": list(self.names),
            "round": self.round,
            "matador": self.matador,
            "order": list(self._order),
            "phase": self.phase,
            "to_act": self.to_act,
            "legal": [a.value for a in self.legal_actions()] if seat == self.to_act else [],
            "in": list(self.alive),
            "money": list(self.money),
            "card": None if mine is None else str(mine),
            "cards": cards,
            "offer": None if offer is None else {"seat": offer[0], "amount": offer[1]},
            "offers_made": [self._offers.get(s, 0) for s in range(self.players)],
            "max_offers": MAX_OFFERS,
            "bets": [[s, a] for s, a in self._bets],
            "stock_size": len(self._stock),
            "over": self.over,
            "winners": list(self.winners),
            "history": self._log.view(seat),
        }

    def record(self) -> dict[str, Any]:
        """The game record: versioned, JSON-serialisable (:meth:`to_record`'s JSON form);
        :meth:`from_record` replays it."""
        return self.to_record().to_json()

    def to_record(self) -> Record:
        """The game record as a typed :class:`~chasetheace.record.Record` (its ``dealer`` is the
        first matador)."""
        return Record(format=FORMAT, version=VERSION, players=self.names,
                      deck=None if self.stacked is None else tuple(self.stacked),
                      dealer=self.first_matador, events=tuple(self.events))

    @classmethod
    def from_record(cls, data: Record | Any, *, seed: int | None = None,
                    visit: Callable[[AceChasingGame, Move], None] | None = None) -> AceChasingGame:
        """Replay and validate a record (a :class:`~chasetheace.record.Record` or its JSON
        form); RecordError names the first bad event.

        The returned game can be played on; chance after the record's end comes from ``seed``.
        ``visit(game, move)`` is called at each recorded decision, before it is played.
        """
        return cls.replaying(data, seed=seed).run(visit)

    @classmethod
    def replaying(cls, data: Record | Any, *, seed: int | None = None) -> Replay[AceChasingGame]:
        """The record's game, to be played through once: iterating yields ``(game, move)`` at
        each recorded decision (:class:`~chasetheace.record.Replay`). RecordError names what is
        wrong, with the set-up now and with an event as the replay meets it."""
        record = RECORDS.read(data)
        script = record.events
        try:
            game = cls(record.players, stack=record.deck,
                       matador=0 if record.dealer is None else record.dealer, _script=script)
        except RecordError:
            raise
        except (ValueError, TypeError) as exc:
            raise RecordError(f"bad set-up: {exc}") from None

        def finish(game: AceChasingGame) -> None:
            game._log.end_script()
            game._chance = LiveChance(random.Random(seed))

        return Replay(game, script, AceChasingGame._decision, AceChasingGame._task, finish)

    def __repr__(self) -> str:
        state = "over" if self.over else f"round {self.round}, seat {self.to_act} to act"
        return f"<AceChasingGame {self.players} players, {state}, matador {self.matador}>"

    # --- history --------------------------------------------------------------------------

    def _emit(self, event: AceChasingEvent) -> None:
        self._log.append(event)

    def _shuffled_pack(self) -> list[Card]:
        cards = self._chance.shuffle(pack(52))
        self._emit(Shuffle(tuple(cards)))
        return cards

    def _decision(self, ev: Event) -> Move | None:
        """The decision a recorded event shows the seat to act made, or None if it is not one."""
        s = self.to_act
        if isinstance(ev, Offered) and ev.seat == s:
            return Offer(ev.amount)
        if isinstance(ev, BetAccepted | BetDeclined) and s == self.matador and self._pending is not None:
            return AceAction.ACCEPT if isinstance(ev, BetAccepted) else AceAction.DECLINE
        if isinstance(ev, Keep) and ev.seat == s:
            return AceAction.KEEP
        if isinstance(ev, Swap) and ev.seat == s:
            return AceAction.SWAP
        return None

    def _task(self) -> str:
        if self.phase == EXCHANGES:
            return "keep or swap"
        if self._pending is not None:
            return f"accept or decline seat {self._order[self._index]}'s offer of {self._pending}"
        return "offer a bet (Offer(amount), Offer(0): no bet)"

    def _why_not(self, seat: Any) -> str:
        if self.phase == BETTING and self._offers.get(seat, 0) >= MAX_OFFERS:
            return f" (it has made its {MAX_OFFERS} offers this round)"
        if self.phase == EXCHANGES and seat == self.matador:
            return " (the matador takes no turn in the exchanges)"
        return ""

    # --- a round, step by step (RULES.md B) -----------------------------------------------

    def _start_round(self) -> None:
        self.round += 1
        if self.round == 1 and self.stacked is not None:
            self._stock = list(self.stacked)
        else:
            self._stock = self._shuffled_pack()
        self._seen = [0] * 52
        m, order = self.matador, []
        s = m
        while True:
            s = self._left(s)
            order.append(s)
            if s == m:
                break
        self._order = order
        self._emit(RoundStarted(self.round, m, tuple(order)))
        dealt = self._stock[:len(order)]
        del self._stock[:len(order)]
        for seat, card in zip(order, dealt):
            self._hands[seat] = card
            self._seen[card.id] = 1 << seat
        self._emit(Dealt(tuple(zip(order, dealt))))
        self.phase = BETTING
        self._index = 0
        self._offers = {}
        self._pending = None
        self._bets = []
        self.to_act = order[0]

    def _left(self, seat: int) -> int:
        s = (seat + 1) % self.players
        while not self.alive[s]:
            s = (s + 1) % self.players
        return s

    def _right(self, seat: int) -> int:
        s = (seat - 1) % self.players
        while not self.alive[s]:
            s = (s - 1) % self.players
        return s

    def _offer(self, seat: int, amount: int) -> None:
        made = self._offers[seat] = self._offers.get(seat, 0) + 1
        self._emit(Offered(seat, amount, made))
        if amount == 0:
            self._next_bettor()
        else:
            self._pending = amount
            self.to_act = self.matador

    def _answer(self, accepted: bool) -> None:
        seat, amount = self._order[self._index], self._pending
        assert amount is not None
        self._pending = None
        if accepted:
            self._emit(BetAccepted(seat, amount))
            self._bets.append((seat, amount))
            self._next_bettor()
            return
        self._emit(BetDeclined(seat, amount))
        if self._offers[seat] >= MAX_OFFERS:
            self._next_bettor()
        else:
            self.to_act = seat

    def _next_bettor(self) -> None:
        self._index += 1
        if self._index < len(self._order) - 1:
            self.to_act = self._order[self._index]
            return
        self._emit(BettingClosed(tuple(self._bets)))
        self.phase = EXCHANGES
        self._index = 0
        self.to_act = self._order[0]

    def _exchange(self, seat: int, move: Move) -> None:
        order, i = self._order, self._index
        if move is AceAction.KEEP:
            self._emit(Keep(seat))
        else:
            nb = order[i + 1]  # the left neighbour; the matador for the last player
            hands, seen = self._hands, self._seen
            mine, theirs = hands[seat], hands[nb]
            assert mine is not None and theirs is not None
            hands[seat], hands[nb] = theirs, mine
            seen[mine.id] |= 1 << nb
            seen[theirs.id] |= 1 << seat
            self._emit(Swap(seat, nb, mine, theirs))
        self._index = i + 1
        if self._index < len(order) - 1:
            self.to_act = order[self._index]
        else:
            self.to_act = None
            self._resolve()

    def _show(self, step: int, seats: list[int]) -> None:
        cards = tuple((s, self._hands[s]) for s in seats)
        for _, c in cards:
            assert c is not None
            self._seen[c.id] = PUBLIC
        self._emit(Shown(step, cards))  # type: ignore[arg-type]

    def _resolve(self) -> None:
        hands, order, m = self._hands, self._order, self.matador
        top = hands[m]
        assert top is not None
        self._show(1, [m])
        shown = {m}
        lower = [s for s in order[:-1] if hands[s].rank < top.rank]  # type: ignore[union-attr]
        if lower:
            self._show(2, lower)
            shown.update(lower)
        ace_suits = {c.suit for c in (hands[s] for s in shown) if c is not None and c.rank == 1}
        same_suit = [s for s in order if s not in shown and hands[s].suit in ace_suits]  # type: ignore[union-attr]
        if same_suit:
            self._show(3, same_suit)
            shown.update(same_suit)
        out = [s for s in order[:-1] if s in shown]
        survived = bool(out)
        sign = 1 if survived else -1
        payments = [(s, -sign * a) for s, a in self._bets]
        if payments:
            payments.append((m, sign * sum(a for _, a in self._bets)))
        for s, change in payments:
            self.money[s] += change
        self._emit(Settled(m, survived, tuple(payments)))
        if not survived:
            out = [m]
        for s in out:
            self.alive[s] = False
        self._emit(Eliminated(tuple(out)))
        self._collect()
        living = self.players_in
        if len(living) == 1:
            self.winners = (living[0],)
            self.over = True
            self.phase = OVER
            self._order = []
            self._emit(GameOver(self.winners, ()))
            return
        self.matador = self._right(m)
        self._start_round()

    def _collect(self) -> None:
        for s in self._order:
            card = self._hands[s]
            if card is not None:
                self._stock.append(card)
            self._hands[s] = None
        self._bets = []
        self._offers = {}


def _names(players: int | Sequence[str]) -> tuple[str, ...]:
    names = table_names(players)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise ValueError(f"bad number of players {len(names)}: Ace Chasing takes "
                         f"{MIN_PLAYERS}..{MAX_PLAYERS}")
    return names
