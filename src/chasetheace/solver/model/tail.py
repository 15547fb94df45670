"""A sharper exact evaluation of the exact tree: the last three positions in closed form.

What a node is
--------------
A node of the exact tree (:class:`~.tree.Tree`, true card removal) at position ``j`` is the key
``(h, D, x, g)``: the public history ``h``, the multiset ``D`` of the cards drawn so far, the
actor's card ``x`` and the card ``g`` it gave its right neighbour (or -1). Information sets are
``(j, h, x, g)``: the card dimension of the tree is ``D``, which no seat sees. The forward pass
carries each node's *reach* (chance times every seat's play), the backward pass its
*continuation* ``W`` (for each strength ``v``, the chance that every later seat ends with a card
``>= v``, and the two dealer columns); a seat's counterfactual value at a node is its reach times
a gather from the child's ``W`` with coefficients that depend on the node only through ``x``, the
final card and ``low``, the weakest final card of the earlier seats (the weakest card of ``D``
less ``x``). Let ``N_j`` be the number of nodes at position ``j``: it grows about tenfold per
position, so the level of the dealer's right neighbour (``N_{n-2}``) is nine tenths of a part
built with ``closed_dealer`` (7 players, part (5, 7): 321,328 of 347,672 nodes; 8 players:
3,301,340 of 3,641,892).

The exact fact
--------------
After a node, the cards drawn so far matter only through the stock left ``r = copies - D``: the
chance of the next draw being ``c`` is ``r_c / T`` (``T = |r|``, fixed by how many cards were
dealt, hence by the position and ``h``), and everything later is played on information sets that
do not contain ``D``. So the continuation of a node is ``W(h, x, g; r)``, and in the falling
factorial basis ``r^(m) = prod_c r_c (r_c - 1) ... (r_c - m_c + 1)`` it is a polynomial of degree
``d`` (the draws left) whose coefficients depend on ``(h, x, g)`` only: drawing ``c`` multiplies by
``r_c`` and moves ``r`` to ``r - e_c``, and ``r_c (r - e_c)^(m) = r^(m + e_c)``. The reach side is
the dual: the moments ``M(m) = sum_D reach(h, x, g, D) [low(D) >= v] r(D)^(m)`` of a class propagate
forward as ``M_child(m) = M_parent(m + e_c) / T``, and every counterfactual value is an inner
product of moments and coefficients. Meeting in the middle at a position ``M`` then costs the
front tree up to ``M`` (``sum_{j<=M} N_j`` nodes), one coefficient table of ``mu(d_M)`` monomials
per class and width after it (``mu(d)``, the multisets of at most ``d`` strengths: 14, 105, 560,
2,380 for ``d`` = 1..4 with 13 strengths), and at the junction one evaluation of a degree-``d_M``
polynomial per front node (``mu(d_M)`` times the width of multiply-adds). That evaluation is the
cost that decides where to meet: per front node it is ``mu(d)`` times 16 products against the
``K^(d)`` draws (about ``(2K)^d`` operations) of enumerating the later draws one by one; both grow
like ``K^d``, so the gain is in the *nodes never built* (memory, and the sorting that merges them),
not in the arithmetic. ``d = 2`` is what ``closed_dealer`` already does (:func:`.kernels.closed_last`:
the dealer's card and its draw from the stock, evaluated per node of position ``n - 2``); this
module takes ``d = 3``: the nodes of position ``n - 2`` are never built either.

The reformulation implemented (``Tree(..., closed_three=True)``)
----------------------------------------------------------------
The tree is built up to position ``n - 3``. Its nodes fall into groups whose children are the same:

- a *keep group* ``(h', D)``: the nodes that keep (or pass: shown blocker, stopped play) into the
  history ``h'`` with the cards ``D``; its children are ``(h', D + c, c, -1)`` for each strength
  ``c`` left, whatever card the parent held (the parent's card only weights its own share);
- a *swap group* ``(h, D, x)``: the deciding nodes holding ``x`` that swap; its children are
  ``(h + s_c, D + c, x, c)`` and, for the blocker, ``(h + b, D + b, b, -2)`` (the neighbour shows
  it and the dealer's turn comes next, as with ``closed_dealer``).

Why it is exact. (1) A child's continuation depends on its key only (the fact above), and every
figure of positions ``n - 2`` and ``n - 1`` at a child (the counterfactual values of both
positions, the dealer's reach, lives and losses) is linear in the child's reach:
:func:`.kernels.closed_last` evaluates them from ``(key, reach)``, the loop ``closed_dealer``
already uses. (2) A child's reach is the sum over its in-edges of the parent's reach times the
parent's probability of the action times the chance of the draw, and the chance ``r_c / T``
depends on ``D`` only, constant in the group: the child's reach is the group's reach (the sum of
its parents' reach times their probability of the action) times ``r_c / T``. (3) The parent's
continuation and its seat's losses are sums over its edges of the child's continuation times
factors that depend on the final card and the parent's ``low``: for a keep group the final card is
the parent's own ``x``, outside the sum over ``c``, so the group's ``sum_c (r_c / T) W_c`` serves
every parent; a swap group fixes ``x`` and ``D``, hence ``low``, so its whole sum does. Only the
order of the additions changes (rounding, about 1e-16 relative). A child met from two groups (a
blocked swap is reached from every ``x``) is evaluated twice, each with its share of the reach:
linearity again; it costs a little time, not exactness. (4) The same fact once more inside a
group: the dealer's cut of the stock is linear in the cards left, so its sums (the continuation
``rd @ swap_w[x]``, the lives and chances of losing it brings) are taken once per group over the
group's cards left, and each child corrects them by the two cards dealt since (its own and the
dealer's): two subtractions instead of a sum over the stock (:func:`.kernels.tail_groups`).

Counts, with ``E_j`` the edges leaving position ``j`` (about ``2K`` per deciding node) and ``G``
the groups (at most twice ``N_{n-3}``):

- ``closed_dealer`` (today's parts): ``sum_{j<=n-2} N_j`` nodes, each with a continuation row of
  ``K + 3`` doubles; the edges of positions up to ``n - 3``; building merges ``E_{n-3}`` keys of
  ``K`` counts each (the sort of the largest level: most of a part's time at 8 players);
- ``closed_three``: ``sum_{j<=n-3} N_j`` nodes (about a tenth), the edges up to ``n - 4``, ``G``
  group rows; the ``N_{n-2}``-odd children are generated and evaluated in chunks of
  :data:`CHUNK` per pass (the same ``closed_last`` work per child as today per node), so the
  memory of that level is a chunk, not the level.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .dealing import Array

__all__ = ["CHUNK", "TailTables", "chunks", "evaluate_tail", "tail_children"]

CHUNK = 1 << 18
"""Children of position ``n - 2`` generated and evaluated at once (bounds the temporaries)."""


@dataclass
class TailTables:
    """What :func:`evaluate_tail` reads: the groups of the nodes of position ``n - 3`` (``kg``: each
    node's keep group; ``sg``: its swap group, -1 where it does not decide), each group's history
    of the children, cards left and weakest card, and the strengths its children may be dealt."""

    kg: Array            # (N,) keep group of each node
    sg: Array            # (N,) swap group of each node, -1 if the node does not decide
    auto: Array          # (N,) the node does not decide
    k_hid: Array         # keep groups: the children's history
    k_rest: Array        # (G, K) the cards left
    k_low: Array         # the weakest card drawn (the children's low)
    k_allow: Array       # (G, K) the strengths the children may be dealt
    s_hid: Array         # swap groups: the parents' history
    s_card: Array        # the parents' card
    s_rest: Array
    s_low: Array         # the parents' low
    s_allow: Array
    s_next: Array        # (hists, K) the children's history after a swap receiving c ("b": the blocker)
    ninfo: Array         # (hists, K, K + 2) the information set of position n - 2 (h, card, given + 1)


def tail_children(t: TailTables, kind: str, g0: int, g1: int, stopped_h: Array,
                  blocker: int) -> dict[str, Array]:
    """The children of groups ``g0..g1`` of ``kind`` (``"keep"`` or ``"swap"``), group by group:
    their group, the strength ``c`` drawn, its chance, and the key closed_last reads (history, card,
    low, cards left, stopped, information set, given)."""
    if kind == "keep":
        rest, allow = t.k_rest[g0:g1], t.k_allow[g0:g1]
    else:
        rest, allow = t.s_rest[g0:g1], t.s_allow[g0:g1]
    ok = (rest > 0) & allow
    grp, c = np.nonzero(ok)  # row-major: the children of a group are contiguous
    total = rest.sum(axis=1, dtype=np.int64)
    pr = rest[grp, c] / total[grp]
    crest = rest[grp].astype(np.int8)
    crest[np.arange(len(c)), c] -= 1
    g = grp + g0
    if kind == "keep":
        hid = t.k_hid[g]
        card = c
        low = t.k_low[g]
        given = np.full(len(c), -1)
        stopped = stopped_h[hid]
    else:
        hid = t.s_next[t.s_hid[g], c]
        x = t.s_card[g]
        blocked = c == blocker
        card = np.where(blocked, c, x)
        low = np.where(blocked, np.minimum(t.s_low[g], x), np.minimum(t.s_low[g], c))
        given = np.where(blocked, -2, c)
        stopped = stopped_h[hid] | blocked
    auto = stopped | (card == blocker)
    info = np.where(auto, -1, t.ninfo[hid, card, np.maximum(given, -1) + 1])
    return dict(group=g, c=c, pr=pr, hid=hid.astype(np.int64), card=card.astype(np.int64),
                low=low.astype(np.int64), rest=crest, stopped=stopped, auto=auto, info=info.astype(np.int64),
                given=given)


def chunks(rest: Array) -> list[tuple[int, int]]:
    """Ranges of groups with about CHUNK children each."""
    per = (rest > 0).sum(axis=1)
    ends = np.cumsum(per)
    cuts: Array = np.searchsorted(ends, np.arange(CHUNK, int(ends[-1]) + CHUNK, CHUNK)) if len(per) else []
    out, start = [], 0
    for cut in [*list(cuts), len(per)]:
        end = min(int(cut) + 1, len(per))
        if end > start:
            out.append((start, end))
            start = end
    return out


def evaluate_tail(t: TailTables, closed: dict[str, Any], reach: Array, info: Array, card: Array,
                  low: Array, keep: Array, run: Callable[..., None], consts: dict[str, Any], w: Array,
                  cfv: Array, cfp: Array, life: Array, loss: Array,
                  groups: Callable[..., None] | None = None) -> Array:
    """One pass over the last three positions from the nodes of position ``n - 3`` (their ``reach``,
    information sets ``info``, ``card`` and ``low``) under ``keep`` (probability of keeping per
    information set): fills the nodes' continuations ``w`` and adds the three positions'
    counterfactual values (``cfv``, ``cfp``: flat, two per information set), lives and losses;
    returns the reach of the information sets of positions ``n - 2`` and ``n - 1`` (no built node
    has them). ``run`` is :func:`.kernels.closed_last` (compiled or not), ``closed`` the tables it
    reads (see :meth:`.tree.Tree._tail_tables`), ``consts`` the engine's factors (``mask``,
    ``both``, ``coef_l``, ``coef_p``, ``lives``, ``shift``, ``dw``, ``blocker``). ``groups``
    (:func:`.kernels.tail_groups`), if given, walks the groups and their children in one loop;
    otherwise the children are generated with numpy, :data:`CHUNK` at a time, and ``run`` evaluates
    them (the same sums in another order)."""
    n_info = len(keep)
    width = w.shape[1]
    k = t.k_rest.shape[1]
    mask, both, coef_l, coef_p = consts["mask"], consts["both"], consts["coef_l"], consts["coef_p"]
    shift, dw, blocker = consts["shift"], consts["dw"], consts["blocker"]
    # (a part in which nobody decides has no information set at all)
    s_keep = np.where(t.auto, 1.0, keep[np.maximum(info, 0)] if len(keep) else 1.0)
    g_keep = np.bincount(t.kg, reach * s_keep, minlength=len(t.k_hid))
    dec = np.flatnonzero(~t.auto)
    g_swap = np.bincount(t.sg[dec], reach[dec] * (1.0 - s_keep[dec]), minlength=len(t.s_hid))
    extra_reach = np.zeros(n_info)
    k_w = np.zeros((len(t.k_hid), width))
    s_w = np.zeros((len(t.s_hid), width))
    s_l = np.zeros(len(t.s_hid))
    s_p = np.zeros(len(t.s_hid))
    if groups is not None:
        unused = np.zeros(len(g_keep))
        for sw, gr in ((False, g_keep), (True, g_swap)):
            g_w, g_l, g_p = (s_w, s_l, s_p) if sw else (k_w, unused, unused)
            # (keep groups: g_card is not read, g_low is the children's)
            groups(sw, gr, t.s_rest if sw else t.k_rest, t.s_allow if sw else t.k_allow,
                   t.s_hid if sw else t.k_hid, t.s_card if sw else t.k_low, t.s_low if sw else t.k_low,
                   t.s_next, t.ninfo, keep, closed["next_hid"], closed["stopped_h"], closed["dinfo"], blocker,
                   shift, dw, closed["stock"], mask, both, closed["end_row"], closed["keep_w"],
                   closed["base"], closed["delta"], closed["exc"], closed["exc_n"], closed["out_l"],
                   closed["out_p"], coef_p, consts["lives"], closed["swap_w"], coef_l, coef_p, g_w, g_l, g_p,
                   cfv, cfp,
                   extra_reach, life, loss)
    for kind, gr, rest in (("keep", g_keep, t.k_rest), ("swap", g_swap, t.s_rest)):
        if groups is not None:
            break
        for g0, g1 in chunks(rest):
            ch = tail_children(t, kind, g0, g1, closed["stopped_h"], blocker)
            m = len(ch["c"])
            if not m:
                continue
            r = gr[ch["group"]] * ch["pr"]
            rows = np.zeros((m, width))
            run(r, ch["info"], ch["card"], ch["low"], ch["hid"], ch["rest"], ch["stopped"], keep,
                closed["next_hid"], closed["stopped_h"], closed["dinfo"], blocker, shift, dw, closed["stock"],
                mask, both, closed["end_row"], closed["keep_w"], closed["base"], closed["delta"],
                closed["exc"], closed["exc_n"], closed["out_l"], closed["out_p"], coef_p, consts["lives"],
                rows, cfv, cfp, extra_reach, life, loss)
            d = ~ch["auto"]
            extra_reach += np.bincount(ch["info"][d], r[d], minlength=n_info)
            starts = np.flatnonzero(np.r_[True, ch["group"][1:] != ch["group"][:-1]])
            at = ch["group"][starts]
            pr = ch["pr"][:, None]
            if kind == "keep":
                k_w[at] = np.add.reduceat(rows * pr, starts, axis=0)
                continue
            f = np.where(ch["c"] == blocker, t.s_card[ch["group"]], ch["c"])  # blocked: keeps its card
            s_w[at] = np.add.reduceat(rows * pr * both[k, f], starts, axis=0)
            col = rows[np.arange(m), f + shift] * ch["pr"] * mask[k, f + shift]
            plow = t.s_low[ch["group"]]
            ends = rows[:, dw] * ch["pr"]
            s_l[at] = np.add.reduceat(coef_l[f, plow] * col + ends, starts)
            s_p[at] = np.add.reduceat(coef_p[f, plow] * col + ends, starts)
    # the nodes of position n - 3: keep (or pass) and swap
    wk = k_w[t.kg]
    col = wk[np.arange(len(card)), card + shift] * mask[k, card + shift]
    keep_l = coef_l[card, low] * col + wk[:, dw]
    keep_p = coef_p[card, low] * col + wk[:, dw]
    swap = np.where(t.auto, 0.0, 1.0 - s_keep)
    sg = np.maximum(t.sg, 0)
    has = t.sg >= 0
    w[:] = s_keep[:, None] * both[k, card] * wk
    w[has] += swap[has, None] * s_w[sg[has]]
    swap_l = np.append(s_l, 0.0)[np.where(has, t.sg, len(s_l))]  # (a part may have no swap group)
    swap_p = np.append(s_p, 0.0)[np.where(has, t.sg, len(s_p))]
    n = len(life)
    life[n - 3] += reach @ (s_keep * keep_l + swap * swap_l)
    loss[n - 3] += reach @ (s_keep * keep_p + swap * swap_p)
    di = info[dec] * 2
    cfv += np.bincount(di, reach[dec] * keep_l[dec], minlength=2 * n_info)
    cfv += np.bincount(di + 1, reach[dec] * swap_l[dec], minlength=2 * n_info)
    cfp += np.bincount(di, reach[dec] * keep_p[dec], minlength=2 * n_info)
    cfp += np.bincount(di + 1, reach[dec] * swap_p[dec], minlength=2 * n_info)
    return extra_reach
