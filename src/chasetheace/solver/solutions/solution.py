"""The :class:`Solution` of one hand: the strategy, its losses, its NashConv, and how it is stored."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from fractions import Fraction
from typing import Any, Generic, TypeVar, overload

from ...rules import Rules
from ..model.hand import Deck, InfoKey, deck_of, infoset_of
from ..model.words import describe_key
from .packed import Tables, figures_of, is_binary, read_npz, write_npz

T = TypeVar("T")

__all__ = ["Figures", "NASH_CONV_KINDS", "SIMILAR_LEVELS", "Solution", "StoredSolution", "caveats",
           "perfect_play_text", "similar_features"]


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
    # the summary learner: the (passes, hands per pass) of best-response-guided refinement after its
    # ``iterations`` mini-batches of training (SummarySolver.refine); None where there was none
    refined: tuple[int, int] | None = None
    _index: dict[InfoKey, int] | None = field(default=None, repr=False, compare=False)
    _by_card: list[list[float]] | None = field(default=None, repr=False, compare=False)
    _similar: list[Any] | None = field(default=None, repr=False, compare=False)
    # read from a file: the per-situation tables as numpy arrays (infosets, keep, reach, values
    # and chances are spelled out as lists on first use only: Solution.from_tables)
    _tables: Tables | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.deck: Deck = deck_of(self.rules)

    @classmethod
    def from_tables(cls, tables: Tables, **given: Any) -> Solution:
        """A solution whose per-situation tables are ``tables`` (read from a file): a
        :class:`StoredSolution`, whose ``infosets``, ``keep``, ``reach``, ``values`` and ``chances``
        become lists when first read, and where a situation is looked up in the arrays, so that a
        first hint reads a file and nothing more. ``given``: every other field."""
        stored = cls if issubclass(cls, StoredSolution) else StoredSolution
        sol = stored.__new__(stored)
        for f in fields(cls):
            if f.name in _PER_SITUATION:
                continue
            if f.name in given:
                value = given.pop(f.name)
            elif f.default is not MISSING:
                value = f.default
            elif f.default_factory is not MISSING:
                value = f.default_factory()
            else:
                raise TypeError(f"from_tables needs {f.name}")
            setattr(sol, f.name, value)
        if given:
            raise TypeError(f"from_tables: no field {', '.join(given)}")
        sol._tables = tables
        sol.__post_init__()
        return sol

    def _find(self, key: InfoKey) -> int | None:
        if self.method == "summary":
            # the summary learner's situations are keyed by the summary of the history (trained, not
            # measured on the exact tree: there the full keys are found first); they are few (20,737
            # at 10 players), so they are looked up in a dict even when read from a file
            from ..methods.sampled import summary_key

            if self._index is None:
                self._index = {k: i for i, k in enumerate(self.infosets)}
            found = self._index.get(key)
            return self._index.get(summary_key(key)) if found is None else found
        if self._tables is not None:
            return self._tables.find(key)
        if self._index is None:
            self._index = {k: i for i, k in enumerate(self.infosets)}
        return self._index.get(key)

    def _keep_at(self, i: int) -> float:
        return float(self._tables.keep[i]) if self._tables is not None else self.keep[i]

    def _reach_at(self, i: int) -> float:
        return float(self._tables.reach[i]) if self._tables is not None else self.reach[i]

    def _pairs_at(self, i: int) -> tuple[tuple[float, float], tuple[float, float] | None]:
        """The values and chances (None if the solution has none) at index ``i``."""
        t = self._tables
        if t is None:
            return self.values[i], None if self.chances is None else self.chances[i]
        values = (float(t.values[i, 0]), float(t.values[i, 1]))
        return values, None if t.chances is None else (float(t.chances[i, 0]), float(t.chances[i, 1]))

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
    def method_text(self) -> str:
        """How the strategy was made, in words: the method, and for the sampled learners their
        training and refinement.

        >>> from chasetheace import Rules
        >>> Solution(Rules(), 10, "summary", [], [], [], [], [], [], 0.0, [], iterations=240,
        ...          refined=(6, 200_000), measured="sampled").method_text
        'summary (240 mini-batches of 2,000 hands, then 6 refinement passes of 200,000 hands)'
        """
        if self.method not in ("sampled", "summary"):
            return self.method
        passes = "" if not self.refined or not self.refined[0] else (
            f", then {self.refined[0]} refinement pass{'es' if self.refined[0] > 1 else ''} of "
            f"{self.refined[1]:,} hands")
        return f"{self.method} ({self.iterations:,} mini-batches of 2,000 hands{passes})"

    @property
    def caveats(self) -> list[str]:
        """What of these rules the one-hand model leaves out, in words (empty when nothing)."""
        return caveats(self.rules)

    # --- reading the strategy -----------------------------------------------------------------

    def index_of(self, key: InfoKey) -> int | None:
        """The position of an information set in the tables (``keep``, ``values``...), or None if
        the solution has none for it."""
        return self._find(key)

    def keep_probability(self, key: InfoKey) -> float:
        """The probability of keeping at an information set (KeyError if it cannot arise)."""
        i = self._find(key)
        if i is None:
            raise KeyError(key)
        return self._keep_at(i)

    def knows(self, key: InfoKey) -> bool:
        """Whether the strategy has an entry for the information set ``key``."""
        return self._find(key) is not None

    def played_keep(self, key: InfoKey) -> float:
        """The probability that the solution's bot keeps at ``key``: the strategy's, or where the
        solution has no entry (the sampled method never met the situation), 1 if the position keeps
        that card more often than not on average, else 0."""
        i = self._find(key)
        if i is not None:
            return self._keep_at(i)
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
        return self.measured != "sampled" or self._reach_at(i) > 0

    def figures(self, key: InfoKey) -> Figures:
        """The values (expected lives lost, keep then swap) and chances of losing at ``key``, given
        it arises: the solution's own where it has them, else **generalised from similar
        situations** (see :func:`similar_features`): the reach-weighted average over the situations
        that share the most of the seat's position, own card, card given away, the token of the seat
        just before it and how many seats swapped before it (dropping those from the last). The
        sampled method at large tables meets most situations, but not every one; this is the model
        that answers the rest, so no situation is left without figures."""
        i = self._find(key)
        if i is not None and self.has_figures(i):
            values, chances = self._pairs_at(i)
            return Figures(self._keep_at(i), values, chances, False, 1)
        for level, features in enumerate(similar_features(key)):
            got = self._similar_sums(level, features)
            if got is not None:
                w, vk, vs, ck, cs, n = got
                chances = None if not self._has_chances() else (ck / w, cs / w)
                return Figures(self.played_keep(key), (vk / w, vs / w), chances, True, int(n))
        raise ValueError(f"no figures in this solution: {describe_key(key, self.deck, self.players)}")

    def _has_chances(self) -> bool:
        return (self._tables.chances is not None) if self._tables is not None else self.chances is not None

    def _columns(self, features: bool = True) -> dict[str, Any]:
        """The per-situation tables as numpy arrays (float64 figures), for the sums over them;
        ``features``: with the history's features of :func:`similar_features` too (``last``, the
        index in ``names`` of the history's last token, -1 for none; ``swaps``)."""
        import numpy as np

        t = self._tables
        if t is not None:
            chances = t.values if t.chances is None else t.chances
            got = dict(position=t.position.astype(np.int64), card=t.card.astype(np.int64),
                       given=t.given.astype(np.int64), keep=t.keep.astype(np.float64),
                       reach=t.reach.astype(np.float64), values=t.values.astype(np.float64),
                       chances=chances.astype(np.float64))
            if features:
                got["last"], got["swaps"], got["names"] = t.features()
            return got
        keys = self.infosets
        got = dict(position=np.array([k[0] for k in keys], dtype=np.int64),
                   card=np.array([k[2] for k in keys], dtype=np.int64),
                   given=np.array([k[3] for k in keys], dtype=np.int64),
                   keep=np.array(self.keep, dtype=np.float64), reach=np.array(self.reach, dtype=np.float64),
                   values=np.array(self.values, dtype=np.float64).reshape(-1, 2),
                   chances=np.array(self.values if self.chances is None else self.chances,
                                    dtype=np.float64).reshape(-1, 2))
        if features:
            # many situations share a history (and the sampled method's share its very tuple): each
            # history's features worked out once; the names numbered in the order first met
            seen: dict[str, int] = {}
            per: dict[tuple[str, ...], tuple[int, int]] = {}
            last, swaps = [], []
            for k in keys:
                h = k[1]
                got_h = per.get(h)
                if got_h is None:
                    got_h = per[h] = (seen.setdefault(h[-1], len(seen)) if h else -1,
                                      sum(1 for x in h if x.startswith("s")))
                last.append(got_h[0])
                swaps.append(got_h[1])
            got.update(last=np.array(last, dtype=np.int64), swaps=np.array(swaps, dtype=np.int64),
                       names=list(seen))
        return got

    def _similar_sums(self, level: int, features: tuple[Any, ...]) -> tuple[float, ...] | None:
        """The sums (weight, weighted values and chances, count) over the situations with figures
        that share ``features`` at ``level`` of :func:`similar_features` (None: no such situation).
        Each level's sums are computed once, for every group at once (in the situations' order, as
        a loop over them would add them)."""
        import numpy as np

        if self._similar is None:
            c = self._columns()
            with_figures = (c["reach"] > 0) if self.measured == "sampled" else np.ones(len(c["reach"]), bool)
            weights = np.where(with_figures, c["reach"], 0.0)
            if not np.any(weights > 0):  # no reach known: every situation with figures counts alike
                weights = with_figures.astype(np.float64)
            on = np.flatnonzero(weights > 0)
            c = {k: (v if k == "names" else v[on]) for k, v in c.items()}
            w = weights[on]
            sums = np.stack([w, w * c["values"][:, 0], w * c["values"][:, 1], w * c["chances"][:, 0],
                             w * c["chances"][:, 1]], axis=1)
            self._similar = [c, sums, [None] * SIMILAR_LEVELS]
        c, sums, levels = self._similar
        names: list[str] = c["names"]
        if levels[level] is None:
            codes = self._feature_codes(level, c)
            groups, at = np.unique(codes, return_inverse=True)
            at = at.reshape(-1)
            totals = np.stack([np.bincount(at, sums[:, j], minlength=len(groups)) for j in range(5)]
                              + [np.bincount(at, minlength=len(groups)).astype(np.float64)], axis=1)
            levels[level] = (groups, totals)
        groups, totals = levels[level]
        position, card, given, last, swaps = _feature_parts(level, features)
        if last is not None:
            last = names.index(last) if last in names else (-1 if last == "" else None)
            if last is None:
                return None
        code = self._feature_codes(level, dict(position=position, card=card, given=given, last=last,
                                               swaps=swaps))
        i = int(np.searchsorted(groups, code))
        if i < len(groups) and groups[i] == code:
            return tuple(float(x) for x in totals[i])
        return None

    @staticmethod
    def _feature_codes(level: int, c: dict[str, Any]) -> Any:
        """The features of :func:`similar_features` at ``level`` as one integer (per situation)."""
        used = _LEVEL_FEATURES[level]
        code: Any = 0
        for name, bits in (("position", 6), ("card", 7), ("given", 7), ("last", 17), ("swaps", 6)):
            part = (c[name] + 1) if name in used else 0  # given and last may be -1
            code = code * (1 << bits) + part
        return code

    def keep_by_card(self) -> list[list[float]]:
        """Per position and card, how often the seat keeps, averaged over the situations it meets."""
        import numpy as np

        k = self.deck.rank_count
        c = self._columns(features=False)
        cell = c["position"] * k + c["card"]
        num = np.bincount(cell, c["reach"] * c["keep"], minlength=self.players * k)
        den = np.bincount(cell, c["reach"], minlength=self.players * k)
        num_rows, den_rows = num.reshape(self.players, k).tolist(), den.reshape(self.players, k).tolist()
        return [[n / d if d > 0 else float("nan") for n, d in zip(nr, dr)]
                for nr, dr in zip(num_rows, den_rows)]

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
            "refined": None if self.refined is None else list(self.refined),
            "method_text": self.method_text,
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


class _Column(Generic[T]):
    """One per-situation table of a :class:`StoredSolution`: spelled out from the file's arrays when
    first read, then kept; setting it replaces it, as on any solution."""

    name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, solution: None, owner: type) -> _Column[T]: ...

    @overload
    def __get__(self, solution: StoredSolution, owner: type) -> T: ...

    def __get__(self, solution: StoredSolution | None, owner: type) -> T | _Column[T]:
        if solution is None:
            return self
        got: T = solution._table(self.name)
        return got

    def __set__(self, solution: StoredSolution, value: T) -> None:
        solution.__dict__[self.name] = value


class StoredSolution(Solution):
    """A :class:`Solution` read from a file (:meth:`Solution.from_tables`): its per-situation tables
    (``infosets``, ``keep``, ``reach``, ``values``, ``chances``) are the file's numpy arrays
    (``_tables``), each spelled out as the list a :class:`Solution` holds when first read, and kept
    (setting one replaces it, as on any solution)."""

    def _table(self, name: str) -> Any:
        held = self.__dict__
        if name not in held:
            tables = held.get("_tables")
            if tables is None:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            held[name] = tables.column(name)
        return held[name]

    infosets: _Column[list[InfoKey]] = _Column()
    keep: _Column[list[float]] = _Column()
    reach: _Column[list[float]] = _Column()
    values: _Column[list[tuple[float, float]]] = _Column()
    chances: _Column[list[tuple[float, float]] | None] = _Column()


@dataclass(frozen=True)
class Figures:
    """What a solution says of one situation: see :meth:`Solution.figures`."""

    keep: float                                 # the probability that the solution's bot keeps
    values: tuple[float, float]                 # expected lives lost: (keep, swap)
    chances: tuple[float, float] | None         # chance of losing: (keep, swap), if the solution has them
    generalised: bool                           # from similar situations (the solution never met it)
    situations: int                             # how many situations the figures come from


SIMILAR_LEVELS = 7
_LEVEL_FEATURES = [("position", "card", "given", "last", "swaps"), ("position", "card", "given", "last"),
                   ("position", "card", "given"), ("position", "card"), ("card",), ("position",), ()]
"""The features of each level of :func:`similar_features`, by name."""
_PER_SITUATION = ("infosets", "keep", "reach", "values", "chances")
"""The fields of :class:`Solution` a solution read from a file spells out only when first read
(:class:`StoredSolution`)."""


def _feature_parts(level: int, features: tuple[Any, ...]) -> tuple[Any, ...]:
    """``similar_features(key)[level]`` as (position, card, given, last token, swaps), None where
    the level does not use one."""
    named = dict(zip(_LEVEL_FEATURES[level], features))
    return tuple(named.get(name) for name in ("position", "card", "given", "last", "swaps"))


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

