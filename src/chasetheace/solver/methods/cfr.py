"""Counterfactual regret minimisation over the fast tree, vectorised with numpy.

Every seat acts at most once in a hand, so a seat's own reach is 1 at each of its information sets:
the reach of a node *is* the others' reach, the average strategy is a plain weighted average, and a
best response is a per-information-set choice. One forward pass (reach) and one backward pass
(continuations) give every seat's counterfactual values, hence regrets and exact NashConv.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from scipy.sparse import csr_matrix

from ..model import kernels
from ..model.tail import evaluate_tail
from ..model.tree import AUTO, Tree, TurnLevel

if TYPE_CHECKING:
    from .checkpoint import Checkpoint

__all__ = ["Engine", "Progress", "run_cfr"]

Array = Any
Revise = Callable[[int, Array, Array], bool]


@dataclass
class Passes:
    """The result of evaluating a profile: node reaches and per-information-set values."""

    reach: Array
    cfv: Array        # (infosets, 2) counterfactual expected lives lost for keep, swap
    lives: Array      # expected lives lost per position
    losses: Array     # chance of losing per position
    cfp: Array = None  # with ``table``: (infosets, 2) counterfactual chance of losing for keep, swap
    dealer_reach: Array = None  # ``closed_dealer``: the dealer's information sets' reach (no node has it)


class Engine:
    """Evaluates strategy profiles (``sigma[infoset] = (keep, swap)``) on a :class:`Tree`."""

    def __init__(self, tree: Tree, workers: int = 1, compiled: bool | None = None) -> None:
        """``compiled``: run the passes with the compiled loops of :mod:`..model.kernels` (needs
        numba; default: as the tree was built, see :func:`..model.kernels.worth`), else with numpy."""
        if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
            raise ValueError(f"bad workers {workers!r}: an integer >= 1")
        if compiled:
            kernels.loops()  # ValueError without numba
        self.compiled = tree.compiled if compiled is None else compiled
        self.tail_loop = True  # closed_three: the groups' loop (False: numpy chunks, see ..model.tail)
        self.tree = tree
        self.workers = workers
        self._pool: ThreadPoolExecutor | None = ThreadPoolExecutor(workers) if workers > 1 else None
        hand = tree.hand
        self.n_info = len(tree.infosets)
        self.owner = np.array([key[0] for key in tree.infosets], dtype=np.int64)
        mask, before, lives = tree.mask(), tree.before(), tree.lives()
        self._ends = tree.ends
        self._mask = mask
        self._coef_l = before * lives[:, None]      # [final, low] -> lives lost if that is the loss
        self._coef_p = before
        self._both = (mask[:, None, :] * mask[None, :tree.rank_count, :])  # [block, final] -> factor
        self._both32 = self._both.astype(np.float32)
        self._pre = []
        self._w32: Array = None  # the single-precision continuations, kept from one pass to the next
        self._cell = []  # per level, each edge's cell of the strategy (2 * infoset + action, or the 1)
        for level in tree.levels[:-1]:
            cell = np.full(len(level.action), self.n_info * 2, dtype=np.int32)
            dec = np.flatnonzero(level.action != AUTO)
            cell[dec] = level.info[level.parent[dec]] * 2 + level.action[dec]
            self._cell.append(cell)
            e_parent, e_block = level.parent, level.blocked
            counts = np.bincount(e_parent, minlength=len(level.card))
            # the blocked neighbour's loss (for the loss table only)
            nb = np.flatnonzero(e_block >= 0)
            nb_low = np.minimum(level.low[e_parent[nb]], level.final[nb])
            starts = _starts(e_parent.astype(np.int64) * 3 + level.action)
            self._pre.append(dict(
                flat_at=np.arange(min(len(e_parent), CHUNK)) * tree.width,
                chunks=_chunks(counts),
                indptr=np.r_[0, np.cumsum(counts)],
                seg_starts=starts, seg_parent=e_parent[starts], seg_action=level.action[starts],
                blocks=_blocks(starts, len(e_parent)),
                nb=nb, nb_idx=e_block[nb].astype(np.intp) + hand.shift,
                nb_coef_l=before[e_block[nb], nb_low] * lives[e_block[nb]],
                nb_coef_p=before[e_block[nb], nb_low],
            ))

    def sigma_edges(self, level_index: int, sigma: Array) -> Array:
        """The acting seat's probability of each edge's action (1 for automatic turns)."""
        # one gather from the strategy's cells followed by a 1 (the automatic turns' cell)
        cells = np.empty(self.n_info * 2 + 1)
        cells[:-1] = np.asarray(sigma, dtype=float).reshape(-1)
        cells[-1] = 1.0
        return cells[self._cell[level_index]]

    def reach(self, sigma: Array, sig_e: list[Array] | None = None) -> Array:
        """The forward pass: every node's reach (and the ends') when all seats play ``sigma``
        (``sig_e``: its edge probabilities, if already at hand)."""
        tree = self.tree
        levels = tree.levels
        rows = tree.total + len(tree.ends)
        reach = np.zeros(rows)
        first = levels[0]
        reach[first.offset:first.offset + len(first.card)] = tree.reach0
        for j, level in enumerate(levels[:-1]):
            s = self.sigma_edges(j, sigma) if sig_e is None else sig_e[j]
            if self.compiled:
                kernels.loops().forward_edges(level.offset, level.parent, level.child, s, level.prob, reach)
                continue
            flow = reach[level.offset + level.parent] * s * level.prob
            lo = levels[j + 1].offset  # every child comes later in the tree
            reach[lo:] += np.bincount(level.child - lo, flow, minlength=rows - lo)
        return reach

    def evaluate(self, sigma: Array, table: bool = False, precise: bool = True,
                 reach_sigma: Array | None = None, revise: Revise | None = None) -> Passes:
        """Forward and backward passes for ``sigma``; ``table`` also fills the loss tables.

        ``precise=False`` carries the continuations in single precision (about twice as fast; the
        values agree to about 1e-7): for the iterations, not for reported figures. ``reach_sigma``
        (default ``sigma``) is the profile the forward pass uses: the beliefs behind the values.

        ``revise(position, reach, cfv)``, if given, is called once each position's counterfactual
        values are complete (from the dealer back to the eldest; a position's values depend only on
        the earlier seats' play, through the reach, and on the later seats', through the
        continuations); it may change that position's rows of ``sigma`` in place and returns
        whether it did; the earlier positions' values then follow the revised play, exactly as if
        ``evaluate`` had been called again (the reach stays the one computed first: with
        ``revise``, pass a ``reach_sigma``, as the reach must not depend on the rows it changes).
        """
        if revise is not None and reach_sigma is None:
            raise ValueError("evaluate(revise=...) needs a reach_sigma")
        return self.evaluate_beliefs(sigma, [reach_sigma], table=table, precise=precise, revise=revise)[0]

    def evaluate_beliefs(self, sigma: Array, reach_sigmas: list[Array | None], table: bool = False,
                         precise: bool = True, revise: Revise | None = None) -> list[Passes]:
        """:meth:`evaluate` for one play ``sigma`` under several beliefs (``None``: ``sigma``), one
        :class:`Passes` each: the backward pass, the costly part, is shared (with ``revise``, one
        belief only)."""
        dtype = np.float64 if precise else np.float32
        tree = self.tree
        levels = tree.levels
        rows = tree.total + len(tree.ends)
        n = tree.hand.players
        sig_e = [self.sigma_edges(j, sigma) for j in range(len(levels) - 1)]
        reaches = [self.reach(sigma, sig_e) if rs is None else self.reach(rs) for rs in reach_sigmas]
        if revise is not None and len(reaches) != 1:
            raise ValueError("evaluate_beliefs(revise=...) takes one belief")
        if precise:
            self._w32 = None  # room for the double-precision pass
            w = np.empty((rows, tree.width), dtype=dtype)
        else:  # every row is rewritten: the array is reused (a fresh one costs its page faults each time)
            if self._w32 is None:
                self._w32 = np.empty((rows, tree.width), dtype=dtype)
            w = self._w32
        w[tree.end:] = self._ends
        m = self.n_info * 2
        cfvs = [np.zeros(m) for _ in reaches]
        cfps: list[Array] = [np.zeros(m) if table else None for _ in reaches]
        lives = [np.zeros(n) for _ in reaches]
        losses = [np.zeros(n) for _ in reaches]
        if tree.closed_dealer:  # the last two positions at once, the dealer's nodes never built
            if revise is not None or len(reaches) != 1:
                raise ValueError("a tree with closed_dealer is evaluated under one belief, unrevised")
            if tree.closed_three:  # the last three (see ..model.tail)
                extra = self._tail(sigma, reaches[0], w, cfvs[0], cfps[0], lives[0], losses[0])
                return self._levels(n - 4, sigma, sig_e, reaches, w, cfvs, cfps, lives, losses, table,
                                    precise, revise, extra)
            dealer_reach = self._closed(sigma, reaches[0], w, cfvs[0], cfps[0], lives[0], losses[0])
            return self._levels(n - 3, sigma, sig_e, reaches, w, cfvs, cfps, lives, losses, table, precise,
                                revise, dealer_reach)
        # the dealer
        dealer = levels[-1]
        ids = slice(dealer.offset, dealer.offset + len(dealer.card))
        dec = dealer.info >= 0
        at_info = dealer.info[dec] * 2
        for reach, cfv in zip(reaches, cfvs):
            r = reach[ids]
            cfv += np.bincount(at_info, r[dec] * tree.d_lkeep[dec], minlength=m)
            cfv += np.bincount(at_info + 1, r[dec] * tree.d_lswap[dec], minlength=m)
        if revise is not None:
            revise(n - 1, reaches[0], cfvs[0].reshape(-1, 2))
        pk = np.ones(len(dealer.card))
        pk[dec] = sigma[dealer.info[dec], 0]
        tree.dealer_w(pk, dtype, out=w[ids], compiled=self.compiled)
        if table:
            for reach, cfp, life, loss_ in zip(reaches, cfps, lives, losses):
                r = reach[ids]
                cfp += np.bincount(at_info, r[dec] * tree.d_pkeep[dec], minlength=m)
                cfp += np.bincount(at_info + 1, r[dec] * tree.d_pswap[dec], minlength=m)
                life[n - 1] = r @ (pk * tree.d_lkeep + (1 - pk) * tree.d_lswap)
                loss_[n - 1] = r @ (pk * tree.d_pkeep + (1 - pk) * tree.d_pswap)
        return self._levels(n - 2, sigma, sig_e, reaches, w, cfvs, cfps, lives, losses, table, precise,
                            revise)

    def _closed(self, sigma: Array, reach: Array, w: Array, cfv: Array, cfp: Array | None, life: Array,
                loss: Array) -> Array:
        """The last two positions of a ``closed_dealer`` tree (:func:`..model.kernels.closed_last`): fills
        the continuations of the dealer's right neighbour's nodes; returns the dealer's information
        sets' reach (no node carries it)."""
        tree, hand = self.tree, self.tree.hand
        c, level = tree.closed, tree.levels[-1]
        ids = slice(level.offset, level.offset + len(level.card))
        rows = np.zeros((len(level.card), tree.width))
        dealer_reach = np.zeros(self.n_info)
        kernels.closed_last(self.compiled)(
            np.ascontiguousarray(reach[ids]), level.info.astype(np.int64), level.card.astype(np.int64),
            level.low.astype(np.int64), c["hid"], c["rest"], c["stopped"],
            np.ascontiguousarray(np.asarray(sigma, dtype=float)[:, 0]), c["next_hid"], c["stopped_h"],
            c["dinfo"], hand.blocker, hand.shift, tree.dw, c["stock"], self._mask, self._both,
            tree.end_row(), c["keep_w"], c["base"], c["delta"], c["exc"], c["exc_n"], c["out_l"], c["out_p"],
            self._coef_p, tree.lives(),
            rows, cfv, np.zeros_like(cfv) if cfp is None else cfp, dealer_reach, life, loss)
        w[ids] = rows
        return dealer_reach

    def _tail(self, sigma: Array, reach: Array, w: Array, cfv: Array, cfp: Array | None, life: Array,
              loss: Array) -> Array:
        """The last three positions of a ``closed_three`` tree (:func:`..model.tail.evaluate_tail`):
        fills the continuations of position ``n - 3``'s nodes; returns the reach of the information
        sets of the last two positions (no node carries it)."""
        tree, hand = self.tree, self.tree.hand
        level = tree.levels[-1]
        ids = slice(level.offset, level.offset + len(level.card))
        rows = np.zeros((len(level.card), tree.width))
        consts = dict(mask=self._mask, both=self._both, coef_l=self._coef_l, coef_p=self._coef_p,
                      lives=tree.lives(), shift=hand.shift, dw=tree.dw, blocker=hand.blocker)
        assert tree.tail is not None
        keep = np.ascontiguousarray(np.asarray(sigma, dtype=float)[:, 0])
        extra = evaluate_tail(tree.tail, tree.closed, np.ascontiguousarray(reach[ids]),
                              level.info.astype(np.int64), level.card.astype(np.int64),
                              level.low.astype(np.int64), keep,
                              kernels.closed_last(self.compiled), consts, rows, cfv,
                              np.zeros_like(cfv) if cfp is None else cfp, life, loss,
                              kernels.tail_groups(self.compiled) if self.tail_loop else None)
        w[ids] = rows
        return extra

    def _levels(self, last: int, sigma: Array, sig_e: list[Array], reaches: list[Array], w: Array,
                cfvs: list[Array], cfps: list[Array], lives: list[Array], losses: list[Array], table: bool,
                precise: bool, revise: Revise | None, dealer_reach: Array | None = None) -> list[Passes]:
        """The backward pass from position ``last`` to the eldest, once the later rows of ``w`` hold."""
        tree, levels = self.tree, self.tree.levels
        dtype = np.float64 if precise else np.float32
        m = self.n_info * 2
        for j in range(last, -1, -1):
            level, pre, s = levels[j], self._pre[j], sig_e[j]
            at, dw = self._backward(level, pre, s.astype(dtype), w, precise)
            # per edge the lives lost, summed per node and action; in blocks of whole segments, as
            # the temporaries of a whole level are large (20 M edges at 6 players)
            for e0, e1, s0, s1 in pre["blocks"]:
                low = level.low[level.parent[e0:e1]]
                loss = self._coef_l[level.final[e0:e1], low] * at[e0:e1] + dw[e0:e1]
                seg_loss = np.add.reduceat(loss, pre["seg_starts"][s0:s1] - e0)
                parent, action = pre["seg_parent"][s0:s1], pre["seg_action"][s0:s1]
                dec = np.flatnonzero(action != AUTO)
                at_seg = level.info[parent[dec]] * 2 + action[dec]
                for reach, cfv in zip(reaches, cfvs):
                    rp = reach[level.offset + parent[dec]]
                    cfv += np.bincount(at_seg, rp * seg_loss[dec], minlength=m)
            if revise is not None and revise(j, reaches[0], cfvs[0].reshape(-1, 2)):
                s = sig_e[j] = self.sigma_edges(j, sigma)  # the continuations again, with the new play
                self._backward(level, pre, s.astype(dtype), w, precise)
            if not table:
                continue
            for e0, e1, s0, s1 in pre["blocks"]:
                low = level.low[level.parent[e0:e1]]
                loss = self._coef_l[level.final[e0:e1], low] * at[e0:e1] + dw[e0:e1]
                chance = self._coef_p[level.final[e0:e1], low] * at[e0:e1] + dw[e0:e1]
                seg_chance = np.add.reduceat(chance, pre["seg_starts"][s0:s1] - e0)
                parent, action = pre["seg_parent"][s0:s1], pre["seg_action"][s0:s1]
                dec = np.flatnonzero(action != AUTO)
                at_seg = level.info[parent[dec]] * 2 + action[dec]
                for reach, cfp, life, loss_ in zip(reaches, cfps, lives, losses):
                    rp = reach[level.offset + parent[dec]]
                    cfp += np.bincount(at_seg, rp * seg_chance[dec], minlength=m)
                    re = reach[level.offset + level.parent[e0:e1]] * s[e0:e1]
                    life[j] += re @ loss
                    loss_[j] += re @ chance
            nb = pre["nb"]
            if len(nb):  # the blocked neighbour's loss
                gp = w[level.child[nb]] * level.prob[nb, None]
                rows_nb = np.arange(len(nb))
                nb_l = pre["nb_coef_l"] * gp[rows_nb, pre["nb_idx"]] + gp[:, tree.dw]
                nb_p = pre["nb_coef_p"] * gp[rows_nb, pre["nb_idx"]] + gp[:, tree.dw]
                for reach, life, loss_ in zip(reaches, lives, losses):
                    re = reach[level.offset + level.parent[nb]] * s[nb]
                    life[j + 1] += re @ nb_l
                    loss_[j + 1] += re @ nb_p
        return [Passes(reach, cfv.reshape(-1, 2), life, loss_, None if cfp is None else cfp.reshape(-1, 2),
                       dealer_reach)
                for reach, cfv, cfp, life, loss_ in zip(reaches, cfvs, cfps, lives, losses)]

    def _backward(self, level: TurnLevel, pre: dict[str, Array], s: Array, w: Array,
                  precise: bool) -> tuple[Array, Array]:
        """Fill the continuations of ``level``'s nodes from their children, in cache-sized chunks
        of whole nodes; return, per edge, the gathered loss column and the dealer-wins column."""
        tree = self.tree
        at = np.empty(len(s))
        dw = np.empty(len(s))
        indptr = pre["indptr"]

        shift, k = tree.hand.shift, tree.rank_count

        def compiled(bounds: tuple[int, int]) -> None:
            both = self._both if precise else self._both32
            kernels.loops().backward_nodes(bounds[0], bounds[1], level.offset, indptr, level.child,
                                           level.prob, level.final, level.blocked, s, w, shift, k,
                                           tree.dw, self._mask, both, at, dw)

        def chunk(bounds: tuple[int, int]) -> None:
            p0, p1 = bounds
            e0, e1 = int(indptr[p0]), int(indptr[p1])
            final = level.final[e0:e1].astype(np.intp)
            blocked = level.blocked[e0:e1]
            block = np.where(blocked >= 0, blocked, k)
            idx = final + shift
            prob = level.prob[e0:e1]
            g = np.take(w, level.child[e0:e1], axis=0)
            at[e0:e1] = g.reshape(-1)[pre["flat_at"][:e1 - e0] + idx] * prob * self._mask[block, idx]
            dw[e0:e1] = g[:, tree.dw] * prob
            if precise:
                g *= prob[:, None] * self._both[block, final]
            else:
                g *= prob.astype(np.float32)[:, None] * self._both32[block, final]
            # each node's continuation: its edges weighted by the actor's probability of the action
            agg = csr_matrix((s[e0:e1], np.arange(e1 - e0), indptr[p0:p1 + 1] - e0), shape=(p1 - p0, e1 - e0))
            w[level.offset + p0:level.offset + p1] = agg @ g

        # chunks write disjoint nodes and read only later levels: threads may share them
        # (numpy and scipy release the GIL in these loops)
        work = compiled if self.compiled else chunk
        if self._pool is not None and len(pre["chunks"]) > 1:
            list(self._pool.map(work, pre["chunks"]))
        elif self.compiled:
            work((0, len(indptr) - 1))
        else:
            for bounds in pre["chunks"]:
                work(bounds)
        return at, dw

    def info_reach(self, passes: Passes | Array) -> Array:
        """The chance that each information set arises (its nodes' reach, summed), from the passes
        or the nodes' reach."""
        reach = passes.reach if isinstance(passes, Passes) else passes
        out = np.zeros(self.n_info)
        if isinstance(passes, Passes) and passes.dealer_reach is not None:
            out += passes.dealer_reach
        for level in self.tree.levels:
            dec = level.info >= 0
            r = reach[level.offset:level.offset + len(level.card)]
            out += np.bincount(level.info[dec], r[dec], minlength=self.n_info)
        return out

    def gains(self, sigma: Array, cfv: Array) -> Array:
        """Per position, the lives a best response would save against ``sigma``."""
        here = (sigma * cfv).sum(axis=1) - cfv.min(axis=1)
        return np.bincount(self.owner, here, minlength=self.tree.hand.players)


CHUNK = 1 << 16  # edges per chunk of the backward pass: the temporaries stay in cache


def _chunks(counts: Array) -> list[tuple[int, int]]:
    """Ranges of whole nodes with about CHUNK edges each (a node with more edges is its own chunk)."""
    out, start, total = [], 0, 0
    for i, c in enumerate(counts.tolist()):
        if total + c > CHUNK and i > start:
            out.append((start, i))
            start, total = i, 0
        total += c
    out.append((start, len(counts)))
    return out


BLOCK = 1 << 21  # edges per block of the per-edge values: bounds the temporaries of a large level


def _blocks(starts: Array, edges: int) -> list[tuple[int, int, int, int]]:
    """Ranges of whole segments (``starts``: where each begins) of about BLOCK edges each:
    ``(first edge, end edge, first segment, end segment)``."""
    cuts = [*np.unique(np.searchsorted(starts, np.arange(0, edges, BLOCK))).tolist(), len(starts)]
    return [(int(starts[a]), int(starts[b]) if b < len(starts) else edges, a, b)
            for a, b in itertools.pairwise(cuts) if a < b]


def _starts(keys: Array) -> Array:
    """The indices where a run of equal (sorted) keys begins."""
    if not len(keys):
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])


@dataclass
class Progress:
    """How a run went: iterations, seconds, and the NashConv measured along the way."""

    iterations: int = 0
    seconds: float = 0.0
    nash_conv: float = float("inf")
    trace: list[tuple[int, float, float]] = field(default_factory=list)  # (iteration, seconds, nash_conv)


class Evaluator(Protocol):
    """What :func:`run_cfr` needs of an engine: :class:`Engine`, or :class:`.parts.PartsEngine`."""

    n_info: int

    def evaluate(self, sigma: Array, *, precise: bool = True) -> Any:
        """Counterfactual values of ``sigma`` (``.cfv``: (infosets, 2))."""

    def gains(self, sigma: Array, cfv: Array) -> Array:
        """Per position, the lives a best response would save."""


def run_cfr(engine: Evaluator, *, iterations: int = 1000, tolerance: float = 1e-4, method: str = "dcfr",
            check_every: int = 10, start: float | None = None,
            callback: Callable[[Progress], None] | None = None,
            warm: Array | None = None, checkpoint: Checkpoint | None = None) -> tuple[Array, Progress]:
    """Iterate CFR+ (``"cfr+"``), predictive CFR+ (``"pcfr+"``) or discounted CFR (``"dcfr"``, alpha 1.5,
    beta 0, gamma 2) until the exact NashConv of the average strategy is at most ``tolerance``.

    ``warm`` (a strategy, e.g. solved on a smaller model) is CFR's first iterate instead of the
    uniform strategy (the regrets start at zero). ``checkpoint`` (:class:`.checkpoint.Checkpoint`)
    keeps the state after each iteration, and a run given a checkpoint with a state in it goes on
    from there (or returns at once if that run had finished): the iterates are those of an
    uninterrupted run, bit for bit. Returns the average strategy and the progress record.
    """
    if method not in ("cfr+", "dcfr", "pcfr+"):
        raise ValueError(f"unknown method {method!r}: allowed cfr+, dcfr, pcfr+")
    t0 = time.perf_counter() if start is None else start
    m = engine.n_info
    regret = np.zeros((m, 2))
    avg = np.zeros((m, 2))
    sigma = np.full((m, 2), 0.5) if warm is None else np.asarray(warm, dtype=float)
    progress = Progress()
    alpha, beta, gamma = 1.5, 0.0, 2.0
    first = 1
    state = None if checkpoint is None else checkpoint.load_iterate()
    if state is not None:
        if state["regret"].shape != (m, 2):
            raise ValueError(f"checkpoint {checkpoint.folder if checkpoint else ''}: its iterate has "
                             f"{len(state['regret'])} information sets, this game {m}")
        regret, avg, sigma = state["regret"], state["avg"], state["sigma"]
        first = int(state["t"]) + 1
        progress.iterations, progress.nash_conv = int(state["checked"]), float(state["nash_conv"])
        progress.trace = [(int(i), float(s), float(nc)) for i, s, nc in state["trace"].tolist()]
        t0 -= float(state["seconds"])  # the seconds of the earlier runs count
        progress.seconds = time.perf_counter() - t0
        if bool(state["done"]):
            return _normalise(avg), progress
    for t in range(first, iterations + 1):
        cfv = engine.evaluate(sigma, precise=False).cfv
        value = (sigma * cfv).sum(axis=1, keepdims=True)
        inst = value - cfv  # regret of not having played the action (we minimise lives lost)
        if method == "dcfr":
            pos = t ** alpha / (t ** alpha + 1)
            neg = t ** beta / (t ** beta + 1)
            regret = np.where(regret > 0, regret * pos, regret * neg) + inst
            avg += sigma * t ** gamma  # DCFR's average: weights (t/(t+1))^gamma, i.e. ~ t^gamma
            sigma = _match(regret)
        else:
            regret = np.maximum(regret + inst, 0.0)
            avg += sigma * (t if method == "cfr+" else t * t)
            # predictive CFR+ plays as if the next regrets were the last ones again
            sigma = _match(regret if method == "cfr+" else regret + inst)
        if t % check_every == 0 or t == iterations:
            mean = _normalise(avg)
            nc = float(engine.gains(mean, engine.evaluate(mean, precise=False).cfv).sum())
            progress.iterations, progress.nash_conv = t, nc
            progress.seconds = time.perf_counter() - t0
            progress.trace.append((t, progress.seconds, nc))
            if callback is not None:
                callback(progress)
        done = t == iterations or (t == progress.iterations and progress.nash_conv <= tolerance)
        if checkpoint is not None:
            checkpoint.save_iterate(
                t=np.array(t), regret=regret, avg=avg, sigma=sigma, checked=np.array(progress.iterations),
                nash_conv=np.array(progress.nash_conv),
                trace=np.array(progress.trace, dtype=float).reshape(-1, 3),
                seconds=np.array(time.perf_counter() - t0), done=np.array(done))
        if done:
            break
    return _normalise(avg), progress


def _match(regret: Array) -> Array:
    pos = np.maximum(regret, 0.0)
    total = pos.sum(axis=1, keepdims=True)
    return np.where(total > 0, pos / np.where(total > 0, total, 1.0), 0.5)


def _normalise(avg: Array) -> Array:
    total = avg.sum(axis=1, keepdims=True)
    return np.where(total > 0, avg / np.where(total > 0, total, 1.0), 0.5)
