"""The fast solver's game tree: one hand, dealt lazily, merged, stored as numpy arrays.

Cards are drawn from what is left of the pack the first time anybody may see them (a seat's own
turn, or when its right neighbour asks to swap); the undealt cards are exchangeable, so this is the
real deal with exact card removal. A turn node is ``(history, drawn, card, given)`` -- public
tokens, the multiset of cards drawn so far, the actor's card, and the card it gave its right
neighbour (or -1). Every later decision and loss depends only on that key, so equal keys merge.

A node's continuation is a vector ``W`` of length ``K + 3``: ``W[v]`` (``v <= K``) is the chance
that the hand ends at a showdown with every later seat's final card of strength ``>= v``;
``W[K+1]`` that the dealer alone loses (dealer_draws_blocker = dealer-loses); ``W[K+2]`` that every
other player loses (dealer_same_rank = dealer-wins). A seat's expected loss is a gather from it.

With pairing a loss depends on every final card, so ``W[f]`` (``f < K``) is instead the chance
that the group of the rank ``f`` is the weakest at the showdown, whatever the later seats hold; it
passes up unchanged. The hand's ends are then one row per final multiset of cards (``ends``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .dealing import Array, Dealing, low_size
from .hand import Hand
from .kernels import loops, worth
from .tail import TailTables, tail_children
from .tail import chunks as tail_chunks

__all__ = ["Tree", "TurnLevel"]

KEEP, SWAP, AUTO = 0, 1, 2
COMPACT = {"parent": np.int32, "child": np.int32, "action": np.int8, "final": np.int8, "blocked": np.int8,
           "prob": np.float64}
"""The edge arrays' types: a 6-player tree has tens of millions of edges."""


@dataclass
class TurnLevel:
    """The nodes of one position and the edges leaving them (sorted by parent, then action)."""

    position: int
    card: Array
    low: Array          # the weakest final card among the earlier seats (K: none)
    info: Array         # global information set id, -1 where the seat does not decide
    offset: int = 0     # global id of the first node
    owned: Array = None  # ``low``: whether this part counts each node's reach (None: every node)
    parent: Array = None
    action: Array = None
    child: Array = None
    prob: Array = None
    final: Array = None
    blocked: Array = None


class Tree(Dealing):
    """All turn nodes of a hand; see the module docstring."""

    def __init__(self, hand: Hand, *, card_removal: bool = True, dealt: tuple[int, ...] = (),
                 pair: tuple[int, int] | None = None, closed_dealer: bool = False,
                 closed_three: bool = False, low: tuple[int, ...] | None = None) -> None:
        """``card_removal=False`` deals every card independently from the full pack (an abstraction:
        a node then keeps only the weakest earlier card instead of every card drawn, so the tree is
        about as small as the information sets). ``dealt`` keeps only the deals in which the first
        positions are dealt these strengths: the trees of every such prefix together are the whole
        tree (to evaluate a strategy on a tree too large to hold at once). ``pair`` keeps the deals in
        which the eldest and the 2nd hold these two strengths in either order: the trees of every
        pair ``a <= b`` are the whole tree too (a node keys the cards drawn, not who drew them, so
        the prefixes ``(a, b)`` and ``(b, a)`` build one node, and a node whose cards hold several
        pairs is built in each of their parts). ``low`` keeps the deals in which the ``q`` weakest
        cards of the first ``n - 2`` seats are these strengths (ascending; ``q``: three up to 9
        players, see :func:`.dealing.low_size` and :func:`.dealing.low_parts`): the trees of every
        such tuple are the whole tree too, and share no node of position ``n - 3`` or later (those
        nodes hold all those cards), so the costly last positions are evaluated once; a node of an
        earlier position may be in several parts, each with the deals that end in it, and its
        reach counts in one of them (``TurnLevel.owned``). ``closed_dealer`` builds the nodes up to
        the dealer's right neighbour only: :func:`.kernels.closed_last` evaluates the last two
        positions from them (the dealer's own nodes are about nine tenths of the tree).
        ``closed_three`` goes one position further: the nodes are built up to position ``n - 3`` only, and
        :func:`.tail.evaluate_tail` evaluates the last three positions from their groups (see
        :mod:`.tail`; it implies ``closed_dealer``)."""
        if closed_three and dealt:
            raise ValueError("closed_three takes no dealt prefix (use pair)")
        closed_dealer = closed_dealer or closed_three
        if sum(x is not None and x != () for x in (dealt, pair, low)) > 1:
            raise ValueError("a tree is cut by one of dealt, pair or low")
        if low is not None and (hand.jerk or not card_removal or hand.players < 3
                                or len(low) != low_size(hand.players) or list(low) != sorted(low)):
            raise ValueError(f"bad low {low!r}: the {low_size(hand.players)} weakest strengths, ascending, "
                             "on the exact tree of 3 or more players without kings_jerk")
        if not card_removal and (hand.pairing or hand.jerk):
            raise ValueError("the tree without card removal does not model pairing or kings_jerk")
        if closed_dealer and (hand.pairing or hand.jerk or not card_removal or hand.players < 3):
            raise ValueError("closed_dealer takes the exact tree of 3 or more players, without pairing "
                             "or kings_jerk")
        super().__init__(hand, card_removal=card_removal, dealt=dealt, pair=pair, low=low)
        self.closed_dealer = closed_dealer
        self.closed_three = closed_three
        self.tail: TailTables | None = None
        k = self.rank_count
        self.width = k + 3
        self.dl, self.dw = k + 1, k + 2
        self.levels: list[TurnLevel] = []
        self._build()
        self._prepare()

    # --- small tables -------------------------------------------------------------------------

    def mask(self) -> Array:
        """``mask[f]``: the factor that adds a final card ``f`` (``f = K``: none) to a continuation."""
        k, w = self.rank_count, self.width
        if self.hand.pairing:
            return np.ones((k + 1, w))
        m = np.zeros((k + 1, w))
        for f in range(k + 1):
            m[f, :f + 1] = 1.0
            m[f, k + 1:] = 1.0
        return m

    def end_row(self) -> Array:
        """The continuation after the last seat: nobody later, a normal showdown."""
        row = np.zeros(self.width)
        row[:self.rank_count + 1] = 1.0
        return row

    def before(self) -> Array:
        """``before[f, m]``: whether a card ``f`` loses to the earlier seats' weakest card ``m``."""
        k, hand = self.rank_count, self.hand
        if hand.pairing:
            return np.ones((k, k + 1))
        return np.array([[hand.loses(f, m, k) for m in range(k + 1)] for f in range(k)], dtype=float)

    def weakest(self, counts: Array) -> Array:
        """Pairing: continuation rows for final multisets ``counts[r]`` (how many of each strength)."""
        k = self.rank_count
        present = counts > 0
        key = np.where(present, counts * k + np.arange(k)[None, :], np.iinfo(np.int64).max)
        rows = np.zeros((len(counts), self.width))
        rows[:, :k] = key == key.min(axis=1, keepdims=True)
        return rows

    def lives(self) -> Array:
        """Lives a loser holding each strength pays."""
        return np.array([self.hand.lives(f) for f in range(self.rank_count)], dtype=float)

    # --- construction -------------------------------------------------------------------------

    def _build(self) -> None:
        k, n = self.rank_count, self.hand.players
        pending: list[list[dict[str, Array]]] = [[] for _ in range(n + 1)]
        eye = np.eye(k, dtype=np.int8)  # drawn counts are small: int8 keeps big levels compact
        hids, weight = self._starts()
        first = self._draw(0, hids, np.zeros((len(hids), k), dtype=np.int8)) * weight[:, None]
        row, col = np.nonzero(first)
        pending[0].append(dict(hid=hids[row], drawn=eye[col], card=col.astype(np.int8),
                               given=np.full(len(col), -1, dtype=np.int8), src=np.arange(len(col))))
        root_prob = first[row, col]
        self._edges: list[dict[str, Array]] = []
        for j in range(n - 2 if self.closed_three else n - 1 if self.closed_dealer else n):
            level, nodes = self._finalise(j, pending[j])
            if j == 0:
                self.reach0 = np.bincount(pending[0][0]["local"], root_prob, minlength=len(level.card))
            self.levels.append(level)
            self._edges.append(self._expand(j, nodes, pending))

    def _finalise(self, j: int, parts: list[dict[str, Array]]) -> tuple[TurnLevel, dict[str, Array]]:
        """Merge the child entries that reach position ``j`` into unique nodes."""
        cat = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
        if not self.card_removal:  # only the card held and the weakest earlier card still matter
            cat["drawn"] = self._canonical(cat["drawn"], cat["card"])
        powers = self._base ** np.arange(self.rank_count, dtype=np.int64)
        # the card leads the code, so each level's nodes come sorted by the card held (the dealer's
        # values are then computed per card on contiguous slices)
        hists = len(self._hists)
        if self.rank_count * hists * (self.rank_count + 3) * self._base ** self.rank_count >= 2 ** 63:
            raise ValueError("the game tree is too large to index")
        code = cat["card"].astype(np.int64) * hists + cat["hid"]
        code = code * (self.rank_count + 3) + cat["given"] + 2  # given -2: see closed_dealer
        code *= int(self._base ** self.rank_count)
        for i in range(self.rank_count):  # column by column: a whole int64 copy of ``drawn`` is large
            code += cat["drawn"][:, i].astype(np.int64) * int(powers[i])
        _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
        nodes = {key: v[first] for key, v in cat.items()}
        start = 0
        for p in parts:  # tell each source which node its entries became
            size = len(p["hid"])
            p["local"] = inverse[start:start + size].astype(np.int32)
            for key in ("hid", "drawn", "card", "given", "src"):  # only ``local`` is read later
                del p[key]
            start += size
        drawn, card = nodes["drawn"], nodes["card"]
        rest = drawn.copy()
        rest[np.arange(len(card)), card] -= 1
        has = rest > 0
        low = np.where(has.any(axis=1), has.argmax(axis=1), self.rank_count).astype(np.int8)
        level = TurnLevel(j, card.astype(np.int8), low, np.full(len(card), -1, dtype=np.int32))
        if self.low is not None:
            level.owned = self._low_owner(j, drawn)
        return level, nodes

    def _canonical(self, drawn: Array, card: Array) -> Array:
        """Without card removal: the card held plus the weakest of the other cards drawn."""
        rows = np.arange(len(card))
        rest = drawn.copy()
        rest[rows, card] -= 1
        has = rest > 0
        out = np.zeros_like(drawn)
        out[rows, card] += 1
        any_ = has.any(axis=1)
        out[rows[any_], has.argmax(axis=1)[any_]] += 1
        return out

    def _expand(self, j: int, nodes: dict[str, Array],
                pending: list[list[dict[str, Array]]]) -> dict[str, Array]:
        """Information sets of position ``j`` and the entries its edges lead to."""
        hand, k, n = self.hand, self.rank_count, self.hand.players
        hid, drawn, card, given = nodes["hid"], nodes["drawn"], nodes["card"], nodes["given"]
        stopped = self._stopped(hid)
        auto = stopped | (card == hand.blocker)
        level = self.levels[j]
        decide = np.flatnonzero(~auto)
        level.info[decide] = self._infoset_ids(j, hid[decide], card[decide], given[decide])
        self._drawn_last = drawn
        if j == n - 1:
            return {}
        if self.closed_three and j == n - 3:  # positions n - 2 and n - 1 are never built: see .tail
            # (a node reached by a blocked swap, given -2, passes the history on unchanged)
            self._last = dict(hid=hid.astype(np.int32), drawn=drawn, card=card,
                              stopped=stopped | (given == -2), auto=auto)
            return {}
        if self.closed_dealer and j == n - 2:  # the dealer's nodes are never built: see closed_last
            # a node reached by a blocked swap (given -2) passes the history on unchanged, as a
            # stopped play does
            self._last = dict(hid=hid.astype(np.int32), drawn=drawn, stopped=stopped | (given == -2))
            return {}
        shown = np.where(stopped, hid, self._extend(hid, "K"))
        edges: list[dict[str, Array]] = []
        # auto (blocker shown, or play stopped) and keep: the next seat's card is drawn fresh
        a_idx = np.flatnonzero(auto)
        edges.append(self._fresh(j + 1, a_idx, shown[a_idx], drawn[a_idx], card[a_idx], AUTO,
                                 np.ones(len(a_idx)), pending))
        kept = self._extend(hid[decide], "k")
        edges.append(self._fresh(j + 1, decide, kept, drawn[decide], card[decide], KEEP,
                                 np.ones(len(decide)), pending))
        # swap: the neighbour's card is drawn now
        chance = self._draw(j + 1, hid[decide], drawn[decide])
        for c in range(k):
            ok = chance[:, c] > 0
            idx = decide[ok]
            pc = chance[ok, c]
            after = drawn[idx].copy()
            after[:, c] += 1
            if c == hand.blocker and ((self.closed_three and j + 2 == n - 2)
                                      or (self.closed_dealer and not self.closed_three and j + 2 == n - 1)):
                # the neighbour shows the blocker and the last position built comes next (the
                # dealer's right neighbour; closed_three: the one before): the neighbour's turn is
                # kept as a node of its own (no decision, no token), as the closed forms start
                # from that position's nodes
                src = dict(hid=self._extend(hid[idx], "b"), drawn=after,
                           card=np.full(len(idx), c, dtype=np.int8),
                           given=np.full(len(idx), -2, dtype=np.int8),
                           src=idx)
                pending[j + 1].append(src)
                edges.append(dict(parent=idx, action=np.full(len(idx), SWAP), child_level=j + 1, src=src,
                                  prob=pc, final=card[idx], blocked=np.full(len(idx), -1)))
                continue
            if c == hand.blocker:
                blocked = self._extend(hid[idx], "b")
                e = self._fresh(j + 2, idx, blocked, after, card[idx], SWAP, pc, pending)
                e["blocked"] = np.full(len(e["parent"]), c)
                edges.append(e)
                continue
            token = hand.swap_token(c)
            src = dict(hid=self._extend(hid[idx], token), drawn=after, card=card[idx],
                       given=np.full(len(idx), c, dtype=np.int8), src=idx)
            pending[j + 1].append(src)
            edges.append(dict(parent=idx, action=np.full(len(idx), SWAP), child_level=j + 1, src=src,
                              prob=pc, final=np.full(len(idx), c), blocked=np.full(len(idx), -1)))
        return {"list": edges}

    def _fresh(self, j: int, idx: Array, hid: Array, drawn: Array, final: Array, action: int,
               prob: Array, pending: list[list[dict[str, Array]]]) -> dict[str, Array]:
        """Edges from nodes ``idx`` to seat ``j``'s turn with a freshly drawn card (or to the end)."""
        if j >= self.hand.players:
            return dict(parent=idx, action=np.full(len(idx), action), child_level=-1, src=None,
                        prob=prob, final=final, blocked=np.full(len(idx), -1), drawn=drawn)
        parents, hids, draws, cards, probs, finals = [], [], [], [], [], []
        chance = self._draw(j, hid, drawn)
        for c in range(self.rank_count):
            ok = chance[:, c] > 0
            after = drawn[ok].copy()
            after[:, c] += 1
            parents.append(idx[ok])
            hids.append(hid[ok])
            draws.append(after)
            cards.append(np.full(int(ok.sum()), c, dtype=np.int8))
            probs.append(prob[ok] * chance[ok, c])
            finals.append(final[ok])
        size = sum(len(p) for p in parents)
        src = dict(hid=np.concatenate(hids), drawn=np.concatenate(draws), card=np.concatenate(cards),
                   given=np.full(size, -1, dtype=np.int8), src=np.concatenate(parents))
        pending[j].append(src)
        parent = np.concatenate(parents)
        return dict(parent=parent, action=np.full(len(parent), action), child_level=j, src=src,
                    prob=np.concatenate(probs), final=np.concatenate(finals),
                    blocked=np.full(len(parent), -1))

    def _prepare(self) -> None:
        """Global ids, edges sorted by parent and action, and the dealer's terminal values."""
        offset = 0
        for level in self.levels:
            level.offset = offset
            offset += len(level.card)
        self.total = offset
        self.end = offset  # the global id of the (first) end of the hand
        # the compiled loops of .kernels: where numba is, for large trees (closed_dealer: the
        # dealer's edges, about kinds per node of the last level built, are the work)
        work = self.total * self.rank_count * (self.rank_count if self.closed_three else 1)
        self.compiled = worth(work if self.closed_dealer else self.total)
        end_counts: list[Array] = []
        for spec in self._edges:
            for e in spec.get("list", []) if spec else []:
                if e["child_level"] == -1 and self.hand.pairing:
                    end_counts.append(e["drawn"].astype(np.int64))
        if end_counts:
            self._end_codes, first = np.unique(self._multiset_code(np.concatenate(end_counts)),
                                               return_index=True)
            self.ends = self.weakest(np.concatenate(end_counts)[first])
        else:
            self.ends = self.end_row()[None, :]
        for level, spec in zip(self.levels, self._edges):
            if not spec:
                continue
            parts = spec["list"]
            cols: dict[str, list[Array]] = {key: [] for key in
                                              ("parent", "action", "child", "prob", "final", "blocked")}
            for e in parts:
                child: Array
                if e["child_level"] == -1 and self.hand.pairing:
                    codes = self._multiset_code(e["drawn"].astype(np.int64))
                    child = np.searchsorted(self._end_codes, codes).astype(np.int64) + self.end
                elif e["child_level"] == -1:
                    child = np.full(len(e["parent"]), self.end)
                else:
                    child = self.levels[e["child_level"]].offset + e["src"]["local"]
                cols["child"].append(child.astype(COMPACT["child"]))
                for key in ("parent", "action", "prob", "final", "blocked"):
                    cols[key].append(e[key].astype(COMPACT[key]))
                e.clear()
            cat = {key: np.concatenate(v) for key, v in cols.items()}
            del cols
            order = np.lexsort((cat["action"], cat["parent"]))
            for key, v in cat.items():
                setattr(level, key, v[order])
            del cat, order
        if self.closed_three:
            self._tail_tables()
        elif self.closed_dealer:
            self._closed_tables()
        else:
            self._dealer_terminals()
        del self._edges

    def _multiset_code(self, counts: Array) -> Array:
        """One integer per multiset of cards (rows of counts per strength)."""
        return counts @ (self._base ** np.arange(self.rank_count, dtype=np.int64))

    def _dealer_terminals(self) -> None:
        hand, k = self.hand, self.rank_count
        level = self.levels[-1]
        drawn = self._drawn_last
        del self._drawn_last
        if hand.pairing:
            self._pairing_terminals(drawn.astype(np.int64))
            return
        mask, end, before, lives = self.mask(), self.end_row(), self.before(), self.lives()
        card, low = level.card.astype(np.intp), level.low.astype(np.intp)
        self.d_lkeep = before[card, low] * lives[card]
        self.d_pkeep = before[card, low]
        rest = (self._copies[None, :] - drawn).astype(np.int8)  # the stock the dealer draws from
        if not self.card_removal:
            rest = np.broadcast_to(self._copies[None, :], drawn.shape).astype(np.int8)
        out_w, out_l, out_p = self.dealer_tables()
        stock = self._size - hand.players if self.card_removal else self._size
        lv = np.zeros(len(card))
        pl = np.zeros(len(card))
        bounds = np.searchsorted(card, np.arange(k + 1))  # the nodes come sorted by card
        self._d_slices = [slice(int(bounds[x]), int(bounds[x + 1])) for x in range(k)]
        swap32 = np.empty((len(card), self.width), dtype=np.float32)
        self._d_keep_w = mask * end                 # [card] -> continuation after keeping
        self._d_swap_w = out_w / stock              # [card, drawn] -> continuation per stock card
        for x, sel in enumerate(self._d_slices):
            prob = rest[sel] / stock
            lv[sel] = np.einsum("ns,ns->n", prob, out_l[x][:, low[sel]].T)
            pl[sel] = np.einsum("ns,ns->n", prob, out_p[x][:, low[sel]].T)
            if not self.compiled:
                swap32[sel] = prob @ out_w[x]
        if self.compiled:  # the same product, compiled: the dealer's rows after swapping
            bounds = np.array([s.start for s in self._d_slices] + [len(card)], dtype=np.int64)
            loops().dealer_rows(bounds, np.zeros(len(card)), rest, swap32, self._d_swap_w, self._d_keep_w,
                                True, swap32)
        self.d_lswap, self.d_pswap = lv, pl
        # the dealer's continuation after swapping is linear in the stock left: kept in single
        # precision for the iterations, recomputed in double for reported figures (``dealer_w``)
        self._d_rest, self._d_swap32 = rest, swap32

    def _closed_tables(self) -> None:
        """``closed_dealer``: the tables :func:`.kernels.closed_last` reads instead of the dealer's
        nodes, and the dealer's information sets (every one that some deal reaches)."""
        last = self._last
        del self._last, self._drawn_last
        hid, stopped, card = last["hid"], last["stopped"], self.levels[-1].card.astype(np.int64)
        rest = (self._copies[None, :] - last["drawn"]).astype(np.int8)
        next_hid = self._next_table(np.unique(hid).tolist())
        stopped_h = self._stopped(np.arange(len(self._hists)))
        dinfo = self._dealer_infosets([self._dealer_codes(hid, stopped, card, rest, next_hid, stopped_h)])
        self.closed = dict(hid=hid, rest=rest, stopped=stopped, next_hid=next_hid, stopped_h=stopped_h,
                           dinfo=dinfo, **self._closed_consts())

    def _next_table(self, hids: list[int]) -> Array:
        """``next[h, t]``: the history after the dealer's right neighbour's token ``t`` (0 kept, 1
        showed the blocker, 2 blocked, 3 + c swapped receiving c), for the histories ``hids``."""
        tokens = ["k", "K", "b"] + [self.hand.swap_token(c) for c in range(self.rank_count)]
        rows = {h: [self._hist((*self._hists[h], t)) for t in tokens] for h in hids}
        out = np.zeros((len(self._hists), len(tokens)), dtype=np.int32)
        for h, row in rows.items():
            out[h] = row
        return out

    def _dealer_codes(self, hid: Array, stopped: Array, card: Array, rest: Array, next_hid: Array,
                      stopped_h: Array) -> Array:
        """The dealer's situations ``(history * K + card) * (K + 1) + given + 1`` that the nodes of
        its right neighbour (their history, whether play stopped, card and cards left) lead to."""
        hand, k = self.hand, self.rank_count
        auto = stopped | (card == hand.blocker)
        shown = np.where(stopped, hid, next_hid[hid, np.where(auto, 1, 0)])
        codes = []
        for c in range(k):
            if c == hand.blocker:
                continue
            ok = (rest[:, c] > 0) & ~stopped_h[shown]  # the dealer dealt c after a keep (or a show)
            codes.append((shown[ok].astype(np.int64) * k + c) * (k + 1))
            swapped = next_hid[hid, 3 + c]  # the dealer receives the card, gives c
            ok = (rest[:, c] > 0) & ~auto & ~stopped_h[swapped]
            codes.append((swapped[ok].astype(np.int64) * k + card[ok]) * (k + 1) + c + 1)
        return np.concatenate(codes) if codes else np.zeros(0, dtype=np.int64)

    def _dealer_infosets(self, codes: list[Array]) -> Array:
        """``dinfo[h, card, given + 1]``: the dealer's information set ids for its situations."""
        k = self.rank_count
        unique = np.unique(np.concatenate(codes)) if codes else np.zeros(0, dtype=np.int64)
        dinfo = np.full((len(self._hists), k, k + 1), -1, dtype=np.int64)
        for code in unique.tolist():
            h, rem = divmod(code, k * (k + 1))
            x, g = divmod(rem, k + 1)
            key = (self.hand.players - 1, self._hists[h], x, g - 1)
            v = self._info_index.get(key)
            if v is None:
                v = self._info_index[key] = len(self.infosets)
                self.infosets.append(key)
            dinfo[h, x, g] = v
        return dinfo

    def _closed_consts(self) -> dict[str, Any]:
        """The dealer's tables that :func:`.kernels.closed_last` reads, whatever was dealt."""
        k = self.rank_count
        out_w, out_l, out_p = self.dealer_tables()
        stock = self._size - self.hand.players
        swap_w = out_w / stock
        base = self.mask()[:k] * self.end_row() / stock  # the dealer ends with the card drawn
        delta = swap_w - base[None, :, :]
        odd = np.abs(delta).max(axis=2) > 0
        exc = np.zeros((k, k), dtype=np.int64)
        for x in range(k):
            exc[x, :int(odd[x].sum())] = np.flatnonzero(odd[x])
        return dict(stock=stock, keep_w=self.mask() * self.end_row(), base=base, delta=delta, exc=exc,
                    swap_w=swap_w,
                    exc_n=odd.sum(axis=1).astype(np.int64), out_l=out_l, out_p=out_p, end_row=self.end_row())

    def _tail_tables(self) -> None:
        """``closed_three``: the groups of the nodes of position ``n - 3`` (see :mod:`.tail`), the
        information sets of the last two positions (every one that some deal reaches), and the
        tables :func:`.kernels.closed_last` reads."""
        hand, k, n = self.hand, self.rank_count, self.hand.players
        last = self._last
        del self._last, self._drawn_last
        hid, drawn, card = last["hid"], last["drawn"], last["card"].astype(np.int64)
        stopped, auto = last["stopped"], last["auto"]
        size = len(card)
        rest = (self._copies[None, :] - drawn).astype(np.int8)
        code = np.zeros(size, dtype=np.int64)
        for i in range(k):  # the multiset drawn, column by column
            code += drawn[:, i].astype(np.int64) * int(self._base ** i)
        span = int(self._base ** k)
        kept = hid.copy()
        shows = np.flatnonzero(auto & ~stopped)
        kept[shows] = self._extend(hid[shows], "K")
        dec = np.flatnonzero(~auto)
        kept[dec] = self._extend(hid[dec], "k")
        _, kfirst, kg = np.unique(kept.astype(np.int64) * span + code, return_index=True, return_inverse=True)
        _, sfirst, sg_dec = np.unique((hid[dec].astype(np.int64) * k + card[dec]) * span + code[dec],
                                      return_index=True, return_inverse=True)
        sfirst = dec[sfirst]
        sg = np.full(size, -1, dtype=np.int64)
        sg[dec] = sg_dec.reshape(-1)
        k_allow = np.ones((len(kfirst), k), dtype=bool)
        s_allow = np.ones((len(sfirst), k), dtype=bool)
        if self.pair is not None and n == 3:  # the dealer's right neighbour is the 2nd: the pair's other card
            a, b = self.pair
            for allow, first in ((k_allow, kfirst), (s_allow, sfirst)):
                allow[:] = False
                allow[np.arange(len(first)), np.where(card[first] == a, b, a)] = True
        # the histories: after the swaps of position n - 3, then after the dealer's right neighbour
        swap_rows = {h: [self._hist((*self._hists[h], "b" if c == hand.blocker else hand.swap_token(c)))
                         for c in range(k)] for h in np.unique(hid[sfirst]).tolist()}
        children = set(np.unique(kept[kfirst]).tolist())
        for row in swap_rows.values():
            children.update(row)
        next_hid = self._next_table(sorted(children))
        rows = len(self._hists)
        next_hid = np.vstack([next_hid, np.zeros((rows - len(next_hid), next_hid.shape[1]), dtype=np.int32)])
        s_next = np.zeros((rows, k), dtype=np.int64)
        for h, row in swap_rows.items():
            s_next[h] = row
        stopped_h = self._stopped(np.arange(rows))
        tail = TailTables(
            kg=kg.reshape(-1), sg=sg, auto=auto, k_hid=kept[kfirst].astype(np.int64), k_rest=rest[kfirst],
            k_low=(drawn[kfirst] > 0).argmax(axis=1), k_allow=k_allow, s_hid=hid[sfirst].astype(np.int64),
            s_card=card[sfirst], s_rest=rest[sfirst], s_low=self.levels[-1].low[sfirst].astype(np.int64),
            s_allow=s_allow, s_next=s_next, ninfo=np.zeros((rows, k, k + 2), dtype=np.int64))
        # every child once (in chunks): the information sets of the last two positions it reaches
        own = np.zeros(rows * k * (k + 2), dtype=bool)  # marked, not sorted: the children are many
        dealer = np.zeros(rows * k * (k + 1), dtype=bool)
        for kind in ("keep", "swap"):
            for g0, g1 in tail_chunks(tail.k_rest if kind == "keep" else tail.s_rest):
                ch = tail_children(tail, kind, g0, g1, stopped_h, hand.blocker)
                d = ~ch["auto"]
                own[(ch["hid"][d] * k + ch["card"][d]) * (k + 2) + ch["given"][d] + 1] = True
                dealer[self._dealer_codes(ch["hid"], ch["stopped"], ch["card"], ch["rest"], next_hid,
                                          stopped_h)] = True
        for code_ in np.flatnonzero(own).tolist():
            h, rem = divmod(code_, k * (k + 2))
            x, g = divmod(rem, k + 2)
            key = (n - 2, self._hists[h], x, g - 1)
            v = self._info_index.get(key)
            if v is None:
                v = self._info_index[key] = len(self.infosets)
                self.infosets.append(key)
            tail.ninfo[h, x, g] = v
        dinfo = self._dealer_infosets([np.flatnonzero(dealer)])
        self.tail = tail
        self.closed = dict(next_hid=next_hid, stopped_h=stopped_h, dinfo=dinfo, **self._closed_consts())

    def dealer_tables(self) -> tuple[Array, Array, Array]:
        """What the dealer's draw from the stock does, whatever was dealt: ``out_w[x, s]`` the
        continuation of a dealer holding ``x`` who draws ``s``, ``out_l[x, s, low]`` the lives it
        then loses against the earlier seats' weakest card ``low``, ``out_p`` its chance of losing."""
        hand, k = self.hand, self.rank_count
        mask, end, before, lives = self.mask(), self.end_row(), self.before(), self.lives()
        out_w = np.zeros((k, k, self.width))
        out_l = np.zeros((k, k, k + 1))
        out_p = np.zeros((k, k, k + 1))
        for x in range(k):
            for s in range(k):
                kind, f = hand.dealer_draw(x, s)
                if kind == "card":
                    out_w[x, s] = mask[f] * end
                    out_l[x, s] = before[f] * lives[f]
                    out_p[x, s] = before[f]
                elif kind == "immune":
                    out_w[x, s] = end
                elif kind == "dl":
                    out_w[x, s, self.dl] = 1.0
                    out_l[x, s] = out_p[x, s] = 1.0
                else:
                    out_w[x, s, self.dw] = 1.0
        return out_w, out_l, out_p

    def dealer_w(self, keep: Array, dtype: Any = np.float64, out: Array | None = None,
                 compiled: bool = False) -> Array:
        """The continuation of every dealer node when the dealer keeps with probability ``keep``
        (written into ``out`` if given; ``compiled``: by the loop of :mod:`.kernels`, which needs
        numba)."""
        if out is None:
            out = np.empty((len(keep), self.width), dtype=dtype)
        if self.hand.pairing:
            out[:] = self.d_wswap + keep[:, None] * (self.d_wkeep - self.d_wswap)
            return out
        fast = dtype == np.float32
        if compiled:
            bounds = np.array([s.start for s in self._d_slices] + [len(keep)], dtype=np.int64)
            loops().dealer_rows(bounds, keep, self._d_rest, self._d_swap32, self._d_swap_w, self._d_keep_w,
                                not fast, out)
            return out
        for x, sel in enumerate(self._d_slices):
            # (a float matrix product: numpy's int8-by-float product does not use BLAS, about 2x slower)
            swap = self._d_swap32[sel] if fast else self._d_rest[sel].astype(dtype) @ self._d_swap_w[x]
            part = out[sel]  # swap + keep * (kept - swap), in place: these rows are most of the tree
            np.subtract(self._d_keep_w[x].astype(dtype)[None, :], swap, out=part)
            part *= keep[sel, None].astype(dtype)
            part += swap
        return out

    def _pairing_terminals(self, drawn: Array) -> None:
        """The dealer's values under pairing, from every seat's final card (``drawn``)."""
        hand, k = self.hand, self.rank_count
        card = self.levels[-1].card
        rows = np.arange(len(card))
        lives = self.lives()
        keep = self.weakest(drawn)
        self.d_wkeep = keep
        self.d_pkeep = keep[rows, card]
        self.d_lkeep = self.d_pkeep * lives[card]
        prob = (self._copies[None, :] - drawn) / (self._size - hand.players)
        w = np.zeros((len(card), self.width))
        lv = np.zeros(len(card))
        pl = np.zeros(len(card))
        others = drawn.copy()
        others[rows, card] -= 1
        for x in range(k):
            sel = np.flatnonzero(card == x)
            for st in range(k):
                p = prob[sel, st]
                kind, f = hand.dealer_draw(x, st)
                if kind == "dl":
                    w[sel, self.dl] += p
                    lv[sel] += p
                    pl[sel] += p
                elif kind == "dw":
                    w[sel, self.dw] += p
                elif kind == "immune":
                    w[sel] += p[:, None] * self.weakest(others[sel])
                else:
                    final = others[sel].copy()
                    final[:, f] += 1
                    out = self.weakest(final)
                    w[sel] += p[:, None] * out
                    lv[sel] += p * out[:, f] * lives[f]
                    pl[sel] += p * out[:, f]
        self.d_wswap, self.d_lswap, self.d_pswap = w, lv, pl

    # --- facts --------------------------------------------------------------------------------

    @property
    def node_count(self) -> int:
        """How many merged turn nodes the tree has."""
        return self.total

    @property
    def edge_count(self) -> int:
        """How many edges leave the non-dealer turn nodes."""
        return sum(len(level.parent) for level in self.levels[:-1])
