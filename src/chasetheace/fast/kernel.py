"""The compiled kernel: whole games of Chase the Ace (RULES.md part A) in numba.

It follows :class:`chasetheace.Game` step by step (deal, kings jerk, turns, the dealer's turn,
showdown, chips, elimination, final tie, collection, the next deal), on plain integer arrays:
cards are ``Card.id`` numbers, the rules are the vector made by :func:`chasetheace.fast.tables.rule_vector`.

Chance comes from the kernel's own splitmix64 generator, or, to replay a game of the engine, from
given shuffles and picks (``script_chance``); decisions come from the policies, or from a given list
(``script_decisions``), in which case the policies' keep probabilities are still written to ``probe``.

With ``between_hands = shuffle`` the kernel shuffles lazily: only the cards that will be dealt (and
the top card, for ``dealer_exchange = top``) are drawn, by a partial Fisher-Yates shuffle; a cut at a
uniform position of the rest is then a uniform card of the rest, as in a full shuffle.

The chance draws are in :mod:`chasetheace.fast.chance`, the counting bot in
:mod:`chasetheace.fast.counting`, and the meaning of every index and code in
:mod:`chasetheace.fast.layout` (also reachable from here: ``kernel.R_DECK``, ...).
"""

from __future__ import annotations

import numpy as np

from .chance import _below, _choose_dealer, _cut_highest, _next, _pick, _uniform
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
    E_FIELDS,
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
    PH_DEAL,
    PH_NEW,
    PH_OVER,
    PH_TURNS,
    PUBLIC,
    R_ANN,
    R_APD,
    R_BH,
    R_BLOCKER,
    R_DDB,
    R_DECK,
    R_DEX_TOP,
    R_DSR,
    R_FT,
    R_KJ,
    R_KSP,
    R_LC,
    R_LIVES,
    R_PAIR,
    R_TIES,
    R_TOP,
    RING,
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
    S_PENDING,
    S_PHASE,
    S_SET_ASIDE,
    S_SHUFFLE,
    S_T,
    S_TO_ACT,
    ST_SIZE,
    STOPPED,
    T_BLOCKED,
    T_KEEP,
    T_SHOWN,
    T_SWAP,
    T_SWAP_2,
    T_SWAP_A,
    TIES_ELDEST,
    TIES_LATEST,
    WS_ROWS,
    _rank,
    _remove_from_stock,
    jit,
)


@jit()
def _left(seat: int, n: int, alive: np.ndarray) -> int:  # pragma: no cover - compiled
    s = seat + 1 if seat + 1 < n else 0  # no division: it would cost more than the rest of the turn
    while not alive[s]:
        s = s + 1 if s + 1 < n else 0
    return s


@jit()
def _losers(R: np.ndarray, STR: np.ndarray, order: np.ndarray, k: int, immune: int,
            hands: np.ndarray, losers: np.ndarray, cnt: np.ndarray) -> int:  # pragma: no cover
    """Fill ``losers`` (in turn order) with the holders of the lowest card; return how many."""
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
                m += 1
        return m
    low = 99
    for i in range(k):
        s = order[i]
        if s != immune:
            v = STR[_rank(hands[s])]
            if v < low:
                low = v
    m = 0
    for i in range(k):
        s = order[i]
        if s != immune and STR[_rank(hands[s])] == low:
            if R[R_TIES] == TIES_LATEST:
                m = 0
            losers[m] = s
            m += 1
            if R[R_TIES] == TIES_ELDEST:
                break
    return m


@jit()
def _decide(seat: int, place: int, k: int, card: int, node: int, STR: np.ndarray,
            SSTR: np.ndarray, pol_kind: np.ndarray, thr: np.ndarray, tab: np.ndarray,
            fb: np.ndarray, given: np.ndarray, script: bool, decisions: np.ndarray,
            probe: np.ndarray, g: np.ndarray, rng: np.ndarray, R: np.ndarray, ws: np.ndarray,
            n: int, length: int, head: int) -> bool:  # pragma: no cover
    """True to keep. The policy's keep probability, then the scripted or sampled decision."""
    kind = pol_kind[seat]
    if kind == P_THRESHOLD:
        p = 1.0 if STR[_rank(card)] >= thr[seat, k, place] else 0.0
    elif kind == P_RANDOM:
        p = 0.5
    elif kind == P_COUNTING:
        p = 1.0 if _counting_keeps(seat, place, k, R, STR, ws, n, length, head) else 0.0
    else:
        s = SSTR[_rank(card)]
        p = fb[k, place, s] if node < 0 else tab[node, s, given[seat] + 1]
    if script:
        i = g[G_DEC]
        if i >= decisions.shape[0]:
            g[G_SHORT] = 1
            return True
        g[G_DEC] += 1
        if probe.shape[0] > i:
            probe[i] = p
        return bool(decisions[i] != 0)
    if p >= 1.0:
        return True
    if p <= 0.0:
        return False
    if kind == P_RANDOM:
        return bool((_next(rng) >> np.uint64(63)) == np.uint64(0))
    return _uniform(rng) < p


@jit()
def _step(node: int, token: int, child: np.ndarray) -> int:  # pragma: no cover - compiled
    return -1 if node < 0 else child[node, token]


@jit()
def play_game(R: np.ndarray, STR: np.ndarray, SSTR: np.ndarray, n: int, pol_kind: np.ndarray,
              thr: np.ndarray, root: np.ndarray, child: np.ndarray, tab: np.ndarray, fb: np.ndarray,
              stacked: np.ndarray, first_dealer: int, script_chance: bool, picks: np.ndarray,
              shuffles: np.ndarray, script_decisions: bool, decisions: np.ndarray,
              probe: np.ndarray, log: np.ndarray, pos_hands: np.ndarray, pos_losses: np.ndarray,
              rank_hands: np.ndarray, rank_losses: np.ndarray, g: np.ndarray, rng: np.ndarray,
              hand_limit: int, ws: np.ndarray, st: np.ndarray, pause: bool, rec: bool,
              evs: np.ndarray) -> int:  # pragma: no cover - compiled
    """Play one game (or, with ``pause``, up to the next decision); return the sole winner,
    NO_SOLE, STOPPED (hand limit reached, or the script ran out) or PAUSED.

    ``log`` (hands x (3 n + 2), when it has rows) gets one row per hand, at its end: the dealer,
    each seat's payment (-1 if not a loser), each seat's lives, the kitty, and each seat in or out.
    ``ws`` is the table: a (WS_ROWS, RING) int64 array; ``st`` its scalars (S_*), where a game starts
    at PH_NEW. With ``pause``, every decision stops the game with ``st[S_TO_ACT]`` set; the caller
    puts 1 (keep) or 0 (swap) in ``st[S_PENDING]`` and calls again. With ``rec``, what a seat may
    see of the current hand is written down: who knows each card (``W_SEEN``), the turn events
    (``evs``, E_* columns) and the outcome rows, for :func:`encode`.
    """
    deck = R[R_DECK]
    blocker = R[R_BLOCKER]
    to_bottom = R[R_BH] == 1
    use_table = use_count = False
    for s in range(n):
        if pol_kind[s] == P_TABLE:
            use_table = True
        if pol_kind[s] == P_COUNTING:
            use_count = True
    follow_stock = use_count and to_bottom  # counting seats also follow the stock, which needs
    rec = rec or follow_stock               # who knows each card: what ``rec`` writes down
    lives, alive, hands, dealt, done, order = ws[0], ws[1], ws[2], ws[3], ws[4], ws[5]
    stk, tmp, losers, paid, had, given = ws[6], ws[7], ws[8], ws[9], ws[10], ws[11]
    cnt, seen, sd_card, sd_lost, paid_rec, out_rec = ws[12], ws[13], ws[14], ws[15], ws[16], ws[17]
    won = ws[18]
    if st[S_PHASE] == PH_NEW:
        for s in range(n):
            lives[s] = R[R_LIVES]
            alive[s] = 1
            hands[s] = -1
            won[s] = 0
        kitty = 0
        for i in range(deck):
            stk[i] = stacked[i]
            tmp[i] = stacked[i]
        head = 0
        length = deck
        if first_dealer >= 0:
            dealer = first_dealer
        else:
            dealer = _choose_dealer(R, STR, n, tmp, losers, script_chance, picks, shuffles, g, rng)
            if g[G_SHORT]:
                return STOPPED
        shuffle_next = stacked[deck] == 0  # the first hand is dealt from a fresh shuffle unless stacked
        phase = PH_DEAL
        hand = 0
        k = t = node = jmask = 0
        set_aside = immune = -1
        st[S_PENDING] = -1
        if follow_stock:
            _stock_reset(ws, n, pol_kind)
    else:
        phase, head, length, kitty = st[S_PHASE], st[S_HEAD], st[S_LEN], st[S_KITTY]
        dealer, set_aside, immune, t = st[S_DEALER], st[S_SET_ASIDE], st[S_IMMUNE], st[S_T]
        k, node, jmask, shuffle_next, hand = st[S_K], st[S_NODE], st[S_JMASK], st[S_SHUFFLE] != 0, st[S_HAND]
    logging = log.shape[0] > 0
    while True:
        if phase == PH_DEAL:
            # --- deal (A3.1) ---
            hand += 1
            k = 0
            s = dealer
            while True:
                s = _left(s, n, alive)
                order[k] = s
                k += 1
                if s == dealer:
                    break
            if shuffle_next:
                if script_chance:
                    if g[G_SHUF] >= shuffles.shape[0]:
                        return STOPPED
                    row = shuffles[g[G_SHUF]]
                    g[G_SHUF] += 1
                    for i in range(length):
                        stk[(head + i) & MASK] = row[i]
                else:
                    # to-bottom keeps the stock's order from hand to hand: shuffle it all once
                    need = length if to_bottom else k + 1 if R[R_DEX_TOP] else k
                    for i in range(need):
                        j = i + _below(rng, length - i)
                        a = (head + i) & MASK
                        b = (head + j) & MASK
                        c = stk[a]
                        stk[a] = stk[b]
                        stk[b] = c
            shuffle_next = not to_bottom
            for i in range(k):
                s = order[i]
                c = stk[(head + i) & MASK]
                hands[s] = c
                dealt[s] = c
                done[s] = 0
                given[s] = -1
                paid[s] = -1
            head += k
            length -= k
            set_aside = -1
            immune = -1
            if use_count:
                for c in range(n):
                    if pol_kind[c] == P_COUNTING:
                        for s in range(n):
                            ws[WS_ROWS + c, s] = -1
                            ws[WS_ROWS + n + c, s] = 0
                        if alive[c]:
                            ws[WS_ROWS + c, c] = hands[c]
                if follow_stock:
                    _stock_dealt(ws, n, pol_kind, order, k, head - k, stk)
            if rec:
                st[S_EVENTS] = 0
                st[S_FINAL_TIE] = 0
                st[S_NO_SHOWDOWN] = 0
                for s in range(n):
                    sd_card[s] = -1
                    sd_lost[s] = 0
                    paid_rec[s] = -1
                    out_rec[s] = 0
                for i in range(k):
                    seen[hands[order[i]]] = 1 << order[i]
            # --- kings jerk (A2) ---
            jmask = 0
            if R[R_KJ]:
                for i in range(k):
                    s = order[i]
                    if _rank(hands[s]) == R[R_TOP]:
                        if kitty > 0:
                            kitty -= 1
                            lives[s] += 1
                        jmask |= 1 << i
                        if use_count:
                            _learn(ws, n, pol_kind, s, hands[s])
                        if rec:
                            seen[hands[s]] = PUBLIC
                            _event(evs, st, E_KING_JERK, s, -1, hands[s], -1, 0, -1)
            node = -1
            if use_table:
                node = root[k, jmask if jmask < root.shape[1] else 0]
            t = 0
            phase = PH_TURNS
        # --- turns (A3.3, A3.4) ---
        nl = -1  # losers of a hand ended by the dealer's exchange; -1: to the showdown
        double = R[R_APD] != 0
        while t < k:
            s = order[t]
            if done[s]:
                t += 1
                continue
            card = hands[s]
            if _rank(card) == blocker:
                done[s] = 1
                node = _step(node, T_SHOWN, child)
                if use_count:
                    _learn(ws, n, pol_kind, s, card)
                if rec:
                    seen[card] = PUBLIC
                    _event(evs, st, E_SHOW_BLOCKER, s, -1, card, -1, 0, -1)
                if R[R_KSP]:
                    t = k
                continue
            if pause:
                if st[S_PENDING] < 0:
                    st[S_PHASE], st[S_HEAD], st[S_LEN], st[S_KITTY] = phase, head, length, kitty
                    st[S_DEALER], st[S_SET_ASIDE], st[S_IMMUNE], st[S_T] = dealer, set_aside, immune, t
                    st[S_K], st[S_NODE], st[S_JMASK], st[S_HAND] = k, node, jmask, hand
                    st[S_SHUFFLE] = 1 if shuffle_next else 0
                    st[S_TO_ACT] = s
                    return PAUSED
                keep = st[S_PENDING] == 1
                st[S_PENDING] = -1
            else:
                keep = _decide(s, t, k, card, node, STR, SSTR, pol_kind, thr, tab, fb, given,
                               script_decisions, decisions, probe, g, rng, R, ws, n, length, head)
            done[s] = 1
            if s == dealer:
                t = k
                if keep:
                    if rec:
                        _event(evs, st, E_KEEP, s, -1, -1, -1, 0, -1)
                    break
                pos = _pick(length, script_chance, picks, g, rng) if not R[R_DEX_TOP] else 0
                drawn = stk[(head + pos) & MASK]
                if rec:
                    _event(evs, st, E_DEALER_EXCHANGE, s, -1, card, drawn, 0, pos)
                if follow_stock:
                    _stock_exchange(ws, n, pol_kind, s, head, length, pos, drawn, card,
                                    _rank(drawn) == blocker and R[R_DDB] == DDB_VOID,
                                    _rank(drawn) == _rank(card) and R[R_DSR] != DSR_NONE
                                    and not (_rank(drawn) == blocker and R[R_DDB] != DDB_ALLOWED))
                if _rank(drawn) == blocker and R[R_DDB] != DDB_ALLOWED:
                    if R[R_DDB] == DDB_LOSES:
                        head = _remove_from_stock(stk, head, length, pos, to_bottom)
                        length -= 1
                        set_aside = card
                        hands[s] = drawn
                        losers[0] = s
                        nl = 1
                        double = False
                    if rec:
                        seen[drawn] = PUBLIC
                        _event(evs, st, E_DEALER_DREW_BLOCKER, s, -1, drawn, -1, 0, -1)
                        st[S_NO_SHOWDOWN] = 1 if nl > 0 else 0
                    break
                head = _remove_from_stock(stk, head, length, pos, to_bottom)
                length -= 1
                set_aside = card
                hands[s] = drawn
                if rec:
                    seen[drawn] = 1 << s  # what anyone knew of it in the stock is stale
                if _rank(drawn) == _rank(card) and R[R_DSR] != DSR_NONE:
                    if R[R_DSR] == DSR_WINS:
                        nl = 0
                        for i in range(k):
                            if order[i] != s:
                                losers[nl] = order[i]
                                nl += 1
                        double = False
                    else:
                        immune = s
                    if rec:
                        seen[drawn] = PUBLIC
                        seen[card] = PUBLIC
                        _event(evs, st, E_DEALER_SAME_RANK, s, -1, card, drawn, 0, -1)
                        st[S_NO_SHOWDOWN] = 1 if nl >= 0 else 0
                break
            if keep:
                node = _step(node, T_KEEP, child)
                if rec:
                    _event(evs, st, E_KEEP, s, -1, -1, -1, 0, -1)
                continue
            nb = _left(s, n, alive)
            theirs = hands[nb]
            if _rank(theirs) == blocker:
                done[nb] = 1
                node = _step(node, T_BLOCKED, child)
                if use_count:
                    _learn(ws, n, pol_kind, nb, theirs)
                if rec:
                    seen[theirs] = PUBLIC
                    _event(evs, st, E_BLOCKED, s, nb, theirs, -1, 0, -1)
                if R[R_KSP]:
                    t = k
                continue
            hands[nb] = card
            hands[s] = theirs
            given[nb] = SSTR[_rank(theirs)]
            announced = 0
            if R[R_ANN] and _rank(theirs) <= 2:
                announced = _rank(theirs)
                node = _step(node, T_SWAP_A if _rank(theirs) == 1 else T_SWAP_2, child)
            else:
                node = _step(node, T_SWAP, child)
            if use_count:
                _learn_swap(ws, n, pol_kind, s, nb, card, theirs, announced)
            if rec:
                if seen[card] != PUBLIC:
                    seen[card] |= 1 << nb
                if seen[theirs] != PUBLIC:
                    seen[theirs] |= 1 << s
                _event(evs, st, E_SWAP, s, nb, card, theirs, announced, -1)
        if g[G_SHORT]:
            return STOPPED
        # --- showdown (A3.5) ---
        if nl < 0:
            nl = _losers(R, STR, order, k, immune, hands, losers, cnt)
            if follow_stock:
                _stock_shown(ws, n, pol_kind, order, k, hands)
            if rec:
                for i in range(k):
                    seen[hands[order[i]]] = PUBLIC
                    sd_card[order[i]] = hands[order[i]]
                for i in range(nl):
                    sd_lost[losers[i]] = 1
        # --- chips (A3.5) and the tally ---
        for i in range(nl):
            s = losers[i]
            had[s] = lives[s]
            owed = 2 if double and _rank(hands[s]) == 1 else 1
            p = owed if owed < lives[s] else lives[s]
            lives[s] -= p
            kitty += p
            paid[s] = p
            if rec:
                paid_rec[s] = p
        for i in range(k):
            s = order[i]
            lost = 1 if paid[s] >= 0 else 0
            pos_hands[k, i] += 1
            pos_losses[k, i] += lost
            r = _rank(dealt[s])
            rank_hands[r] += 1
            rank_losses[r] += lost
        g[G_HANDS] += 1
        # --- elimination (A3.6) ---
        nout = 0
        for i in range(nl):
            s = losers[i]
            if (had[s] == 0) if R[R_LC] else (lives[s] == 0):
                losers[nout] = s  # the players out, in turn order, overwrite the losers' front
                nout += 1
        winner = -3  # -3: play on
        if nout == k:
            if rec:
                st[S_FINAL_TIE] = 1
            if R[R_FT] == FT_REPLAY:
                for i in range(nout):
                    s = losers[i]
                    lives[s] += paid[s]
                    kitty -= paid[s]
            elif R[R_FT] == FT_CUT:
                winner = _cut_highest(R, STR, losers, nout, tmp, script_chance, shuffles, g, rng)
            else:
                winner = NO_SOLE
                if R[R_FT] == FT_SPLIT and rec:
                    for i in range(nout):
                        won[losers[i]] = 1
        elif nout > 0:
            for i in range(nout):
                alive[losers[i]] = 0
                if rec:
                    out_rec[losers[i]] = 1
            if k - nout == 1:
                for i in range(k):
                    if alive[order[i]]:
                        winner = order[i]
        if logging and g[G_LOG] < log.shape[0]:
            row = log[g[G_LOG]]
            g[G_LOG] += 1
            row[0] = dealer
            for s in range(n):
                row[1 + s] = paid[s]
                row[1 + n + s] = lives[s]
                row[2 + 2 * n + s] = alive[s]
            row[1 + 2 * n] = kitty
        if g[G_HANDS] >= hand_limit:
            return STOPPED
        if g[G_SHORT]:  # a cut for the pot ran out of script
            return STOPPED
        # --- collect and pass the deal (A3.7) ---
        if follow_stock:
            _stock_collected(ws, n, pol_kind, order, k, hands, set_aside, seen, head + length)
        for i in range(k):
            stk[(head + length) & MASK] = hands[order[i]]
            length += 1
            hands[order[i]] = -1
            paid[order[i]] = -1
        if set_aside >= 0:
            stk[(head + length) & MASK] = set_aside
            length += 1
            set_aside = -1
        if winner != -3:
            if winner >= 0:
                won[winner] = 1
            st[S_PHASE], st[S_HEAD], st[S_LEN], st[S_KITTY], st[S_HAND] = PH_OVER, head, length, kitty, hand
            st[S_DEALER], st[S_K], st[S_TO_ACT], st[S_SET_ASIDE] = dealer, k, -1, -1
            return winner
        dealer = _left(dealer, n, alive)
        phase = PH_DEAL


@jit()
def _event(evs: np.ndarray, st: np.ndarray, kind: int, seat: int, neighbour: int, first: int,
           second: int, announced: int, position: int) -> None:  # pragma: no cover - compiled
    i = st[S_EVENTS]
    if i < evs.shape[0]:
        e = evs[i]
        e[E_KIND], e[E_SEAT], e[E_NEIGHBOUR], e[E_FIRST] = kind, seat, neighbour, first
        e[E_SECOND], e[E_ANNOUNCED], e[E_POSITION] = second, announced, position
        st[S_EVENTS] = i + 1


@jit(refcounts=True)
def run(R: np.ndarray, STR: np.ndarray, SSTR: np.ndarray, n: int, pol_kind: np.ndarray,
        thr: np.ndarray, root: np.ndarray, child: np.ndarray, tab: np.ndarray, fb: np.ndarray,
        pack: np.ndarray, games: int, hand_limit: int, seed: int, pos_hands: np.ndarray,
        pos_losses: np.ndarray, rank_hands: np.ndarray, rank_losses: np.ndarray, wins: np.ndarray,
        g: np.ndarray) -> None:  # pragma: no cover - compiled
    """Play ``games`` whole games, or up to ``hand_limit`` hands, adding to the tallies; each game
    starts from ``pack`` (as :func:`chasetheace.fast.tables.pack_array` makes it)."""
    rng = np.zeros(1, np.uint64)
    rng[0] = np.uint64(seed)
    ws = np.full((WS_ROWS + 3 * n, RING), -1, np.int64)
    st = np.zeros(ST_SIZE, np.int64)
    evs = np.zeros((0, E_FIELDS), np.int64)
    empty_i = np.zeros(0, np.int64)
    empty_2 = np.zeros((0, 0), np.int64)
    empty_f = np.zeros(0, np.float64)
    log = np.zeros((0, 0), np.int64)
    played = 0
    while (played < games) if games > 0 else (g[G_HANDS] < hand_limit):
        st[S_PHASE] = PH_NEW
        w = play_game(R, STR, SSTR, n, pol_kind, thr, root, child, tab, fb, pack, -1, False,
                      empty_i, empty_2, False, empty_i, empty_f, log, pos_hands, pos_losses,
                      rank_hands, rank_losses, g, rng, hand_limit, ws, st, False, False, evs)
        if w == STOPPED:
            break
        played += 1
        g[G_GAMES] += 1
        if w >= 0:
            wins[w] += 1
        else:
            g[G_NO_SOLE] += 1
