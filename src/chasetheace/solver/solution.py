"""``solve()`` and the :class:`Solution` it returns: the strategy, its losses, its NashConv."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..cards import Card, rank_char
from ..rules import Rules
from .hand import Deck, Hand, InfoKey, deck_of
from .measure import MAX_MEASURE_PLAYERS
from .words import describe_key

__all__ = ["AUTO_EXACT_PLAYERS", "METHODS", "MAX_EXACT_PLAYERS", "Solution", "solve", "infoset_of"]

METHODS = ("auto", "lp", "dcfr", "cfr+", "pcfr+", "iid", "sampled")
MAX_EXACT_PLAYERS = 6
"""The most players the exact tree takes (6 players: 8 M nodes, 24 M edges, a peak under 4 GB; 7
would need about ten times more)."""
MAX_PARTS_PLAYERS = 8
"""The most players CFR runs on the exact tree for, evaluated in parts (:mod:`.parts`). Measured
with two workers, standard rules: at 7 players 5 iterations to NashConv 2.6e-5 in 11.5 minutes
(ordered parts, before the pairs), at 8 players 3 iterations to 1.8e-4 in 41 minutes (4,500 CPU
seconds, 2.6 GB per worker). A part at 9 players is about ten times larger than at 8."""
AUTO_EXACT_PLAYERS = 5
"""The most players for which ``method="auto"`` uses the exact tree (5 players: 3.2 s and 0.61 GB
measured with the compiled passes; the exact tree at 6 players: 48 s and 3.7 GB)."""
EXACT_CHECK_PLAYERS = 6
"""Up to this many players a strategy that was not solved on the exact tree (methods ``iid`` and
``sampled``) is measured on it by default: NashConv by an exact best response in the true game.
Up to 8 on request (``exact_check=True``: the tree is then evaluated in 91 parts, see
:mod:`.parts`: minutes at 7 players, about ten at 8 on two workers); above, the
figures are those of the method (sampled estimates, or exact in the game without card removal)."""
WARM_PLAYERS = 3
"""From this many players CFR on the exact tree starts from the strategy solved without card removal
(measured, standard rules, to NashConv 1e-4 checked every 5 iterations: 5 iterations each at 3, 4
and 5 players, to 9.8e-6, 8.6e-6 and 2.2e-6, where from the uniform strategy it took 30, 35 and 40
iterations to 8.5e-5, 8.9e-5 and 9.4e-5; at 6 players 5 iterations to 3.2e-5)."""
WARM_ITERATIONS = 0
"""The weight of the warm start, in iterations (0: it is CFR's first iterate, nothing more)."""
MAX_IID_PLAYERS = 9
"""The most players for method ``iid`` (the hand without card removal: 9 players, 4 M nodes)."""
AUTO_IID_PLAYERS = 9
"""``method="auto"`` uses ``iid`` from 6 players up to this many, the sampled method above."""


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
        if key[0] >= 0 and len(_order(observation)) != self.players:
            raise ValueError(f"this solution is for {self.players} players, the hand has "
                             f"{len(_order(observation))}")
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

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable form (``Solution.from_dict`` reads it back)."""
        return {
            "format": "chase-the-ace solution 1",
            "rules": self.rules.to_dict(), "players": self.players, "method": self.method,
            "infosets": [[k[0], list(k[1]), k[2], k[3]] for k in self.infosets],
            "keep": self.keep, "reach": self.reach, "values": [list(v) for v in self.values],
            "loss_probabilities": self.loss_probabilities, "expected_lives_lost": self.expected_lives_lost,
            "nash_conv": self.nash_conv, "gains": self.gains, "iterations": self.iterations,
            "seconds": self.seconds, "value": None if self.value is None else str(self.value),
            "exact_keep": None if self.exact_keep is None else [str(x) for x in self.exact_keep],
            "trace": [list(t) for t in self.trace],
            "nash_conv_error": self.nash_conv_error, "loss_errors": self.loss_errors,
            "chances": None if self.chances is None else [list(c) for c in self.chances],
            "nash_conv_low": self.nash_conv_low, "measured": self.measured, "caveats": self.caveats,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Solution:
        """Read what :meth:`to_dict` wrote; ValueError if it is not a solution."""
        if not isinstance(data, Mapping) or data.get("format") != "chase-the-ace solution 1":
            raise ValueError("not a chase-the-ace solution (format 'chase-the-ace solution 1')")
        try:
            return cls(
                Rules.from_dict(data["rules"]), int(data["players"]), str(data["method"]),
                [(int(k[0]), tuple(k[1]), int(k[2]), int(k[3])) for k in data["infosets"]],
                [float(x) for x in data["keep"]], [float(x) for x in data["reach"]],
                [(float(a), float(b)) for a, b in data["values"]],
                [float(x) for x in data["loss_probabilities"]],
                [float(x) for x in data["expected_lives_lost"]], float(data["nash_conv"]),
                [float(x) for x in data["gains"]], int(data["iterations"]), float(data["seconds"]),
                None if data["value"] is None else Fraction(data["value"]),
                None if data["exact_keep"] is None else [Fraction(x) for x in data["exact_keep"]],
                [(int(a), float(b), float(c)) for a, b, c in data["trace"]],
                None if data.get("nash_conv_error") is None else float(data["nash_conv_error"]),
                None if data.get("loss_errors") is None else [float(x) for x in data["loss_errors"]],
                None if data.get("chances") is None else [(float(a), float(b)) for a, b in data["chances"]],
                None if data.get("nash_conv_low") is None else float(data["nash_conv_low"]),
                str(data.get("measured", "exact" if data.get("nash_conv_error") is None else "sampled")),
            )
        except (KeyError, TypeError, IndexError) as exc:
            raise ValueError(f"bad solution data: {exc}") from None

    def save(self, path: str) -> None:
        """Write the solution as JSON."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_dict(), f)

    @classmethod
    def load(cls, path: str) -> Solution:
        """Read a solution written by :meth:`save`."""
        with open(path, encoding="utf-8") as f:
            return cls.from_dict(json.load(f))

    def __repr__(self) -> str:
        return (f"<Solution {self.players} players, {self.method}, NashConv {self.nash_conv:.2e}, "
                f"losses {[round(p, 4) for p in self.loss_probabilities]}>")


def solve(rules: Rules | None = None, players: int = 5, *, method: str = "auto", iterations: int = 2000,
          tolerance: float = 1e-4, workers: int = 1, check_every: int = 10,
          time_limit: float | None = None, seed: int = 0, exact_check: bool | None = None,
          progress: Callable[[str], None] | None = None,
          on_check: Callable[[Any], None] | None = None) -> Solution:
    """An equilibrium of one hand with ``players`` seats under ``rules``.

    ``method``: ``"lp"`` (two players, exactly one loser: the exact sequence-form LP), ``"dcfr"``
    (discounted CFR), ``"cfr+"`` or ``"pcfr+"`` (predictive CFR+) on the exact tree, run until the
    exact NashConv is at most ``tolerance`` or for ``iterations``; ``"sampled"`` (mini-batch
    external-sampling MCCFR, ``iterations`` batches of 2000 hands or ``time_limit`` seconds (default
    60), seeded by ``seed``; its NashConv is estimated from 20,000 fresh hands, with
    ``nash_conv_error``). ``"auto"`` picks the LP where it applies, the exact tree up to
    :data:`AUTO_EXACT_PLAYERS` players, else the sampled method (ask for ``"dcfr"`` to solve 6
    players exactly). ``workers`` threads share the exact tree's passes (the result does not
    depend on it); ``time_limit`` applies to the sampled method only. ``progress``, if given, is
    called with a one-line status text as the work goes on (the command prints it on stderr);
    ``on_check`` with the CFR methods' :class:`~chasetheace.solver.cfr.Progress` at each NashConv
    check (the solution cache draws its progress bar from it).
    """
    rules = Rules() if rules is None else rules
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a Rules, not {type(rules).__name__}")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}: allowed {', '.join(METHODS)}")
    if not isinstance(iterations, int) or isinstance(iterations, bool) or iterations < 1:
        raise ValueError(f"bad iterations {iterations!r}: an integer >= 1")
    if not isinstance(tolerance, int | float) or tolerance < 0:
        raise ValueError(f"bad tolerance {tolerance!r}: a number >= 0")
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ValueError(f"bad workers {workers!r}: an integer >= 1")
    hand = Hand(rules, players)
    start = time.perf_counter()
    if exact_check and players > MAX_MEASURE_PLAYERS:
        raise ValueError(f"an exact best response is measured for up to {MAX_MEASURE_PLAYERS} players, "
                         f"not {players}")
    check = players <= EXACT_CHECK_PLAYERS if exact_check is None else exact_check
    iid_ok = not (rules.pairing or rules.kings_jerk)
    if method == "auto" and players > AUTO_EXACT_PLAYERS:
        method = "iid" if iid_ok and players <= AUTO_IID_PLAYERS else "sampled"
        if players <= MAX_EXACT_PLAYERS and iid_ok and exact_check is not False:
            method = "auto"  # the exact tree, started from the strategy without card removal
    if method == "sampled":
        limit = 60.0 if time_limit is None else time_limit
        return _from_sampled(hand, iterations, limit, seed, start, progress, check)
    if method == "iid":
        if not iid_ok:
            raise ValueError("method 'iid' does not model pairing or kings_jerk: use 'dcfr' or 'sampled'")
        if players > MAX_IID_PLAYERS:
            raise ValueError(f"method 'iid' handles 2..{MAX_IID_PLAYERS} players, not {players}: "
                             f"use method 'sampled'")
        return _from_iid(hand, iterations, tolerance, check_every, start, workers, progress, check)
    if players > MAX_EXACT_PLAYERS and method in ("dcfr", "cfr+", "pcfr+") and players <= MAX_PARTS_PLAYERS:
        return _from_parts(hand, method, iterations, tolerance, check_every, start, workers, progress,
                           on_check)
    if players > MAX_EXACT_PLAYERS:
        raise ValueError(f"the exact tree handles 2..{MAX_EXACT_PLAYERS} players in one piece and up to "
                         f"{MAX_PARTS_PLAYERS} in parts (methods dcfr, cfr+, pcfr+), not {players}: "
                         f"use method 'iid' or 'sampled'")
    if method in ("auto", "lp") and players == 2:
        from .lp import is_zero_sum, solve_zero_sum

        if is_zero_sum(hand):
            return _from_lp(hand, solve_zero_sum(hand), start)
        if method == "lp":
            raise ValueError("method 'lp' needs two players and exactly one life lost per hand "
                             "(ties not all-lose, no ace_pays_double), e.g. the le-her preset")
    elif method == "lp":
        raise ValueError("method 'lp' needs two players")
    return _from_cfr(hand, "dcfr" if method == "auto" else method, iterations, tolerance, check_every, start,
                     workers, progress, on_check)


def _engine(hand: Hand, workers: int = 1, progress: Callable[[str], None] | None = None) -> Any:
    from .cfr import Engine
    from .tree import Tree

    if progress is not None:
        progress(f"building the exact game tree of {hand.players} players")
    tree = Tree(hand)
    if progress is not None:
        progress(f"tree built: {tree.node_count:,} nodes, {len(tree.infosets):,} information sets")
    return Engine(tree, workers)


PURE = 1e-3
"""An action the strategy takes with less chance than this is taken as never taken, for beliefs:
CFR's average strategy keeps a trace of every action it ever tried."""
TREMBLE = 1e-6
"""The beliefs behind the per-situation values: every action is taken with at least this chance
(halved), so a situation the equilibrium never reaches still has well-defined beliefs."""
OFF_PATH = 0.01
"""A situation is off the equilibrium's path when its reach is below this share of its reach
with trembles; there the strategy is replaced by the best reply to the trembling beliefs."""


REFINE_ROUNDS = 4


def _tables(hand: Hand, engine: Any, sigma: Any, method: str, start: float, refine: bool = True,
            **extra: Any) -> Solution:
    if refine:
        sigma = _refine(engine, sigma)
    passes, shaky = engine.evaluate_beliefs(sigma, [None, _tremble(sigma)], table=True)
    reach = engine.info_reach(passes)
    gains = engine.gains(sigma, passes.cfv)
    belief = engine.info_reach(shaky)
    values = [(float(k / r), float(s / r)) if r > 0 else (0.0, 0.0)
              for (k, s), r in zip(shaky.cfv.tolist(), belief.tolist())]
    chances = [(float(k / r), float(s / r)) if r > 0 else (0.0, 0.0)
               for (k, s), r in zip(shaky.cfp.tolist(), belief.tolist())]
    return Solution(hand.rules, hand.players, method, list(engine.tree.infosets),
                    [float(x) for x in sigma[:, 0]], [float(r) for r in reach], values,
                    [float(x) for x in passes.losses], [float(x) for x in passes.lives],
                    float(gains.sum()), [float(g) for g in gains], seconds=time.perf_counter() - start,
                    chances=chances, **extra)


def _pure(sigma: Any) -> Any:
    """``sigma`` without the traces of actions it (almost) never takes."""
    import numpy as np

    out = np.where(sigma < PURE, 0.0, sigma)
    return out / out.sum(axis=1, keepdims=True)


def _tremble(sigma: Any) -> Any:
    return (1 - TREMBLE) * _pure(sigma) + TREMBLE / 2


def _refine(engine: Any, sigma: Any) -> Any:
    """Off the equilibrium's path (after a play it never makes), CFR's average strategy is noise
    (its regrets there are weighted by a reach near 0). From the dealer back to the eldest, play
    the best reply to the trembling beliefs there instead, so that later seats' play after a
    deviation is sensible (a review judges a deviation by it). Situations on the path keep the
    equilibrium."""
    import numpy as np

    sigma = sigma.copy()
    on_path = engine.info_reach(engine.reach(_pure(sigma)))
    for _ in range(REFINE_ROUNDS):  # beliefs depend on earlier seats' replies: again until settled
        changed = False

        def revise(position: int, reach: Any, cfv: Any) -> bool:
            # one pass does what a pass per position did: a position's reach depends only on the
            # earlier seats (not yet revised in this round), its values on the later (revised)
            nonlocal changed
            belief = engine.info_reach(reach)
            off = np.flatnonzero((engine.owner == position) & (on_path < OFF_PATH * belief))
            if not len(off):
                return False
            keep = cfv[off, 0] <= cfv[off, 1]
            changed = changed or bool(np.any(sigma[off, 0] != keep))
            moved = bool(np.any(sigma[off, 0] != keep) or np.any(sigma[off, 1] != ~keep))
            sigma[off, 0] = keep
            sigma[off, 1] = ~keep
            return moved

        engine.evaluate(sigma, precise=False, reach_sigma=_tremble(sigma), revise=revise)
        if not changed:
            break
    return sigma


def _reporter(method: str, tolerance: float, progress: Callable[[str], None] | None,
              on_check: Callable[[Any], None] | None) -> Callable[[Any], None]:
    """The callback of a CFR run: a progress line, and ``on_check``, at each NashConv check."""

    def report(p: Any) -> None:
        if progress is not None:
            progress(f"{method} iteration {p.iterations}: NashConv {p.nash_conv:.2e} "
                     f"(target {tolerance:g}), {p.seconds:.0f} s")
        if on_check is not None:
            on_check(p)

    return report


def _from_cfr(hand: Hand, method: str, iterations: int, tolerance: float, check_every: int,
              start: float, workers: int, progress: Callable[[str], None] | None = None,
              on_check: Callable[[Any], None] | None = None) -> Solution:
    """CFR on the exact tree; from :data:`WARM_PLAYERS` players it starts from the strategy solved
    without card removal, as CFR's first iterate (see :data:`WARM_ITERATIONS`)."""
    import numpy as np

    from .cfr import Engine, run_cfr
    from .tree import Tree

    warm = None
    if hand.players >= WARM_PLAYERS and not (hand.pairing or hand.jerk):
        if progress is not None:
            progress("solving without card removal first, to start from")
        model = Tree(hand, card_removal=False)
        rough, _ = run_cfr(Engine(model, workers), iterations=iterations, tolerance=tolerance,
                           check_every=check_every)
        index = {key: i for i, key in enumerate(model.infosets)}
        del model
    engine = _engine(hand, workers, progress)
    if hand.players >= WARM_PLAYERS and not (hand.pairing or hand.jerk):
        warm = np.array([rough[index[key]] for key in engine.tree.infosets])

    report = _reporter(method, tolerance, progress, on_check)
    # the warm strategy is the first iterate only: measured at 6 players, giving it the weight of
    # 10 iterations took 30 iterations to NashConv 9.3e-5, as the first iterate 5 to 3.2e-5
    sigma, record = run_cfr(engine, iterations=iterations, tolerance=tolerance, method=method,
                            check_every=check_every, start=start, callback=report, warm=warm,
                            warm_iterations=WARM_ITERATIONS)
    return _tables(hand, engine, sigma, method, start, iterations=record.iterations,
                   trace=record.trace)


def _from_parts(hand: Hand, method: str, iterations: int, tolerance: float, check_every: int,
                start: float, workers: int, progress: Callable[[str], None] | None = None,
                on_check: Callable[[Any], None] | None = None) -> Solution:
    """CFR on the exact tree evaluated in parts (:mod:`.parts`), started from the strategy solved
    without card removal as CFR's first iterate. Every NashConv check is an exact best response in
    the true game; the solution's figures are those of the last check (no refinement off the path:
    that would take a pass per round)."""
    import numpy as np

    from .cfr import Engine, run_cfr
    from .parts import PartsEngine
    from .tree import Tree

    if hand.pairing or hand.jerk:
        raise ValueError("the exact tree in parts starts from the hand without card removal, which does "
                         "not model pairing or kings_jerk")
    if progress is not None:
        progress("solving without card removal first, to start from")
    model = Tree(hand, card_removal=False)
    rough, _ = run_cfr(Engine(model, 1), iterations=max(iterations, 1000), tolerance=tolerance,
                       check_every=check_every)
    keys = list(model.infosets)
    del model

    report = _reporter(method, tolerance, progress, on_check)
    with PartsEngine(hand, keys, workers, progress) as engine:
        sigma, record = run_cfr(engine, iterations=iterations, tolerance=tolerance, method=method,
                                check_every=check_every, start=start, callback=report, warm=rough,
                                warm_iterations=WARM_ITERATIONS)
        got = engine.last  # the pass of the last check: the average strategy returned
    assert got is not None
    gains = engine.gains(sigma, got.cfv)
    on = np.flatnonzero(got.present)  # the situations of the true game

    def per(table: Any) -> list[tuple[float, float]]:
        return [(float(k / r), float(s / r)) if r > 0 else (0.0, 0.0)
                for (k, s), r in zip(table[on].tolist(), got.info_reach[on].tolist())]

    return Solution(hand.rules, hand.players, method, [keys[i] for i in on],
                    [float(x) for x in sigma[on, 0]], [float(r) for r in got.info_reach[on]], per(got.cfv),
                    [float(x) for x in got.losses], [float(x) for x in got.lives], float(gains.sum()),
                    [float(g) for g in gains], iterations=record.iterations,
                    seconds=time.perf_counter() - start, trace=record.trace, chances=per(got.cfp))


def _from_iid(hand: Hand, iterations: int, tolerance: float, check_every: int, start: float, workers: int,
              progress: Callable[[str], None] | None, check: bool) -> Solution:
    """DCFR on the hand without card removal; then, with ``check``, the strategy measured exactly in
    the true game (an exact best response on the exact tree)."""
    from .cfr import Engine, Progress, run_cfr
    from .tree import Tree

    if progress is not None:
        progress(f"building the tree of {hand.players} players without card removal")
    engine = Engine(Tree(hand, card_removal=False), workers)

    def report(p: Progress) -> None:
        if progress is not None:
            progress(f"iid iteration {p.iterations}: NashConv without card removal {p.nash_conv:.2e} "
                     f"(target {tolerance:g}), {p.seconds:.0f} s")

    sigma, record = run_cfr(engine, iterations=iterations, tolerance=tolerance, check_every=check_every,
                            start=start, callback=report)
    if not check:
        return _tables(hand, engine, sigma, "iid", start, iterations=record.iterations, trace=record.trace,
                       measured="abstract")
    from .measure import measure

    index = {key: i for i, key in enumerate(engine.tree.infosets)}
    keep = sigma[:, 0].tolist()
    # every situation of the true game also arises without card removal
    result = measure(hand, lambda key: keep[index[key]], progress=progress, workers=workers)
    return Solution(hand.rules, hand.players, "iid", result.infosets, result.keep, result.reach,
                    result.values, result.loss_probabilities, result.expected_lives_lost,
                    result.nash_conv, result.gains, iterations=record.iterations,
                    seconds=time.perf_counter() - start, trace=record.trace)


def _from_sampled(hand: Hand, batches: int, time_limit: float | None, seed: int, start: float,
                  progress: Callable[[str], None] | None = None, check: bool = True) -> Solution:
    """Train the sampled method; measure its strategy exactly on the exact tree where that fits
    (up to :data:`EXACT_CHECK_PLAYERS` players), else by the sampled estimates."""
    import numpy as np

    from .sampled import SampledSolver

    solver = SampledSolver(hand, seed=seed)
    def report(done: int, seconds: float) -> None:
        if progress is not None:
            limit = "" if time_limit is None else f" of {time_limit:.0f}"
            progress(f"sampled batch {done} of at most {batches}: {seconds:.0f}{limit} s")

    done = solver.train(batches, seconds=time_limit, callback=report)
    if progress is not None:
        progress("measuring the strategy")
    keys = solver.infosets()
    keep = [float(x) for x in solver.sigma(np.arange(len(keys)), average=True)]
    if check:
        from .measure import measure

        sampled = Solution(hand.rules, hand.players, "sampled", keys, keep, [0.0] * len(keys),
                           [(0.0, 0.0)] * len(keys), [], [], float("nan"), [])
        result = measure(hand, sampled.played_keep, progress=progress)
        return Solution(hand.rules, hand.players, "sampled", result.infosets, result.keep, result.reach,
                        result.values, result.loss_probabilities, result.expected_lives_lost,
                        result.nash_conv, result.gains, iterations=done,
                        seconds=time.perf_counter() - start)
    est = solver.estimate(20_000)
    met = [solver.met.get(i, (0.0, 0.0, 0.0)) for i in range(len(keys))]
    return Solution(hand.rules, hand.players, "sampled", keys, keep,
                    [m[0] for m in met], [(m[1], m[2]) for m in met], est.losses, est.lives,
                    est.nash_conv, [], iterations=done, seconds=time.perf_counter() - start,
                    nash_conv_error=est.nash_conv_error, loss_errors=est.losses_error,
                    nash_conv_low=est.nash_conv_low, measured="sampled")


def _from_lp(hand: Hand, lp: Any, start: float) -> Solution:
    import numpy as np

    engine = _engine(hand)
    index = {key: i for i, key in enumerate(lp.infosets)}
    keep = np.array([float(lp.keep[index[key]]) for key in engine.tree.infosets])
    sigma = np.c_[keep, 1 - keep]
    exact = [Fraction(lp.keep[index[key]]) for key in engine.tree.infosets] if lp.exact else None
    sol = _tables(hand, engine, sigma, "lp", start, refine=False,
                  value=lp.value if lp.exact else None, exact_keep=exact)
    if lp.exact:
        sol.nash_conv, sol.gains = 0.0, [0.0] * hand.players
    return sol


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


# --- observations ---------------------------------------------------------------------------------

def _order(observation: Mapping[str, Any]) -> list[int]:
    return list(observation["order"])


def infoset_of(observation: Mapping[str, Any], deck: Deck, *, kings_jerk: bool = False) -> InfoKey:
    """The solver's information set for the seat of ``observation`` (from ``game.observation``).

    Reads only what the seat may know: its card, the public actions of this hand (with
    ``kings_jerk``, who showed the top rank at the deal), and the card it gave when its right
    neighbour swapped with it.
    """
    seat = observation.get("seat")
    card = observation.get("card")
    if seat is None or card is None:
        raise ValueError("the observation must be a seat's own view during a hand")
    history = observation["history"]
    start = max((i for i, ev in enumerate(history) if ev.get("type") == "hand_started"), default=-1)
    if start < 0:
        raise ValueError("the observation has no hand in progress")
    order = list(history[start]["order"])
    tokens: list[str] = []
    jerked = ["0"] * len(order)
    given = -1
    for ev in history[start + 1:]:
        kind = ev.get("type")
        if kind == "king_jerk":
            jerked[order.index(ev["seat"])] = "1"
        elif kind == "keep":
            tokens.append("k")
        elif kind == "swap":
            tokens.append("s" if ev.get("announced") is None else "s" + rank_char(ev["announced"]))
            if ev.get("neighbour") == seat:
                given = deck.strength_of_rank(Card.parse(ev["received"]).rank)
        elif kind == "blocked":
            tokens.append("b")
        elif kind == "show_blocker":
            tokens.append("K")
    if kings_jerk:
        tokens.insert(0, "J" + "".join(jerked))
    return order.index(seat), tuple(tokens), deck.strength_of_rank(Card.parse(card).rank), given
