"""The Chase the Ace state machine (RULES.md part A).

>>> import chasetheace as cta
>>> game = cta.Game(cta.Rules.preset("standard"), players=3, seed=1)
>>> game.to_act is not None and game.legal_actions() == [cta.Action.KEEP, cta.Action.SWAP]
True
>>> while not game.over:
...     _ = game.act("keep")
>>> game.winner in (0, 1, 2), sum(game.lives) + game.kitty
(True, 9)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any, cast

from .cards import Card, pack, stacked_pack
from .errors import IllegalActionError, RecordError
from .events import (
    Blocked,
    Collected,
    CutDraw,
    DealerChosen,
    DealerDraw,
    DealerDrewBlocker,
    DealerExchange,
    DealerSameRank,
    Dealt,
    Eliminated,
    Event,
    FinalTie,
    GameEvent,
    GameOver,
    HandStarted,
    Keep,
    KingJerk,
    LivesLost,
    Pick,
    ShowBlocker,
    Showdown,
    Shuffle,
    Swap,
)
from .observation import Observation
from .record import (
    CHASE_THE_ACE,
    Chance,
    EventLog,
    LiveChance,
    Record,
    Replay,
    ScriptedChance,
)
from .rules import Rules
from .seats import table_names

__all__ = ["Action", "Game", "seat_names"]
PUBLIC = -1  # a knowledge mask with every seat's bit set


class Action(StrEnum):
    """A player's decision on its turn: keep ("stand") or swap ("change")."""

    KEEP = "keep"
    SWAP = "swap"


_LEGAL = (Action.KEEP, Action.SWAP)  # what legal_actions() gives while a seat is to act
_ACTIONS = tuple(a.value for a in _LEGAL)  # and an observation's "legal" then


class Game:
    """One game of Chase the Ace: hands until one player is left (or the final tie decides).

    Everything automatic (dealing, shown blockers, showdowns, chips, elimination, the next hand)
    happens inside the constructor and :meth:`act`, so ``to_act`` is always a real decision.

    ``players`` is a count or a list of names. ``seed`` or ``rng`` is the only source of chance.
    ``stack`` stacks the pack for the first hand (top first; missing cards follow in pack order);
    ``dealer`` names the first dealer; ``carry`` is money already in the pot (a session's
    carry-over). Each player antes ``rules.ante`` into the pot at the start.
    """

    def __init__(
        self,
        rules: Rules | None = None,
        players: int | Sequence[str] = 5,
        *,
        seed: int | None = None,
        rng: random.Random | None = None,
        stack: Sequence[str | Card] | None = None,
        dealer: int | None = None,
        carry: int = 0,
        _script: Sequence[Event] | None = None,
    ) -> None:
        self.rules = rules = Rules() if rules is None else rules
        if not isinstance(rules, Rules):
            raise ValueError(f"rules must be a Rules, not {type(rules).__name__}")
        self.names = seat_names(players, rules)
        self.players = n = len(self.names)
        if seed is not None and rng is not None:
            raise ValueError("give seed or rng, not both")
        self._rng = rng if rng is not None else random.Random(seed)
        self._log = EventLog(_script)
        # every event goes to the log as it happens, and only this game's events
        self._emit: Callable[[GameEvent], None] = self._log.append
        self.events: list[GameEvent] = cast("list[GameEvent]", self._log.events)  # written by _emit only
        """Everything that happened, in order: the game's history (hidden cards included)."""
        self._chance: Chance = LiveChance(self._rng) if _script is None else ScriptedChance(
            self._log, _script)
        self._pack = pack(rules.deck)
        self.stacked = None if stack is None else stacked_pack(stack, self._pack)
        if dealer is not None and not (isinstance(dealer, int) and 0 <= dealer < n):
            raise ValueError(f"bad dealer {dealer!r}: allowed 0..{n - 1}")
        if not isinstance(carry, int) or isinstance(carry, bool) or carry < 0:
            raise ValueError(f"bad carry {carry!r}: the pot carried over is an integer >= 0")
        self.carry = carry
        self._blocker = rules.blocker_rank or 0
        self._strength = [rules.strength(c) for c in range(1, 14)]  # by rank - 1

        self._rules_dict = rules.to_dict()
        self.lives = [rules.lives] * n
        self.alive = [True] * n
        self.kitty = 0
        self.pot = carry + rules.ante * n
        self.money = [-rules.ante] * n
        self.hand = 0
        self.winners: tuple[int, ...] = ()
        self.over = False
        self.to_act: int | None = None
        self.stock: list[Card] = list(self.stacked) if self.stacked else list(self._pack)
        self._held: list[Card | None] = [None] * n
        self._set_aside: Card | None = None
        self._seen = [0] * 52
        self._order: list[int] = []
        self._turn = 0
        self._done = [False] * n
        self._immune: int | None = None
        self.first_dealer = dealer
        self.dealer = dealer if dealer is not None else self._choose_dealer()
        self._start_hand()
        self._advance()

    # --- the public API -------------------------------------------------------------------

    @property
    def winner(self) -> int | None:
        """The seat that won, or None (game in progress, split pot, or no winner)."""
        return self.winners[0] if len(self.winners) == 1 else None

    @property
    def players_in(self) -> list[int]:
        """The seats still in the game."""
        return [s for s in range(self.players) if self.alive[s]]

    @property
    def eldest(self) -> int | None:
        """The seat that acts first this hand."""
        return self._order[0] if self._order else None

    @property
    def done(self) -> list[int]:
        """The seats whose turn this hand is done."""
        return [s for s in self._order if self._done[s]]

    def legal_actions(self) -> list[Action]:
        """The actions open to the seat to act ([] once the game is over)."""
        return [] if self.to_act is None else list(_LEGAL)

    def verify_act(self, action: Action | str, seat: int | None = None) -> Action:
        """Raise IllegalActionError if ``action`` (by ``seat``, if given) is not legal now."""
        if self.to_act is None:
            raise IllegalActionError("the game is over: no action is legal")
        if seat is not None and seat != self.to_act:
            raise IllegalActionError(
                f"seat {seat!r} acted out of turn: it is seat {self.to_act}'s turn")
        if type(action) is Action:
            return action
        try:
            return Action(action)
        except ValueError:
            raise IllegalActionError(
                f"unknown action {action!r}: allowed keep, swap") from None

    def can_act(self, action: Action | str, seat: int | None = None) -> bool:
        """Whether :meth:`act` would accept this action."""
        try:
            self.verify_act(action, seat)
        except IllegalActionError:
            return False
        return True

    def act(self, action: Action | str, seat: int | None = None) -> list[GameEvent]:
        """The seat to act keeps or swaps; returns the events that followed, up to the next decision.

        Raises IllegalActionError (a ValueError) and changes nothing if the action is not legal.
        """
        act = self.verify_act(action, seat)
        start = len(self.events)
        s = self.to_act
        assert s is not None
        self.to_act = None
        if s == self.dealer:
            self._dealer_turn(act)
        else:
            self._player_turn(s, act)
        self._advance()
        return self.events[start:]

    def card(self, seat: int) -> Card | None:
        """The card ``seat`` holds now (omniscient: for referees and tests, never for players)."""
        return self._held[seat]

    @property
    def set_aside(self) -> Card | None:
        """The dealer's given-up card this hand (omniscient: never for players)."""
        return self._set_aside

    def observation(self, seat: int | None) -> Observation:
        """Exactly what ``seat`` may know (RULES.md A4), as a JSON-serialisable dict.

        ``seat=None`` gives a spectator's view: only what every player sees. Its ``rules`` and
        ``history`` are shared with the game and later observations: read them, never change them.
        """
        if not (type(seat) is int and 0 <= seat < self.players) and seat is not None and not (
                isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < self.players):
            raise ValueError(f"bad seat {seat!r}: allowed 0..{self.players - 1} or None")
        seen, held, order, to_act, set_aside = (
            self._seen, self._held, self._order, self.to_act, self._set_aside)
        # a seat knows a card when its bit is set in the card's mask (all bits set: shown to all)
        knows = PUBLIC if seat is None else 1 << seat
        cards = [None if c is None or seen[c.id] & knows != knows else c.text for c in held]
        mine = None if seat is None else held[seat]
        done = self._done
        return {
            "seat": seat,
            "players": self.players,
            "names": list(self.names),
            "rules": self._rules_dict,
            "hand": self.hand,
            "dealer": self.dealer,
            "eldest": order[0] if order else None,
            "order": list(order),
            "to_act": to_act,
            "legal": list(_ACTIONS) if seat == to_act is not None else [],
            "lives": list(self.lives),
            "in": list(self.alive),
            "kitty": self.kitty,
            "pot": self.pot,
            "card": None if mine is None else mine.text,
            "cards": cards,
            "set_aside": set_aside.text if set_aside is not None and seat is not None
            and (seen[set_aside.id] >> seat & 1) else None,
            "done": [s for s in order if done[s]],
            "stock_size": len(self.stock),
            "over": self.over,
            "winners": list(self.winners),
            "history": self._log.view(seat),
        }

    def record(self) -> dict[str, Any]:
        """The game record: its set-up and every event, hidden cards included; versioned and
        JSON-serialisable (:meth:`to_record`'s JSON form). :meth:`from_record` replays it."""
        return self.to_record().to_json()

    def to_record(self) -> Record:
        """The game record as a typed :class:`~chasetheace.record.Record`."""
        return Record(format=CHASE_THE_ACE.name, version=CHASE_THE_ACE.version, rules=self.rules,
                      players=self.names, deck=None if self.stacked is None else tuple(self.stacked),
                      dealer=self.first_dealer, carry=self.carry, events=tuple(self.events))

    @classmethod
    def from_record(cls, data: Record | Any, *, seed: int | None = None,
                    visit: Callable[[Game, str], None] | None = None) -> Game:
        """Replay and validate a record (a :class:`~chasetheace.record.Record` or its JSON
        form); RecordError names the first bad event.

        The returned game can be played on; chance after the record's end comes from ``seed``.
        ``visit(game, action)`` is called at each recorded decision, before it is played.
        """
        return cls.replaying(data, seed=seed).run(visit)

    @classmethod
    def replaying(cls, data: Record | Any, *, seed: int | None = None) -> Replay[Game]:
        """The record's game, to be played through once: iterating yields ``(game, action)`` at
        each recorded decision (:class:`~chasetheace.record.Replay`). RecordError names what is
        wrong, with the set-up now and with an event as the replay meets it."""
        record = CHASE_THE_ACE.read(data)
        script = record.events
        try:
            game = cls(record.rules, record.players, stack=record.deck, dealer=record.dealer,
                       carry=record.carry, _script=script)
        except RecordError:
            raise
        except (ValueError, TypeError) as exc:
            raise RecordError(f"bad set-up: {exc}") from None

        def finish(game: Game) -> None:
            game._log.end_script()
            game._rng.seed(seed)
            game._chance = LiveChance(game._rng)

        return Replay(game, script, Game._decision, lambda g: "decide", finish)

    def __repr__(self) -> str:
        state = "over" if self.over else f"hand {self.hand}, seat {self.to_act} to act"
        return f"<Game {self.players} players, {state}, lives {self.lives}>"

    # --- chance and history ---------------------------------------------------------------

    def _shuffle(self, cards: list[Card]) -> list[Card]:
        order = self._chance.shuffle(cards)
        self._emit(Shuffle(tuple(order)))
        return order

    def _pick(self, bound: int) -> int:
        value = self._chance.pick(bound)
        self._emit(Pick(bound, value))
        return value

    def _decision(self, ev: Event) -> str | None:
        """The decision a recorded event shows the seat to act made, or None if it is not one."""
        seat, dealer = self.to_act, self.dealer
        if isinstance(ev, Keep) and ev.seat == seat:
            return "keep"
        if isinstance(ev, (Swap, Blocked)) and ev.seat == seat and seat != dealer:
            return "swap"
        if isinstance(ev, DealerExchange) and ev.seat == seat == dealer:
            return "swap"
        if isinstance(ev, Pick) and seat == dealer:
            return "swap"  # the cut comes before the dealer's exchange
        return None

    # --- the steps of RULES.md A3 ---------------------------------------------------------

    def _strong(self, card: Card) -> int:
        return self._strength[card.rank - 1]

    def _left(self, seat: int) -> int:
        n, alive = self.players, self.alive
        s = (seat + 1) % n
        while not alive[s]:
            s = (s + 1) % n
        return s

    def _choose_dealer(self) -> int:
        method, n = self.rules.first_dealer, self.players
        if method == "random":
            dealer = self._pick(n)
        elif method == "high-card":
            contenders = list(range(n))
            while True:
                order = self._shuffle(self._pack)
                draws = tuple(zip(contenders, order))
                self._emit(DealerDraw(draws))
                best = max(self._strong(c) for _, c in draws)
                contenders = [s for s, c in draws if self._strong(c) == best]
                if len(contenders) == 1:
                    break
            dealer = contenders[0]
        else:  # first-jack
            order = self._shuffle(self._pack)
            k = next(i for i, c in enumerate(order) if c.rank == 11)
            self._emit(DealerDraw(tuple((i % n, order[i]) for i in range(k + 1))))
            dealer = k % n
        self._emit(DealerChosen(dealer, method))
        return dealer

    def _start_hand(self) -> None:
        self.hand += 1
        rules = self.rules
        if (self.hand == 1 and not self.stacked) or (self.hand > 1 and rules.between_hands == "shuffle"):
            self.stock = self._shuffle(self.stock)
        order = []
        s = self.dealer
        for _ in range(self.players):
            s = self._left(s)
            order.append(s)
            if s == self.dealer:
                break
        self._order = order
        self._emit(HandStarted(self.hand, self.dealer, tuple(order)))
        stock, hands, seen = self.stock, self._held, self._seen
        dealt = stock[:len(order)]
        del stock[:len(order)]
        for seat, card in zip(order, dealt):
            hands[seat] = card
            seen[card.id] = 1 << seat
        self._emit(Dealt(tuple(zip(order, dealt))))
        self._done = [False] * self.players
        self._set_aside = None
        self._immune = None
        self._turn = 0
        if rules.kings_jerk:
            top = rules.top_rank
            for seat, card in zip(order, dealt):
                if card.rank == top:
                    took = self.kitty > 0
                    if took:
                        self.kitty -= 1
                        self.lives[seat] += 1
                    seen[card.id] = PUBLIC
                    self._emit(KingJerk(seat, card, took))

    def _advance(self) -> None:
        """Run everything automatic until a decision is pending or the game is over."""
        while not self.over:
            order, done = self._order, self._done
            while self._turn < len(order) and done[order[self._turn]]:
                self._turn += 1
            if self._turn >= len(order):
                self._showdown()
                continue
            seat = order[self._turn]
            card = self._held[seat]
            assert card is not None
            if card.rank == self._blocker:
                self._seen[card.id] = PUBLIC
                self._emit(ShowBlocker(seat, card))
                done[seat] = True
                if self.rules.king_stops_play:
                    self._turn = len(order)
                continue
            self.to_act = seat
            return

    def _player_turn(self, seat: int, action: Action) -> None:
        done = self._done
        done[seat] = True
        if action is Action.KEEP:
            self._emit(Keep(seat))
            return
        hands, seen = self._held, self._seen
        nb = self._left(seat)
        mine, theirs = hands[seat], hands[nb]
        assert mine is not None and theirs is not None
        if theirs.rank == self._blocker:
            seen[theirs.id] = PUBLIC
            done[nb] = True
            self._emit(Blocked(seat, nb, theirs))
            if self.rules.king_stops_play:
                self._turn = len(self._order)
            return
        hands[seat], hands[nb] = theirs, mine
        if seen[mine.id] != PUBLIC:
            seen[mine.id] |= 1 << nb
        if seen[theirs.id] != PUBLIC:
            seen[theirs.id] |= 1 << seat
        announced = theirs.rank if self.rules.announce_low and theirs.rank <= 2 else None
        self._emit(Swap(seat, nb, mine, theirs, announced))

    def _dealer_turn(self, action: Action) -> None:
        rules, d = self.rules, self.dealer
        self._done[d] = True
        self._turn = len(self._order)
        if action is Action.KEEP:
            self._emit(Keep(d))
            return
        stock = self.stock
        pos = self._pick(len(stock)) if rules.dealer_exchange == "cut" else 0
        given, drawn = self._held[d], stock[pos]
        assert given is not None
        self._emit(DealerExchange(d, pos, given, drawn))
        if drawn.rank == self._blocker and rules.dealer_draws_blocker != "allowed":
            if rules.dealer_draws_blocker == "dealer-loses":
                self._exchange_with_stock(pos, given, drawn)
            self._seen[drawn.id] = PUBLIC
            self._emit(DealerDrewBlocker(d, drawn, rules.dealer_draws_blocker))
            if rules.dealer_draws_blocker == "dealer-loses":
                self._end_hand([d], double=False)
            return
        self._exchange_with_stock(pos, given, drawn)
        if drawn.rank == given.rank and rules.dealer_same_rank != "none":
            self._seen[drawn.id] = self._seen[given.id] = PUBLIC
            self._emit(DealerSameRank(d, given, drawn, rules.dealer_same_rank))
            if rules.dealer_same_rank == "dealer-wins":
                self._end_hand([s for s in self._order if s != d], double=False)
            else:
                self._immune = d

    def _exchange_with_stock(self, pos: int, given: Card, drawn: Card) -> None:
        d = self.dealer
        del self.stock[pos]
        self._held[d] = drawn
        self._set_aside = given
        self._seen[drawn.id] = 1 << d  # what anyone knew of it before it left the stock is stale

    def _showdown(self) -> None:
        hands, order = self._held, self._order
        shown = tuple((s, hands[s]) for s in order)
        for _, c in shown:
            assert c is not None
            self._seen[c.id] = PUBLIC
        losers = self._losers([s for s in order if s != self._immune])
        self._emit(Showdown(shown, tuple(losers)))  # type: ignore[arg-type]
        self._end_hand(losers, double=self.rules.ace_pays_double)

    def _losers(self, seats: list[int]) -> list[int]:
        """The holders of the lowest card among ``seats`` (in turn order), by ties and pairing."""
        hands, rules = self._held, self.rules
        if rules.pairing:
            groups: dict[int, list[int]] = {}
            for s in seats:
                card = hands[s]
                assert card is not None
                groups.setdefault(card.rank, []).append(s)
            weakest = min(groups, key=lambda r: (len(groups[r]), self._strength[r - 1]))
            return groups[weakest]
        strengths = [self._strong(hands[s]) for s in seats]  # type: ignore[arg-type]
        low = min(strengths)
        tied = [s for s, v in zip(seats, strengths) if v == low]
        if rules.ties == "eldest-loses":
            return tied[:1]
        if rules.ties == "latest-loses":
            return tied[-1:]
        return tied

    def _end_hand(self, losers: list[int], *, double: bool) -> None:
        """Steps 5 to 7 after the losers are known: chips, elimination, collection, next deal."""
        rules, lives, hands = self.rules, self.lives, self._held
        had = {s: lives[s] for s in losers}
        payments = []
        for s in losers:
            card = hands[s]
            owed = 2 if double and card is not None and card.rank == 1 else 1
            paid = min(owed, lives[s])
            lives[s] -= paid
            self.kitty += paid
            payments.append((s, paid))
        self._emit(LivesLost(tuple(payments)))
        if rules.last_chance:
            out = [s for s in losers if had[s] == 0]
        else:
            out = [s for s in losers if lives[s] == 0]
        living = [s for s in self._order if s not in out]
        winners: tuple[int, ...] | None = None
        if not living:
            self._emit(FinalTie(tuple(out), rules.final_tie))
            if rules.final_tie == "replay":
                for s, paid in payments:
                    lives[s] += paid
                    self.kitty -= paid
            elif rules.final_tie == "split":
                winners = tuple(out)
            elif rules.final_tie == "cut":
                winners = (self._cut_for_pot(out),)
            else:
                winners = ()
        elif out:
            for s in out:
                self.alive[s] = False
            self._emit(Eliminated(tuple(out)))
            if len(living) == 1:
                winners = (living[0],)
        self._collect()
        if winners is not None:
            self._finish(winners)
            return
        self.dealer = self._left(self.dealer)
        self._start_hand()

    def _cut_for_pot(self, seats: list[int]) -> int:
        contenders = list(seats)
        while len(contenders) > 1:
            order = self._shuffle(self._pack)
            draws = tuple(zip(contenders, order))
            self._emit(CutDraw(draws))
            best = max(self._strong(c) for _, c in draws)
            contenders = [s for s, c in draws if self._strong(c) == best]
        return contenders[0]

    def _collect(self) -> None:
        hands = self._held
        cards = [c for c in (hands[s] for s in self._order) if c is not None]
        if self._set_aside is not None:
            cards.append(self._set_aside)
        if self.rules.between_hands == "to-bottom":
            self._emit(Collected(tuple(cards), tuple(self._seen[c.id] for c in cards)))
        self.stock.extend(cards)
        for s in self._order:
            hands[s] = None
        self._set_aside = None
        self._done = [False] * self.players
        self._turn = 0

    def _finish(self, winners: tuple[int, ...]) -> None:
        payouts: list[tuple[int, int]] = []
        if winners:
            share = self.pot // len(winners)
            for s in winners:
                payouts.append((s, share))
                self.money[s] += share
            self.pot -= share * len(winners)
        self.winners = winners
        self.over = True
        self.to_act = None
        self._order = []
        self._emit(GameOver(winners, tuple(payouts)))


def seat_names(players: int | Sequence[str], rules: Rules) -> tuple[str, ...]:
    """The names of a table of ``players`` (a count or names) under ``rules``; ValueError if the
    names are bad or the pack cannot seat that many."""
    names = table_names(players)
    if not 2 <= len(names) <= rules.max_players:
        raise ValueError(
            f"bad number of players {len(names)}: allowed 2..{rules.max_players} "
            f"with a {rules.deck}-card pack")
    return names
