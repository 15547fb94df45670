"""One hand as a merged tree whose ends say who loses: the whole game's hand for 5 players.

:class:`~chasetheace.solver.methods.whole_game.HandPaths` lists every path of play of a hand (150 M at 5
players). Here paths whose futures are equal are merged, as in :mod:`.tree`: cards are drawn the
first time anybody may see them (true card removal), and a turn node is keyed by the public
history, the multiset of cards drawn, the actor's card and the card it gave. One more thing joins
the key, because a whole-game payoff depends on *who* loses and not only on whether the actor
does: the weakest final card among the earlier seats and the set of earlier positions holding it
(a bit mask). Together with the later seats' cards that fixes the outcome of the hand (the lives
each position loses), so every node's continuation is a plain vector of each position's expected
payoff, and one forward pass (chances of reaching the nodes) and one backward pass (their values)
give every information set's counterfactual values exactly.

Each level's edges are two sparse matrices (keep or automatic, and swap) from its nodes to the
later nodes and to the *outcomes* (the distinct vectors of lives lost), so a pass is a handful of
sparse products. Pairing (where a loss depends on every card held) is not modelled here.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix

from .dealing import Array, Dealing
from .hand import Hand

__all__ = ["OutcomeTree"]

_NORMAL, _DL, _DW = 0, 1, 2


class OutcomeTree(Dealing):
    """The turn nodes of a hand, keyed so that their futures and outcomes are equal; see the
    module docstring. Deals as :class:`~.tree.Tree` does and names the same information sets in
    the same words (:class:`~.dealing.Dealing`); its own nodes, ends and passes."""

    def __init__(self, hand: Hand) -> None:
        if hand.pairing:
            raise ValueError("the whole game's merged hand does not model pairing")
        super().__init__(hand)
        self._build()
        self._prepare()

    # --- construction -------------------------------------------------------------------------

    def _build(self) -> None:
        k, n = self.rank_count, self.hand.players
        self._pending: list[list[dict[str, Array]]] = [[] for _ in range(n)]
        self._out: list[list[dict[str, Array]]] = [[] for _ in range(n)]
        self.nodes: list[dict[str, Array]] = []
        hids, weight = self._starts()
        none = np.zeros(len(hids), dtype=np.int64)
        root = self._deal_to(0, np.full(len(hids), -1), hids, np.zeros((len(hids), k), dtype=np.int8),
                             none + k, none, 0, weight)
        for j in range(n):
            self._merge(j)
            self._turns(j)
        local = root["local"]
        self.reach0 = np.bincount(local, root["prob"], minlength=len(self.nodes[0]["card"]))

    def _fold(self, low: Array, mask: Array, position: int, final: Array) -> tuple[Array, Array]:
        """The weakest final card and who holds it, after ``position``'s final card joins."""
        bit = 1 << position
        new_low = np.minimum(low, final)
        new_mask = np.where(final < low, bit, np.where(final == low, mask | bit, mask))
        return new_low, new_mask

    def _code(self, low: Array, mask: Array, special: int = _NORMAL) -> Array:
        """An outcome code: the weakest card and who holds it, or the dealer's special draws."""
        n, k = self.hand.players, self.rank_count
        if special != _NORMAL:
            return np.full(len(low), (k << n) + special - 1, dtype=np.int64)
        return (low.astype(np.int64) << n) + mask

    def _deal_to(self, j: int, parent: Array, hid: Array, drawn: Array, low: Array, mask: Array,
                 action: int, prob: Array) -> dict[str, Array]:
        """Edges to position ``j``'s turn with a freshly drawn card (or to the end of the hand)."""
        if j >= self.hand.players:
            return dict(parent=parent, action=action, prob=prob, code=self._code(low, mask), level=-1)
        chance = self._draw(j, hid, drawn)
        row, col = np.nonzero(chance)
        after = drawn[row].copy()
        after[np.arange(len(col)), col] += 1
        part = dict(parent=parent[row], action=action, prob=prob[row] * chance[row, col], hid=hid[row],
                    drawn=after, card=col.astype(np.int8), given=np.full(len(col), -1, dtype=np.int8),
                    low=low[row], mask=mask[row], level=j)
        self._pending[j].append(part)
        return part

    def _merge(self, j: int) -> None:
        """Merge the entries that reach position ``j`` into unique nodes."""
        parts = self._pending[j]
        cat = {key: np.concatenate([p[key] for p in parts])
               for key in ("hid", "drawn", "card", "given", "low", "mask")}
        hists, k, n = len(self._hists), self.rank_count, self.hand.players
        if (k + 1) * hists * (k + 2) * (1 << n) * self._base ** k >= 2 ** 63:
            raise ValueError("the hand's tree is too large to index")
        code = cat["card"].astype(np.int64) * hists + cat["hid"]
        code = (code * (k + 2) + cat["given"] + 1) * (1 << n) + cat["mask"]
        code *= int(self._base ** k)
        for i in range(k):
            code += cat["drawn"][:, i].astype(np.int64) * int(self._base ** i)
        _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        start = 0
        for p in parts:
            size = len(p["hid"])
            p["local"] = inverse[start:start + size].astype(np.int64)
            for key in ("hid", "drawn", "card", "given", "low", "mask"):
                del p[key]
            start += size
        self.nodes.append({key: v[first] for key, v in cat.items()})
        self._pending[j] = []

    def _turns(self, j: int) -> None:
        """Information sets of position ``j`` and the edges leaving its nodes."""
        hand, k, n = self.hand, self.rank_count, self.hand.players
        nodes = self.nodes[j]
        hid, drawn, card, given = nodes["hid"], nodes["drawn"], nodes["card"], nodes["given"]
        low, mask = nodes["low"], nodes["mask"]
        stopped = self._stopped(hid)
        auto = stopped | (card == hand.blocker)
        decide = np.flatnonzero(~auto)
        info = np.full(len(card), -1, dtype=np.int64)
        info[decide] = self._infoset_ids(j, hid[decide], card[decide], given[decide])
        nodes["info"] = info
        out = self._out[j]
        if j == n - 1:
            out += self._dealer(nodes, decide)
            return
        after_low, after_mask = self._fold(low, mask, j, card.astype(np.int64))
        shown = np.where(stopped, hid, self._extend(hid, "K"))
        a = np.flatnonzero(auto)
        out.append(self._deal_to(j + 1, a, shown[a], drawn[a], after_low[a], after_mask[a], 0,
                                 np.ones(len(a))))
        out.append(self._deal_to(j + 1, decide, self._extend(hid[decide], "k"), drawn[decide],
                                 after_low[decide], after_mask[decide], 0, np.ones(len(decide))))
        chance = self._draw(j + 1, hid[decide], drawn[decide])
        for c in range(k):  # swap: the neighbour's card is drawn now
            ok = chance[:, c] > 0
            idx = decide[ok]
            after = drawn[idx].copy()
            after[:, c] += 1
            if c == hand.blocker:  # the neighbour shows it: both cards are final
                lo, ma = self._fold(after_low[idx], after_mask[idx], j + 1, np.full(len(idx), c))
                blocked = self._extend(hid[idx], "b")
                out.append(self._deal_to(j + 2, idx, blocked, after, lo, ma, 1, chance[ok, c]))
                continue
            lo, ma = self._fold(low[idx], mask[idx], j, np.full(len(idx), c))
            part = dict(parent=idx, action=1, prob=chance[ok, c], level=j + 1,
                        hid=self._extend(hid[idx], hand.swap_token(c)), drawn=after, card=card[idx],
                        given=np.full(len(idx), c, dtype=np.int8), low=lo, mask=ma)
            self._pending[j + 1].append(part)
            out.append(part)

    def _dealer(self, nodes: dict[str, Array], decide: Array) -> list[dict[str, Array]]:
        """The dealer's ends: keeping (or an automatic turn), and each card it may draw."""
        hand, k, n = self.hand, self.rank_count, self.hand.players
        d = n - 1
        card, low, mask = nodes["card"].astype(np.int64), nodes["low"], nodes["mask"]
        every = np.arange(len(card))
        lo, ma = self._fold(low, mask, d, card)
        parts = [dict(parent=every, action=0, prob=np.ones(len(card)), code=self._code(lo, ma))]
        rest = self._copies[None, :] - nodes["drawn"][decide]
        stock = self._size - n
        for s in range(k):
            for x in range(k):
                idx = decide[(card[decide] == x) & (rest[:, s] > 0)]
                if not len(idx):
                    continue
                prob = (self._copies[s] - nodes["drawn"][idx, s]) / stock
                kind, f = hand.dealer_draw(x, s)
                if kind == "card":
                    code = self._code(*self._fold(low[idx], mask[idx], d, np.full(len(idx), f)))
                elif kind == "immune":
                    code = self._code(low[idx], mask[idx])
                else:
                    code = self._code(low[idx], mask[idx], _DL if kind == "dl" else _DW)
                parts.append(dict(parent=idx, action=1, prob=prob, code=code))
        return parts

    def _lost(self, code: int) -> list[int]:
        """The lives each position loses in the outcome ``code``."""
        n, k, hand = self.hand.players, self.rank_count, self.hand
        if code >= k << n:
            dealer_loses = code - (k << n) + 1 == _DL
            return [int(dealer_loses == (i == n - 1)) for i in range(n)]
        low, mask = code >> n, code & ((1 << n) - 1)
        losers = [i for i in range(n) if mask >> i & 1]
        if hand.rules.ties == "eldest-loses":
            losers = losers[:1]
        elif hand.rules.ties == "latest-loses":
            losers = losers[-1:]
        return [hand.lives(low) if i in losers else 0 for i in range(n)]

    def _prepare(self) -> None:
        """Global ids, the outcomes, and each level's edges as sparse matrices."""
        offset = 0
        self.offsets = []
        for nodes in self.nodes:
            self.offsets.append(offset)
            offset += len(nodes["card"])
        self.total = offset
        codes = np.unique(np.concatenate([p["code"] for parts in self._out for p in parts if "code" in p]))
        table = np.array([self._lost(int(c)) for c in codes.tolist()], dtype=np.int8).reshape(len(codes), -1)
        self.outcomes, of_code = np.unique(table, axis=0, return_inverse=True)
        of_code = of_code.reshape(-1)
        columns = self.total + len(self.outcomes)
        self.keep_edges: list[csr_matrix] = []
        self.swap_edges: list[csr_matrix] = []
        self.info: list[Array] = []
        for j, parts in enumerate(self._out):
            rows = len(self.nodes[j]["card"])
            mats = []
            for action in (0, 1):
                mine = [p for p in parts if p["action"] == action]
                cols = [self.total + of_code[np.searchsorted(codes, p["code"])] if "code" in p
                        else self.offsets[p["level"]] + p["local"] for p in mine]
                if mine:
                    parent = np.concatenate([p["parent"] for p in mine])
                    prob = np.concatenate([p["prob"] for p in mine])
                    col = np.concatenate(cols)
                else:
                    parent, prob, col = np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64)
                mats.append(csr_matrix((prob, (parent, col)), shape=(rows, columns)))
            self.keep_edges.append(mats[0])
            self.swap_edges.append(mats[1])
            self.info.append(self.nodes[j]["info"])
        self.index = {key: i for i, key in enumerate(self.infosets)}
        del self._out, self._pending, self.nodes

    # --- passes -------------------------------------------------------------------------------

    def utilities(self, payoff: Array) -> Array:
        """The values of the ends: each outcome's payoff to each position (``payoff`` of shape
        ``(outcomes, positions)``), as :meth:`cfv` takes them."""
        return np.asarray(payoff, dtype=float)

    def _keeps(self, keep: Array) -> list[Array]:
        """Per level, each node's chance of its keep (or automatic) edges."""
        return [np.where(info >= 0, keep[np.maximum(info, 0)], 1.0) for info in self.info]

    def _reach(self, keeps: list[Array]) -> Array:
        """Every node's chance of being reached when each node keeps with ``keeps``."""
        reach = np.zeros(self.total + len(self.outcomes))
        reach[:len(self.reach0)] = self.reach0
        for j, (k, s) in enumerate(zip(self.keep_edges, self.swap_edges)):
            here = reach[self.offsets[j]:self.offsets[j] + len(keeps[j])]
            reach += k.T @ (here * keeps[j]) + s.T @ (here * (1 - keeps[j]))
        return reach

    def value(self, keep: Array, utility: Array) -> Array:
        """Each position's expected payoff when everybody keeps with ``keep[infoset]`` (one
        backward pass)."""
        keeps = self._keeps(keep)
        value = np.zeros((self.total + len(self.outcomes), self.hand.players))
        value[self.total:] = utility
        for j in range(self.hand.players - 1, -1, -1):
            lo, p = self.offsets[j], keeps[j][:, None]
            value[lo:lo + len(p)] = p * (self.keep_edges[j] @ value) + (1 - p) * (self.swap_edges[j] @ value)
        result: Array = self.reach0 @ value[:len(self.reach0)]
        return result

    def cfv(self, keep: Array, utility: Array) -> tuple[Array, Array]:
        """Counterfactual values ``(infosets, 2)`` (keep, swap) of each information set's owner, and
        each position's expected payoff, when everybody keeps with ``keep[infoset]``; ``utility``
        from :meth:`utilities`."""
        keeps = self._keeps(keep)
        reach = self._reach(keeps)
        n = self.hand.players
        value = np.zeros((self.total + len(self.outcomes), n))
        value[self.total:] = utility
        out = np.zeros(len(self.infosets) * 2)
        for j in range(n - 1, -1, -1):
            lo, size = self.offsets[j], len(keeps[j])
            q_keep, q_swap = self.keep_edges[j] @ value, self.swap_edges[j] @ value
            p = keeps[j][:, None]
            value[lo:lo + size] = p * q_keep + (1 - p) * q_swap
            info, r = self.info[j], reach[lo:lo + size]
            dec = info >= 0
            out += np.bincount(info[dec] * 2, r[dec] * q_keep[dec, j], minlength=len(out))
            out += np.bincount(info[dec] * 2 + 1, r[dec] * q_swap[dec, j], minlength=len(out))
        return out.reshape(-1, 2), self.reach0 @ value[:len(self.reach0)]

    def situation_reach(self, keep: Array) -> Array:
        """The chance that each information set arises when everybody plays ``keep``."""
        reach = self._reach(self._keeps(keep))
        out = np.zeros(len(self.infosets))
        for j, info in enumerate(self.info):
            dec = info >= 0
            r = reach[self.offsets[j]:self.offsets[j] + len(info)]
            out += np.bincount(info[dec], r[dec], minlength=len(out))
        return out

    # --- facts --------------------------------------------------------------------------------

    @property
    def node_count(self) -> int:
        """How many merged turn nodes the hand has."""
        return self.total

    @property
    def edge_count(self) -> int:
        """How many edges (to nodes and to outcomes) leave them."""
        return int(sum(m.nnz for m in self.keep_edges) + sum(m.nnz for m in self.swap_edges))
