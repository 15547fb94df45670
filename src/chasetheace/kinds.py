"""What a game of the family is to the rest of the package: a :class:`GameKind`.

Everything that differs from one game to another sits on its kind: its config (the rules a
table or a run chooses: Chase the Ace's :class:`Rules`, Ace Chasing's own, with no options),
what one game hands the next at a table, how to start one and read its record back, how a move
is written as text (``"keep"``, ``"offer:5"``), how many seats it takes, its bots, how its events
are told and how a finished game is reviewed. The web table and the terminal build, keep and
pass back a kind's config without looking inside, and ask the kind instead of asking which
game it is, so adding a game
means one folder that builds its kind and one line in :data:`chasetheace.registry.GAMES`.

This module only declares the shapes; the games fill them in (Chase the Ace in
:mod:`chasetheace.registry`, Ace Chasing in :mod:`chasetheace.acechasing.kind`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from .events import Event
from .record import Record, RecordFormat
from .rules import Preset, Rules

__all__ = ["BotKind", "GameKind", "GameConfig", "Carry", "NO_CARRY", "AnyGame", "Narrate", "Solutions",
           "parse_bot_spec", "bot_specs"]

B = TypeVar("B")
C = TypeVar("C", bound="GameConfig")
"""A game's config: what a table or a run of it chooses before the deal (Chase the Ace's
:class:`Rules`; Ace Chasing's own, with no options)."""
S = TypeVar("S")
"""What one game hands the next at its table (Chase the Ace: the pot no one won; None for a game
that hands nothing on)."""

Solutions = Callable[[Rules, int], Any]
"""``solutions(rules, players)``: a solution of the hand for these rules and table size, or None
while it is not ready (the web table prepares them in a worker)."""

Narrate = Callable[[Mapping[str, Any]], list[str]]
"""``tell(view)``: one event as a seat sees it (a dict of the observation's history, or of a
whole record), in words; a narrator follows the game, so it is told every event in order."""


class GameConfig(Protocol):
    """What every game's config offers: its JSON form (a web table stores it and shows it)."""

    def to_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Carry(Generic[S]):
    """What a finished game hands the next game at its table, and its stored form: a whole
    number, as the web store's ``carry`` column and a record's ``carry`` keep it."""

    first: S
    """What a table's first game starts with."""
    of: Callable[[Any], S]
    """``of(game)``: what a finished game hands on."""
    to_int: Callable[[S], int]
    """Its stored form."""
    from_int: Callable[[int], S]
    """Read back from its stored form."""


NO_CARRY: Carry[None] = Carry(first=None, of=lambda game: None, to_int=lambda carry: 0,
                              from_int=lambda number: None)
"""A game that hands nothing on to the next (stored as 0)."""


class AnyGame(Protocol):
    """What every game's state machine offers the interfaces (both games have it)."""

    @property
    def names(self) -> Sequence[str]: ...

    @property
    def players(self) -> int: ...

    @property
    def events(self) -> Sequence[Event]: ...

    @property
    def over(self) -> bool: ...

    @property
    def to_act(self) -> int | None: ...

    def act(self, action: Any, seat: int | None = None) -> Sequence[Event]: ...

    def legal_actions(self) -> list[Any]: ...

    def observation(self, seat: int | None) -> Any: ...

    def record(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class BotKind(Generic[C, B]):
    """A kind of bot: ``make(arg, config, players)`` builds one from the text after the colon of a
    spec (``threshold:8`` gives ``"8"``), the game's config (Chase the Ace: its :class:`Rules`)
    and the table size."""

    make: Callable[[str, C, int], B]
    help: str


def parse_bot_spec(table: Mapping[str, BotKind[C, B]], spec: str, config: C, players: int,
                   what: str = "") -> B:
    """The bot of ``table`` that ``spec`` (``kind`` or ``kind:arg``) names; ValueError naming the
    spec and the kinds allowed otherwise."""
    if not isinstance(spec, str):
        raise ValueError(f"a bot spec is a string like 'threshold:8', not {spec!r}")
    kind, _, arg = spec.strip().lower().partition(":")
    if kind not in table:
        raise ValueError(f"unknown {what}bot {spec!r}: allowed {', '.join(table)}")
    return table[kind].make(arg, config, players)


def bot_specs(specs: Sequence[str] | None, count: int, default: str, *, seats: str = "seats") -> list[str]:
    """One bot spec for each of ``count`` seats: none given -> ``default`` everywhere; one ->
    that one everywhere; otherwise exactly one per seat (``seats`` names them in errors)."""
    given = list(specs or [default])
    if len(given) == 1:
        return given * count
    if len(given) != count:
        raise ValueError(f"got {len(given)} --bot options for {count} {seats}: "
                         "give one for each, or one for all")
    return given


@dataclass(frozen=True, repr=False)
class GameKind(Generic[C, S]):
    """A game of the family, with everything that differs from the other games: a
    ``GameKind[C, S]`` plays by configs of type ``C`` (its rules, chosen by a table or a run) and
    hands an ``S`` from one game to the next at a table (its :attr:`carry`).

    ``name`` is the command line's and the web protocol's name for it (``ace-chasing``);
    ``record_format`` says how its records are written, its ``name`` the ``format`` field of
    its records (``"chase-the-ace/ace-chasing"``): two different things.
    """

    name: str
    title: str
    record_format: RecordFormat
    """How its records are written and read (:class:`chasetheace.record.RecordFormat`: the
    ``format`` name, the version written, the event types)."""
    config_from: Callable[[str, Mapping[str, Any], int | None], C]
    """``config_from(preset, options, most)``: the config of a preset with rule options (JSON
    values, as the web protocol sends them) applied, a count (lives, ante) above ``most`` refused
    (None: no limit); ValueError naming the bad choice (a game without presets or house rules
    refuses any)."""
    config_from_args: Callable[[str, Sequence[str]], C]
    """``config_from_args(preset, specs)``: the config that the command line's ``--preset`` and
    ``--rule KEY=VALUE`` options give; ValueError naming the bad one."""
    config_from_dict: Callable[[Mapping[str, Any]], C]
    """A config read back from its JSON form (``to_dict``, as a web table stores it)."""
    rules_of: Callable[[C], Rules | None]
    """The Chase the Ace rules a config stands for, as its records hold them and the hand solver
    solves them (None: a game whose records hold no rules)."""
    bots: Mapping[str, BotKind[C, Any]]
    stand_in_bot: str
    """The bot that plays for an absent person (a web player whose timer ran out)."""
    min_players: int
    max_players: Callable[[C], int | None]
    """The most players the config allows (None: no limit of the game's own)."""
    new_game: Callable[[C, Sequence[str], int, S], AnyGame]
    """``new_game(config, names, seed, carry)``: a game, dealt from ``seed``; ``carry`` is what
    the previous game at the table handed on (:attr:`carry`)."""
    carry: Carry[S]
    """What a game hands the next at its table (Chase the Ace: its pot; :data:`NO_CARRY`)."""
    from_record: Callable[[Record], AnyGame]
    """The game a record holds, replayed and checked (RecordError if it is not valid)."""
    parse_move: Callable[[str], Any]
    """A move written as text (as the web protocol and the web store write it) as the action the
    game takes; IllegalActionError naming it if it is no move of this game."""
    move_text: Callable[[Any], str]
    """An action of the game as text: the inverse of :attr:`parse_move`."""
    narrator: Callable[[Sequence[str], C, int | None], Narrate]
    """``narrator(names, config, viewer)``: a narrator for a game seen by ``viewer`` (None: a
    spectator, or a replay of a whole record with every card)."""
    review: Callable[[Record, Solutions | None, Callable[..., None] | None], Any]
    """``review(record, solutions, progress)``: the review of a finished game (an object with
    ``to_dict`` and ``text``), from one replay of the record; RecordError if it is not valid.
    With ``solutions`` None the solver's cache is used (solving on first use, told to
    ``progress``); it returns None when ``solutions`` has none ready yet."""
    server_bots: Mapping[str, str]
    """The bot kinds a server may offer any client, each with its line of help: they open no
    file and start no solver."""
    server_bot_specs: frozenset[str]
    """Every spec of :attr:`server_bots` a client may send (``threshold:9`` and the like)."""
    make_bot: Callable[[str, C, int], Any]
    """``make_bot(spec, config, players)``: a bot of this game from a spec such as ``odds`` or
    ``threshold:8``; ValueError naming a bad spec."""
    terminal: str
    """The module of its terminal front end (``chasetheace.cli.<game>``), whose ``TERMINAL``
    (:class:`chasetheace.cli.fronts.Terminal`) plays, simulates and replays it at the command
    line. A module path, imported when a command runs: the front ends sit above the games."""
    absent_move: Callable[[Sequence[Any]], str] = lambda legal: "keep"
    """``absent_move(legal)``: the move (as text) made for a person who timed out or is away
    when no bot stands in: the most cautious of ``legal``."""
    solver: bool = False
    """Whether the solver covers this game: hints, a prepared solved bot and reviews by the
    equilibrium (they need solutions of the hand, for the rules of :attr:`rules_of`)."""
    presets: tuple[Preset, ...] = ()
    """The named rule sets :attr:`config_from` takes (RULES.md A5; none: a game whose only
    preset is its own rules, ``standard``)."""

    def __repr__(self) -> str:
        return f"GameKind({self.name!r})"

    def seat_limits(self, config: C, most: int) -> tuple[int, int]:
        """(least, most) players at a table that seats at most ``most``."""
        limit = self.max_players(config)
        return self.min_players, most if limit is None else min(most, limit)

    def holds(self, record: Record | Any) -> bool:
        """Whether ``record`` (a :class:`~chasetheace.record.Record` or parsed JSON) says it is a
        record of this game."""
        if isinstance(record, Record):
            return record.format == self.record_format.name
        return isinstance(record, Mapping) and record.get("format") == self.record_format.name

    def read_record(self, data: Record | Any) -> Record:
        """``data`` (a record or its JSON form) as a record of this game; RecordError naming what
        is wrong (its replay checks the events against the rules)."""
        return self.record_format.read(data)

    def seeded_record(self, names: Sequence[str], config: C, carry: S,
                      events: Sequence[Mapping[str, Any]]) -> Record:
        """The record of a game started from a seed (its deck not stored: the events hold every
        card), from its events as the web store keeps them (their JSON form)."""
        return self.record_format.seeded(names, self.rules_of(config), self.carry.to_int(carry), events)

    def stored_record(self, names: Sequence[str], config: Mapping[str, Any], carry: int,
                      events: Sequence[Mapping[str, Any]]) -> Record:
        """:meth:`seeded_record` from the stored forms of the config and the carry (as the web
        store keeps a table's config and a game's carry)."""
        return self.seeded_record(names, self.config_from_dict(config), self.carry.from_int(carry), events)
