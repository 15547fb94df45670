"""The kernel's arrays: what each index of the rule vector, the counters, a table and its events
means, the codes of policies and tokens, and the compiling decorator shared by the kernel modules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
from numba import njit

F = TypeVar("F", bound=Callable[..., Any])


def jit(refcounts: bool = False) -> Callable[[F], F]:
    """Compile with numba, cached on disk where a folder is writable (beside the source, else
    the user's cache folder; numba raises RuntimeError if neither is, and then it compiles on each
    run). The game itself runs without reference counting (``_nrt=False``): it allocates nothing,
    and numba's atomic counts on every array passed to a helper cost more than the game (measured:
    5 times slower)."""
    def wrap(fn: F) -> F:
        try:
            return cast(F, njit(cache=True, _nrt=refcounts)(fn))  # type: ignore[call-overload]
        except RuntimeError:  # no writable cache folder anywhere: compile on each run instead
            return cast(F, njit(_nrt=refcounts)(fn))  # type: ignore[call-overload]
    return wrap

# --- the rule vector ---------------------------------------------------------------------------
(R_LIVES, R_DECK, R_BLOCKER, R_TOP, R_KSP, R_KJ, R_DEX_TOP, R_DDB, R_DSR, R_ANN, R_TIES, R_PAIR,
 R_APD, R_LC, R_FT, R_FD, R_BH) = range(17)
R_SIZE = 17
DDB_ALLOWED, DDB_VOID, DDB_LOSES = 0, 1, 2
DSR_NONE, DSR_WINS, DSR_IMMUNE = 0, 1, 2
TIES_ALL, TIES_ELDEST, TIES_LATEST = 0, 1, 2
FT_REPLAY, FT_SPLIT, FT_CUT, FT_NO_WINNER = 0, 1, 2, 3
FD_RANDOM, FD_HIGH, FD_JACK = 0, 1, 2

# --- policies and the solver's public tokens --------------------------------------------------
P_THRESHOLD, P_RANDOM, P_TABLE, P_COUNTING = 0, 1, 2, 3
T_KEEP, T_SWAP, T_SWAP_A, T_SWAP_2, T_BLOCKED, T_SHOWN = range(6)
TOKENS = 6

# --- counters kept in the int64 array ``g`` ---------------------------------------------------
G_PICK, G_SHUF, G_DEC, G_LOG, G_HANDS, G_GAMES, G_NO_SOLE, G_SHORT = range(8)
G_SIZE = 8

RING = 128
MASK = RING - 1
STOPPED = -2      # the game was cut off by the hand limit
NO_SOLE = -1      # split pot or no winner
PAUSED = -4       # a decision is pending (``pause``)
PUBLIC = -1       # a card every seat knows

# --- a table: rows of ``ws`` and scalars of ``st`` --------------------------------------------
(W_LIVES, W_ALIVE, W_HANDS, W_DEALT, W_DONE, W_ORDER, W_STOCK, W_TMP, W_LOSERS, W_PAID, W_HAD,
 W_GIVEN, W_COUNT, W_SEEN, W_SHOWN, W_LOST, W_PAYMENT, W_OUT, W_WON) = range(19)
WS_ROWS = 19
# with counting policies, 3 n more rows: what counting seat c knows of each seat's card
# (row WS_ROWS + c: the card, or -1; its last cell: the dealer's set-aside card), of its rank from
# announcements (row WS_ROWS + n + c), and which stock places it knows (row WS_ROWS + 2 n + c,
# aligned with the stock's ring; with between_hands = to-bottom)
(S_PHASE, S_HEAD, S_LEN, S_KITTY, S_DEALER, S_SET_ASIDE, S_IMMUNE, S_T, S_K, S_NODE, S_JMASK,
 S_SHUFFLE, S_HAND, S_TO_ACT, S_PENDING, S_EVENTS, S_FINAL_TIE, S_NO_SHOWDOWN) = range(18)
ST_SIZE = 18
PH_NEW, PH_DEAL, PH_TURNS, PH_OVER = 0, 1, 2, 3
# turn events, numbered as the encoder's TURN_KINDS
(E_KING_JERK, E_SHOW_BLOCKER, E_KEEP, E_SWAP, E_BLOCKED, E_DEALER_EXCHANGE, E_DEALER_DREW_BLOCKER,
 E_DEALER_SAME_RANK) = range(8)
(E_KIND, E_SEAT, E_NEIGHBOUR, E_FIRST, E_SECOND, E_ANNOUNCED, E_POSITION) = range(7)
E_FIELDS = 7

U32 = np.uint64(0xFFFFFFFF)


@jit()
def _rank(card: int) -> int:  # pragma: no cover - compiled
    return (card >> 2) + 1


@jit()
def _remove_from_stock(stk: np.ndarray, head: int, length: int, pos: int,
                       keep_order: bool) -> int:  # pragma: no cover - compiled
    """Take the card at ``pos`` out of the stock; return the new head (the length drops by one)."""
    if not keep_order:
        stk[(head + pos) & MASK] = stk[head & MASK]
        return head + 1
    if pos < length // 2:
        for i in range(pos, 0, -1):
            stk[(head + i) & MASK] = stk[(head + i - 1) & MASK]
        return head + 1
    for i in range(pos, length - 1):
        stk[(head + i) & MASK] = stk[(head + i + 1) & MASK]
    return head
