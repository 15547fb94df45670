"""The compiled kernel: whole games of Chase the Ace (RULES.md part A) in numba.

It follows :class:`chasetheace.Game` step by step, one compiled helper per step of a hand:
:func:`_new_game`, :func:`_deal` (with :func:`_kings_jerk`), :func:`_turns` (with the dealer's
:func:`_dealer`), :func:`_showdown`, :func:`_lives` (chips, elimination, the final tie) and
:func:`_between_hands` (collection and the next deal), which :func:`play_game` calls in turn. It
works on plain integer arrays: cards are ``Card.id`` numbers, and the arguments come grouped in the
records of :mod:`chasetheace.fast.layout`: the rules (:class:`RuleArrays`, made by
:func:`chasetheace.fast.tables.rule_arrays`), the policies (:class:`PolicyArrays`), what is given
(:class:`Given`), the counts (:class:`Counts`) and the table (:class:`Table`). The hand's scalars
go from step to step as a :class:`HandState` (each step returns the hand it leaves, so that they stay
in registers: through the table's arrays, hands with nobody out took 4% longer), and are saved to the table's
``st`` (``S_*``) at a pause and at the end of the game.

Chance comes from the kernel's own splitmix64 generator, or, to replay a game of the engine, from
given shuffles and picks (``Given.chance``); decisions come from the policies, or from a given list
(``Given.decides``), in which case the policies' keep probabilities are still written to ``probe``.

With ``between_hands = shuffle`` the kernel shuffles lazily: only the cards that will be dealt (and
the top card, for ``dealer_exchange = top``) are drawn, by a partial Fisher-Yates shuffle; a cut at a
uniform position of the rest is then a uniform card of the rest, as in a full shuffle.

The chance draws are in :mod:`chasetheace.fast.chance`, the counting bot in
:mod:`chasetheace.fast.counting`, and the meaning of every index and code in
:mod:`chasetheace.fast.layout` (also reachable from here: ``kernel.R_DECK``, ...).
"""

from __future__ import annotations

import numpy as np

from .chance import _below, _below_at, _choose_dealer, _cut_highest, _next, _pick, _uniform
from .counting import (
    _counting_keeps,
    _learn,
    _learn_swap,
    _stock_collected,
    _stock_dealt,
    _stock_exchange,
    _stock_reset,
    _stock_shown,
)
from .layout import *  # noqa: F403 (the kernel's names, for its callers: kernel.R_DECK, ...)
from .layout import (
    DDB_ALLOWED,
    DDB_LOSES,
    DDB_VOID,
    DSR_NONE,
    DSR_WINS,
    E_ANNOUNCED,
    E_BLOCKED,
    E_DEALER_DREW_BLOCKER,
    E_DEALER_EXCHANGE,
    E_DEALER_SAME_RANK,
    E_FIRST,
    E_KEEP,
    E_KIND,
    E_KING_JERK,
    E_NEIGHBOUR,
    E_POSITION,
    E_SEAT,
    E_SECOND,
    E_SHOW_BLOCKER,
    E_SWAP,
    FD_RANDOM,
    FT_CUT,
    FT_REPLAY,
    FT_SPLIT,
    G_DEC,
    G_GAMES,
    G_HANDS,
    G_LOG,
    G_NO_SOLE,
    G_SHORT,
    G_SHUF,
    MASK,
    NO_SOLE,
    P_COUNTING,
    P_RANDOM,
    P_TABLE,
    P_THRESHOLD,
    PAUSED,
    PH_NEW,
    PH_OVER,
    PH_TURNS,
    PLAY_ON,
    PUBLIC,
    R_ANN,
    R_APD,
    R_BH,
    R_BLOCKER,
    R_DDB,
    R_DECK,
    R_DEX_TOP,
    R_DSR,
    R_FD,
    R_FT,
    R_KJ,
    R_KSP,
    R_LC,
    R_LIVES,
    R_PAIR,
    R_SIZE,
    R_TIES,
    R_TOP,
    S_DEALER,
    S_EVENTS,
    S_FINAL_TIE,
    S_HAND,
    S_HEAD,
    S_IMMUNE,
    S_JMASK,
    S_K,
    S_KITTY,
    S_LEN,
    S_NO_SHOWDOWN,
    S_NODE,
    S_PAUSE_FOR,
    S_PENDING,
    S_PHASE,
    S_SET_ASIDE,
    S_SHUFFLE,
    S_T,
    S_TO_ACT,
    STANDARD,
    STOPPED,
    T_BLOCKED,
    T_KEEP,
    T_SHOWN,
    T_SWAP,
    T_SWAP_2,
    T_SWAP_A,
    TIES_ELDEST,
    TIES_LATEST,
    W_ALIVE,
    W_COUNT,
    W_DEALT,
    W_DONE,
    W_GIVEN,
    W_HANDS,
    W_LIVES,
    W_LOSERS,
    W_LOST,
    W_LOST_AT,
    W_ORDER,
    W_OUT,
    W_PAID,
    W_PAYMENT,
    W_SEEN,
    W_SHOWN,
    W_SIZES,
    W_STOCK,
    W_TMP,
    W_WON,
    WS_ROWS,
    Counts,
    Given,
    HandState,
    Mode,
    PolicyArrays,
    RuleArrays,
    Table,
    _rank,
    _remove_from_stock,
    jit,
)


@jit(inline=True)
def _left(seat: int, n: int, alive: np.ndarray) -> int:  # pragma: no cover - compiled
    """The next seat still in, to the left of ``seat``."""
    s = seat + 1 if seat + 1 < n else 0  # no division: it would cost more than the rest of the turn
    while not alive[s]:
        s = s + 1 if s + 1 < n else 0
    return s


@jit(inline=True)
def _seat_order(dealer: int, n: int, alive: np.ndarray, order: np.ndarray) -> int:  # pragma: no cover
    """Write the seats in, from ``dealer``'s left to ``dealer``, to ``order``; return how many."""
    k = 0
    s = dealer
    while True:
        s = _left(s, n, alive)
        order[k] = s
        k += 1
        if s == dealer:
            return k


@jit(inline=True)
def _losers(R: np.ndarray, STR: np.ndarray, order: np.ndarray, k: int, immune: int,
            hands: np.ndarray, losers: np.ndarray, lost_at: np.ndarray,
            cnt: np.ndarray) -> int:  # pragma: no cover
    """Fill ``losers`` (in turn order) with the holders of the lowest card, and ``lost_at`` with
    their places in the turn order; return how many."""
    if R[R_PAIR]:
        for r in range(14):
            cnt[r] = 0
        for i in range(k):
            s = order[i]
            if s != immune:
                cnt[_rank(hands[s])] += 1
        worst = -1
        for r in range(1, 14):
            if cnt[r] > 0 and (worst < 0 or cnt[r] < cnt[worst]
                               or (cnt[r] == cnt[worst] and STR[r] < STR[worst])):
                worst = r
        m = 0
        for i in range(k):
            s = order[i]
            if s != immune and _rank(hands[s]) == worst:
                losers[m] = s
                lost_at[m] = i
                m += 1
        return m
    # one pass, the losers so far dropped whenever a lower card comes; without branches on the
    # cards (each seat written at the end of the list, which only grows when it loses): a branch
    # per seat on random cards costs a misprediction a hand or more
    low, m = 99, 0
    latest, eldest = R[R_TIES] == TIES_LATEST, R[R_TIES] == TIES_ELDEST
    for i in range(k):
        s = order[i]
        v = STR[_rank(hands[s])] if s != immune else 100  # above every strength: never the lowest
        drop = (v < low) | ((v == low) & latest)
        m = 0 if drop else m
        low = v if drop else low
        losers[m] = s
        lost_at[m] = i
        m += 1 if (v == low) & ((m == 0) | (not eldest)) else 0
    return m


# --- the bots ------------------------------------------------------------------------------------

@jit(inline=True)
def _keep_chance(rules: RuleArrays, policies: PolicyArrays, table: Table, seat: int, place: int,
                 k: int, card: int, node: int, length: int,
                 head: int) -> float:  # pragma: no cover - compiled
    """The chance that ``seat``'s policy keeps ``card`` at ``place`` of ``k`` (trie ``node``; the
    stock of ``length`` cards from ``head``, for a counting seat)."""
    kind = policies.kind[seat]
    STR = rules.strength
    if kind == P_THRESHOLD:
        return 1.0 if STR[_rank(card)] >= policies.threshold[seat, k, place] else 0.0
    if kind == P_RANDOM:
        return 0.5
    if kind == P_COUNTING:
        keeps = _counting_keeps(seat, place, k, rules.vector, STR, table.ws, policies.kind.shape[0],
                                length, head)
        return 1.0 if keeps else 0.0
    s = rules.solver_strength[_rank(card)]
    if node < 0:
        return float(policies.fallback[k, place, s])
    return float(policies.table[node, s, table.ws[W_GIVEN, seat] + 1])


@jit(inline=True)
def _draw_keep(p: float, kind: int, rng: np.ndarray) -> bool:  # pragma: no cover - compiled
    """Keep with chance ``p``, drawn from the generator only when the choice is not certain."""
    if p >= 1.0:
        return True
    if p <= 0.0:
        return False
    if kind == P_RANDOM:
        return bool((_next(rng) >> np.uint64(63)) == np.uint64(0))
    return _uniform(rng) < p


@jit(inline=True)
def _decide(rules: RuleArrays, policies: PolicyArrays, given: Given, table: Table, mode: Mode, h: HandState,
            seat: int, place: int, card: int, strength: int, node: int) -> bool:  # pragma: no cover
    """True to keep ``card`` (of engine ``strength``): the given decision (the policy's keep chance
    goes to ``probe``), or the policy's, drawn."""
    if not given.decides and (mode.thresholds or policies.kind[seat] == P_THRESHOLD):
        return bool(strength >= policies.threshold[seat, h.k, place])
    p = _keep_chance(rules, policies, table, seat, place, h.k, card, node, h.length, h.head)
    if given.decides:
        g = table.g
        i = g[G_DEC]
        if i >= given.decisions.shape[0]:
            g[G_SHORT] = 1
            return True
        g[G_DEC] += 1
        if given.probe.shape[0] > i:
            given.probe[i] = p
        return bool(given.decisions[i] != 0)
    return _draw_keep(p, policies.kind[seat], table.rng)


@jit()
def bot_keeps(rules: RuleArrays, policies: PolicyArrays, table: Table) -> bool:  # pragma: no cover
    """The choice of the seat to act at a table paused by :func:`play_game` (``st[S_TO_ACT]``):
    True to keep, as its policy plays, drawn from the table's generator."""
    st = table.st
    seat = st[S_TO_ACT]
    p = _keep_chance(_fixed(rules), policies, table, seat, st[S_T], st[S_K], table.ws[W_HANDS, seat],
                     st[S_NODE], st[S_LEN], st[S_HEAD])
    return _draw_keep(p, policies.kind[seat], table.rng)


@jit(inline=True)
def _step(node: int, token: int, child: np.ndarray) -> int:  # pragma: no cover - compiled
    """The solver trie's node after a public ``token`` (-1: off the trie, or no table seat)."""
    return -1 if node < 0 else child[node, token]


@jit(inline=True)
def _event(evs: np.ndarray, st: np.ndarray, kind: int, seat: int, neighbour: int, first: int,
           second: int, announced: int, position: int) -> None:  # pragma: no cover - compiled
    """Write down a turn event (E_* columns), while there is room."""
    i = st[S_EVENTS]
    if i < evs.shape[0]:
        e = evs[i]
        e[E_KIND], e[E_SEAT], e[E_NEIGHBOUR], e[E_FIRST] = kind, seat, neighbour, first
        e[E_SECOND], e[E_ANNOUNCED], e[E_POSITION] = second, announced, position
        st[S_EVENTS] = i + 1


@jit(inline=True)
def _bots_follow(policies: PolicyArrays, table: Table, mode: Mode, node: int, token: int, kind: int,
                 seat: int, neighbour: int, first: int, second: int,
                 announced: int) -> int:  # pragma: no cover - compiled
    """What the bots (and the record) take from a turn event (E_* ``kind``: ``seat`` keeps, swaps
    ``first`` for its ``neighbour``'s ``second``, shows ``first``, or is blocked by the neighbour's
    ``first``): the solver's trie steps by ``token``, the counting seats learn the cards shown or
    follow the swap, and the record marks who has seen which card and writes the event. Returns
    the trie's next node."""
    ws, n = table.ws, mode.n
    shown = kind in (E_SHOW_BLOCKER, E_BLOCKED, E_KING_JERK)
    if mode.use_count:
        if shown:
            _learn(ws, n, policies.kind, neighbour if neighbour >= 0 else seat, first)
        elif kind == E_SWAP:
            _learn_swap(ws, n, policies.kind, seat, neighbour, first, second, announced)
    if mode.rec:
        seen = ws[W_SEEN]
        if shown:
            seen[first] = PUBLIC
        elif kind == E_SWAP:
            if seen[first] != PUBLIC:
                seen[first] |= 1 << neighbour
            if seen[second] != PUBLIC:
                seen[second] |= 1 << seat
        _event(table.evs, table.st, kind, seat, neighbour, first, second, announced, -1)
    return _step(node, token, policies.child) if mode.use_table else -1


# --- the steps of a game -------------------------------------------------------------------------

@jit()
def _mode(rules: RuleArrays, policies: PolicyArrays, pause: bool,
          rec: bool) -> Mode:  # pragma: no cover - compiled
    """How this call plays, from the policies and the caller's flags."""
    n = policies.kind.shape[0]
    use_table = use_count = False
    for s in range(n):
        if policies.kind[s] == P_TABLE:
            use_table = True
        if policies.kind[s] == P_COUNTING:
            use_count = True
    follow_stock = use_count and rules.vector[R_BH] == 1  # counting seats also follow the stock,
    rec = rec or follow_stock  # which needs who knows each card: what ``rec`` writes down
    thresholds = True
    for s in range(n):
        if policies.kind[s] != P_THRESHOLD:
            thresholds = False
    return Mode(n, use_table, use_count, follow_stock, rec, pause, thresholds, False)


@jit(inline=True)
def _save(st: np.ndarray, h: HandState, phase: int, t: int) -> None:  # pragma: no cover - compiled
    """Write the hand to the table's scalars (at a pause, in ``phase`` at place ``t``; or at the end)."""
    st[S_PHASE], st[S_HEAD], st[S_LEN], st[S_KITTY], st[S_DEALER] = phase, h.head, h.length, h.kitty, h.dealer
    st[S_SET_ASIDE], st[S_IMMUNE], st[S_T], st[S_K], st[S_NODE] = h.set_aside, h.immune, t, h.k, h.node
    st[S_JMASK], st[S_SHUFFLE], st[S_HAND] = h.jmask, h.shuffle, h.number


@jit(inline=True)
def _load(st: np.ndarray) -> HandState:  # pragma: no cover - compiled
    """The hand saved in the table's scalars."""
    return HandState(st[S_DEALER], st[S_HEAD], st[S_LEN], st[S_KITTY], st[S_K], st[S_SET_ASIDE], st[S_IMMUNE],
                     st[S_NODE], st[S_JMASK], st[S_SHUFFLE], st[S_HAND])


@jit(inline=True)
def _new_game(rules: RuleArrays, policies: PolicyArrays, given: Given, table: Table,
              mode: Mode) -> HandState:  # pragma: no cover - compiled
    """A new game (A1): every seat in with its lives, an empty kitty, the pack as the stock, and
    the first dealer (given, or chosen as the rules say). Its dealer is -1 if the script ran out."""
    R, pack, ws, g = rules.vector, rules.pack, table.ws, table.g
    n, deck = mode.n, R[R_DECK]
    for s in range(n):
        ws[W_LIVES, s] = R[R_LIVES]
        ws[W_ALIVE, s] = 1
        ws[W_HANDS, s] = -1
        ws[W_WON, s] = 0
    stk, tmp = ws[W_STOCK], ws[W_TMP]
    for i in range(deck):
        stk[i] = pack[i]
    if R[R_FD] != FD_RANDOM or R[R_FT] == FT_CUT:  # a pack to cut or deal from, apart from the stock
        for i in range(deck):
            tmp[i] = pack[i]
    dealer = given.dealer
    if dealer < 0 and R[R_FD] == FD_RANDOM and not given.chance:  # the draw here, not a call
        dealer = _below(table.rng, n)
    elif dealer < 0:
        dealer = _choose_dealer(R, rules.strength, n, tmp, ws[W_LOSERS], given.chance, given.picks,
                                given.shuffles, g, table.rng)
        if g[G_SHORT]:
            dealer = -1
    table.st[S_PENDING] = -1
    if mode.follow_stock:
        _stock_reset(ws, n, policies.kind)
    shuffle = 1 if pack[deck] == 0 else 0  # a fresh shuffle first, unless stacked
    k = _seat_order(dealer, n, ws[W_ALIVE], ws[W_ORDER]) if dealer >= 0 else 0  # the first hand's
    return HandState(dealer=dealer, head=0, length=deck, kitty=0, k=k, set_aside=-1, immune=-1, node=0,
                     jmask=0, shuffle=shuffle, number=0)


@jit(inline=True)
def _deal(rules: RuleArrays, policies: PolicyArrays, given: Given, counts: Counts, table: Table, mode: Mode,
          h: HandState) -> HandState:  # pragma: no cover - compiled
    """The deal (A3.1), to the ``h.k`` seats in ``W_ORDER`` (from the dealer's left to the dealer:
    written by :func:`_new_game`, then kept by :func:`_between_hands`, not recomputed); a
    fresh shuffle when one is due (given, or drawn lazily); a card each from the top of the stock;
    what the counting seats and the record know at the start of the hand; then the kings jerk.
    The hand's ``k`` is 0 if the script has no shuffle left."""
    R, ws, st, g = rules.vector, table.ws, table.st, table.g
    n, to_bottom, dealer, head, length = mode.n, R[R_BH] == 1, h.dealer, h.head, h.length
    alive, order, stk, hands = ws[W_ALIVE], ws[W_ORDER], ws[W_STOCK], ws[W_HANDS]
    k = h.k
    if h.shuffle:
        if given.chance:
            if g[G_SHUF] >= given.shuffles.shape[0]:
                return HandState(dealer, head, length, h.kitty, 0, -1, -1, -1, 0, h.shuffle, h.number + 1)
            row = given.shuffles[g[G_SHUF]]
            g[G_SHUF] += 1
            for i in range(length):
                stk[(head + i) & MASK] = row[i]
        else:
            # to-bottom keeps the stock's order from hand to hand: shuffle it all once
            need = length if to_bottom else k + 1 if R[R_DEX_TOP] else k
            # the generator's state in a register through the loop (_below_at): in the array, each
            # draw would wait for the last one's store to it, a store the swaps' writes come between
            state = table.rng[0]
            for i in range(need):
                state, j = _below_at(state, length - i)
                a = (head + i) & MASK
                b = (head + i + j) & MASK
                c = stk[a]
                stk[a] = stk[b]
                stk[b] = c
            table.rng[0] = state
    dealt, rank_hands = ws[W_DEALT], counts.rank_hands
    for i in range(k):
        s = order[i]
        c = stk[(head + i) & MASK]
        hands[s] = c
        dealt[s] = c
        if mode.lean:  # counted here, from the card in hand (a lean game plays every hand dealt)
            rank_hands[_rank(c)] += 1
    if mode.use_table:
        for i in range(k):
            ws[W_GIVEN, order[i]] = -1
    if mode.use_count:
        for c in range(n):
            if policies.kind[c] == P_COUNTING:
                for s in range(n):
                    ws[WS_ROWS + c, s] = -1
                    ws[WS_ROWS + n + c, s] = 0
                if alive[c]:
                    ws[WS_ROWS + c, c] = hands[c]
        if mode.follow_stock:
            _stock_dealt(ws, n, policies.kind, order, k, head, stk)
    if mode.rec:
        st[S_EVENTS] = st[S_FINAL_TIE] = st[S_NO_SHOWDOWN] = 0
        for i in range(k):
            ws[W_DONE, order[i]] = 0
        for s in range(n):
            ws[W_SHOWN, s] = -1
            ws[W_LOST, s] = 0
            ws[W_PAYMENT, s] = -1
            ws[W_OUT, s] = 0
        for i in range(k):
            ws[W_SEEN, hands[order[i]]] = 1 << order[i]
    kitty, jmask = h.kitty, 0
    if R[R_KJ]:
        jmask, kitty = _kings_jerk(rules, policies, table, mode, k, kitty)
    node = -1
    if mode.use_table:
        root = policies.root
        node = root[k, jmask if jmask < root.shape[1] else 0]
    return HandState(dealer=dealer, head=head + k, length=length - k, kitty=kitty, k=k, set_aside=-1,
                     immune=-1, node=node, jmask=jmask, shuffle=0 if to_bottom else 1, number=h.number + 1)


@jit()
def _kings_jerk(rules: RuleArrays, policies: PolicyArrays, table: Table, mode: Mode, k: int,
                kitty: int) -> tuple[int, int]:  # pragma: no cover - compiled
    """Kings jerk (A2): each player dealt the top rank shows it and takes a chip from the kitty
    while it has one. Returns the places that showed one, as bits (the solver's jerk mask), and
    the kitty left."""
    R, ws = rules.vector, table.ws
    order, hands = ws[W_ORDER], ws[W_HANDS]
    jmask = 0
    for i in range(k):
        s = order[i]
        if _rank(hands[s]) == R[R_TOP]:
            if kitty > 0:
                kitty -= 1
                ws[W_LIVES, s] += 1
            jmask |= 1 << i
            _bots_follow(policies, table, mode, -1, T_SHOWN, E_KING_JERK, s, -1, hands[s], -1, 0)
    return jmask, kitty


@jit(inline=True)
def _pauses(st: np.ndarray, alive: np.ndarray, seat: int) -> bool:  # pragma: no cover - compiled
    """Whether ``seat``'s decision stops a game played with ``pause`` (``st[S_PAUSE_FOR]``)."""
    at = st[S_PAUSE_FOR] - 1
    return bool(at < 0 or at == seat or alive[at] == 0)


@jit(inline=True)
def _turns(rules: RuleArrays, policies: PolicyArrays, given: Given, table: Table, mode: Mode, h: HandState,
           t: int) -> tuple[int, HandState]:  # pragma: no cover - compiled
    """The turns (A3.3), from place ``t``: each player in turn keeps, or swaps with the left
    neighbour unless the neighbour shows a blocker; a player dealt a blocker shows it (with
    king_stops_play, play stops there); the dealer's turn is :func:`_dealer`. Returns PAUSED
    (with ``mode.pause``, at a decision the caller has not given yet; the hand saved), the number
    of losers when the dealer's exchange decided the hand, or -1: on to the showdown; and the
    hand."""
    R, SSTR, ws, st = rules.vector, rules.solver_strength, table.ws, table.st
    blocker, k, node, rec, use_table = R[R_BLOCKER], h.k, h.node, mode.rec, mode.use_table
    king_stops, announce = R[R_KSP] != 0, R[R_ANN] != 0
    hands, done, order, given_to = ws[W_HANDS], ws[W_DONE], ws[W_ORDER], ws[W_GIVEN]
    # each seat acts once, in order (a seat blocked by its right-hand neighbour is passed over), so
    # ``t`` alone says who is next; ``W_DONE`` is written only for the record's readers. The card of
    # the seat to act and its strength are carried from turn to turn (what it was given, or its
    # own), not read back from ``hands``: a read of a card just written waits for the write
    STR = rules.strength
    card = hands[order[t]] if t < k else -1
    v = STR[_rank(card)]
    while t < k:
        s = order[t]
        if _rank(card) == blocker:
            if rec:
                done[s] = 1
            node = _bots_follow(policies, table, mode, node, T_SHOWN, E_SHOW_BLOCKER, s, -1, card, -1, 0)
            t = k if king_stops else t + 1
            card = hands[order[t]] if t < k else -1
            v = STR[_rank(card)]
            continue
        if mode.pause and _pauses(st, ws[W_ALIVE], s):
            if st[S_PENDING] < 0:
                _save(st, HandState(h.dealer, h.head, h.length, h.kitty, k, h.set_aside, h.immune, node,
                                    h.jmask, h.shuffle, h.number), PH_TURNS, t)
                st[S_TO_ACT] = s
                return PAUSED, h
            keep = st[S_PENDING] == 1
            st[S_PENDING] = -1
        else:
            keep = _decide(rules, policies, given, table, mode, h, s, t, card, v, node)
        if rec:
            done[s] = 1
        if t == k - 1:  # the dealer
            return _dealer(rules, policies, given, table, mode, h, card, keep)
        nb = order[t + 1]  # the next seat in to the left: the turn order is the seats in, leftwards
        theirs = hands[nb]
        blocked = _rank(theirs) == blocker
        stopped = blocked and not keep  # refused: the neighbour shows the blocker
        swap = not (keep or blocked)
        # both cards written back, swapped or not, without a branch: a branch on a keep or a swap
        # is a branch on the cards, and mispredicted at about every other turn
        hands[nb] = card if swap else theirs
        hands[s] = theirs if swap else card
        if keep:  # what the bots and the record learn (nothing, for threshold bots unrecorded)
            node = _bots_follow(policies, table, mode, node, T_KEEP, E_KEEP, s, -1, -1, -1, 0)
        elif blocked:
            if rec:
                done[nb] = 1
            node = _bots_follow(policies, table, mode, node, T_BLOCKED, E_BLOCKED, s, nb, theirs, -1, 0)
        else:
            if use_table:
                given_to[nb] = SSTR[_rank(theirs)]
            announced = _rank(theirs) if announce and _rank(theirs) <= 2 else 0
            token = T_SWAP if announced == 0 else T_SWAP_A if announced == 1 else T_SWAP_2
            node = _bots_follow(policies, table, mode, node, token, E_SWAP, s, nb, card, theirs, announced)
        t = k if stopped and king_stops else t + 2 if stopped else t + 1
        if stopped:  # the blocker's holder is passed over: the next seat holds its own card
            card = hands[order[t]] if t < k else -1
            v = STR[_rank(card)]
        else:  # the neighbour's card now, given or its own
            vt = STR[_rank(theirs)]
            card = card if swap else theirs
            v = v if swap else vt
    return -1, h


@jit(inline=True)
def _dealer(rules: RuleArrays, policies: PolicyArrays, given: Given, table: Table, mode: Mode, h: HandState,
            card: int, keep: bool) -> tuple[int, HandState]:  # pragma: no cover - compiled
    """The dealer's turn (A3.4): keep, or exchange ``card`` for a card of the stock (cut at
    random, or the top card). A blocker drawn is kept, or shown and put back (void), or loses the
    hand alone (dealer-loses); a card of the same rank, with dealer_same_rank, wins the hand for the
    dealer (everyone else loses) or makes the dealer immune. Returns the number of losers when
    this decided the hand (written to ``W_LOSERS``), else -1; and the hand."""
    R, ws, st = rules.vector, table.ws, table.st
    s, blocker, to_bottom, rec = h.dealer, R[R_BLOCKER], R[R_BH] == 1, mode.rec
    stk, hands, seen = ws[W_STOCK], ws[W_HANDS], ws[W_SEEN]
    if keep:
        if rec:
            _event(table.evs, st, E_KEEP, s, -1, -1, -1, 0, -1)
        return -1, h
    head, length = h.head, h.length
    pos = 0 if R[R_DEX_TOP] else _pick(length, True, given.picks, table.g, table.rng) if given.chance \
        else _below(table.rng, length)  # the generator's draw inlined: a call costs more
    drawn = stk[(head + pos) & MASK]
    if rec:
        _event(table.evs, st, E_DEALER_EXCHANGE, s, -1, card, drawn, 0, pos)
    drew_blocker = _rank(drawn) == blocker
    same_rank = _rank(drawn) == _rank(card) and R[R_DSR] != DSR_NONE
    if mode.follow_stock:
        _stock_exchange(ws, mode.n, policies.kind, s, head, length, pos, drawn, card,
                        drew_blocker and R[R_DDB] == DDB_VOID,
                        same_rank and not (drew_blocker and R[R_DDB] != DDB_ALLOWED))
    if drew_blocker and R[R_DDB] != DDB_ALLOWED:
        nl = -1
        if R[R_DDB] == DDB_LOSES:
            head = _remove_from_stock(stk, head, length, pos, to_bottom)
            hands[s] = drawn
            ws[W_LOSERS, 0] = s
            ws[W_LOST_AT, 0] = h.k - 1  # the dealer acts last
            nl = 1
        if rec:
            seen[drawn] = PUBLIC
            _event(table.evs, st, E_DEALER_DREW_BLOCKER, s, -1, drawn, -1, 0, -1)
            st[S_NO_SHOWDOWN] = 1 if nl > 0 else 0
        if nl < 0:  # void: the blocker is put back, the stock as it was
            return nl, h
        return nl, HandState(s, head, length - 1, h.kitty, h.k, card, h.immune, h.node, h.jmask, h.shuffle,
                             h.number)
    head = _remove_from_stock(stk, head, length, pos, to_bottom)
    hands[s] = drawn
    if rec:
        seen[drawn] = 1 << s  # what anyone knew of it in the stock is stale
    nl, immune = -1, h.immune
    if same_rank:
        if R[R_DSR] == DSR_WINS:
            order, losers, lost_at = ws[W_ORDER], ws[W_LOSERS], ws[W_LOST_AT]
            nl = 0
            for i in range(h.k):
                if order[i] != s:
                    losers[nl] = order[i]
                    lost_at[nl] = i
                    nl += 1
        else:
            immune = s
        if rec:
            seen[drawn] = PUBLIC
            seen[card] = PUBLIC
            _event(table.evs, st, E_DEALER_SAME_RANK, s, -1, card, drawn, 0, -1)
            st[S_NO_SHOWDOWN] = 1 if nl >= 0 else 0
    return nl, HandState(s, head, length - 1, h.kitty, h.k, card, immune, h.node, h.jmask, h.shuffle,
                         h.number)


@jit(inline=True)
def _showdown(rules: RuleArrays, policies: PolicyArrays, table: Table, mode: Mode,
              h: HandState) -> int:  # pragma: no cover - compiled
    """The showdown (A3.5): every card is shown; the holders of the lowest (by ``ties`` and
    ``pairing``; an immune dealer apart) lose, written to ``W_LOSERS``. Returns how many."""
    ws, k = table.ws, h.k
    order, hands, losers = ws[W_ORDER], ws[W_HANDS], ws[W_LOSERS]
    nl = _losers(rules.vector, rules.strength, order, k, h.immune, hands, losers, ws[W_LOST_AT], ws[W_COUNT])
    if mode.follow_stock:
        _stock_shown(ws, mode.n, policies.kind, order, k, hands)
    if mode.rec:
        for i in range(k):
            ws[W_SEEN, hands[order[i]]] = PUBLIC
            ws[W_SHOWN, order[i]] = hands[order[i]]
        for i in range(nl):
            ws[W_LOST, losers[i]] = 1
    return nl


@jit(inline=True)
def _lives(rules: RuleArrays, given: Given, counts: Counts, table: Table, mode: Mode, h: HandState, nl: int,
           double: bool) -> tuple[int, int, HandState]:  # pragma: no cover - compiled
    """Chips (A3.5) and elimination (A3.6): each of the ``nl`` losers pays the kitty one life (two
    for an ace with ``double``), never more than it has; the counts take the hand; the players out
    leave, or, when all in the hand are out, the final tie is replayed, split or cut for. Returns
    the sole winner, NO_SOLE, or PLAY_ON; how many players left the game; and the hand."""
    R, ws, st, g = rules.vector, table.ws, table.st, table.g
    lives, alive, hands, order, dealt = ws[W_LIVES], ws[W_ALIVE], ws[W_HANDS], ws[W_ORDER], ws[W_DEALT]
    losers, lost_at, paid = ws[W_LOSERS], ws[W_LOST_AT], ws[W_PAID]
    k, rec, kitty = h.k, mode.rec, h.kitty
    pos_hands, pos_losses = counts.position_hands[k], counts.position_losses[k]
    rank_hands, rank_losses = counts.rank_hands, counts.rank_losses
    if mode.lean:  # the places and ranks in bulk: W_SIZES, and at the deal
        ws[W_SIZES, k] += 1
    else:
        for i in range(k):  # every place played a hand (a loop the compiler vectorises)
            pos_hands[i] += 1
        for i in range(k):
            rank_hands[_rank(dealt[order[i]])] += 1
    # each loser pays, counts a loss at its place and for its rank dealt, and is out (moved to the
    # front of the losers, in turn order: never past the loser read) with no lives left, or with
    # last_chance, when it had none to pay
    nout = 0
    for i in range(nl):
        s = losers[i]
        had = lives[s]
        owed = 2 if double and _rank(hands[s]) == 1 else 1
        p = owed if owed < had else had
        lives[s] = had - p
        kitty += p
        paid[s] = p  # (-1 for the others, but in a lean game: only the log reads them)
        if rec:
            ws[W_PAYMENT, s] = p
        pos_losses[lost_at[i]] += 1
        rank_losses[_rank(dealt[s])] += 1
        if (had == 0) if R[R_LC] else (had == p):
            losers[nout] = s
            nout += 1
    winner, gone = PLAY_ON, 0
    if nout == k:
        if rec:
            st[S_FINAL_TIE] = 1
        if R[R_FT] == FT_REPLAY:
            for i in range(nout):
                s = losers[i]
                lives[s] += paid[s]
                kitty -= paid[s]
        elif R[R_FT] == FT_CUT:
            winner = _cut_highest(R, rules.strength, losers, nout, ws[W_TMP], given.chance,
                                  given.shuffles, g, table.rng)
        else:
            winner = NO_SOLE
            if R[R_FT] == FT_SPLIT and rec:
                for i in range(nout):
                    ws[W_WON, losers[i]] = 1
    elif nout > 0:
        gone = nout
        for i in range(nout):
            alive[losers[i]] = 0
            if rec:
                ws[W_OUT, losers[i]] = 1
        if k - nout == 1:
            for i in range(k):
                if alive[order[i]]:
                    winner = order[i]
    return winner, gone, HandState(h.dealer, h.head, h.length, kitty, k, h.set_aside, h.immune, h.node,
                                   h.jmask, h.shuffle, h.number)


@jit(inline=True)
def _log_hand(log: np.ndarray, table: Table, n: int, h: HandState) -> None:  # pragma: no cover - compiled
    """A row of ``log`` (while there are rows): the dealer, each seat's payment (-1 if it did not
    lose), each seat's lives, the kitty, and each seat in or out."""
    g, ws = table.g, table.ws
    if log.shape[0] > 0 and g[G_LOG] < log.shape[0]:  # the shape first: no rows, no load of g
        row = log[g[G_LOG]]
        g[G_LOG] += 1
        row[0] = h.dealer
        for s in range(n):
            row[1 + s] = ws[W_PAID, s]
            row[1 + n + s] = ws[W_LIVES, s]
            row[2 + 2 * n + s] = ws[W_ALIVE, s]
        row[1 + 2 * n] = h.kitty


@jit(inline=True)
def _between_hands(policies: PolicyArrays, table: Table, mode: Mode, h: HandState, winner: int,
                   gone: int) -> HandState:  # pragma: no cover - compiled
    """Between hands (A3.7): the cards go under the stock in turn order, the dealer's set-aside
    card last; then the game is over (``winner`` is not PLAY_ON: the hand saved, in PH_OVER) or the
    deal passes left, and ``W_ORDER`` becomes the next hand's: turned by one place in the same pass
    (the eldest deals) when nobody left the game (``gone`` 0), else made anew."""
    ws, st, k = table.ws, table.st, h.k
    stk, hands, order, paid = ws[W_STOCK], ws[W_HANDS], ws[W_ORDER], ws[W_PAID]
    head, length, set_aside = h.head, h.length, h.set_aside
    if mode.follow_stock:
        _stock_collected(ws, mode.n, policies.kind, order, k, hands, set_aside, ws[W_SEEN], head + length)
    turn = winner == PLAY_ON and gone == 0
    eldest = order[0]
    for i in range(k):
        s = order[i]
        stk[(head + length) & MASK] = hands[s]
        length += 1
        if not mode.lean:
            paid[s] = -1
        if mode.rec:  # no card in hand between hands, for the record's readers
            hands[s] = -1
        if turn and i > 0:
            order[i - 1] = s
    if set_aside >= 0:
        stk[(head + length) & MASK] = set_aside
        length += 1
    dealer = h.dealer
    if turn:
        order[k - 1] = eldest
        dealer = eldest
    elif winner == PLAY_ON:
        dealer = _left(dealer, mode.n, ws[W_ALIVE])
        k = _seat_order(dealer, mode.n, ws[W_ALIVE], order)
    after = HandState(dealer, head, length, h.kitty, k, -1, h.immune, h.node, h.jmask, h.shuffle, h.number)
    if winner != PLAY_ON:
        if winner >= 0:
            ws[W_WON, winner] = 1
        _save(st, after, PH_OVER, st[S_T])
        st[S_TO_ACT] = -1
    return after


@jit(inline=True)
def _fixed(rules: RuleArrays) -> RuleArrays:  # pragma: no cover - compiled
    """``rules`` with its rule vector as a tuple: read once, the options then stay in registers
    (an array of int64 has to be read again after every write to the table's int64 arrays, which
    the compiler cannot tell apart from it)."""
    R = rules.vector
    vector = (R[0], R[1], R[2], R[3], R[4], R[5], R[6], R[7], R[8], R[9], R[10], R[11], R[12], R[13], R[14],
              R[15], R[16])
    return RuleArrays(vector, rules.strength, rules.solver_strength, rules.pack)  # type: ignore[arg-type]


@jit(inline=True)
def _standard(rules: RuleArrays) -> RuleArrays:  # pragma: no cover - compiled
    """``rules``, which are the default rules (:data:`STANDARD`) but for the lives, with every
    option but the lives a constant: the compiler drops the code of the other options."""
    lives = (rules.vector[R_LIVES],)
    return RuleArrays(lives + STANDARD[1:], rules.strength, rules.solver_strength,  # type: ignore[arg-type]
                      rules.pack)


@jit(inline=True)
def _is_standard(R: np.ndarray) -> bool:  # pragma: no cover - compiled
    """Whether the rule vector ``R`` is the default rules' (:data:`STANDARD`), the lives apart."""
    for i in range(1, R_SIZE):  # noqa: SIM110 (a loop numba compiles)
        if R[i] != STANDARD[i]:
            return False
    return True


@jit()
def play_game(rules: RuleArrays, policies: PolicyArrays, given: Given, counts: Counts, table: Table,
              hand_limit: int, pause: bool, rec: bool) -> int:  # pragma: no cover - compiled
    """Play one game at ``table`` (or, with ``pause``, on to the next decision); return the sole
    winner, NO_SOLE, STOPPED (``table.g[G_HANDS]`` reached ``hand_limit``, or the script ran out)
    or PAUSED.

    A game starts when ``st[S_PHASE]`` is PH_NEW. With ``pause``, every decision stops the game
    with ``st[S_TO_ACT]`` set; the caller puts 1 (keep) or 0 (swap) in ``st[S_PENDING]`` (for a
    bot's seat: :func:`bot_keeps`) and calls again. With ``rec``, what a seat may see of the
    current hand is written down: who knows each card (``W_SEEN``), the turn events (``evs``) and
    the outcome rows, for the vector env's encoder. ``counts.log`` gets a row per hand.
    """
    return _play(_fixed(rules), policies, given, counts, table, hand_limit,
                 _mode(rules, policies, pause, rec), False)


@jit(inline=True)
def _play(rules: RuleArrays, policies: PolicyArrays, given: Given, counts: Counts, table: Table,
          hand_limit: int, mode: Mode, fresh: bool) -> int:  # pragma: no cover - compiled
    """:func:`play_game` in ``mode`` (a new game if ``fresh``): inlined where it is called, so that
    rules and a mode made of constants (as :func:`run` makes) compile to a game without their
    checks."""
    st, g = table.st, table.g
    scripted = given.chance or given.decides  # only a script runs short (``G_SHORT``)
    if fresh or st[S_PHASE] == PH_NEW:
        h = _new_game(rules, policies, given, table, mode)
        if h.dealer < 0:
            return STOPPED
        t = -1  # -1: deal first
    else:  # on from a pause, at place t of the turns
        h, t = _load(st), st[S_T]
    played = g[G_HANDS]  # counted here, and only written to the table's counters
    while True:
        if t < 0:
            h = _deal(rules, policies, given, counts, table, mode, h)
            if h.k == 0:
                return STOPPED
            t = 0
        nl, h = _turns(rules, policies, given, table, mode, h, t)
        if nl == PAUSED:
            return PAUSED
        if scripted and g[G_SHORT]:
            return STOPPED
        double = rules.vector[R_APD] != 0 and nl < 0  # not when the dealer's exchange decided it
        if nl < 0:
            nl = _showdown(rules, policies, table, mode, h)
        winner, gone, h = _lives(rules, given, counts, table, mode, h, nl, double)
        played += 1
        g[G_HANDS] = played
        if not mode.lean:
            _log_hand(counts.log, table, mode.n, h)
        if played >= hand_limit or (scripted and g[G_SHORT]):  # the limit, or a cut out of script
            return STOPPED
        h = _between_hands(policies, table, mode, h, winner, gone)
        if winner != PLAY_ON:
            return winner
        t = -1


@jit(inline=True)
def _games(rules: RuleArrays, policies: PolicyArrays, given: Given, counts: Counts, table: Table,
           wins: np.ndarray, games: int, hand_limit: int, mode: Mode) -> None:  # pragma: no cover
    """:func:`run`'s loop over games, in ``mode``."""
    g, st, sizes = table.g, table.st, table.ws[W_SIZES]
    for k in range(mode.n + 1):
        sizes[k] = 0
    played = 0
    while (played < games) if games > 0 else (g[G_HANDS] < hand_limit):
        st[S_PHASE] = PH_NEW
        w = _play(rules, policies, given, counts, table, hand_limit, mode, True)
        if w == STOPPED:
            break
        played += 1
        g[G_GAMES] += 1
        if w >= 0:
            wins[w] += 1
        else:
            g[G_NO_SOLE] += 1
    for k in range(2, mode.n + 1):  # each hand of k players, at each of its places
        for i in range(k):
            counts.position_hands[k, i] += sizes[k]


@jit()
def run(rules: RuleArrays, policies: PolicyArrays, given: Given, counts: Counts, table: Table,
        wins: np.ndarray, games: int, hand_limit: int) -> None:  # pragma: no cover - compiled
    """Play ``games`` whole games, or up to ``hand_limit`` hands (``games`` 0), at ``table``,
    adding to the counts (but the log: ``counts.log`` is left alone), ``wins`` (by seat) and the
    table's counters; each game starts from
    ``rules.pack``. Nothing is to be ``given`` (:func:`chasetheace.fast.tables.nothing_given`; an
    argument so that nothing is allocated here: numba's reference counts would cost more than the
    game).

    The game is inlined here twice, chosen once for the call: threshold bots at every seat with the
    default rules (any lives), where every option and the mode are constants; and any bots with
    any rules. Nothing is given, recorded or paused in either: constants too, so that those checks
    leave the loops. (Each copy costs its compile time: a third, for threshold bots with other
    rules, was left out.)"""
    mode = _mode(rules, policies, False, False)
    nothing = Given(-1, False, given.picks, given.shuffles, False, given.decisions, given.probe)
    if mode.thresholds and _is_standard(rules.vector):
        plain = Mode(mode.n, False, False, False, False, False, True, True)
        _games(_standard(rules), policies, nothing, counts, table, wins, games, hand_limit, plain)
    else:
        lean = Mode(mode.n, mode.use_table, mode.use_count, mode.follow_stock, mode.rec, mode.pause,
                    mode.thresholds, True)
        _games(_fixed(rules), policies, nothing, counts, table, wins, games, hand_limit, lean)


# --- the public entry of a game played on from pause to pause (the vector env's) ----------------

@jit(inline=True)
def pause_mode(rules: RuleArrays, policies: PolicyArrays) -> Mode:  # pragma: no cover - compiled
    """The mode of :func:`play_on`: paused at decisions, with what each seat may see recorded (as
    :func:`play_game` with ``pause`` and ``rec``); made once for many calls."""
    return _mode(rules, policies, True, True)


@jit(inline=True)
def play_on(rules: RuleArrays, policies: PolicyArrays, given: Given, counts: Counts, table: Table,
            mode: Mode) -> int:  # pragma: no cover - compiled
    """Play the game at ``table`` on to its next pause: PAUSED (``st[S_TO_ACT]`` to decide, as in
    :func:`play_game`; with ``st[S_PAUSE_FOR]`` 1 + a seat, that seat's decisions only), or its end
    (the sole winner, or NO_SOLE), or STOPPED (the script ran out); a new game first if
    ``st[S_PHASE]`` is PH_NEW. ``mode`` from :func:`pause_mode`. Inlined where it is called (the
    vector env's loop over its tables), with the rule vector read once (:func:`_fixed`): a rule
    vector given as a tuple of constants compiles to a game without the checks of those options."""
    return _play(_fixed(rules), policies, given, counts, table, 1 << 62, mode, False)
