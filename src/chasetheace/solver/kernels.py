"""Compiled loops for the exact tree's passes, used when numba (extra ``[fast]``) is installed.

The numpy passes of :mod:`.cfr` sum the forward flows with ``bincount``, and for the backward
pass gather every edge's child continuation into a temporary array, scale it and sum it per node
with a sparse product: several passes over arrays of tens of millions of rows at 6 players. The
loops here do each in one pass without temporaries. Without numba the solver uses the numpy
passes: the results agree to rounding (the sums are taken in another order). The environment
variable ``CHASETHEACE_NUMBA=0`` makes the solver use the numpy passes even where numba is installed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["backward_nodes", "compiled", "dealer_rows", "forward_edges"]


def _backward_nodes(p0: int, p1: int, offset: int, indptr: Any, child: Any, prob: Any, final: Any,
                    blocked: Any, s: Any, w: Any, shift: int, kinds: int, dw_col: int, mask: Any,
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
            blk = b if b >= 0 else kinds
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
    kinds = rest.shape[1]
    for x in range(len(bounds) - 1):
        for i in range(bounds[x], bounds[x + 1]):
            kp = keep[i]
            for v in range(width):
                if precise:
                    acc = 0.0
                    for st in range(kinds):
                        acc += rest[i, st] * swap_w[x, st, v]
                else:
                    acc = swap32[i, v]
                out[i, v] = acc + kp * (keep_w[x, v] - acc)


def _compile(fn: Callable[..., None]) -> Callable[..., None] | None:
    if os.environ.get("CHASETHEACE_NUMBA") == "0":  # asked for the numpy passes (to compare them)
        return None
    try:
        from numba import njit
    except ImportError:
        return None
    try:
        return njit(cache=True, nogil=True)(fn)
    except RuntimeError:  # no writable cache folder: compile on each run instead
        return njit(nogil=True)(fn)


backward_nodes = _compile(_backward_nodes)
"""``backward_nodes(p0, p1, offset, indptr, child, prob, final, blocked, s, w, shift, kinds, dw_col,
mask, both, at, dw)``: the continuations ``w`` of a level's nodes ``p0..p1`` from their edges
(``indptr``), and per edge the gathered loss column ``at`` and the dealer-wins column ``dw``; None
without numba. It releases the GIL: threads may run disjoint node ranges at once."""

forward_edges = _compile(_forward_edges)
"""``forward_edges(offset, parent, child, s, prob, reach)``: adds each edge's flow (its parent's
reach times ``s`` times ``prob``) to its child's reach; None without numba."""

dealer_rows = _compile(_dealer_rows)
"""``dealer_rows(bounds, keep, rest, swap32, swap_w, keep_w, precise, out)``: the dealer's
continuations (see :meth:`.tree.Tree.dealer_w`); None without numba."""


def compiled() -> bool:
    """Whether the compiled loops are available (numba is installed)."""
    return backward_nodes is not None and forward_edges is not None and dealer_rows is not None
