"""``CountingBot`` in the kernel: what each counting seat learns during a hand (and, with
``between_hands = to-bottom``, of the stock from hand to hand), and its choice, with the bot's own
arithmetic (exact binomial ratios), so that the kernel and the engine take the same decision every
time."""

from __future__ import annotations

import numpy as np

from .layout import (
    DDB_LOSES,
    DDB_VOID,
    DSR_NONE,
    MASK,
    P_COUNTING,
    R_BH,
    R_BLOCKER,
    R_DDB,
    R_DECK,
    R_DEX_TOP,
    R_DSR,
    RING,
    W_COUNT,
    W_HANDS,
    W_ORDER,
    W_STOCK,
    WS_ROWS,
    _rank,
    _remove_from_stock,
    jit,
)


@jit()
def _comb(a: int, b: int) -> int:  # pragma: no cover - compiled
    if b < 0 or b > a:
        return 0
    c = 1
    for i in range(b):
        c = c * (a - i) // (i + 1)
    return c


@jit()
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


@jit()
def _counting_keeps(me: int, place: int, k: int, R: np.ndarray, STR: np.ndarray, ws: np.ndarray,
                    n: int, length: int, head: int) -> bool:  # pragma: no cover - compiled
    """CountingBot's choice for seat ``me`` at ``place`` in the turn order."""
    order, counts, stock = ws[W_ORDER], ws[W_COUNT], ws[W_STOCK]
    cards, ranks, places = ws[WS_ROWS + me], ws[WS_ROWS + n + me], ws[WS_ROWS + 2 * n + me]
    follow = R[R_BH] == 1
    mine = ws[W_HANDS, me]
    deck = R[R_DECK]
    for r in range(1, 14):
        counts[r] = 4 if deck == 52 or r == 1 or r >= 7 else 0
    counts[_rank(mine)] -= 1
    strengths = ws[W_COUNT, 16:16 + k]  # the known strength at each place (0: unknown)
    for i in range(k):
        s = order[i]
        c = cards[s]
        if c >= 0 and s != me:
            counts[_rank(c)] -= 1
        strengths[i] = STR[_rank(c)] if c >= 0 else (STR[ranks[s]] if ranks[s] > 0 else 0)
    if follow:
        for i in range(length):
            if places[(head + i) & MASK]:
                counts[_rank(stock[(head + i) & MASK])] -= 1
    size = 0
    for r in range(1, 14):
        size += counts[r]
    m = STR[_rank(mine)]
    keep = _p_lose(m, strengths, k, place, -1, 0, size, _above(counts, STR, m))
    if place == k - 1:  # the dealer: the average over what the exchange would bring
        slots = 1 if R[R_DEX_TOP] else length
        total = 0.0
        unknown = slots
        if follow:  # the slots whose card it knows, in stock order
            for i in range(slots):
                p = (head + i) & MASK
                if places[p]:
                    unknown -= 1
                    total += _draw(_rank(stock[p]), 1.0, 0, mine, strengths, k, place, size, counts, STR, R)
        if unknown > 0 and size > 0:
            for r in range(1, 14):
                if counts[r] > 0:
                    total += _draw(r, float(unknown * counts[r]) / float(size), 1, mine, strengths, k,
                                   place, size, counts, STR, R)
        swap = total / max(1, slots)
    else:
        nb = place + 1
        c = cards[order[nb]]
        if c >= 0:
            swap = _after_swap(m, _rank(c), strengths, k, place, nb, size, False, counts, STR, R[R_BLOCKER])
        else:
            total = 0.0
            for r in range(1, 14):
                if counts[r] > 0:
                    total += counts[r] * _after_swap(m, r, strengths, k, place, nb, size - 1, True, counts,
                                                     STR, R[R_BLOCKER])
            swap = total / max(1, size)
    return not swap < keep - 1e-12


@jit()
def _draw(rank: int, weight: float, from_pool: int, mine: int, strengths: np.ndarray, k: int,
          place: int, size: int, counts: np.ndarray, STR: np.ndarray,
          R: np.ndarray) -> float:  # pragma: no cover - compiled
    """One term of CountingBot._dealer_swap: the dealer draws ``rank`` with this ``weight``."""
    m = STR[_rank(mine)]
    d = STR[rank]
    if R[R_BLOCKER] != 0 and rank == R[R_BLOCKER]:
        if R[R_DDB] == DDB_VOID:  # shown and put back: the dealer keeps its card
            gone = 1 if from_pool and d > m else 0
            return weight * _p_lose(m, strengths, k, place, -1, 0, size - from_pool,
                                    _above(counts, STR, m) - gone)
        if R[R_DDB] == DDB_LOSES:
            return weight
    if rank == _rank(mine) and R[R_DSR] != DSR_NONE:
        return 0.0  # the dealer cannot lose this hand
    return weight * _p_lose(d, strengths, k, place, -1, 0, size - from_pool, _above(counts, STR, d))


@jit()
def _above(counts: np.ndarray, STR: np.ndarray, strength: int) -> int:  # pragma: no cover - compiled
    total = 0
    for r in range(1, 14):
        if STR[r] > strength:
            total += counts[r]
    return total


@jit()
def _after_swap(m: int, rank: int, strengths: np.ndarray, k: int, place: int, nb: int, size: int,
                removed: bool, counts: np.ndarray, STR: np.ndarray,
                blocker: int) -> float:  # pragma: no cover - compiled
    """CountingBot._after_swap: the chance of losing once the neighbour turns out to hold ``rank``."""
    d = STR[rank]
    if blocker != 0 and rank == blocker:  # blocked: keep, the neighbour shown
        gone = 1 if removed and d > m else 0
        return _p_lose(m, strengths, k, place, nb, 14, size, _above(counts, STR, m) - gone)
    return _p_lose(d, strengths, k, place, nb, m, size, _above(counts, STR, d))


@jit()
def _learn(ws: np.ndarray, n: int, pol_kind: np.ndarray, seat: int,
           card: int) -> None:  # pragma: no cover - compiled
    """Every counting seat learns that ``seat`` holds ``card`` (it was shown)."""
    for c in range(n):
        if pol_kind[c] == P_COUNTING:
            ws[WS_ROWS + c, seat] = card


@jit()
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


# --- between_hands = to-bottom: what each counting seat knows of the stock ----------------------

@jit()
def _stock_reset(ws: np.ndarray, n: int, pol_kind: np.ndarray) -> None:  # pragma: no cover - compiled
    """A new game: no counting seat knows any stock card."""
    for c in range(n):
        if pol_kind[c] == P_COUNTING:
            ws[WS_ROWS + 2 * n + c, :] = 0


@jit()
def _stock_dealt(ws: np.ndarray, n: int, pol_kind: np.ndarray, order: np.ndarray, k: int, first: int,
                 stock: np.ndarray) -> None:  # pragma: no cover - compiled
    """The deal: a counting seat that knew a stock card now knows who holds it."""
    for c in range(n):
        if pol_kind[c] != P_COUNTING:
            continue
        cards, places = ws[WS_ROWS + c], ws[WS_ROWS + 2 * n + c]
        cards[RING - 1] = -1  # the set-aside card
        for i in range(k):
            if places[(first + i) & MASK]:
                cards[order[i]] = stock[(first + i) & MASK]


@jit()
def _stock_exchange(ws: np.ndarray, n: int, pol_kind: np.ndarray, dealer: int, head: int, length: int,
                    pos: int, drawn: int, given: int, void: bool,
                    same_rank: bool) -> None:  # pragma: no cover - compiled
    """The dealer's exchange at stock place ``pos``, as each counting seat follows it (call before
    the stock changes)."""
    at = (head + pos) & MASK
    for c in range(n):
        if pol_kind[c] != P_COUNTING:
            continue
        cards, places = ws[WS_ROWS + c], ws[WS_ROWS + 2 * n + c]
        if void:  # the blocker is shown and put back; the dealer keeps its card
            places[at] = 1
            cards[RING - 1] = -1
            continue
        cards[RING - 1] = cards[dealer]
        cards[dealer] = drawn if places[at] or c == dealer else -1
        if same_rank:  # both cards shown
            cards[RING - 1] = given
            cards[dealer] = drawn
        _remove_from_stock(places, head, length, pos, True)


@jit()
def _stock_shown(ws: np.ndarray, n: int, pol_kind: np.ndarray, order: np.ndarray, k: int,
                 hands: np.ndarray) -> None:  # pragma: no cover - compiled
    """The showdown: every counting seat sees every card."""
    for c in range(n):
        if pol_kind[c] == P_COUNTING:
            for i in range(k):
                ws[WS_ROWS + c, order[i]] = hands[order[i]]


@jit()
def _stock_collected(ws: np.ndarray, n: int, pol_kind: np.ndarray, order: np.ndarray, k: int,
                     hands: np.ndarray, set_aside: int, seen: np.ndarray,
                     tail: int) -> None:  # pragma: no cover - compiled
    """The cards go under the stock (from ring place ``tail``): a counting seat knows each one it
    saw or followed."""
    for c in range(n):
        if pol_kind[c] != P_COUNTING:
            continue
        cards, places = ws[WS_ROWS + c], ws[WS_ROWS + 2 * n + c]
        for i in range(k):
            s = order[i]
            places[(tail + i) & MASK] = 1 if cards[s] >= 0 or (seen[hands[s]] >> c) & 1 else 0
        if set_aside >= 0:
            places[(tail + k) & MASK] = 1 if cards[RING - 1] >= 0 or (seen[set_aside] >> c) & 1 else 0
