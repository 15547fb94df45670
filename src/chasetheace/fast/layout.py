"""The kernel's arrays: what each index of the rule vector, the counters, a table and its events
means, the codes of policies and tokens, and the compiling decorator shared by the kernel modules."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, TypeVar, cast, get_args

import numpy as np
from numba import njit

from ..rules import (
    DealerDrawsBlockerRule,
    DealerSameRankRule,
    FinalTieRule,
    FirstDealerRule,
    TiesRule,
)

F = TypeVar("F", bound=Callable[..., Any])


def jit(refcounts: bool = False, inline: bool = False) -> Callable[[F], F]:
    """Compile with numba, cached on disk where a folder is writable (beside the source, else
    the user's cache folder; numba raises RuntimeError if neither is, and then it compiles on each
    run). The game itself runs without reference counting (``_nrt=False``): it allocates nothing,
    and numba's atomic counts on every array passed to a helper cost more than the game (measured:
    5 times slower). With ``inline``, numba inlines the function into its callers before typing
    (``inline="always"``): the steps of a hand, which take the kernel's records, are as fast as
    one long function only so (measured: 2.4 times slower as calls)."""
    options: dict[str, Any] = {"_nrt": refcounts}
    if inline:
        options["inline"] = "always"

    def wrap(fn: F) -> F:
        drop_stale_cache(Path(fn.__code__.co_filename).parent / "__pycache__")
        try:
            return cast(F, njit(cache=True, **options)(fn))
        except RuntimeError:  # no writable cache folder anywhere: compile on each run instead
            return cast(F, njit(**options)(fn))
    return wrap


STAMP = "chasetheace-fast.stamp"
_checked: set[Path] = set()


def sources_stamp() -> str:
    """A digest of every source of the kernel's compiled code (this folder's modules that compile
    with :func:`jit`; the others, such as the drivers, do not touch numba's cache) and of numba's
    version."""
    import numba

    digest = hashlib.sha256(numba.__version__.encode())
    for path in sorted(Path(__file__).parent.glob("*.py")):
        source = path.read_bytes()
        if b"@jit(" in source:
            digest.update(path.name.encode() + b"\0" + source)
    return digest.hexdigest()


def drop_stale_cache(folder: Path) -> None:
    """Remove numba's cached machine code in ``folder`` (a ``__pycache__``) if the kernel's sources
    changed since it was written: numba keys a function's cache on its own file only, so code that
    inlines a function of another module (the kernel inlines the generator of ``chance.py``, the
    vector env the kernel's game) would otherwise run the old version of it after an edit or an
    upgrade. Checked once per folder and process, before any function of it is compiled or
    loaded; a folder that cannot be written is left alone (numba then caches elsewhere)."""
    if folder in _checked:
        return
    _checked.add(folder)
    stamp = folder / STAMP
    want = sources_stamp()
    try:
        if stamp.read_text() == want:
            return
    except OSError:
        pass
    try:
        folder.mkdir(exist_ok=True)
        for cached in [*folder.glob("*.nbi"), *folder.glob("*.nbc")]:
            cached.unlink(missing_ok=True)
        stamp.write_text(want)
    except OSError:
        return

# --- the rule vector ---------------------------------------------------------------------------
(R_LIVES, R_DECK, R_BLOCKER, R_TOP, R_KSP, R_KJ, R_DEX_TOP, R_DDB, R_DSR, R_ANN, R_TIES, R_PAIR,
 R_APD, R_LC, R_FT, R_FD, R_BH) = range(17)
R_SIZE = 17


def _codes(values: Any, *names: str) -> tuple[int, ...]:
    """The codes of an option's values in the rule vector: each one's index among the option's
    typed values (rules.py), so a misspelt name fails at import and the order cannot drift."""
    return tuple(get_args(values).index(name) for name in names)


DDB_ALLOWED, DDB_VOID, DDB_LOSES = _codes(DealerDrawsBlockerRule, "allowed", "void", "dealer-loses")
DSR_NONE, DSR_WINS, DSR_IMMUNE = _codes(DealerSameRankRule, "none", "dealer-wins", "dealer-immune")
TIES_ALL, TIES_ELDEST, TIES_LATEST = _codes(TiesRule, "all-lose", "eldest-loses", "latest-loses")
FT_REPLAY, FT_SPLIT, FT_CUT, FT_NO_WINNER = _codes(FinalTieRule, "replay", "split", "cut", "no-winner")
FD_RANDOM, FD_HIGH, FD_JACK = _codes(FirstDealerRule, "random", "high-card", "first-jack")

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
(W_LIVES, W_ALIVE, W_HANDS, W_DEALT, W_DONE, W_ORDER, W_STOCK, W_TMP, W_LOSERS, W_PAID, W_LOST_AT,
 W_GIVEN, W_COUNT, W_SEEN, W_SHOWN, W_LOST, W_PAYMENT, W_OUT, W_WON, W_SIZES) = range(20)
WS_ROWS = 20
# W_SIZES: in a lean game (Mode.lean), the hands played by players in the hand (index 2..n), added
# to the counts' places at the end of the call (a hand adds 1 at every place: one count, not k)
# W_LOSERS: a hand's losers (seats, in turn order), and beside them in W_LOST_AT their places in it
# with counting policies, 3 n more rows: what counting seat c knows of each seat's card
# (row WS_ROWS + c: the card, or -1; its last cell: the dealer's set-aside card), of its rank from
# announcements (row WS_ROWS + n + c), and which stock places it knows (row WS_ROWS + 2 n + c,
# aligned with the stock's ring; with between_hands = to-bottom)
# (the hand's scalars are saved here at a pause and at the end of a game: see HandState)
(S_PHASE, S_HEAD, S_LEN, S_KITTY, S_DEALER, S_SET_ASIDE, S_IMMUNE, S_T, S_K, S_NODE, S_JMASK,
 S_SHUFFLE, S_HAND, S_TO_ACT, S_PENDING, S_EVENTS, S_FINAL_TIE, S_NO_SHOWDOWN, S_PAUSE_FOR) = range(19)
ST_SIZE = 19
# S_PAUSE_FOR: which decisions stop a game played with ``pause``: 0 every seat's; 1 + a seat: that
# seat's only, the others playing their policies (until it is out: then every seat's again)
PH_NEW, PH_TURNS, PH_OVER = range(3)  # a game not started, paused in the turns, over
PLAY_ON = -3      # a hand's outcome when the game goes on
# turn events, numbered as the encoder's TURN_KINDS
(E_KING_JERK, E_SHOW_BLOCKER, E_KEEP, E_SWAP, E_BLOCKED, E_DEALER_EXCHANGE, E_DEALER_DREW_BLOCKER,
 E_DEALER_SAME_RANK) = range(8)
(E_KIND, E_SEAT, E_NEIGHBOUR, E_FIRST, E_SECOND, E_ANNOUNCED, E_POSITION) = range(7)
E_FIELDS = 7

U32 = np.uint64(0xFFFFFFFF)

STANDARD = (3, 52, 13, 13, 0, 0, 0, DDB_ALLOWED, DSR_NONE, 0, TIES_ALL, 0, 0, 0, FT_REPLAY, FD_RANDOM, 0)
"""The rule vector of the default rules (``Rules()``): the kernel plays a game of these rules (any
lives) with every option a constant, compiled apart (:func:`chasetheace.fast.kernel.run`)."""


# --- the records the kernel takes (tuples of arrays numba passes as one argument) --------------

class RuleArrays(NamedTuple):
    """The rules as the kernel reads them, made once by :func:`chasetheace.fast.tables.rule_arrays`."""

    vector: np.ndarray           # every option, indexed by R_* (a tuple inside the kernel: kernel._fixed)
    strength: np.ndarray         # the engine's strength by rank (index 1..13; 1 weakest)
    solver_strength: np.ndarray  # the solver's strength by rank (0 weakest; -1: not in the pack)
    pack: np.ndarray             # each game's first stock, top first, then 1 if stacked (dealt as it is)


class PolicyArrays(NamedTuple):
    """One policy per seat (:class:`chasetheace.fast.policy.Policies` as the kernel reads it)."""

    kind: np.ndarray       # (players,) P_*
    threshold: np.ndarray  # (players, players + 1, players): the weakest strength kept
    root: np.ndarray       # (players + 1, 2**players or 1): the solver trie's root
    child: np.ndarray      # (nodes, TOKENS): the trie
    table: np.ndarray      # (nodes, 13, 14): keep probability by node, strength, strength given + 1
    fallback: np.ndarray   # (players + 1, players, 13): keep probability off the trie


class Given(NamedTuple):
    """What is given instead of drawn or decided, to replay a game of the engine (or nothing)."""

    dealer: int             # the first dealer, or -1 to choose one by the rules
    chance: bool            # True: the shuffles and picks below, not the generator
    picks: np.ndarray       # (picks,) int64
    shuffles: np.ndarray    # (shuffles, deck) int64: whole pack orders
    decides: bool           # True: the decisions below, not the policies
    decisions: np.ndarray   # (decisions,) int64: 1 keep, 0 swap
    probe: np.ndarray       # (decisions,) float64: gets the policies' keep probability at each


class Counts(NamedTuple):
    """What the kernel adds up over hands (the arrays may be shared when not wanted)."""

    position_hands: np.ndarray   # (players + 1, players): by players in the hand, place in turn
    position_losses: np.ndarray
    rank_hands: np.ndarray       # (14,): by the rank dealt
    rank_losses: np.ndarray
    log: np.ndarray              # (rows, 3 players + 2): one row per hand when it has rows


class Table(NamedTuple):
    """One table's state: the rows ``ws`` (W_*), the scalars ``st`` (S_*), the turn events ``evs``
    (E_* columns), the counters ``g`` (G_*) and the generator's state ``rng`` (one uint64)."""

    ws: np.ndarray
    st: np.ndarray
    evs: np.ndarray
    g: np.ndarray
    rng: np.ndarray


class HandState(NamedTuple):
    """The scalars of the hand in play, carried from step to step in registers (each step returns
    the hand it leaves); saved to the table's ``st`` (S_* of the same names) at a pause and at the
    end of the game, and loaded from it to resume."""

    dealer: int
    head: int       # the stock's top card, as a place on the ring (``& MASK``)
    length: int     # cards in the stock
    kitty: int
    k: int          # players in the hand (0: the deal could not be made)
    set_aside: int  # the card the dealer gave up in an exchange, or -1
    immune: int     # the dealer when immune from the showdown, or -1
    node: int       # the solver trie's node at the start of the turns (-1: none)
    jmask: int      # the places that showed a king at the deal (kings jerk), as bits
    shuffle: int    # 1: the next deal starts from a fresh shuffle
    number: int     # hands dealt in this game


class Mode(NamedTuple):
    """How a call plays, fixed for the call (made by the kernel from the policies and flags)."""

    n: int              # seats
    use_table: bool     # a seat plays the solver's table: follow the trie
    use_count: bool     # a seat counts cards: tell the counting seats what they see
    follow_stock: bool  # counting seats also follow the stock from hand to hand (to-bottom)
    rec: bool           # write down what each seat may see (W_SEEN, events, outcome rows)
    pause: bool         # stop at every decision (PAUSED) for the caller to decide
    thresholds: bool    # every seat plays a threshold policy: a decision is one comparison
    lean: bool          # kernel.run's game: the hands counted in bulk (W_SIZES; the ranks dealt at the
    #                     deal), no log, W_PAID written for the hand's losers only


@jit(inline=True)
def _rank(card: int) -> int:  # pragma: no cover - compiled
    return (card >> 2) + 1


@jit(inline=True)
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
