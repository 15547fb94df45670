"""Compiled loops for the exact tree's passes, used when numba (extra ``[fast]``) is installed.

The numpy passes of :mod:`.cfr` sum the forward flows with ``bincount``, and for the backward
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

__all__ = ["MIN_NODES", "Loops", "available", "loops", "worth"]


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


MIN_NODES = 10_000
"""Trees smaller than this use the numpy passes by default: loading numba and the compiled loops
(about half a second) costs more than it saves there. Measured, solving standard rules: 3 players
(exact tree 6,435 nodes, without card removal 3,135) 0.11 s with numpy, 0.34 s compiled; 4 players
(86,252 and 13,432 nodes) 1.3 s with numpy, 0.7 s compiled."""


@dataclass(frozen=True)
class Loops:
    """The compiled loops (see the module docstring).

    ``backward_nodes(p0, p1, offset, indptr, child, prob, final, blocked, s, w, shift, kinds,
    dw_col, mask, both, at, dw)``: the continuations ``w`` of a level's nodes ``p0..p1`` from their
    edges (``indptr``), and per edge the gathered loss column ``at`` and the dealer-wins column
    ``dw``; it releases the GIL, so threads may run disjoint node ranges at once.
    ``forward_edges(offset, parent, child, s, prob, reach)``: adds each edge's flow (its parent's
    reach times ``s`` times ``prob``) to its child's reach.
    ``dealer_rows(bounds, keep, rest, swap32, swap_w, keep_w, precise, out)``: the dealer's
    continuations (see :meth:`.tree.Tree.dealer_w`).
    """

    backward_nodes: Callable[..., None]
    forward_edges: Callable[..., None]
    dealer_rows: Callable[..., None]


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
            raise ValueError("compiled passes need numba: pip install 'chase-the-ace[fast]'")
        from numba import njit

        def jit(fn: Callable[..., None]) -> Callable[..., None]:
            try:
                return njit(cache=True, nogil=True)(fn)
            except RuntimeError:  # no writable cache folder: compile on each run instead
                return njit(nogil=True)(fn)

        _LOOPS.append(Loops(jit(_backward_nodes), jit(_forward_edges), jit(_dealer_rows)))
    return _LOOPS[0]
