"""The :class:`Solution` of one hand: the strategy, its losses, its NashConv, and how it is stored."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ...rules import Rules
from ..model.hand import Deck, InfoKey, deck_of, infoset_of
from ..model.words import describe_key
from .packed import figures_of, is_binary, read_npz, write_npz

__all__ = ["Solution", "caveats"]


@dataclass
class Solution:
    """An equilibrium (or an approximation with a measured NashConv) of one hand.

    Positions are in turn order: 0 is the eldest, ``players - 1`` the dealer.
    """

    rules: Rules
    players: int
    method: str
    infosets: list[InfoKey]
    keep: list[float]                       # probability of keeping at each information set
    reach: list[float]                      # chance that each information set arises in play
    values: list[tuple[float, float]]       # expected lives lost from there: (keep, swap), given it arises
    loss_probabilities: list[float]
    expected_lives_lost: list[float]
    nash_conv: float
    gains: list[float]                      # per position: what a best response would save
    iterations: int = 0
    seconds: float = 0.0
    value: Fraction | None = None           # two-player constant-sum: the eldest's exact expected loss
    exact_keep: list[Fraction] | None = None
    trace: list[tuple[int, float, float]] = field(default_factory=list)
    nash_conv_error: float | None = None    # sampled method: the standard error of the estimate
    loss_errors: list[float] | None = None  # sampled method: standard errors of loss_probabilities
    chances: list[tuple[float, float]] | None = None  # chance of losing from there: (keep, swap)
    # sampled method: a cross-fitted estimate whose expectation is at most the true NashConv (the
    # plain estimate ``nash_conv`` is biased upwards); None where NashConv was computed exactly
    nash_conv_low: float | None = None
    # how nash_conv was measured: "exact" (an exact best response in the true game), "sampled"
    # (estimates in the true game), "abstract" (exact in the hand without card removal only)
    measured: str = "exact"
    _index: dict[InfoKey, int] = field(default_factory=dict, repr=False)
    _by_card: list[list[float]] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._index = {key: i for i, key in enumerate(self.infosets)}
        self.deck: Deck = deck_of(self.rules)

    @property
    def caveats(self) -> list[str]:
        """What of these rules the one-hand model leaves out, in words (empty when nothing)."""
        return caveats(self.rules)

    # --- reading the strategy -----------------------------------------------------------------

    def index_of(self, key: InfoKey) -> int | None:
        """The position of an information set in the tables (``keep``, ``values``...), or None if
        the solution has none for it."""
        return self._index.get(key)

    def keep_probability(self, key: InfoKey) -> float:
        """The probability of keeping at an information set (KeyError if it cannot arise)."""
        return self.keep[self._index[key]]

    def knows(self, key: InfoKey) -> bool:
        """Whether the strategy has an entry for the information set ``key``."""
        return key in self._index

    def played_keep(self, key: InfoKey) -> float:
        """The probability that the solution's bot keeps at ``key``: the strategy's, or where the
        solution has no entry (the sampled method never met the situation), 1 if the position keeps
        that card more often than not on average, else 0."""
        i = self._index.get(key)
        if i is not None:
            return self.keep[i]
        if self._by_card is None:
            self._by_card = self.keep_by_card()
        average = self._by_card[key[0]][key[2]]
        return 1.0 if average == average and average >= 0.5 else 0.0  # NaN: never met, swap

    def action_probabilities(self, observation: Mapping[str, Any]) -> dict[str, float]:
        """``{"keep": p, "swap": 1 - p}`` for the seat to act, from ``game.observation(seat)``."""
        key = infoset_of(observation, self.deck, kings_jerk=self.rules.kings_jerk)
        seats = len(observation["order"])
        if key[0] >= 0 and seats != self.players:
            raise ValueError(f"this solution is for {self.players} players, the hand has {seats}")
        i = self._index.get(key)
        if i is None:
            raise ValueError(f"no decision in this situation: {describe_key(key, self.deck, self.players)}")
        p = self.keep[i]
        return {"keep": p, "swap": 1.0 - p}

    def keep_by_card(self) -> list[list[float]]:
        """Per position and card, how often the seat keeps, averaged over the situations it meets."""
        k = self.deck.kinds
        num = [[0.0] * k for _ in range(self.players)]
        den = [[0.0] * k for _ in range(self.players)]
        for key, p, r in zip(self.infosets, self.keep, self.reach):
            num[key[0]][key[2]] += r * p
            den[key[0]][key[2]] += r
        return [[n / d if d > 0 else float("nan") for n, d in zip(nr, dr)] for nr, dr in zip(num, den)]

    # --- storing ------------------------------------------------------------------------------

    def to_dict(self, tables: bool = True) -> dict[str, Any]:
        """A JSON-serialisable form (``Solution.from_dict`` reads it back); without ``tables``, only
        the figures that are not per situation (what the binary form keeps beside its arrays)."""
        per_situation: dict[str, Any] = {} if not tables else {
            "infosets": [[k[0], list(k[1]), k[2], k[3]] for k in self.infosets],
            "keep": self.keep, "reach": self.reach, "values": [list(v) for v in self.values],
            "chances": None if self.chances is None else [list(c) for c in self.chances]}
        return {
            "format": "chase-the-ace solution 1",
            "rules": self.rules.to_dict(), "players": self.players, "method": self.method,
            **per_situation,
            "loss_probabilities": self.loss_probabilities, "expected_lives_lost": self.expected_lives_lost,
            "nash_conv": self.nash_conv, "gains": self.gains, "iterations": self.iterations,
            "seconds": self.seconds, "value": None if self.value is None else str(self.value),
            "exact_keep": None if self.exact_keep is None else [str(x) for x in self.exact_keep],
            "trace": [list(t) for t in self.trace],
            "nash_conv_error": self.nash_conv_error, "loss_errors": self.loss_errors,
            "nash_conv_low": self.nash_conv_low, "measured": self.measured, "caveats": self.caveats,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Solution:
        """Read what :meth:`to_dict` wrote; ValueError if it is not a solution."""
        if not isinstance(data, Mapping) or data.get("format") != "chase-the-ace solution 1":
            raise ValueError("not a chase-the-ace solution (format 'chase-the-ace solution 1')")
        try:
            return cls(
                rules=Rules.from_dict(data["rules"]), players=int(data["players"]),
                method=str(data["method"]),
                infosets=[(int(k[0]), tuple(k[1]), int(k[2]), int(k[3])) for k in data["infosets"]],
                keep=[float(x) for x in data["keep"]], reach=[float(x) for x in data["reach"]],
                values=[(float(a), float(b)) for a, b in data["values"]],
                chances=(None if data.get("chances") is None
                         else [(float(a), float(b)) for a, b in data["chances"]]),
                **figures_of(dict(data)),
            )
        except (KeyError, TypeError, IndexError) as exc:
            raise ValueError(f"bad solution data: {exc}") from None

    def save(self, path: str) -> None:
        """Write the solution: as readable JSON to a path ending ``.json``, else in the compact
        binary form (:mod:`.packed`, an ``.npz``: a tenth of the JSON's size or less)."""
        if str(path).lower().endswith(".json"):
            with open(path, "w", encoding="utf-8") as f:
                json.dump(self.to_dict(), f)
        else:
            with open(path, "wb") as f:
                write_npz(self, f)

    @classmethod
    def load(cls, path: str) -> Solution:
        """Read a solution written by :meth:`save` (either form, told apart by the file's first
        bytes); ValueError if it is not a solution, or one of another format version."""
        if is_binary(str(path)):
            sol: Solution = read_npz(cls, str(path))
            return sol
        with open(path, encoding="utf-8") as f:
            try:
                data = json.load(f)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise ValueError(f"not a chase-the-ace solution: {exc}") from None
        return cls.from_dict(data)

    def __repr__(self) -> str:
        return (f"<Solution {self.players} players, {self.method}, NashConv {self.nash_conv:.2e}, "
                f"losses {[round(p, 4) for p in self.loss_probabilities]}>")


def caveats(rules: Rules) -> list[str]:
    """What the one-hand model leaves out of ``rules``, in words.

    The solver plays one hand dealt from a freshly shuffled pack, each seat minimising the lives it
    expects to lose. With ``between_hands = to-bottom`` only a game's first hand is dealt so: later
    hands come from a pack whose order is partly public (the collected cards go under the stock in
    turn order), which the model does not know.
    """
    out = []
    if rules.between_hands == "to-bottom":
        out.append("between_hands=to-bottom is not modelled: the strategy assumes a freshly shuffled "
                   "pack, which holds for the first hand of a game only (later hands are dealt from "
                   "collected cards whose order is public)")
    return out

