"""The :class:`Solution` of one hand: the strategy, its losses, its NashConv, and how it is stored."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ...rules import Rules
from ..model.hand import Deck, InfoKey, deck_of, infoset_of
from ..model.words import describe_key
from .packed import figures_of, is_binary, read_npz, write_npz

__all__ = ["Figures", "NASH_CONV_KINDS", "SIMILAR_LEVELS", "Solution", "caveats", "perfect_play_text",
           "similar_features"]


def perfect_play_text(nash_conv: float, measured: str = "exact") -> str:
    """How close a strategy is to an equilibrium, in a player's words (its NashConv, in lives a
    hand, written as a plain decimal with two significant digits), saying what kind of figure it
    is about the true game: ``measured`` as :attr:`Solution.measured` says it was measured. Every
    figure a player is shown comes from here. "Within X lives of perfect play" only with X exact
    (an exact best response in the true game); a sampled estimate is "about"; the figure of a model
    (``"abstract"``: the hand without card removal) says nothing sure of the true game and is not
    given as a distance from perfect play at all.

    >>> perfect_play_text(2.6e-05), perfect_play_text(0.0)
    ('within 0.000026 lives of perfect play (exact)', 'perfect play (exact)')
    >>> perfect_play_text(0.0123)
    'within 0.012 lives of perfect play (exact)'
    >>> perfect_play_text(9.1e-05, "abstract")  # doctest: +NORMALIZE_WHITESPACE
    'distance from perfect play not measured in the true game (solved in a model of the hand
     without card removal)'
    >>> perfect_play_text(0.15, "sampled")
    'about 0.15 lives from perfect play (a sampled estimate in the true game, biased upwards)'
    """
    if measured == "abstract":
        return ("distance from perfect play not measured in the true game (solved in a model of the hand "
                "without card removal)")
    digits = max(1, 1 - math.floor(math.log10(nash_conv))) if nash_conv > 0 else 1
    if measured == "sampled":
        return (f"about {nash_conv:.{digits}f} lives from perfect play (a sampled estimate in the true "
                "game, biased upwards)")
    close = f"within {nash_conv:.{digits}f} lives of perfect play" if nash_conv > 0 else "perfect play"
    return f"{close} (exact)"


NASH_CONV_KINDS = {"exact": "exact", "sampled": "estimate", "abstract": "model-only"}
""":attr:`Solution.nash_conv_kind` by how the NashConv was measured (:attr:`Solution.measured`)."""


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
    _similar: list[dict[tuple[Any, ...], tuple[float, ...]]] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._index = {key: i for i, key in enumerate(self.infosets)}
        self.deck: Deck = deck_of(self.rules)

    @property
    def nash_conv_kind(self) -> str:
        """What :attr:`nash_conv` says of the true game (one hand dealt from one pack):
        ``"exact"``, an exact best response in the true game; ``"estimate"``, sampled in the true
        game (biased upwards in expectation, but neither exact nor a proved bound: a proved bound
        is :func:`~chasetheace.solver.methods.bound.bound_nash_conv`'s ``upper``); ``"model-only"``,
        exact in the hand without card removal only, which says nothing sure of the true game.

        >>> from chasetheace import Rules
        >>> sol = Solution(Rules(), 2, "iid", [], [], [], [], [], [], 1e-4, [], measured="abstract")
        >>> sol.nash_conv_kind
        'model-only'
        """
        return NASH_CONV_KINDS[self.measured]

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
        """``{"keep": p, "swap": 1 - p}`` for the seat to act, from ``game.observation(seat)``: the
        probability the solution's bot keeps (:meth:`played_keep`, so a situation the sampled method
        never met has one too)."""
        key = infoset_of(observation, self.deck, kings_jerk=self.rules.kings_jerk)
        seats = len(observation["order"])
        if key[0] >= 0 and seats != self.players:
            raise ValueError(f"this solution is for {self.players} players, the hand has {seats}")
        if not 0 <= key[0] < self.players:
            raise ValueError(f"no decision in this situation: {describe_key(key, self.deck, self.players)}")
        p = self.played_keep(key)
        return {"keep": p, "swap": 1.0 - p}

    # --- figures for every situation ----------------------------------------------------------

    def has_figures(self, i: int) -> bool:
        """Whether the situation at index ``i`` has figures of its own: always, except in a solution
        of the sampled method measured by sampling, where a situation its estimate never met (reach
        0) has a strategy but no values."""
        return self.measured != "sampled" or self.reach[i] > 0

    def figures(self, key: InfoKey) -> Figures:
        """The values (expected lives lost, keep then swap) and chances of losing at ``key``, given
        it arises: the solution's own where it has them, else **generalised from similar
        situations** (see :func:`similar_features`): the reach-weighted average over the situations
        that share the most of the seat's position, own card, card given away, the token of the seat
        just before it and how many seats swapped before it (dropping those from the last). The
        sampled method at large tables meets most situations, but not every one; this is the model
        that answers the rest, so no situation is left without figures."""
        i = self._index.get(key)
        if i is not None and self.has_figures(i):
            chances = None if self.chances is None else self.chances[i]
            return Figures(self.keep[i], self.values[i], chances, False, 1)
        if self._similar is None:
            self._similar = self._similar_tables()
        for level, features in enumerate(similar_features(key)):
            got = self._similar[level].get(features)
            if got is not None:
                w, vk, vs, ck, cs, n = got
                chances = None if self.chances is None else (ck / w, cs / w)
                return Figures(self.played_keep(key), (vk / w, vs / w), chances, True, int(n))
        raise ValueError(f"no figures in this solution: {describe_key(key, self.deck, self.players)}")

    def _similar_tables(self) -> list[dict[tuple[Any, ...], tuple[float, ...]]]:
        """Per level of :func:`similar_features`: the sums (weight, weighted values and chances,
        count) of the situations with figures, by their features."""
        tables: list[dict[tuple[Any, ...], list[float]]] = [{} for _ in range(SIMILAR_LEVELS)]
        weights = [r if self.has_figures(i) else 0.0 for i, r in enumerate(self.reach)]
        if not any(w > 0 for w in weights):  # no reach known: every situation with figures counts alike
            weights = [1.0 if self.has_figures(i) else 0.0 for i in range(len(self.infosets))]
        chances = self.chances if self.chances is not None else self.values
        for key, w, (vk, vs), (ck, cs) in zip(self.infosets, weights, self.values, chances):
            if w <= 0:
                continue
            for level, features in enumerate(similar_features(key)):
                row = tables[level].get(features)
                if row is None:
                    row = tables[level][features] = [0.0] * 6
                row[0] += w
                row[1] += w * vk
                row[2] += w * vs
                row[3] += w * ck
                row[4] += w * cs
                row[5] += 1
        return [{f: tuple(row) for f, row in t.items()} for t in tables]

    def keep_by_card(self) -> list[list[float]]:
        """Per position and card, how often the seat keeps, averaged over the situations it meets."""
        k = self.deck.rank_count
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
            "nash_conv_low": self.nash_conv_low, "measured": self.measured,
            "nash_conv_kind": self.nash_conv_kind, "caveats": self.caveats,
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


@dataclass(frozen=True)
class Figures:
    """What a solution says of one situation: see :meth:`Solution.figures`."""

    keep: float                                 # the probability that the solution's bot keeps
    values: tuple[float, float]                 # expected lives lost: (keep, swap)
    chances: tuple[float, float] | None         # chance of losing: (keep, swap), if the solution has them
    generalised: bool                           # from similar situations (the solution never met it)
    situations: int                             # how many situations the figures come from


SIMILAR_LEVELS = 7


def similar_features(key: InfoKey) -> list[tuple[Any, ...]]:
    """What a situation the solution never met shares with those it met, from the most to the least
    telling (:data:`SIMILAR_LEVELS` levels): (position, own card, card given away, the last history
    token, how many swaps in the history), then without the swaps, without the last token, without
    the card given away; then the own card at any position; then the position; then anything."""
    position, history, card, given = key
    last = history[-1] if history else ""
    swaps = sum(1 for t in history if t.startswith("s"))
    return [(position, card, given, last, swaps), (position, card, given, last), (position, card, given),
            (position, card), (card,), (position,), ()]


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

