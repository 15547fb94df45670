"""``CountingBot`` in the kernel (``between_hands = shuffle``): what each counting seat learns
during a hand, and its choice, with the bot's own arithmetic (exact binomial ratios), so that the
kernel and the engine take the same decision every time."""

from __future__ import annotations

import numpy as np

from .layout import (
    DDB_LOSES,
    DDB_VOID,
    DSR_NONE,
    P_COUNTING,
    R_BLOCKER,
    R_DDB,
    R_DECK,
    R_DEX_TOP,
    R_DSR,
    W_COUNT,
    W_HANDS,
    W_ORDER,
    WS_ROWS,
    _jit,
    _rank,
)


@_jit()
def _comb(a: int, b: int) -> int:  # pragma: no cover - compiled
    if b < 0 or b > a:
        return 0
    c = 1
    for i in range(b):
        c = c * (a - i) // (i + 1)
    return c


@_jit()
def _p_lose(mine: int, known: np.ndarray, k: int, skip: int, over_seat: int, over_value: int,
            size: int, higher: int) -> float:  # pragma: no cover - compiled
    """CountingBot._p_lose: ``known`` holds the strength each place is known to hold (0: unknown);
    place ``skip`` (the deciding seat) does not count, place ``over_seat`` counts ``over_value``."""
    unknown = 0
    for i in range(k):
        if i == skip:
            continue
        v = over_value if i == over_seat else known[i]
        if v == 0:
            unknown += 1
        elif v < mine:
            return 0.0
    if unknown == 0:
        return 1.0
    if unknown > size:
        return 0.0
    return float(_comb(higher, unknown)) / float(_comb(size, unknown))


@_jit()
def _counting_keeps(me: int, place: int, k: int, R: np.ndarray, STR: np.ndarray, ws: np.ndarray,
                    n: int, length: int) -> bool:  # pragma: no cover - compiled
    """CountingBot's choice (``between_hands = shuffle``: nothing carries over between hands)."""
    order, counts = ws[W_ORDER], ws[W_COUNT]
    cards, ranks = ws[WS_ROWS + me], ws[WS_ROWS + n + me]
    mine = ws[W_HANDS, me]
    deck = R[R_DECK]
    blocker = R[R_BLOCKER]
    for r in range(1, 14):
        counts[r] = 4 if deck == 52 or r == 1 or r >= 7 else 0
    counts[_rank(mine)] -= 1
    size = 0
    strengths = ws[W_COUNT, 16:16 + k]  # the known strength at each place (0: unknown)
    for i in range(k):
        s = order[i]
        c = cards[s]
        if c >= 0 and s != me:
            counts[_rank(c)] -= 1
        strengths[i] = STR[_rank(c)] if c >= 0 else (STR[ranks[s]] if ranks[s] > 0 else 0)
    for r in range(1, 14):
        size += counts[r]
    m = STR[_rank(mine)]
    keep = _p_lose(m, strengths, k, place, -1, 0, size, _above(counts, STR, m))
    swap = 0.0
    if place == k - 1:  # the dealer: the average over what the exchange would bring
        slots = 1 if R[R_DEX_TOP] else length
        total = 0.0
        if size > 0:
            for r in range(1, 14):
                if counts[r] == 0:
                    continue
                weight = float(slots * counts[r]) / float(size)
                d = STR[r]
                if blocker != 0 and r == blocker:
                    if R[R_DDB] == DDB_VOID:
                        total += weight * _p_lose(m, strengths, k, place, -1, 0, size - 1,
                                                  _above(counts, STR, m) - (1 if d > m else 0))
                        continue
                    if R[R_DDB] == DDB_LOSES:
                        total += weight
                        continue
                if r == _rank(mine) and R[R_DSR] != DSR_NONE:
                    continue
                total += weight * _p_lose(d, strengths, k, place, -1, 0, size - 1, _above(counts, STR, d))
        swap = total / max(1, slots)
    else:
        nb = place + 1
        c = cards[order[nb]]
        if c >= 0:
            swap = _after_swap(m, _rank(c), strengths, k, place, nb, size, False, counts, STR, blocker)
        else:
            total = 0.0
            for r in range(1, 14):
                if counts[r] > 0:
                    total += counts[r] * _after_swap(m, r, strengths, k, place, nb, size - 1, True, counts,
                                                     STR, blocker)
            swap = total / max(1, size)
    return not swap < keep - 1e-12


@_jit()
def _above(counts: np.ndarray, STR: np.ndarray, strength: int) -> int:  # pragma: no cover - compiled
    total = 0
    for r in range(1, 14):
        if STR[r] > strength:
            total += counts[r]
    return total


@_jit()
def _after_swap(m: int, rank: int, strengths: np.ndarray, k: int, place: int, nb: int, size: int,
                removed: bool, counts: np.ndarray, STR: np.ndarray,
                blocker: int) -> float:  # pragma: no cover - compiled
    """CountingBot._after_swap: the chance of losing once the neighbour turns out to hold ``rank``."""
    d = STR[rank]
    if blocker != 0 and rank == blocker:  # blocked: keep, the neighbour shown
        gone = 1 if removed and d > m else 0
        return _p_lose(m, strengths, k, place, nb, 14, size, _above(counts, STR, m) - gone)
    return _p_lose(d, strengths, k, place, nb, m, size, _above(counts, STR, d))


@_jit()
def _learn(ws: np.ndarray, n: int, pol_kind: np.ndarray, seat: int,
           card: int) -> None:  # pragma: no cover - compiled
    """Every counting seat learns that ``seat`` holds ``card`` (it was shown)."""
    for c in range(n):
        if pol_kind[c] == P_COUNTING:
            ws[WS_ROWS + c, seat] = card


@_jit()
def _learn_swap(ws: np.ndarray, n: int, pol_kind: np.ndarray, seat: int, nb: int, mine: int,
                theirs: int, announced: int) -> None:  # pragma: no cover - compiled
    """Every counting seat follows a swap: what it knew of the two cards moves with them; the two
    players know both cards; an announced rank is heard by all."""
    for c in range(n):
        if pol_kind[c] != P_COUNTING:
            continue
        cards, ranks = ws[WS_ROWS + c], ws[WS_ROWS + n + c]
        cards[seat], cards[nb] = cards[nb], cards[seat]
        ranks[seat], ranks[nb] = ranks[nb], ranks[seat]
        if c in (seat, nb):
            cards[seat], cards[nb] = theirs, mine
        if announced:
            ranks[seat] = announced
