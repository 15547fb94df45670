"""The rules as data: one frozen :class:`Rules` whose fields are the keys of RULES.md A2.

>>> r = Rules.preset("cuckoo")
>>> r.blocker, r.dealer_exchange, r.final_tie
('king', 'top', 'split')
>>> r.replace(lives=4, pairing=True).lives
4
>>> Rules.preset("standard") == Rules()
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from .cards import Card

__all__ = ["Option", "OPTIONS", "Preset", "PRESETS", "Rules", "SolverReach", "preset_info", "rules_from_args",
           "RankingRule", "DeckRule", "BlockerRule", "DealerExchangeRule", "DealerDrawsBlockerRule",
           "DealerSameRankRule", "TiesRule", "FinalTieRule", "FirstDealerRule", "BetweenHandsRule"]

# The values of each option that has a fixed set of them, default first: a misspelt value is a
# mypy error, and OPTIONS and the kernel's integer codes (their index here) are read from these.
RankingRule = Literal["king-high", "ace-high", "reverse"]
DeckRule = Literal[52, 32]
BlockerRule = Literal["top", "king", "none"]
DealerExchangeRule = Literal["cut", "top"]
DealerDrawsBlockerRule = Literal["allowed", "void", "dealer-loses"]
DealerSameRankRule = Literal["none", "dealer-wins", "dealer-immune"]
TiesRule = Literal["all-lose", "eldest-loses", "latest-loses"]
FinalTieRule = Literal["replay", "split", "cut", "no-winner"]
FirstDealerRule = Literal["random", "high-card", "first-jack"]
BetweenHandsRule = Literal["shuffle", "to-bottom"]
FLAG = (False, True)

SolverReach = Literal["models", "refuses", "unaffected"]
"""What the hand solver (``chasetheace.solver``) does with an option, which every option declares:
``models`` it (its tree plays the hand as the engine does under every value), ``refuses`` any value
but the default (``solve()`` raises ValueError naming the option), or is ``unaffected`` (the
option changes nothing in one hand's play and losses, given its deal: lives, the pot, who deals
first, the pack between hands). ``tests/test_rule_reach.py`` holds the solver to the engine, hand
by hand, under random options."""


@dataclass(frozen=True)
class Option:
    """One rule option of RULES.md A2: its key, allowed values (default first), meaning, source."""

    key: str
    values: tuple[Any, ...]
    meaning: str
    source: str
    minimum: int | None = None  # for open-ended integer options
    solver: SolverReach = field(kw_only=True)  # see SolverReach

    @property
    def default(self) -> Any:
        """The value of the standard game."""
        return self.values[0]

    def allowed(self) -> str:
        """The allowed values in words, for error messages."""
        if self.minimum is not None:
            return f"any integer >= {self.minimum}"
        return ", ".join(_show(v) for v in self.values)

    def check(self, value: Any) -> Any:
        """Return ``value`` if allowed, else raise ValueError naming the key and what is allowed."""
        if self.minimum is not None:
            if isinstance(value, int) and not isinstance(value, bool) and value >= self.minimum:
                return value
        elif any(type(value) is type(v) and value == v for v in self.values):
            return value
        raise ValueError(f"bad value {value!r} for rule {self.key!r}: allowed {self.allowed()}")

    def parse(self, text: str) -> Any:
        """Read a value written as text (as on a command line) and check it."""
        t = text.strip().lower()
        default = self.default
        value: Any = t
        if isinstance(default, bool):
            truth = {"true": True, "yes": True, "on": True, "1": True,
                     "false": False, "no": False, "off": False, "0": False}
            if t not in truth:
                raise ValueError(f"bad value {text!r} for rule {self.key!r}: allowed true, false")
            value = truth[t]
        elif isinstance(default, int):
            try:
                value = int(t)
            except ValueError:
                raise ValueError(
                    f"bad value {text!r} for rule {self.key!r}: allowed {self.allowed()}"
                ) from None
        return self.check(value)


def _show(v: Any) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


OPTIONS: dict[str, Option] = {o.key: o for o in (
    Option("lives", (3,), "counters (chips) each player starts a game with",
           "001, 002, 004; 2-4 in 000; 4 in Hoffmann 1891 and American Screw Your Neighbour",
           minimum=1, solver="unaffected"),
    Option("ranking", get_args(RankingRule),
           "strength from strongest to weakest: king-high K..2 A; ace-high A K..2; "
           "reverse K 2 3 .. Q A (avoid the highest card)", "000, 001", solver="models"),
    Option("deck", get_args(DeckRule), "the 52-card pack, or the 32-card piquet pack (A K Q J 10 9 8 7)",
           "001 (Coucou)", solver="models"),
    Option("blocker", get_args(BlockerRule),
           "the card that refuses an exchange: the strongest of the ranking, always the king, "
           "or none (every exchange goes through)", "000 (top); 001, 002 (king); 004, Cassell's (none)",
           solver="models"),
    Option("king_stops_play", FLAG,
           "when a blocker is shown, play stops at once and the showdown follows",
           "000 'King Stops All Play'", solver="models"),
    Option("kings_jerk", FLAG,
           "at the deal each player dealt the strongest rank shows it and takes a chip from the kitty",
           "000 'Kings Jerk'", solver="models"),
    Option("dealer_exchange", get_args(DealerExchangeRule),
           "the dealer exchanges with a card cut at random from the stock, or with the top card",
           "001 (cut: Phillips & Westall); 000, 004, Cassell's (top)", solver="unaffected"),
    Option("dealer_draws_blocker", get_args(DealerDrawsBlockerRule),
           "when the dealer draws a blocker: keeps it; it is shown and put back; "
           "or the dealer alone loses a life and the hand ends", "001 (dealer-loses); 002, 000 (void)",
           solver="models"),
    Option("dealer_same_rank", get_args(DealerSameRankRule),
           "when the dealer draws the rank given up: nothing; every other player loses a life; "
           "or the dealer cannot lose this hand", "000", solver="models"),
    Option("announce_low", FLAG,
           "a player forced to give away an ace or a 2 announces its rank", "000", solver="models"),
    Option("ties", get_args(TiesRule),
           "among players tied for lowest: all lose; the earliest in turn order; the latest",
           "000, 001, 002, 004 (all-lose); Cassell's 1882; Le Her", solver="models"),
    Option("pairing", FLAG,
           "equal ranks pair up: bigger groups beat smaller, the weakest group loses", "000",
           solver="models"),
    Option("ace_pays_double", FLAG, "a loser holding an ace loses two lives", "000", solver="models"),
    Option("last_chance", FLAG,
           "a player with no chips stays in 'on the bum' until the next loss", "000", solver="unaffected"),
    Option("final_tie", get_args(FinalTieRule),
           "when everyone still in loses their last life at once: cancel and play on; share the pot; "
           "cut for it; or no winner and the pot carries over", "002 (all four), 004, 000",
           solver="unaffected"),
    Option("ante", (1,), "money each player puts in the pot at the start of each game", "000, 002",
           minimum=0, solver="unaffected"),
    Option("first_dealer", get_args(FirstDealerRule),
           "the first dealer: a random seat; the strongest card drawn; the first jack dealt face up",
           "002; 004; 001 (Arnold)", solver="unaffected"),
    Option("between_hands", get_args(BetweenHandsRule),
           "shuffle the pack before every hand, or put the cards under the stock and deal on",
           "004", solver="unaffected"),
)}


@dataclass(frozen=True)
class Rules:
    """A complete set of rule options (RULES.md A2); the defaults are the standard game."""

    lives: int = 3
    ranking: RankingRule = "king-high"
    deck: DeckRule = 52
    blocker: BlockerRule = "top"
    king_stops_play: bool = False
    kings_jerk: bool = False
    dealer_exchange: DealerExchangeRule = "cut"
    dealer_draws_blocker: DealerDrawsBlockerRule = "allowed"
    dealer_same_rank: DealerSameRankRule = "none"
    announce_low: bool = False
    ties: TiesRule = "all-lose"
    pairing: bool = False
    ace_pays_double: bool = False
    last_chance: bool = False
    final_tie: FinalTieRule = "replay"
    ante: int = 1
    first_dealer: FirstDealerRule = "random"
    between_hands: BetweenHandsRule = "shuffle"

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            OPTIONS[f.name].check(getattr(self, f.name))

    # --- construction -----------------------------------------------------------------------

    @classmethod
    def preset(cls, name: str) -> Rules:
        """The rules of a named preset or alias of RULES.md A5 (ValueError lists the names)."""
        return cls(**preset_info(name).options)

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed; unknown keys or bad values raise ValueError."""
        for key in changes:
            _check_key(key)
        return dataclasses.replace(self, **changes)

    def with_text(self, key: str, text: str) -> Rules:
        """A copy with one option set from text, as ``--rule key=value`` gives it."""
        option = OPTIONS[_check_key(key.replace("-", "_"))]
        return dataclasses.replace(self, **{option.key: option.parse(text)})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Rules from a mapping of keys to values (missing keys take their defaults)."""
        if not isinstance(data, Mapping):
            raise ValueError(f"rules must be a mapping of option keys to values, not {data!r}")
        for key in data:
            _check_key(key)
        return cls(**dict(data))

    def to_dict(self) -> dict[str, Any]:
        """Every option as a JSON-serialisable mapping."""
        return {name: getattr(self, name) for name in _RULE_NAMES}  # every option is a scalar

    def changes(self) -> dict[str, Any]:
        """Only the options that differ from the standard game."""
        return {k: v for k, v in self.to_dict().items() if v != OPTIONS[k].default}

    # --- derived facts used by the engine and the bots --------------------------------------

    def strength(self, card: Card | int) -> int:
        """The card's strength under ``ranking`` (1 = weakest, 13 = strongest); suits never count."""
        rank = card if isinstance(card, int) else card.rank
        return STRENGTH[self.ranking][rank]

    @property
    def top_rank(self) -> int:
        """The strongest rank: the king, or the ace under ace-high."""
        return 1 if self.ranking == "ace-high" else 13

    @property
    def blocker_rank(self) -> int | None:
        """The rank that refuses an exchange, or None when every exchange goes through."""
        if self.blocker == "none":
            return None
        return 13 if self.blocker == "king" else self.top_rank

    @property
    def max_players(self) -> int:
        """The most players a table can seat: the stock must keep a card for the dealer."""
        return self.deck - 1


def _strengths(order: str) -> dict[int, int]:
    ranks = [13 if ch == "K" else 1 if ch == "A" else 10 if ch == "T" else 11 if ch == "J"
             else 12 if ch == "Q" else int(ch) for ch in order.split()]
    return {rank: 13 - i for i, rank in enumerate(ranks)}


STRENGTH: dict[str, dict[int, int]] = {
    "king-high": _strengths("K Q J T 9 8 7 6 5 4 3 2 A"),
    "ace-high": _strengths("A K Q J T 9 8 7 6 5 4 3 2"),
    "reverse": _strengths("K 2 3 4 5 6 7 8 9 T J Q A"),
}


def _check_key(key: str) -> str:
    if key not in OPTIONS:
        raise ValueError(f"unknown rule {key!r}: allowed {', '.join(OPTIONS)}")
    return key


_RULE_NAMES = tuple(f.name for f in dataclasses.fields(Rules))


@dataclass(frozen=True)
class Preset:
    """A named set of options (RULES.md A5)."""

    name: str
    aliases: tuple[str, ...]
    options: Mapping[str, Any]
    source: str
    description: str
    players: int | None = None  # the player count the game is meant for, when it has one
    title: str = "Chase the Ace"  # the game's name, as a table heading says it

    @property
    def rules(self) -> Rules:
        """The preset's rules."""
        return Rules(**self.options)


PRESETS: tuple[Preset, ...] = (
    Preset("standard", ("phillips-westall", "ranter-go-round"), {}, "001",
           "Phillips & Westall (1945): kings block, the dealer cuts the stock, 3 lives"),
    Preset("chase-the-ace", (), dict(blocker="none", dealer_exchange="top",
                                     between_hands="to-bottom", first_dealer="high-card",
                                     final_tie="replay"), "004",
           "the family rules sheet: every swap goes through, cards go under the stock unshuffled"),
    Preset("cuckoo", (), dict(blocker="king", dealer_exchange="top",
                              dealer_draws_blocker="void", final_tie="split"), "002",
           "Cuckoo: a king blocks, the dealer may not keep a drawn king, a final tie splits the pot",
           title="Cuckoo"),
    Preset("hoyle", ("wikipedia-1926",), dict(blocker="top", dealer_exchange="top",
                                             final_tie="no-winner"), "000 (after Hoyle/Foster 1926)",
           "Hoyle 1926: the top card blocks, the dealer takes the top card, a final tie has no winner"),
    Preset("cassell-1882", (), dict(blocker="none", dealer_exchange="top", ties="latest-loses"),
           "001, Cassell's", "Cassell's 1882: all swaps go through, the last card turned up loses a tie"),
    Preset("hoffmann-1891", (), dict(lives=4), "001", "Hoffmann 1891: four lives"),
    Preset("screw-your-neighbour", ("screw-your-neighbor",), dict(lives=4), "001",
           "McLeod's American Screw Your Neighbour: four lives, up to 26 players",
           title="Screw Your Neighbour"),
    Preset("knockout", (), dict(lives=1), "000", "counters are not used: one loss and you are out"),
    Preset("le-her", (), dict(lives=1, dealer_draws_blocker="void", ties="eldest-loses"),
           "Montmort, Waldegrave, 1713", "Le Her, the classic two-player game; ties go to the dealer",
           players=2, title="Le Her"),
)

_BY_NAME: dict[str, Preset] = {n: p for p in PRESETS for n in (p.name, *p.aliases)}


def preset_info(name: str) -> Preset:
    """The :class:`Preset` of a name or alias; ValueError lists the names otherwise."""
    if not isinstance(name, str) or name.strip().lower() not in _BY_NAME:
        raise ValueError(f"unknown preset {name!r}: allowed {', '.join(_BY_NAME)}")
    return _BY_NAME[name.strip().lower()]


def rules_from_args(preset: str, rule_specs: Sequence[str]) -> Rules:
    """The rules of ``preset`` with each ``key=value`` of ``rule_specs`` applied in order, as the
    command line's ``--preset`` and ``--rule`` give them (ValueError says what is wrong).

    >>> rules_from_args("cuckoo", ["lives=4", "ranking=ace-high"]).lives
    4
    """
    rules = Rules.preset(preset)
    for spec in rule_specs:
        key, sep, value = spec.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"bad --rule {spec!r}: write KEY=VALUE, e.g. lives=4")
        rules = rules.with_text(key.strip(), value)
    return rules
