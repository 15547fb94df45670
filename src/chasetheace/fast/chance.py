"""The kernel's chance: a splitmix64 generator, bounded draws without bias, and the draws of a
fresh pack (choosing the first dealer, cutting for the pot); or, to replay the engine, the given
shuffles and picks."""

from __future__ import annotations

from typing import Any

import numpy as np

from .layout import FD_HIGH, FD_RANDOM, G_PICK, G_SHORT, G_SHUF, R_DECK, R_FD, U32, _rank, jit


@jit(inline=True)
def _next(rng: np.ndarray) -> Any:  # pragma: no cover - compiled
    z = rng[0] + np.uint64(0x9E3779B97F4A7C15)
    rng[0] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@jit(inline=True)
def _below(rng: np.ndarray, bound: int) -> Any:  # pragma: no cover - compiled
    """Uniform in 0..bound-1, without bias (Lemire's multiply-and-reject)."""
    b = np.uint64(bound)
    m = (_next(rng) >> np.uint64(32)) * b
    low = m & U32
    if low < b:
        t = (np.uint64(0x100000000) - b) % b
        while low < t:
            m = (_next(rng) >> np.uint64(32)) * b
            low = m & U32
    return np.int64(m >> np.uint64(32))


@jit(inline=True)
def _below_at(state: Any, bound: int) -> tuple[Any, Any]:  # pragma: no cover - compiled
    """:func:`_below` on a generator state held in a register: returns (the next state, the draw),
    the same draws as :func:`_below`. For a loop of draws (the deal's shuffle): the state in the
    array is read again after every write to another array (the compiler cannot tell them apart),
    a load and a store on the chain from one draw to the next."""
    b = np.uint64(bound)
    state = state + np.uint64(0x9E3779B97F4A7C15)
    z = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    m = ((z ^ (z >> np.uint64(31))) >> np.uint64(32)) * b
    low = m & U32
    if low < b:
        t = (np.uint64(0x100000000) - b) % b
        while low < t:
            state = state + np.uint64(0x9E3779B97F4A7C15)
            z = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            m = ((z ^ (z >> np.uint64(31))) >> np.uint64(32)) * b
            low = m & U32
    return state, np.int64(m >> np.uint64(32))


@jit(inline=True)
def _uniform(rng: np.ndarray) -> float:  # pragma: no cover - compiled
    return np.float64(_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@jit()
def _pick(bound: int, script: bool, picks: np.ndarray, g: np.ndarray,
          rng: np.ndarray) -> int:  # pragma: no cover - compiled
    if script:
        if g[G_PICK] >= picks.shape[0] or not 0 <= picks[g[G_PICK]] < bound:
            g[G_SHORT] = 1  # the script has no (fitting) pick left: the game stops
            return 0
        v = picks[g[G_PICK]]
        g[G_PICK] += 1
        return int(v)
    return int(_below(rng, bound))


@jit()
def _shuffle_pack(tmp: np.ndarray, deck: int, need: int, script: bool, shuffles: np.ndarray,
                  g: np.ndarray, rng: np.ndarray) -> None:  # pragma: no cover - compiled
    """A fresh shuffle of the pack into ``tmp`` (only the first ``need`` cards are drawn)."""
    if script:
        if g[G_SHUF] >= shuffles.shape[0]:
            g[G_SHORT] = 1
            return
        row = shuffles[g[G_SHUF]]
        g[G_SHUF] += 1
        for i in range(deck):
            tmp[i] = row[i]
        return
    for i in range(need):
        j = i + _below(rng, deck - i)
        c = tmp[i]
        tmp[i] = tmp[j]
        tmp[j] = c


@jit()
def _choose_dealer(R: np.ndarray, STR: np.ndarray, n: int, tmp: np.ndarray, cont: np.ndarray,
                   script: bool, picks: np.ndarray, shuffles: np.ndarray, g: np.ndarray,
                   rng: np.ndarray) -> int:  # pragma: no cover - compiled
    deck = R[R_DECK]
    if R[R_FD] == FD_RANDOM:
        return _pick(n, script, picks, g, rng)
    if R[R_FD] == FD_HIGH:  # every seat cuts; the highest cut again until one is left
        for i in range(n):
            cont[i] = i
        return _cut_highest(R, STR, cont, n, tmp, script, shuffles, g, rng)
    # first-jack: cards face up round the table from seat 0 until a jack
    if script:
        _shuffle_pack(tmp, deck, deck, script, shuffles, g, rng)
    i = 0
    while True:
        if not script:
            j = i + _below(rng, deck - i)
            c = tmp[i]
            tmp[i] = tmp[j]
            tmp[j] = c
        if _rank(tmp[i]) == 11:
            return i % n
        i += 1


@jit()
def _cut_highest(R: np.ndarray, STR: np.ndarray, out: np.ndarray, m: int, tmp: np.ndarray,
                 script: bool, shuffles: np.ndarray, g: np.ndarray,
                 rng: np.ndarray) -> int:  # pragma: no cover - compiled
    while m > 1:
        _shuffle_pack(tmp, R[R_DECK], m, script, shuffles, g, rng)
        best = 0
        for i in range(m):
            v = STR[_rank(tmp[i])]
            if v > best:
                best = v
        k = 0
        for i in range(m):
            if STR[_rank(tmp[i])] == best:
                out[k] = out[i]
                k += 1
        m = k
        if g[G_SHORT]:
            break
    return int(out[0])
