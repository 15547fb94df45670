"""``solve()``: an equilibrium of one hand by the method that :mod:`.choice` picks or the caller
names, as a :class:`~.solution.Solution`."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ...rules import Rules
from ..methods.measure import MAX_MEASURE_PLAYERS, SPLIT_PLAYERS
from ..model.hand import Hand
from .choice import (
    CFR_METHODS,
    EXACT_CHECK_PLAYERS,
    MAX_EXACT_PLAYERS,
    MAX_IID_PLAYERS,
    MAX_PARTS_PLAYERS,
    METHODS,
    REFINE_HANDS,
    WARM_PLAYERS,
    auto_choice,
    refine_passes,
    sampled_batches,
    summary_batches,
)
from .solution import Solution

if TYPE_CHECKING:
    from ..methods.checkpoint import Checkpoint
    from ..methods.measure import Measure
    from ..methods.parts import Runner

__all__ = ["AGREE_GAP", "AGREE_PASSES", "Batches", "agree_in_parts", "disagreeing", "solve"]


def solve(rules: Rules | None = None, players: int = 5, *, method: str = "auto",
          iterations: int | None = None,
          tolerance: float = 1e-4, workers: int = 1, check_every: int = 10,
          time_limit: float | None = None, seed: int = 0, exact_check: bool | None = None,
          progress: Callable[[str], None] | None = None,
          on_check: Callable[[Any], None] | None = None,
          checkpoint: str | os.PathLike[str] | None = None, cluster: str | None = None,
          refine: int | None = None, refine_hands: int | None = None) -> Solution:
    """An equilibrium of one hand with ``players`` seats under ``rules``.

    ``method``: ``"lp"`` (two players, exactly one loser: the exact sequence-form LP), ``"dcfr"``
    (discounted CFR), ``"cfr+"`` or ``"pcfr+"`` (predictive CFR+) on the exact tree (up to
    :data:`~.choice.MAX_EXACT_PLAYERS` players in one piece, up to :data:`~.choice.MAX_PARTS_PLAYERS`
    in parts), run until the exact NashConv is at most ``tolerance`` or for ``iterations`` (default
    2000); ``"iid"`` (DCFR on the hand without card removal, then measured in the true game);
    ``"sampled"`` (mini-batch external-sampling MCCFR, ``iterations`` batches of 2000 hands, by default
    :func:`~.choice.sampled_batches`, seeded by ``seed``: the same call gives the same strategy on any
    machine at any load; its NashConv is estimated from 20,000 fresh hands, with
    ``nash_conv_error``); ``"summary"`` (the same on a summary of the public history,
    :class:`~chasetheace.solver.methods.sampled.SummarySolver`, by default
    :func:`~.choice.summary_batches`: its situations are keyed by
    :func:`~chasetheace.solver.methods.sampled.summary_key`, and the solution looks a situation up
    by its summary; after training, ``refine`` passes, by default :func:`~.choice.refine_passes`, of
    best-response-guided refinement, :meth:`~chasetheace.solver.methods.sampled.SummarySolver.refine`,
    of ``refine_hands`` fresh hands each, by default :data:`~.choice.REFINE_HANDS`: seeded and counted
    in hands too, recorded in the solution's ``refined`` and :attr:`~.solution.Solution.method_text`;
    ``refine=0`` trains only). ``"auto"`` follows the table :data:`~.choice.AUTO`: the
    LP where it applies, the exact tree up to 5 players, and at 6 without pairing or kings_jerk
    unless ``exact_check=False``; else ``iid`` up to 9 players without pairing or kings_jerk, else
    the sampled method. ``exact_check``: whether a strategy not solved on the exact tree is
    measured on it (default up to :data:`~.choice.EXACT_CHECK_PLAYERS` players). ``workers``
    threads share the exact tree's passes (the result does not depend on it); ``time_limit``
    (seconds; none by default) stops the sampled method's training early as well: its result then
    depends on the machine's speed and load. ``progress``, if given, is called with a one-line status
    text as the work goes on (the command prints it on stderr); ``on_check`` with the CFR methods'
    (and ``iid``'s) :class:`~chasetheace.solver.methods.cfr.Progress` at each NashConv check, and
    with the sampled method's :class:`Batches` after each mini-batch and each
    :data:`REFINE_BATCH` hands of a refinement pass (the solution cache draws its progress bar from
    them).

    ``checkpoint`` (a folder; the CFR methods and ``iid``): keep there each CFR iterate and each
    finished part of a pass over the exact tree in parts (the sampled and summary methods: the
    learner's state every :data:`LEARNER_EVERY` mini-batches and after each refinement pass), so that the
    same call after a crash or a
    kill resumes where it stopped and returns the same solution, bit for bit, as an uninterrupted
    run (only the times differ): see :mod:`~chasetheace.solver.methods.checkpoint`. A folder of
    another solve (rules, players, method, iterations, tolerance, check_every, exact_check,
    versions) is refused with ValueError. ``cluster`` (``"auto"``: the running Ray cluster;
    ``"ray://host:port"``: a remote one; needs the ``cluster`` extra): the parts of the exact tree
    (from :data:`~chasetheace.solver.methods.measure.SPLIT_PLAYERS` players) run as Ray tasks
    instead of local processes, with the same result (:mod:`~chasetheace.solver.methods.cluster`).
    Both are checked, and the cluster reached, before any work.
    """
    rules = Rules() if rules is None else rules
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a Rules, not {type(rules).__name__}")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}: allowed {', '.join(METHODS)}")
    if iterations is not None and (not isinstance(iterations, int) or isinstance(iterations, bool)
                                   or iterations < 1):
        raise ValueError(f"bad iterations {iterations!r}: an integer >= 1")
    if time_limit is not None and (not isinstance(time_limit, int | float) or isinstance(time_limit, bool)
                                   or not time_limit > 0):
        raise ValueError(f"bad time_limit {time_limit!r}: a number of seconds > 0")
    if not isinstance(tolerance, int | float) or tolerance < 0:
        raise ValueError(f"bad tolerance {tolerance!r}: a number >= 0")
    if not isinstance(check_every, int) or isinstance(check_every, bool) or check_every < 1:
        raise ValueError(f"bad check_every {check_every!r}: an integer >= 1")
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ValueError(f"bad workers {workers!r}: an integer >= 1")
    if refine is not None and (not isinstance(refine, int) or isinstance(refine, bool) or refine < 0):
        raise ValueError(f"bad refine {refine!r}: an integer >= 0 (passes of refinement)")
    if refine_hands is not None and (not isinstance(refine_hands, int) or isinstance(refine_hands, bool)
                                     or refine_hands < 1):
        raise ValueError(f"bad refine_hands {refine_hands!r}: an integer >= 1 (hands a pass)")
    hand = Hand(rules, players)
    start = time.perf_counter()
    if exact_check and players > MAX_MEASURE_PLAYERS:
        raise ValueError(f"an exact best response is measured for up to {MAX_MEASURE_PLAYERS} players, "
                         f"not {players}")
    check = players <= EXACT_CHECK_PLAYERS if exact_check is None else exact_check
    run = auto_choice(hand, exact_check).method if method == "auto" else method
    if iterations is None:
        iterations = (sampled_batches(players) if run == "sampled" else summary_batches(players)
                      if run == "summary" else 2000)
    if run != "summary" and (refine or refine_hands is not None):
        raise ValueError(f"refine and refine_hands apply to method 'summary' only (refinement after "
                         f"training), not to {run!r}")
    passes = (refine_passes(players) if refine is None else refine) if run == "summary" else 0
    hands = REFINE_HANDS if refine_hands is None else refine_hands
    if run == "iid":
        if hand.pairing or hand.jerk:
            raise ValueError("method 'iid' does not model pairing or kings_jerk: use 'dcfr' or 'sampled'")
        if players > MAX_IID_PLAYERS:
            raise ValueError(f"method 'iid' handles 2..{MAX_IID_PLAYERS} players, not {players}: "
                             f"use method 'sampled'")
    in_parts = run in CFR_METHODS and MAX_EXACT_PLAYERS < players <= MAX_PARTS_PLAYERS
    if run in CFR_METHODS and not in_parts and players > MAX_EXACT_PLAYERS:
        raise ValueError(f"the exact tree handles 2..{MAX_EXACT_PLAYERS} players in one piece and up to "
                         f"{MAX_PARTS_PLAYERS} in parts (methods dcfr, cfr+, pcfr+), not {players}: "
                         f"use method 'iid' or 'sampled'")
    # the checkpoint and the cluster are checked, and the cluster reached, before any work
    if checkpoint is not None and run not in (*CFR_METHODS, "iid", "sampled", "summary"):
        raise ValueError(f"checkpoint keeps CFR's iterates or a learner's state: methods "
                         f"{', '.join(CFR_METHODS)}, iid, sampled and summary, not {run!r}")
    if checkpoint is not None and time_limit is not None and run in ("sampled", "summary"):
        raise ValueError("checkpoint with time_limit: a resumed training must not depend on the clock")
    runner = None
    if cluster is not None:
        from ..methods.cluster import RayRunner, check_address

        check_address(cluster)
        measured_in_parts = run in ("iid", "sampled", "summary") and check and players >= SPLIT_PLAYERS
        if not (in_parts or measured_in_parts):
            raise ValueError(f"cluster runs the parts of the exact tree ({SPLIT_PLAYERS} to "
                             f"{MAX_PARTS_PLAYERS} players: methods {', '.join(CFR_METHODS)}, or an exact "
                             f"check of iid or sampled); {run} at {players} players runs here")

        runner = RayRunner(cluster)  # reached now: an unreachable cluster is an error before any work
    try:
        store = None
        if checkpoint is not None:
            if run in ("sampled", "summary"):  # what changes a learner's result: its budget and seed
                # and its refinement (named only when there is some: a training-only folder stays valid)
                more = {"refine": [passes, hands]} if passes else {}
                store = open_checkpoint(checkpoint, hand, run, iterations=iterations, exact_check=check,
                                        seed=seed, **more)
            else:
                store = open_checkpoint(checkpoint, hand, run, iterations=iterations, tolerance=tolerance,
                                        check_every=check_every, exact_check=check if run == "iid" else None)
            finished = _finished(store)
            if finished is not None:  # this very solve, finished before: at once
                finished.seconds = time.perf_counter() - start
                return finished
        sol = _solve(hand, run, iterations, tolerance, check_every, start, workers, progress, on_check,
                     check, time_limit, seed, store, runner, (passes, hands))
        if store is not None:
            from .packed import write_npz

            store.write(FINISHED, lambda f: write_npz(sol, f))
        return sol
    finally:
        if runner is not None:
            runner.disconnect()


def _solve(hand: Hand, run: str, iterations: int, tolerance: float, check_every: int, start: float,
           workers: int, progress: Callable[[str], None] | None, on_check: Callable[[Any], None] | None,
           check: bool, time_limit: float | None, seed: int, store: Checkpoint | None,
           runner: Runner | None, refine: tuple[int, int] = (0, 0)) -> Solution:
    players = hand.players
    if run in ("sampled", "summary"):
        return _from_sampled(hand, iterations, time_limit, seed, start, progress, check, runner, on_check,
                             run == "summary", store, refine)
    if run == "iid":
        return _from_iid(hand, iterations, tolerance, check_every, start, workers, progress, check, store,
                         runner, on_check)
    if run in CFR_METHODS and MAX_EXACT_PLAYERS < players <= MAX_PARTS_PLAYERS:
        return _from_parts(hand, run, iterations, tolerance, check_every, start, workers, progress, on_check,
                           checkpoint=store, runner=runner)
    if run == "lp":
        from ..methods.lp import is_zero_sum, solve_zero_sum

        if players != 2:
            raise ValueError("method 'lp' needs two players")
        if not is_zero_sum(hand):
            raise ValueError("method 'lp' needs two players and exactly one life lost per hand "
                             "(ties not all-lose, no ace_pays_double), e.g. the le-her preset")
        return _from_lp(hand, solve_zero_sum(hand), start)
    return _from_cfr(hand, run, iterations, tolerance, check_every, start, workers, progress, on_check, store)


def open_checkpoint(folder: str | os.PathLike[str], hand: Hand, method: str, **parameters: Any) -> Checkpoint:
    """The checkpoint folder of a solve of ``hand`` by ``method`` with ``parameters`` (those that
    change its result): made if new, refused (ValueError) if it holds another solve."""
    from ..methods.checkpoint import SOLVER, Checkpoint

    if not isinstance(folder, str | os.PathLike) or not str(folder):
        raise ValueError(f"bad checkpoint {folder!r}: a folder")
    manifest = {"solver": SOLVER, "rules": json.loads(json.dumps(hand.rules.to_dict(), sort_keys=True)),
                "players": hand.players, "method": method, **parameters}
    store = Checkpoint(folder, manifest)
    store.check("warm.npz", "iterate.npz", LEARNER)  # a damaged file is one error now, before any work
    return store


FINISHED = "solution.npz"
"""The file of a checkpoint that holds the finished solve's solution (the compact binary form)."""


def _finished(store: Checkpoint) -> Solution | None:
    """The solution a checkpoint holds when its solve finished (None if it has not)."""
    import zipfile

    path = store.folder / FINISHED
    if not path.exists():
        return None
    try:
        return Solution.load(str(path))
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"checkpoint {store.folder}: broken file {FINISHED} ({exc}): remove it to "
                         "compute it again") from None


def _warm_from(store: Checkpoint | None, model: Any, workers: int, **cfr: Any) -> Any:
    """The strategy solved without card removal (on ``model``) that CFR starts from: from the
    checkpoint if it holds one, else solved by :func:`~..methods.cfr.run_cfr` with ``cfr`` (and
    saved there)."""
    from ..methods.cfr import Engine, run_cfr

    if store is not None and (had := store.load("warm.npz")) is not None:
        return had["sigma"]
    rough = run_cfr(Engine(model, workers), **cfr)[0]
    if store is not None:
        store.save("warm.npz", sigma=rough)
    return rough


def _engine(hand: Hand, workers: int = 1, progress: Callable[[str], None] | None = None) -> Any:
    from ..methods.cfr import Engine
    from ..model.tree import Tree

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
AGREE_GAP = 1e-3
"""A situation where the strategy mostly plays the action its own figures call worse by more than
this many lives is played by the better one (:func:`agree`): the hints' :data:`MISTAKE
<chasetheace.solver.uses.advice.MISTAKE>`, so that the hint and the solved bot agree."""


def _tables(hand: Hand, engine: Any, sigma: Any, method: str, start: float, refine: bool = True,
            **extra: Any) -> Solution:
    if refine:
        sigma = agree(engine, _refine(engine, sigma))
    passes, shaky = engine.evaluate_beliefs(sigma, [None, _tremble(sigma)], table=True)
    reach = engine.info_reach(passes)
    gains = engine.gains(sigma, passes.cfv)
    belief = engine.info_reach(shaky)
    values = [(float(k / r), float(s / r)) if r > 0 else (0.0, 0.0)
              for (k, s), r in zip(shaky.cfv.tolist(), belief.tolist())]
    chances = [(float(k / r), float(s / r)) if r > 0 else (0.0, 0.0)
               for (k, s), r in zip(shaky.cfp.tolist(), belief.tolist())]
    return Solution(rules=hand.rules, players=hand.players, method=method,
                    infosets=list(engine.tree.infosets), keep=[float(x) for x in sigma[:, 0]],
                    reach=[float(r) for r in reach], values=values,
                    loss_probabilities=[float(x) for x in passes.losses],
                    expected_lives_lost=[float(x) for x in passes.lives], nash_conv=float(gains.sum()),
                    gains=[float(g) for g in gains], seconds=time.perf_counter() - start, chances=chances,
                    **extra)


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


def agree(engine: Any, sigma: Any, gap: float = AGREE_GAP) -> Any:
    """``sigma`` played, where it mostly plays the action its own figures call worse by more than
    ``gap`` lives, by the better action, wherever that does not raise its NashConv.

    CFR's average strategy stops at a NashConv target (1e-4 lives a hand), which a situation of
    tiny reach meets while mostly playing an action worse by a hundredth of a life: the strategy
    is not a best reply there to its own play (measured without card removal, standard rules: 48
    of 20,340 situations at 6 players, 927 of 183,636 at 8, reached together in under a thousandth
    of the hands), and a hint there would call the action the solved bot does not play. The
    figures are given under the beliefs of :func:`_tremble`, so that is where a better action is
    judged. Position by position from the dealer back to the eldest, the position's situations that
    disagree play the better action, then each later position's that disagree under the changed
    beliefs, the change kept only if the NashConv (of the tree: ``engine``) is not higher; again
    until no position's change is kept (:data:`REFINE_ROUNDS` times at most). Measured by
    ``benchmarks/agree.py``: at 8 players 927 to 80 such situations (846 to 10 by more than 0.01
    lives), NashConv without card removal 8.3e-5 to 5.6e-5."""
    import numpy as np

    players = engine.tree.hand.players

    def judged(play: Any) -> tuple[float, Any, Any]:
        """NashConv, the situations that disagree, and the figures' counterfactual values."""
        own, shaky = engine.evaluate_beliefs(play, [None, _tremble(play)])
        belief = engine.info_reach(shaky)
        cfv = shaky.cfv.reshape(-1, 2)
        diff = np.where(belief > 0, (cfv[:, 0] - cfv[:, 1]) / np.where(belief > 0, belief, 1.0), 0.0)
        wrong = ((diff > gap) & (play[:, 0] > 0.5)) | ((diff < -gap) & (play[:, 0] < 0.5))
        return float(engine.gains(play, own.cfv).sum()), wrong, cfv

    def better(play: Any, at: Any, cfv: Any) -> None:
        keep = cfv[at, 0] <= cfv[at, 1]
        play[at, 0] = keep
        play[at, 1] = ~keep

    sigma = np.array(sigma, dtype=np.float64)
    nash_conv, wrong, cfv = judged(sigma)
    for _ in range(REFINE_ROUNDS):
        kept = False
        for position in reversed(range(players)):
            at = np.flatnonzero(wrong & (engine.owner == position))
            if not len(at):
                continue
            trial = sigma.copy()
            better(trial, at, cfv)
            for later in range(position + 1, players):  # their beliefs changed: they reply again
                _, wrong_now, cfv_now = judged(trial)
                better(trial, np.flatnonzero(wrong_now & (engine.owner == later)), cfv_now)
            got = judged(trial)
            if got[0] <= nash_conv:
                sigma, (nash_conv, wrong, cfv), kept = trial, got, True
        if not kept:
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
              on_check: Callable[[Any], None] | None = None, store: Checkpoint | None = None) -> Solution:
    """CFR on the exact tree; from :data:`~.choice.WARM_PLAYERS` players it starts from the strategy
    solved without card removal, as CFR's first iterate."""
    import numpy as np

    from ..methods.cfr import run_cfr
    from ..model.tree import Tree

    warm = None
    if hand.players >= WARM_PLAYERS and not (hand.pairing or hand.jerk):
        if progress is not None:
            progress("solving without card removal first, to start from")
        model = Tree(hand, card_removal=False)
        rough = _warm_from(store, model, workers, iterations=iterations, tolerance=tolerance,
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
                            checkpoint=store)
    return _tables(hand, engine, sigma, method, start, iterations=record.iterations,
                   trace=record.trace)


def _from_parts(hand: Hand, method: str, iterations: int, tolerance: float, check_every: int,
                start: float, workers: int, progress: Callable[[str], None] | None = None,
                on_check: Callable[[Any], None] | None = None, *, checkpoint: Checkpoint | None = None,
                runner: Runner | None = None) -> Solution:
    """CFR on the exact tree evaluated in parts (:mod:`..methods.parts`), started from the strategy solved
    without card removal as CFR's first iterate. Every NashConv check is an exact best response in
    the true game; the solution's figures are those of the last check (no refinement off the path:
    that takes a pass per try, :func:`agree_in_parts`). ``checkpoint``: keep the iterates and parts
    there, and resume from them; ``runner``: who runs the parts (default ``workers`` local
    processes)."""
    from ..methods.cfr import run_cfr
    from ..methods.parts import PartsEngine
    from ..model.tree import Tree

    if hand.pairing or hand.jerk:
        raise ValueError("the exact tree in parts starts from the hand without card removal, which does "
                         "not model pairing or kings_jerk")
    if progress is not None:
        progress("solving without card removal first, to start from")
    model = Tree(hand, card_removal=False)
    rough = _warm_from(checkpoint, model, 1, iterations=max(iterations, 1000), tolerance=tolerance,
                       check_every=check_every)
    keys = list(model.infosets)
    del model

    report = _reporter(method, tolerance, progress, on_check)
    with PartsEngine(hand, keys, workers, progress, runner=runner, checkpoint=checkpoint) as engine:
        sigma, record = run_cfr(engine, iterations=iterations, tolerance=tolerance, method=method,
                                check_every=check_every, start=start, callback=report, warm=rough,
                                checkpoint=checkpoint)
        got = engine.last  # the pass of the last check: the average strategy returned
        if got is None:  # a finished solve run again: that pass, from the checkpoint
            got = engine.evaluate(sigma)
    assert got is not None
    return _parts_solution(hand, method, keys, sigma, got, engine.gains(sigma, got.cfv),
                           iterations=record.iterations, seconds=time.perf_counter() - start,
                           trace=record.trace)


def _parts_solution(hand: Hand, method: str, keys: list[Any], sigma: Any, got: Any, gains: Any,
                    **extra: Any) -> Solution:
    """The solution of ``sigma`` (rows: ``keys``) from an exact pass over the parts (``got``: its
    sums, ``gains``: the best responses'), with the situations of the true game only."""
    import numpy as np

    on = np.flatnonzero(got.present)  # the situations of the true game

    def per(table: Any) -> list[tuple[float, float]]:
        return [(float(k / r), float(s / r)) if r > 0 else (0.0, 0.0)
                for (k, s), r in zip(table[on].tolist(), got.info_reach[on].tolist())]

    return Solution(rules=hand.rules, players=hand.players, method=method, infosets=[keys[i] for i in on],
                    keep=[float(x) for x in sigma[on, 0]], reach=[float(r) for r in got.info_reach[on]],
                    values=per(got.cfv), loss_probabilities=[float(x) for x in got.losses],
                    expected_lives_lost=[float(x) for x in got.lives], nash_conv=float(gains.sum()),
                    gains=[float(g) for g in gains], chances=per(got.cfp), **extra)


AGREE_PASSES = 1
"""Exact passes over the parts that :func:`agree_in_parts` tries at most."""


def disagreeing(solution: Solution, gap: float = AGREE_GAP) -> list[int]:
    """The situations (indices into ``solution.infosets``) where the strategy mostly plays the
    action its own figures (``values``: the lives each action loses from there) call worse by more
    than ``gap`` lives: there the hint and the solved bot would disagree."""
    wrong = []
    for i, (keep, (kept, swapped)) in enumerate(zip(solution.keep, solution.values)):
        if (kept - swapped > gap and keep > 0.5) or (swapped - kept > gap and keep < 0.5):
            wrong.append(i)
    return wrong


def agree_in_parts(solution: Solution, workers: int = 1, *, passes: int = AGREE_PASSES,
                   gap: float = AGREE_GAP, checkpoint: Checkpoint | None = None,
                   runner: Runner | None = None,
                   progress: Callable[[str], None] | None = None) -> tuple[Solution, list[int]]:
    """``solution`` (solved on the exact tree in parts) played, in the situations of
    :func:`disagreeing`, by the action its figures call better, wherever that does not raise its
    exact NashConv: :func:`agree` for tables too big for one tree. Each try changes every such
    situation at once and costs one exact pass over the parts (a best response in the true game):
    kept if the NashConv is not higher, then tried again on the figures of the changed strategy,
    ``passes`` passes at most. Returns the solution (its figures from the last kept pass, its
    ``nash_conv`` exact) and the number of disagreeing situations before each pass and after the
    last. ``checkpoint``: every finished part kept there (a run stopped resumes)."""
    import numpy as np

    from ..methods.parts import PartsEngine

    if not (isinstance(passes, int) and not isinstance(passes, bool) and passes >= 1):
        raise ValueError(f"bad passes {passes!r}: an integer >= 1")
    hand = Hand(solution.rules, solution.players)
    keys = list(solution.infosets)  # every situation of the true game, as the parts make them
    sigma = np.array([[k, 1.0 - k] for k in solution.keep], dtype=np.float64)
    best, counts = solution, []
    with PartsEngine(hand, keys, workers, progress, runner=runner, checkpoint=checkpoint) as engine:
        for _ in range(passes):
            wrong = disagreeing(best, gap)
            counts.append(len(wrong))
            if not wrong:
                return best, counts
            trial = sigma.copy()
            for i in wrong:
                kept, swapped = best.values[i]
                trial[i] = (1.0, 0.0) if kept <= swapped else (0.0, 1.0)
            got = engine.evaluate(trial)
            gains = engine.gains(trial, got.cfv)
            if progress is not None:
                progress(f"{len(wrong)} situations played by the better action: NashConv "
                         f"{best.nash_conv:.3e} -> {float(gains.sum()):.3e}")
            if float(gains.sum()) > best.nash_conv:
                return best, counts
            changed = _parts_solution(hand, solution.method, keys, trial, got, gains,
                                      iterations=solution.iterations, seconds=solution.seconds,
                                      trace=solution.trace)
            if len(changed.infosets) != len(keys):
                raise ValueError("the solution's situations are not those of the true game's parts")
            sigma, best = trial, changed
    counts.append(len(disagreeing(best, gap)))
    return best, counts


def _from_iid(hand: Hand, iterations: int, tolerance: float, check_every: int, start: float, workers: int,
              progress: Callable[[str], None] | None, check: bool, store: Checkpoint | None = None,
              runner: Runner | None = None, on_check: Callable[[Any], None] | None = None) -> Solution:
    """DCFR on the hand without card removal; then, with ``check``, the strategy measured exactly in
    the true game (an exact best response on the exact tree). ``on_check`` hears each NashConv
    check of the model (a progress bar's steps)."""
    from ..methods.cfr import Engine, Progress, run_cfr
    from ..model.tree import Tree

    if progress is not None:
        progress(f"building the tree of {hand.players} players without card removal")
    engine = Engine(Tree(hand, card_removal=False), workers)

    def report(p: Progress) -> None:
        if progress is not None:
            progress(f"iid iteration {p.iterations}: NashConv without card removal {p.nash_conv:.2e} "
                     f"(target {tolerance:g}), {p.seconds:.0f} s")
        if on_check is not None:
            on_check(p)

    sigma, record = run_cfr(engine, iterations=iterations, tolerance=tolerance, check_every=check_every,
                            start=start, callback=report, checkpoint=store)
    if not check:
        return _tables(hand, engine, sigma, "iid", start, iterations=record.iterations, trace=record.trace,
                       measured="abstract")
    from ..methods.measure import measure

    index = {key: i for i, key in enumerate(engine.tree.infosets)}
    keep = sigma[:, 0].tolist()
    # every situation of the true game also arises without card removal
    result = measure(hand, lambda key: keep[index[key]], progress=progress, workers=workers, runner=runner,
                     checkpoint=store, keys=list(engine.tree.infosets))
    return _measured(hand, "iid", result, iterations=record.iterations, seconds=time.perf_counter() - start,
                     trace=record.trace)


@dataclass(frozen=True)
class Batches:
    """How far a solve by the sampled method has come, in hands played (each costs about the same,
    in training as in the estimate: measured 2026-11-27, standard rules, CPU seconds at a load
    average of 17: at 12 players 84 batches of 2,000 hands took 9.6 s, the 20,000 hands of the
    estimate 1.4; at 20 players 30 batches 8.7 s and the estimate 3.8): what
    ``solve(on_check=...)`` hears after each mini-batch of training, each :data:`REFINE_BATCH` hands
    of a refinement pass (the summary method) and each batch of the estimate (a progress bar's
    steps), then once as it builds the solution's tables (seconds at 20 players)."""

    done: int       # hands played so far
    total: int      # hands to play: the training's, the refinement's and the estimate's
    seconds: float
    what: str       # what is being done, in words


LEARNER = "learner.npz"
"""The file of a checkpoint of the sampled or summary method: the learner's state
(:meth:`~chasetheace.solver.methods.sampled.SampledSolver.state`)."""
LEARNER_EVERY = 10
"""The sampled and summary methods write their state to a checkpoint every this many mini-batches."""
BATCH = 2000
"""The sampled method's mini-batch: hands dealt per training step (``SampledSolver.train``'s default)."""
ESTIMATE_HANDS = 20_000
"""The fresh hands the sampled method's figures are estimated from."""
REFINE_BATCH = 5000
"""The hands a refinement pass plays at once (``SummarySolver.refine``'s ``batch``): the progress
bar moves after each."""


def _from_sampled(hand: Hand, batches: int, time_limit: float | None, seed: int, start: float,
                  progress: Callable[[str], None] | None = None, check: bool = True,
                  runner: Runner | None = None, on_check: Callable[[Any], None] | None = None,
                  summary: bool = False, store: Checkpoint | None = None,
                  refine: tuple[int, int] = (0, 0)) -> Solution:
    """Train the sampled method (``summary``: on a summary of the history), then (``summary``) run
    ``refine[0]`` passes of :meth:`~..methods.sampled.SummarySolver.refine` of ``refine[1]`` hands
    each; measure its strategy exactly on the exact tree where that fits (up to
    :data:`~.choice.EXACT_CHECK_PLAYERS` players), else by the sampled estimates. ``store``: a
    checkpoint that the learner's state is written to every :data:`LEARNER_EVERY` mini-batches, at
    the end of training and after each refinement pass, and resumed from (a pass cut short is run
    again from the state before it: the same random numbers, the same result)."""
    import numpy as np

    from ..methods.sampled import SampledSolver, SummarySolver

    method = "summary" if summary else "sampled"
    solver = SummarySolver(hand, seed=seed) if summary else SampledSolver(hand, seed=seed)
    if store is not None:
        state = store.load(LEARNER)
        if state is not None:
            solver.restore(state)
    passes, per_pass = refine
    total = batches * BATCH + passes * per_pass + (0 if check else ESTIMATE_HANDS)

    def report(done: int, seconds: float) -> None:
        if progress is not None:
            limit = "" if time_limit is None else f" (at most {time_limit:.0f} s)"
            progress(f"sampled batch {done} of {batches}: {seconds:.0f} s{limit}")
        if on_check is not None:
            on_check(Batches(done * BATCH, total, seconds, f"training, batch {done} of {batches}"))
        if store is not None and (done % LEARNER_EVERY == 0 or done == batches):
            store.save(LEARNER, **solver.state())

    done = solver.train(batches, seconds=time_limit, callback=report)
    if passes:
        assert isinstance(solver, SummarySolver)
        while solver.refined < passes:
            before = done * BATCH + solver.refined * per_pass
            now = solver.refined + 1

            def refining(hands: int, before: int = before, now: int = now) -> None:
                seconds = time.perf_counter() - start
                if progress is not None and hands == per_pass:
                    progress(f"refinement pass {now} of {passes} ({per_pass:,} hands): {seconds:.0f} s")
                if on_check is not None:
                    on_check(Batches(before + hands, total, seconds,
                                     f"refining, pass {now} of {passes}, {hands:,} of {per_pass:,} hands"))

            solver.refine(per_pass, batch=REFINE_BATCH, callback=refining)
            if store is not None:
                store.save(LEARNER, **solver.state())
    if progress is not None:
        progress("measuring the strategy")
    keys = solver.infosets()
    keep = [float(x) for x in solver.sigma(np.arange(len(keys)), average=True)]
    if check:
        from ..methods.measure import measure

        # the strategy alone, to play it (``played_keep``) where the training never met a situation
        sampled = Solution(rules=hand.rules, players=hand.players, method=method, infosets=keys, keep=keep,
                           reach=[0.0] * len(keys), values=[(0.0, 0.0)] * len(keys), loss_probabilities=[],
                           expected_lives_lost=[], nash_conv=float("nan"), gains=[])
        result = measure(hand, sampled.played_keep, progress=progress, runner=runner)
        return _measured(hand, method, result, iterations=done, seconds=time.perf_counter() - start,
                         refined=(passes, per_pass) if passes else None)
    trained = done * BATCH + passes * per_pass

    def estimated(hands: int) -> None:
        if on_check is not None:
            on_check(Batches(trained + hands, trained + ESTIMATE_HANDS, time.perf_counter() - start,
                             f"estimating its figures, {hands:,} of {ESTIMATE_HANDS:,} hands"))

    est = solver.estimate(ESTIMATE_HANDS, callback=estimated)
    if on_check is not None:  # seconds at 20 players (500,000 situations): the bar says what it waits for
        on_check(Batches(trained + ESTIMATE_HANDS, trained + ESTIMATE_HANDS, time.perf_counter() - start,
                         f"building the tables of {len(keys):,} situations"))
    met = [solver.met.get(i, (0.0, 0.0, 0.0)) for i in range(len(keys))]
    return Solution(rules=hand.rules, players=hand.players, method=method, infosets=keys, keep=keep,
                    reach=[m[0] for m in met], values=[(m[1], m[2]) for m in met],
                    loss_probabilities=est.losses, expected_lives_lost=est.lives, nash_conv=est.nash_conv,
                    gains=[], iterations=done,
                    seconds=time.perf_counter() - start, nash_conv_error=est.nash_conv_error,
                    loss_errors=est.losses_error, nash_conv_low=est.nash_conv_low, measured="sampled",
                    refined=(passes, per_pass) if passes else None)


def _measured(hand: Hand, method: str, result: Measure, **extra: Any) -> Solution:
    """The solution of a strategy measured on the exact tree (``result``: from
    :func:`~chasetheace.solver.methods.measure.measure`)."""
    return Solution(rules=hand.rules, players=hand.players, method=method, infosets=result.infosets,
                    keep=result.keep, reach=result.reach, values=result.values,
                    loss_probabilities=result.loss_probabilities,
                    expected_lives_lost=result.expected_lives_lost, nash_conv=result.nash_conv,
                    gains=result.gains, **extra)


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
