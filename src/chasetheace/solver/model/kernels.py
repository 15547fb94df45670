"""Compiled loops for the exact tree's passes, used when numba (extra ``[fast]``) is installed.

The numpy passes of :mod:`..methods.cfr` sum the forward flows with ``bincount``, and for the backward
pass gather every edge's child continuation into a temporary array, scale it and sum it per node
with a sparse product: several passes over arrays of tens of millions of rows at 6 players. The
loops here do each in one pass without temporaries. Without numba the solver uses the numpy
passes, and so it does on small trees (:data:`MIN_NODES`): the results agree to rounding (the
sums are taken in another order). The environment variable ``CHASETHEACE_NUMBA=0`` makes the solver
use the numpy passes even where numba is installed.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...extras import needs_extra_text

__all__ = ["MIN_NODES", "Loops", "available", "closed_last", "loops", "tail_groups", "worth"]


def _backward_nodes(p0: int, p1: int, offset: int, indptr: Any, child: Any, prob: Any, final: Any,
                    blocked: Any, s: Any, w: Any, shift: int, rank_count: int, dw_col: int, mask: Any,
                    both: Any, at: Any, dw: Any) -> None:  # pragma: no cover - compiled by numba
    width = w.shape[1]
    acc = np.zeros(width)
    for p in range(p0, p1):
        for i in range(width):
            acc[i] = 0.0
        for e in range(indptr[p], indptr[p + 1]):
            c = child[e]
            f = final[e]
            b = blocked[e]
            blk = b if b >= 0 else rank_count
            pr = prob[e]
            at[e] = w[c, f + shift] * pr * mask[blk, f + shift]
            dw[e] = w[c, dw_col] * pr
            weight = s[e] * pr
            for i in range(width):
                acc[i] += weight * both[blk, f, i] * w[c, i]
        for i in range(width):
            w[offset + p, i] = acc[i]


def _forward_edges(offset: int, parent: Any, child: Any, s: Any, prob: Any,
                   reach: Any) -> None:  # pragma: no cover - compiled by numba
    for e in range(len(parent)):
        reach[child[e]] += reach[offset + parent[e]] * s[e] * prob[e]


def _dealer_rows(bounds: Any, keep: Any, rest: Any, swap32: Any, swap_w: Any, keep_w: Any,
                 precise: bool, out: Any) -> None:  # pragma: no cover - compiled by numba
    width = out.shape[1]
    rank_count = rest.shape[1]
    for x in range(len(bounds) - 1):
        for i in range(bounds[x], bounds[x + 1]):
            kp = keep[i]
            for v in range(width):
                if precise:
                    acc = 0.0
                    for st in range(rank_count):
                        acc += rest[i, st] * swap_w[x, st, v]
                else:
                    acc = swap32[i, v]
                out[i, v] = acc + kp * (keep_w[x, v] - acc)


def _closed_node(r: float, ip: int, x: int, lp: int, hp: int, rest: Any, stopped: bool, keep: Any,
                 next_hid: Any, stopped_h: Any, dinfo: Any, blocker: int, shift: int, dw_col: int, stock: int,
                 mask: Any, both: Any, end_row: Any, keep_w: Any, base: Any, delta: Any, exc: Any, exc_n: Any,
                 out_l: Any, out_p: Any, before: Any, lives: Any, w: Any, cfv: Any, cfp: Any, dreach: Any,
                 life: Any, loss: Any, wd: Any, acc: Any, rd: Any, whole: Any, hoisted: bool, c1: int,
                 sw_g: Any, l_g: Any, p_g: Any, swap_w: Any) -> None:  # pragma: no cover - compiled by numba
    """One node of the dealer's right neighbour (see :func:`_make_closed_last`): its reach ``r``,
    information set ``ip``, card ``x``, low ``lp``, history ``hp``, cards left ``rest`` and whether
    play stopped; writes its continuation into ``w`` (``wd``, ``acc``, ``rd``, ``whole``: scratch).

    ``hoisted``: the node is a child of a group of :mod:`.tail` whose cards left are ``rest`` plus
    one ``c1``, and the sums over the stock that are linear in the cards left come from the
    group's: ``sw_g[xd] = rest_g @ swap_w[xd]`` and ``l_g[xd, low]``, ``p_g[xd, low]`` (the same
    with ``out_l``, ``out_p``), less the rows of ``c1`` and of the dealer's card."""
    rank_count = rest.shape[0]
    width = w.shape[0]
    n = len(life)
    total = 0.0
    for c in range(rank_count):
        total += rest[c]
    for i in range(width):
        acc[i] = 0.0
        if not hoisted:
            sw = 0.0
            for st in range(rank_count):
                sw += rest[st] * base[st, i]
            whole[i] = sw
    auto = stopped or x == blocker
    for a in range(2):  # 0: keep (or shown, or play stopped), 1: swap
        if auto and a == 1:
            break
        s = 1.0 if auto else (keep[ip] if a == 0 else 1.0 - keep[ip])
        seg_l = 0.0
        seg_p = 0.0
        for c in range(rank_count):
            if rest[c] == 0:
                continue
            pr = rest[c] / total
            f = x
            blk = rank_count
            if a == 1 and c == blocker:  # the dealer holds the blocker: the hand ends
                blk = c
                for i in range(width):
                    wd[i] = end_row[i]
                nb_low = lp if lp < x else x
                g_at = wd[c + shift] * pr
                g_dw = wd[dw_col] * pr
                life[n - 1] += r * s * (before[c, nb_low] * lives[c] * g_at + g_dw)
                loss[n - 1] += r * s * (before[c, nb_low] * g_at + g_dw)
            else:
                if a == 0:
                    h2 = hp if stopped else next_hid[hp, 1 if auto else 0]
                    xd, gd = c, -1
                else:
                    h2 = next_hid[hp, 3 + c]
                    xd, gd = x, c
                    f = c
                ld = lp if lp < f else f
                decides = not (stopped_h[h2] or xd == blocker)
                d = dinfo[h2, xd, gd + 1] if decides else -1
                kd = keep[d] if decides else 1.0
                if hoisted:
                    lswap = l_g[xd, ld] - out_l[xd, c1, ld] - out_l[xd, c, ld]
                    pswap = p_g[xd, ld] - out_p[xd, c1, ld] - out_p[xd, c, ld]
                else:
                    for st in range(rank_count):
                        rd[st] = rest[st]
                    rd[c] -= 1
                    lswap = 0.0
                    pswap = 0.0
                    for st in range(rank_count):
                        lswap += rd[st] * out_l[xd, st, ld]
                        pswap += rd[st] * out_p[xd, st, ld]
                lswap /= stock
                pswap /= stock
                lkeep = before[xd, ld] * lives[xd]
                pkeep = before[xd, ld]
                re = r * s * pr
                if decides:
                    cfv[2 * d] += re * lkeep
                    cfv[2 * d + 1] += re * lswap
                    cfp[2 * d] += re * pkeep
                    cfp[2 * d + 1] += re * pswap
                    dreach[d] += re
                life[n - 1] += re * (kd * lkeep + (1.0 - kd) * lswap)
                loss[n - 1] += re * (kd * pkeep + (1.0 - kd) * pswap)
                for i in range(width):
                    if hoisted:
                        sw = sw_g[xd, i] - swap_w[xd, c1, i] - swap_w[xd, c, i]
                    else:
                        sw = whole[i] - base[c, i]
                        for q in range(exc_n[xd]):
                            st = exc[xd, q]
                            sw += rd[st] * delta[xd, st, i]
                    wd[i] = sw + kd * (keep_w[xd, i] - sw)
            at = wd[f + shift] * pr * mask[blk, f + shift]
            dw = wd[dw_col] * pr
            seg_l += before[f, lp] * lives[f] * at + dw
            seg_p += before[f, lp] * at + dw
            for i in range(width):
                acc[i] += s * pr * both[blk, f, i] * wd[i]
        if not auto:
            cfv[2 * ip + a] += r * seg_l
            cfp[2 * ip + a] += r * seg_p
        life[n - 2] += r * s * seg_l
        loss[n - 2] += r * s * seg_p
    for i in range(width):
        w[i] = acc[i]


def _make_closed_last(node: Callable[..., None]) -> Callable[..., None]:
    def closed_last(reach_p: Any, info_p: Any, card: Any, low: Any, hid: Any, rest: Any, stopped_p: Any,
                    keep: Any, next_hid: Any, stopped_h: Any, dinfo: Any, blocker: int, shift: int,
                    dw_col: int, stock: int, mask: Any, both: Any, end_row: Any, keep_w: Any, base: Any,
                    delta: Any, exc: Any, exc_n: Any, out_l: Any, out_p: Any, before: Any, lives: Any, w: Any,
                    cfv: Any, cfp: Any, dreach: Any, life: Any,
                    loss: Any) -> None:  # pragma: no cover - compiled by numba
        """The last two positions in closed form (see :class:`.tree.Tree`, ``closed_dealer``): from each
        node of the dealer's right neighbour (position ``n - 2``), every edge to the dealer, the dealer's
        values from the stock left, its counterfactual values and reach, and the node's continuation
        ``w`` and counterfactual values; ``life``/``loss`` get the two positions' lives and losses.

        A dealer holding ``x`` who draws from the stock ``rd`` continues with ``rd @ swap_w[x]``
        (``swap_w = out_w / stock``); most draws end with the drawn card whatever ``x`` is, so that is
        ``rd @ base`` plus the few draws ``exc[x, :exc_n[x]]`` where ``swap_w[x] - base`` (``delta``)
        is not 0; ``rd @ base`` is the node's ``rest @ base`` less the row of the card just dealt."""
        rank_count = rest.shape[1]
        width = w.shape[1]
        wd = np.zeros(width)
        acc = np.zeros(width)
        rd = np.zeros(rank_count)
        whole = np.zeros(width)
        unused = np.zeros((1, 1))
        for p in range(len(card)):
            node(reach_p[p], info_p[p], card[p], low[p], hid[p], rest[p], stopped_p[p], keep, next_hid,
                 stopped_h, dinfo, blocker, shift, dw_col, stock, mask, both, end_row, keep_w, base, delta,
                 exc, exc_n, out_l, out_p, before, lives, w[p], cfv, cfp, dreach, life, loss, wd, acc, rd,
                 whole, False, 0, unused, unused, unused, delta)
    return closed_last


def _make_tail_groups(node: Callable[..., None]) -> Callable[..., None]:
    def tail_groups(swap: bool, g_reach: Any, g_rest: Any, g_allow: Any, g_hid: Any, g_card: Any, g_low: Any,
                    s_next: Any, ninfo: Any, keep: Any, next_hid: Any, stopped_h: Any, dinfo: Any,
                    blocker: int, shift: int, dw_col: int, stock: int, mask: Any, both: Any, end_row: Any,
                    keep_w: Any, base: Any, delta: Any, exc: Any, exc_n: Any, out_l: Any, out_p: Any,
                    before: Any, lives: Any, swap_w: Any, coef_l: Any, coef_p: Any, g_w: Any, g_l: Any,
                    g_p: Any, cfv: Any, cfp: Any, xreach: Any, life: Any,
                    loss: Any) -> None:  # pragma: no cover - compiled by numba
        """The groups of position ``n - 3`` of a ``closed_three`` tree (see :mod:`.tail`): each child
        (keep groups: ``(h', D + c, c, -1)``; swap groups: ``(h + s_c, D + c, x, c)`` or blocked)
        evaluated by the closed form of the last two positions with the group's reach times its
        chance; per group the sum of its children's continuations times their chance (swap groups:
        times the parent's final card's factor, and the parent's lives and losses from them)."""
        rank_count = g_rest.shape[1]
        width = g_w.shape[1]
        wd = np.zeros(width)
        acc = np.zeros(width)
        rd = np.zeros(rank_count)
        whole = np.zeros(width)
        row = np.zeros(width)
        rest = np.zeros(rank_count, dtype=g_rest.dtype)
        lows = out_l.shape[2]
        sw_g = np.zeros((rank_count, width))
        l_g = np.zeros((rank_count, lows))
        p_g = np.zeros((rank_count, lows))
        for g in range(len(g_reach)):
            total = 0.0
            for c in range(rank_count):
                total += g_rest[g, c]
            for xd in range(rank_count):  # the sums over the stock, once per group (see _closed_node)
                for i in range(width):
                    acc_sw = 0.0
                    for st in range(rank_count):
                        acc_sw += g_rest[g, st] * swap_w[xd, st, i]
                    sw_g[xd, i] = acc_sw
                for ld in range(lows):
                    acc_l = 0.0
                    acc_p = 0.0
                    for st in range(rank_count):
                        acc_l += g_rest[g, st] * out_l[xd, st, ld]
                        acc_p += g_rest[g, st] * out_p[xd, st, ld]
                    l_g[xd, ld] = acc_l
                    p_g[xd, ld] = acc_p
            for c in range(rank_count):
                if g_rest[g, c] == 0 or not g_allow[g, c]:
                    continue
                pr = g_rest[g, c] / total
                for st in range(rank_count):
                    rest[st] = g_rest[g, st]
                rest[c] -= 1
                given = -1
                if swap:
                    x = g_card[g]
                    h = s_next[g_hid[g], c]
                    if c == blocker:  # the neighbour shows the blocker: the parent keeps x
                        card, f, given, stopped = c, x, -2, True
                        low = g_low[g] if g_low[g] < x else x
                    else:
                        card, f, given, stopped = x, c, c, stopped_h[h]
                        low = g_low[g] if g_low[g] < c else c
                else:
                    h = g_hid[g]
                    card, f, stopped = c, c, stopped_h[h]
                    low = g_low[g]
                auto = stopped or card == blocker
                ip = -1 if auto else ninfo[h, card, given + 1]
                r = g_reach[g] * pr
                if not auto:
                    xreach[ip] += r
                node(r, ip, card, low, h, rest, stopped, keep, next_hid, stopped_h, dinfo, blocker, shift,
                     dw_col, stock, mask, both, end_row, keep_w, base, delta, exc, exc_n, out_l, out_p,
                     before, lives, row, cfv, cfp, xreach, life, loss, wd, acc, rd, whole, True, c, sw_g, l_g,
                     p_g, swap_w)
                if not swap:
                    for i in range(width):
                        g_w[g, i] += pr * row[i]
                    continue
                for i in range(width):
                    g_w[g, i] += pr * both[rank_count, f, i] * row[i]
                col = row[f + shift] * pr * mask[rank_count, f + shift]
                g_l[g] += coef_l[f, g_low[g]] * col + row[dw_col] * pr
                g_p[g] += coef_p[f, g_low[g]] * col + row[dw_col] * pr
    return tail_groups


_closed_last = _make_closed_last(_closed_node)
_tail_groups = _make_tail_groups(_closed_node)


MIN_NODES = 10_000
"""Trees smaller than this use the numpy passes by default: loading numba and the compiled loops
(about half a second) costs more than it saves there. Measured, solving standard rules: 3 players
(exact tree 6,435 nodes, without card removal 3,135) 0.11 s with numpy, 0.34 s compiled; 4 players
(86,252 and 13,432 nodes) 1.3 s with numpy, 0.7 s compiled."""


@dataclass(frozen=True)
class Loops:
    """The compiled loops (see the module docstring).

    ``backward_nodes(p0, p1, offset, indptr, child, prob, final, blocked, s, w, shift, rank_count,
    dw_col, mask, both, at, dw)``: the continuations ``w`` of a level's nodes ``p0..p1`` from their
    edges (``indptr``), and per edge the gathered loss column ``at`` and the dealer-wins column
    ``dw``; it releases the GIL, so threads may run disjoint node ranges at once.
    ``forward_edges(offset, parent, child, s, prob, reach)``: adds each edge's flow (its parent's
    reach times ``s`` times ``prob``) to its child's reach.
    ``dealer_rows(bounds, keep, rest, swap32, swap_w, keep_w, precise, out)``: the dealer's
    continuations (see :meth:`.tree.Tree.dealer_w`).
    ``closed_last(...)``: the last two positions of a tree built with ``closed_dealer`` (see
    :func:`_make_closed_last`; without numba the same function runs uncompiled, for small trees).
    ``tail_groups(...)``: the last three positions of a tree built with ``closed_three``, group by
    group (see :func:`_make_tail_groups` and :mod:`.tail`).
    """

    backward_nodes: Callable[..., None]
    forward_edges: Callable[..., None]
    dealer_rows: Callable[..., None]
    closed_last: Callable[..., None]
    tail_groups: Callable[..., None]


_LOOPS: list[Loops] = []


def available() -> bool:
    """Whether the compiled loops can be had: numba is installed (found, not imported) and
    ``CHASETHEACE_NUMBA=0`` does not ask for the numpy passes."""
    if os.environ.get("CHASETHEACE_NUMBA") == "0":
        return False
    return importlib.util.find_spec("numba") is not None


def worth(nodes: int) -> bool:
    """Whether a tree of ``nodes`` nodes runs on the compiled loops by default."""
    return nodes >= MIN_NODES and available()


def loops() -> Loops:
    """The compiled loops (numba imported on the first call); ValueError without numba."""
    if not _LOOPS:
        if not available():
            raise ValueError(needs_extra_text("compiled passes", "fast", missing="numba", plural=True))
        from numba import njit

        def jit(fn: Callable[..., None]) -> Callable[..., None]:
            try:
                return njit(cache=True, nogil=True)(fn)
            except RuntimeError:  # no writable cache folder: compile on each run instead
                return njit(nogil=True)(fn)

        node = jit(_closed_node)
        _LOOPS.append(Loops(jit(_backward_nodes), jit(_forward_edges), jit(_dealer_rows),
                            jit(_make_closed_last(node)), jit(_make_tail_groups(node))))
    return _LOOPS[0]


def closed_last(compiled: bool) -> Callable[..., None]:
    """The loop of the last two positions: compiled, or (without numba) as plain Python."""
    return loops().closed_last if compiled else _closed_last


def tail_groups(compiled: bool) -> Callable[..., None]:
    """The loop of the last three positions' groups: compiled, or (without numba) as plain Python."""
    return loops().tail_groups if compiled else _tail_groups
