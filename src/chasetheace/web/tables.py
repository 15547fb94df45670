"""Tables: the lobby, seats held by secret tokens, games judged by the engine, bots for empty seats.

Nothing here does I/O but the store, and nothing here knows about sockets or time: the app
(:mod:`chasetheace.web.app`) turns messages into calls on a :class:`Table` and tells clients.

>>> from chasetheace.web.store import Store
>>> from chasetheace.web.protocol import Create
>>> lobby = Lobby(Store(":memory:"))
>>> table, seat, token = lobby.create(Create("Ann", seats=3, bots="threshold:8"))
>>> table.status, seat, table.seat_of(token)
('waiting', 0, 0)
>>> table.start(0)
>>> table.status, table.seat_kinds
('playing', ['human', 'threshold:8', 'threshold:8'])
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import random
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..events import Event
from ..kinds import AnyGame, GameConfig
from ..registry import GAMES, game_kind
from ..rules import Rules, preset_info
from . import movetrace
from .botkinds import WebBots
from .ids import table_id_ok
from .names import LookAlikeError, check_name
from .protocol import MAX_SEATS, Create, ProtocolError, encode
from .store import StoredAction, StoredGame, StoredTable, TableStore

__all__ = ["TableOptions", "Table", "Lobby", "HUMAN", "MAX_COUNT", "hash_token", "AnyGame", "AlreadyApplied"]

HUMAN = "human"
MAX_COUNT = 99  # the largest lives or ante a web table takes (the engine has no upper bound)


def hash_token(token: str) -> str:
    """The SHA-256 of a seat token: the database never holds the token itself."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class TableOptions:
    """How a table plays: the game and its config (Chase the Ace's rules), how many seats, bots
    for empty seats, the turn timer."""

    preset: str
    config: GameConfig
    """The config of the table's game (:attr:`chasetheace.kinds.GameKind.config_from`)."""
    seats: int
    bots: str | None
    timer: int | None
    on_timeout: str
    public: bool = False
    game: str = "chase-the-ace"
    hints: bool = False

    @classmethod
    def build(cls, preset: str, options: Mapping[str, Any], seats: int, bots: str | None,
              timer: int | None, on_timeout: str, *, offered: WebBots | None = None,
              public: bool = False, game: str = "chase-the-ace", hints: bool = False) -> TableOptions:
        """Check every choice with the engine; ProtocolError (code ``bad_options``) names the bad one.
        A bot kind is checked against the ``offered`` list only: nothing is opened or solved."""
        try:
            kind = game_kind(game)
            config = kind.config_from(preset, options, MAX_COUNT)
            least, most = kind.seat_limits(config, MAX_SEATS)
            if not least <= seats <= most:
                raise ValueError(f"bad number of seats {seats}: allowed {least}..{most}")
            if bots is not None:
                (offered or WebBots()).check(bots, config, seats, game)
            if hints and not kind.solver:
                raise ValueError(f"hints: {kind.title} has no hints (the solver covers Chase the Ace "
                                 "only): leave hints out")
        except (ValueError, TypeError) as exc:
            raise ProtocolError(str(exc), "bad_options") from None
        return cls(preset_info(preset).name, config, seats, bots, timer, on_timeout, public, game, hints)

    @property
    def rules(self) -> Rules | None:
        """The Chase the Ace rules the config stands for, as the solver solves them (None: a
        game the solver does not cover)."""
        kind = GAMES[self.game]
        return kind.rules_of(self.config) if kind.solver else None

    @property
    def stand_in(self) -> str:
        """The bot kind that plays for a person whose timer ran out (when ``on_timeout`` is bot)."""
        return self.bots or GAMES[self.game].stand_in_bot

    def to_dict(self) -> dict[str, Any]:
        """The options as JSON (stored, and shown to every client); one shared dict: do not change it."""
        return self._dict

    @functools.cached_property
    def _dict(self) -> dict[str, Any]:
        # "rules": the config's JSON form under the key stored tables have always had
        return {"preset": self.preset, "rules": self.config.to_dict(), "seats": self.seats,
                "bots": self.bots, "timer": self.timer, "on_timeout": self.on_timeout, "public": self.public,
                "game": self.game, "hints": self.hints}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableOptions:
        """Options read back from the store."""
        game = str(data.get("game", "chase-the-ace"))
        return cls(data["preset"], game_kind(game).config_from_dict(data["rules"]), data["seats"],
                   data["bots"], data["timer"], data["on_timeout"], bool(data.get("public", False)), game,
                   # an Ace Chasing table stored before such tables refused hints never offers them
                   bool(data.get("hints", False)) and GAMES[game].solver)


@dataclass(frozen=True)
class _Person:
    name: str
    token_hash: str
    recovery_hash: str | None = None


_CODE_LETTERS = "ABCDEFGHJKMNPQRSTVWXYZ23456789"  # no 0/O, 1/I/L, U: read aloud and typed safely


def new_recovery_code() -> str:
    """A recovery code: 16 letters and digits in groups of 4 (about 78 bits)."""
    chars = "".join(secrets.choice(_CODE_LETTERS) for _ in range(16))
    return "-".join(chars[i:i + 4] for i in range(0, 16, 4))


def hash_recovery(code: str) -> str:
    """The SHA-256 of a recovery code as typed (case, spaces and dashes do not matter)."""
    plain = "".join(ch for ch in code.upper() if ch.isalnum())
    return hashlib.sha256(("recovery:" + plain).encode("utf-8", "surrogatepass")).hexdigest()


class AlreadyApplied(ProtocolError):
    """A move sent again with an act id the table has saved already: nothing is played or read
    (the client is answered from the table as it is)."""

    def __init__(self, act_id: str) -> None:
        super().__init__(f"the move with act id {act_id!r} was applied already", "already_applied")


class Table:
    """One table: its people, its current game and how many games it has played."""

    def __init__(self, table_id: str, options: TableOptions, store: TableStore,
                 bots: WebBots | None = None) -> None:
        self.id, self.options, self.store = table_id, options, store
        self.offered = bots or WebBots()
        self.people: list[_Person] = []
        self.game: AnyGame | None = None
        self.game_no = 0
        self.game_seed = 0
        self.seat_kinds: list[str] = []  # who plays each seat: HUMAN or a bot spec
        # one bot per seat and kind for the current game: a bot that tracks the game follows it
        # event by event instead of reading the whole history again at every move
        self._bots: dict[tuple[int, str], Any] = {}
        self._bots_game = 0
        self.moves = 0  # decisions saved in the current game
        # a move was played here but not saved: the copy must be rebuilt from the store before its
        # next use (the server does it off the event loop, see :meth:`rebuilt`)
        self.stale = False
        self.saving = False  # a move played here is being saved (:meth:`begin_act`, :meth:`end_act`)
        # every act id saved at this table (in any game): a move sent again is known at once,
        # without replaying or reading anything
        self.act_ids: set[str] = set()
        self._public: tuple[tuple[Any, ...], str] | None = None  # (what it depends on, public_text)

    # --- state --------------------------------------------------------------------------------

    @property
    def status(self) -> str:
        """``waiting`` (not started), ``playing`` or ``over`` (the latest game ended)."""
        if self.game is None:
            return "waiting"
        return "over" if self.game.over else "playing"

    @property
    def names(self) -> list[str]:
        """The names at the table: the game's players once started, else the people seated."""
        return list(self.game.names) if self.game is not None else [p.name for p in self.people]

    def seat_of(self, token: str) -> int:
        """The seat held by ``token``; ProtocolError if it holds none here."""
        digest = hash_token(token)
        found = None
        for seat, person in enumerate(self.people):
            if hmac.compare_digest(digest, person.token_hash):
                found = seat
        if found is None:
            raise ProtocolError("this token holds no seat at this table", "bad_token")
        return found

    def issue_recovery(self, seat: int) -> str:
        """A new recovery code for ``seat`` (shown once to its person; only its hash is kept)."""
        code = new_recovery_code()
        person = self.people[seat]
        self.store.set_seat_keys(self.id, seat, None, hash_recovery(code))
        self.people[seat] = _Person(person.name, person.token_hash, hash_recovery(code))
        return code

    def recover(self, code: str) -> tuple[int, str, str]:
        """The seat whose recovery code this is, with a new token (the old one stops working)
        and a new recovery code; ProtocolError (``bad_recovery``) if it is no seat's here."""
        digest = hash_recovery(code)
        found = None
        for seat, person in enumerate(self.people):
            if person.recovery_hash is not None and hmac.compare_digest(digest, person.recovery_hash):
                found = seat
        if found is None:
            raise ProtocolError("this recovery code holds no seat at this table: check it and try again",
                                "bad_recovery")
        token, fresh = secrets.token_urlsafe(24), new_recovery_code()
        self.store.set_seat_keys(self.id, found, hash_token(token), hash_recovery(fresh))
        self.people[found] = _Person(self.people[found].name, hash_token(token), hash_recovery(fresh))
        return found, token, fresh

    def bot_to_act(self) -> int | None:
        """The seat to act if a bot plays it, else None."""
        game = self.game
        if game is None or game.to_act is None or self.seat_kinds[game.to_act] == HUMAN:
            return None
        return game.to_act

    def bot_action(self, seat: int, spec: str | None = None) -> str:
        """What the bot at ``seat`` (or a stand-in of bot ``spec``) plays now, from its observation
        only.

        A bot kept for the game (whose choice depends only on the observations, so a fresh one
        chooses the same) and a generator seeded from the game's seed and the event count make
        the choice a pure function of the stored log, so a restarted server plays the same.
        """
        game = self.game
        assert game is not None and game.to_act == seat
        if self._bots_game != self.game_no:
            self._bots, self._bots_game = {}, self.game_no
        spec = spec or self.seat_kinds[seat]
        bot = self._bots.get((seat, spec))
        if bot is None:
            bot = self._bots[(seat, spec)] = self.offered.make(spec, self.options.config, self.options.game)
        rng = random.Random(f"{self.game_seed}/{len(game.events)}")
        choice = bot.choose(game.observation(seat), game.legal_actions(), rng)
        return GAMES[self.options.game].move_text(choice)

    def default_action(self, seat: int) -> str:
        """What a person who timed out (or is away) does without a stand-in bot: the game's most
        cautious move (keep; at Ace Chasing, no bet as a bettor, decline as the matador)."""
        game = self.game
        assert game is not None and game.to_act == seat
        return GAMES[self.options.game].absent_move(game.legal_actions())

    def public(self, creator: int = 0) -> dict[str, Any]:
        """What every client may know about the table (never a token, a seed or a card)."""
        names = self.names
        seats = []
        for i in range(self.options.seats if self.game is None else len(names)):
            if i < len(names):
                seat_kind = self.seat_kinds[i] if self.game is not None else HUMAN
                seats.append({"seat": i, "name": names[i], "kind": HUMAN if seat_kind == HUMAN else "bot",
                              "bot": None if seat_kind == HUMAN else seat_kind})
            else:
                seats.append({"seat": i, "name": None, "kind": "empty", "bot": self.options.bots})
        return {"id": self.id, "status": self.status, "creator": creator, "game_no": self.game_no,
                "options": self.options.to_dict(), "seats": seats}

    def public_text(self, creator: int = 0) -> str:
        """:meth:`public` as JSON text, encoded again only when it changed (every client of the
        table is sent it with every move)."""
        seat_kinds = tuple(self.seat_kinds) if self.game is not None else None
        key = (creator, self.game_no, self.status, self.names, seat_kinds)
        if self._public is None or self._public[0] != key:
            self._public = (key, encode(self.public(creator)))
        return self._public[1]

    # --- changes ------------------------------------------------------------------------------

    def check_name(self, name: str) -> None:
        """ProtocolError if ``name`` may not sit here: ``name_taken`` (taken, or a look-alike of a
        seated name), ``bad_name`` (a bot's name, or holding the page's marks)."""
        try:
            check_name(name, [p.name for p in self.people])
        except LookAlikeError as exc:
            raise ProtocolError(str(exc), "name_taken") from None
        except ValueError as exc:
            raise ProtocolError(str(exc), "bad_name") from None

    def join(self, name: str) -> tuple[int, str]:
        """Seat a person; returns the seat and its secret token."""
        if self.status == "playing":
            raise ProtocolError("the game at this table has started: you can watch it", "game_started")
        if self.status == "over":
            raise ProtocolError("the game at this table is over: you can watch it", "game_over")
        if len(self.people) >= self.options.seats:
            raise ProtocolError(f"the table is full ({self.options.seats} seats)", "table_full")
        self.check_name(name)
        token = secrets.token_urlsafe(24)
        person = _Person(name, hash_token(token))
        seat = len(self.people)
        self.store.add_seat(self.id, seat, name, person.token_hash)
        self.people.append(person)
        return seat, token

    def start(self, seat: int, creator: int = 0) -> None:
        """The creator (or whoever holds the creator's role now) starts the first game."""
        self._check_creator(seat, "start the game", creator)
        if self.game is not None:
            raise ProtocolError("the game has already started", "not_now")
        self._new_game()

    def rematch(self, seat: int, creator: int = 0) -> None:
        """The creator starts another game with the same seats once the game is over."""
        self._check_creator(seat, "start a rematch", creator)
        if self.game is None or not self.game.over:
            raise ProtocolError("a rematch can start only when the game is over", "not_now")
        self._new_game()

    def replace(self, seat: int, by: int, creator: int, present: set[int]) -> None:
        """The creator hands the seat of a person who has gone to the stand-in bot for the rest of
        this game; the person takes it back by resuming it (:meth:`reclaim`)."""
        self._check_creator(by, "replace a player", creator)
        if self.status != "playing":
            raise ProtocolError("a player can be replaced only while a game is being played", "not_now")
        if not seat < len(self.people) or self.seat_kinds[seat] != HUMAN:
            raise ProtocolError(f"seat {seat} is not a person's seat", "bad_message")
        if seat in present:
            raise ProtocolError(f"{self.people[seat].name} is here: only a player who has gone can be "
                                "replaced", "not_now")
        seat_kinds = list(self.seat_kinds)
        seat_kinds[seat] = self.options.stand_in
        self.store.set_seat_kinds(self.id, self.game_no, seat_kinds)
        self.seat_kinds = seat_kinds

    def reclaim(self, seat: int) -> bool:
        """A person back at a seat a bot was playing for them takes it back; whether it changed."""
        if (self.game is None or self.game.over or not seat < len(self.people)
                or self.seat_kinds[seat] == HUMAN):
            return False
        seat_kinds = list(self.seat_kinds)
        seat_kinds[seat] = HUMAN
        self.store.set_seat_kinds(self.id, self.game_no, seat_kinds)
        self.seat_kinds = seat_kinds
        return True

    def act(self, seat: int, action: str, actor: str = HUMAN, act_id: str | None = None) -> list[Event]:
        """``seat`` acts (keeps or swaps; at Ace Chasing also offers, accepts, declines); the engine
        judges it; the log is saved before anyone is told (with the client's ``act_id``, if any).

        An ``act_id`` this table saved already is :class:`AlreadyApplied`, found in memory before
        anything is played. A move the store refuses or cannot take leaves the copy
        :attr:`stale` (the engine has played it): it is rebuilt from the store before its next use,
        by :meth:`rebuilt` in a worker thread (never here: a long game's replay would hold up the
        event loop)."""
        events = self.begin_act(seat, action, act_id)
        movetrace.stamp(act_id, "s")
        try:
            self.store.append_action(self.id, self.game_no, seat, action, actor, events, self.moves, act_id)
        except BaseException:
            self.end_act(act_id, saved=False)
            raise
        movetrace.stamp(act_id, "c")
        self.end_act(act_id, saved=True)
        return events

    def begin_act(self, seat: int, action: str, act_id: str | None = None) -> list[Event]:
        """The first half of :meth:`act`: the move checked and played on the engine (ProtocolError,
        nothing changed, if it may not be played); the table is :attr:`saving` until
        :meth:`end_act` says whether the store took it (for a caller that saves it off the event
        loop: nobody may be told of it, nor the table changed, meanwhile)."""
        game = self.game
        if game is None:
            raise ProtocolError("the game has not started", "not_now")
        if self.stale or self.saving:
            raise ProtocolError("the table is being saved or read again: try again in a moment", "not_now")
        if act_id is not None and act_id in self.act_ids:
            raise AlreadyApplied(act_id)
        try:
            events = _play(game, action, seat, self.options.game)
        except ValueError as exc:  # IllegalActionError is a ValueError
            code = ("game_over" if game.over else "out_of_turn" if game.to_act != seat else "bad_action")
            raise ProtocolError(str(exc), code) from None
        self.saving = True
        return events

    def end_act(self, act_id: str | None, *, saved: bool) -> None:
        """The second half of :meth:`act`: the move is the game's (``saved``), or the copy is
        :attr:`stale` (the engine played a move the store does not hold: rebuilt from the store)."""
        self.saving = False
        if not saved:
            self.stale = True
            return
        self.moves += 1
        if act_id is not None:
            self.act_ids.add(act_id)

    def rebuilt(self, reader: TableStore | None = None) -> Table | None:
        """This table read and replayed afresh from the store (``reader``, or its own): a new copy
        for :meth:`become` to take over, or None if the table is gone. Safe in a worker thread: it
        changes nothing here."""
        saved = (reader or self.store).load_table(self.id)
        return None if saved is None else Table.restore(saved, self.store, self.offered)

    def _reload(self) -> None:
        again = self.rebuilt()
        if again is not None:
            self.become(again)
        self.stale = False

    def become(self, again: Table) -> None:
        """Take over what a copy read afresh from the store holds."""
        self._become(again)
        self.stale = False

    def _become(self, again: Table) -> None:
        self.people = again.people
        self.game, self.game_no, self.game_seed, self.seat_kinds, self.moves = (
            again.game, again.game_no, again.game_seed, again.seat_kinds, again.moves)
        self.act_ids = again.act_ids

    def catch_up(self, saved: StoredTable) -> bool:
        """Bring this copy up to the store's (read by ``store.load_tail(id, game_no, moves)``): the
        moves other server processes saved are replayed and checked against their events, a new
        game a few moves old is rebuilt; whether anything changed. What would take longer (a tail
        that does not fit this copy, a game further on) leaves the copy :attr:`stale`, for the
        caller to rebuild off the event loop."""
        before = self._marks()
        if not saved.games:
            self.people = [_Person(s.name, s.token_hash, s.recovery_hash) for s in saved.seats]
        else:
            last = saved.games[-1]
            if (self.stale or last.game_no != self.game_no or saved.first_action != self.moves
                    or self.game is None):
                if saved.first_action != 0 or len(last.actions) > REPLAY_HERE:
                    self.stale = True
                    return False
                self._become(Table.restore(saved, self.store, self.offered))
            else:
                self.people = [_Person(s.name, s.token_hash, s.recovery_hash) for s in saved.seats]
                for act in last.actions:
                    _check_log(self.id, _play(self.game, act.action, act.seat, self.options.game), act.events)
                    self.moves += 1
                    if act.act_id is not None:
                        self.act_ids.add(act.act_id)
                self.seat_kinds = list(last.seat_kinds)
        self.stale = False
        return before != self._marks()

    def apply_saved(self, act: StoredAction) -> None:
        """Replay one move another server process saved (the next one of this game), checked
        against the events it caused there; ValueError (the copy unchanged) if they differ."""
        game = self.game
        assert game is not None
        events = _play(game, act.action, act.seat, self.options.game)
        if [e.to_dict() for e in events] != act.events:
            self.stale = True  # the game moved already: rebuild it before its next use
            raise ValueError(f"table {self.id}: a move from another process differs from its events")
        self.moves += 1
        if act.act_id is not None:
            self.act_ids.add(act.act_id)

    def start_saved(self, saved: StoredGame) -> None:
        """Start the game another server process started (the next one of this table), dealt
        again from its seed and checked against the events of its deal; ValueError (the copy
        unchanged) if they differ."""
        game = _new(self.options, saved.names, saved.seed, saved.carry)
        _check_log(self.id, game.events, saved.events)
        self.game, self.game_no, self.game_seed, self.seat_kinds, self.moves = (
            game, saved.game_no, saved.seed, list(saved.seat_kinds), 0)

    def _marks(self) -> tuple[Any, ...]:
        return (list(self.people), self.game_no, self.moves, list(self.seat_kinds))

    def _check_creator(self, seat: int, what: str, creator: int) -> None:
        if seat != creator:
            raise ProtocolError(f"only the table's creator may {what}", "not_creator")

    def _new_game(self) -> None:
        humans = [p.name for p in self.people]
        seat_kinds = [HUMAN] * len(humans)
        names = list(humans)
        if self.options.bots is not None:
            taken = {n.casefold() for n in names}
            number = 1
            while len(names) < self.options.seats:
                name = f"Bot {number}"
                number += 1
                if name.casefold() not in taken:
                    names.append(name)
                    seat_kinds.append(self.options.bots)
        if len(names) < 2:
            raise ProtocolError("a game needs at least 2 players: invite someone or allow bots", "not_now")
        kind = GAMES[self.options.game]
        carry = kind.carry.first if self.game is None else kind.carry.of(self.game)
        seed = secrets.randbits(63)
        if len(names) < kind.min_players:
            raise ProtocolError(f"{kind.title} needs at least {kind.min_players} players: invite more or "
                                "allow bots", "not_now")
        game = kind.new_game(self.options.config, names, seed, carry)
        self.store.start_game(self.id, self.game_no + 1, seed, kind.carry.to_int(carry), names, seat_kinds,
                              game.events)
        self.game, self.game_seed, self.seat_kinds, self.moves = game, seed, seat_kinds, 0
        self.game_no += 1

    @classmethod
    def restore(cls, saved: StoredTable, store: TableStore, bots: WebBots | None = None) -> Table:
        """Rebuild a table from the store: the current game is replayed from its seed and checked
        event by event against the stored log."""
        table = cls(saved.id, TableOptions.from_dict(saved.options), store, bots)
        table.people = [_Person(s.name, s.token_hash, s.recovery_hash) for s in saved.seats]
        table.act_ids = set(saved.act_ids)
        if saved.games:
            last = saved.games[-1]
            table.act_ids.update(a.act_id for a in last.actions if a.act_id is not None)
            game = _new(table.options, last.names, last.seed, last.carry)
            _check_log(saved.id, game.events, last.events)
            for i, act in enumerate(last.actions):
                _check_log(saved.id, _play(game, act.action, act.seat, table.options.game), act.events)
                if i % YIELD_EVERY == YIELD_EVERY - 1:
                    time.sleep(0)  # the server restores in a worker thread: let the event loop run
            table.game, table.game_no, table.game_seed, table.seat_kinds, table.moves = (
                game, last.game_no, last.seed, list(last.seat_kinds), len(last.actions))
        return table


YIELD_EVERY = 8
REPLAY_HERE = 32
"""The most moves :meth:`Table.catch_up` replays to rebuild a game where it is called (on the
event loop): about 4 ms; a longer game is rebuilt in a worker thread."""
"""A restore gives up the interpreter after this many replayed moves (pure Python holds it
otherwise, and the event loop would wait for the thread's time slice)."""


def _new(options: TableOptions, names: list[str], seed: int, carry: int) -> AnyGame:
    """The game a stored game row starts (its carry as the store keeps it)."""
    kind = GAMES[options.game]
    return kind.new_game(options.config, names, seed, kind.carry.from_int(carry))


def _play(game: AnyGame, action: str, seat: int, game_name: str) -> list[Event]:
    """One stored or sent action (as its game writes moves: ``offer:AMOUNT`` for an offer) played
    on the game (of the kind named ``game_name``)."""
    return list(game.act(GAMES[game_name].parse_move(action), seat))


def _check_log(table_id: str, events: Sequence[Event], stored: list[dict[str, Any]]) -> None:
    if [e.to_dict() for e in events] != stored:
        raise ValueError(f"table {table_id}: the replayed game differs from its stored event log")


class Lobby:
    """Every table, loaded from the store when first asked for."""

    def __init__(self, store: TableStore, bots: WebBots | None = None) -> None:
        self.store = store
        self.bots = bots or WebBots()
        self.tables: dict[str, Table] = {}

    def create(self, msg: Create) -> tuple[Table, int, str]:
        """Open a table from a ``create`` message and seat its creator."""
        options = TableOptions.build(msg.preset, msg.options, msg.seats, msg.bots, msg.timer,
                                     msg.on_timeout, offered=self.bots, public=msg.public, game=msg.game,
                                     hints=msg.hints)
        table_id = secrets.token_urlsafe(9)
        table = Table(table_id, options, self.store, self.bots)
        table.check_name(msg.name)  # before anything is saved
        self.store.create_table(table_id, options.to_dict())
        self.tables[table_id] = table
        seat, token = table.join(msg.name)
        return table, seat, token

    def get(self, table_id: str) -> Table:
        """The table with this id; ProtocolError if there is none."""
        table = self.tables.get(table_id)
        if table is not None and table.stale:
            table._reload()
        if table is None:
            saved = self.store.load_table(table_id) if table_id_ok(table_id) else None
            if saved is None:
                raise ProtocolError(f"no table {table_id!r}", "no_table")
            table = self.tables[table_id] = Table.restore(saved, self.store, self.bots)
        return table
