"""The deal and the public histories that both game trees of a hand share (:class:`~.tree.Tree`,
:class:`~.outcome_tree.OutcomeTree`): the cards each seat may be dealt after the cards drawn so
far, the histories of tokens and the information sets, numbered as they are met. Each tree builds
its own nodes, ends and passes on them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .hand import Hand, InfoKey

__all__ = ["Array", "Dealing", "low_cards", "low_parts", "low_size"]

Array = Any  # numpy arrays (numpy's own stubs are not required by the core package)


def low_cards(counts: Array, q: int) -> Array:
    """The ``q`` weakest strengths of each multiset ``counts[r]`` (how many of each), ascending."""
    out = np.zeros((len(counts), q), dtype=np.int64)
    cum = np.cumsum(counts, axis=1)
    for i in range(q):  # the (i + 1)-th weakest: the first strength whose running count passes i
        out[:, i] = (cum > i).argmax(axis=1)
    return out


def low_size(players: int) -> int:
    """How many of the weakest cards of the first ``players - 2`` seats name a part: three up to 9
    players (455 tuples with 13 strengths), one more per player after (a part's tree grows about
    tenfold per player; one more card divides it about fourfold), all of them below 5 players."""
    return min(max(3, players - 6), players - 2)


def low_parts(copies: tuple[int, ...], players: int) -> list[tuple[int, ...]]:
    """The parts of the exact tree by the weakest cards dealt (see ``low`` in :class:`~.tree.Tree`):
    every ascending ``q``-tuple of strengths (``q``: :func:`low_size`) that can be the ``q``
    weakest of the first ``players - 2`` seats' cards; those that no deal makes are left out."""
    k = len(copies)
    q = low_size(players)
    out: list[tuple[int, ...]] = []

    def grow(prefix: tuple[int, ...]) -> None:
        if len(prefix) == q:
            need = [prefix.count(v) for v in range(k)]
            if any(need[v] > copies[v] for v in range(k)):
                return
            top = prefix[-1]
            room = copies[top] - need[top] + sum(copies[top + 1:])
            if room >= players - 2 - q:
                out.append(prefix)
            return
        for v in range(prefix[-1] if prefix else 0, k):
            grow((*prefix, v))

    if q >= 1:
        grow(())
    return out


class Dealing:
    """What a tree of ``hand`` deals and how it names its situations (the same information sets, in
    the same words, whichever tree is built); see the module docstring."""

    def __init__(self, hand: Hand, *, card_removal: bool = True, dealt: tuple[int, ...] = (),
                 pair: tuple[int, int] | None = None, low: tuple[int, ...] | None = None) -> None:
        """``card_removal``, ``dealt``, ``pair`` and ``low``: which deals are made (see
        :class:`~.tree.Tree`)."""
        self.hand = hand
        self.card_removal = card_removal
        self.dealt = dealt
        self.pair = pair
        self.low = low
        self.rank_count = hand.rank_count
        self._copies = np.array(hand.deck.copies, dtype=np.int64)
        self._size = hand.deck.size
        self._base = int(self._copies.max()) + 1  # a drawn multiset is a number in this base
        self.infosets: list[InfoKey] = []
        self._info_index: dict[InfoKey, int] = {}
        self._hists: list[tuple[str, ...]] = [()]
        self._hist_index: dict[tuple[str, ...], int] = {(): 0}

    def _hist(self, hist: tuple[str, ...]) -> int:
        i = self._hist_index.get(hist)
        if i is None:
            i = self._hist_index[hist] = len(self._hists)
            self._hists.append(hist)
        return i

    def _extend(self, hids: Array, token: str) -> Array:
        """The history ids after appending ``token``."""
        unique, inverse = np.unique(hids, return_inverse=True)
        mapped = np.array([self._hist((*self._hists[h], token)) for h in unique.tolist()], dtype=np.int32)
        return mapped[inverse] if len(hids) else np.zeros(0, dtype=np.int32)

    def _starts(self) -> tuple[Array, Array]:
        """The histories a hand starts from and their chances: one empty history, or with
        ``kings_jerk`` the public pattern of who showed the top rank."""
        hand = self.hand
        if not hand.jerk:
            return np.zeros(1, dtype=np.int32), np.ones(1)
        patterns = hand.jerk_patterns()
        hids = np.array([self._hist((hand.jerk_token([hand.top if b else 0 for b in pattern]),))
                         for pattern, _ in patterns], dtype=np.int32)
        return hids, np.array([float(p) for _, p in patterns])

    def _draw(self, seat: int, hids: Array, drawn: Array) -> Array:
        """``P[r, c]``: the chance that ``seat``'s card is ``c``, after the cards ``drawn[r]``.

        Under kings_jerk the history says whether the seat was dealt the top rank: then it holds one;
        otherwise its card is drawn from what is left of the other ranks.
        """
        avail = (self._copies[None, :] - drawn).astype(float)
        if not self.card_removal:
            avail = np.broadcast_to(self._copies[None, :].astype(float), drawn.shape)
        if not self.hand.jerk:
            prob = avail / avail.sum(axis=1, keepdims=True)
            if seat < len(self.dealt):  # a part of the tree: only this card (the chance stays the whole's)
                prob[:, np.arange(self.rank_count) != self.dealt[seat]] = 0.0
            elif self.pair is not None and seat < 2:
                a, b = self.pair
                allowed = np.zeros_like(prob, dtype=bool)
                if seat == 0:
                    allowed[:, [a, b]] = True
                else:  # the eldest's card is the one card drawn so far: the 2nd holds the other
                    first = drawn.argmax(axis=1)
                    allowed[np.arange(len(first)), np.where(first == a, b, a)] = True
                prob[~allowed] = 0.0
            elif self.low is not None and seat <= self.hand.players - 3:
                prob[~self._low_allows(seat, drawn)] = 0.0
            return prob
        top = self.hand.top
        unique, inverse = np.unique(hids, return_inverse=True)
        jerked = np.array([self._hists[h][0][1 + seat] == "1" for h in unique.tolist()],
                          dtype=bool)[inverse.reshape(-1)] if len(hids) else np.zeros(0, dtype=bool)
        avail[:, top] = 0.0
        total = avail.sum(axis=1, keepdims=True)
        prob = np.divide(avail, total, out=np.zeros_like(avail), where=total > 0)
        prob[jerked] = 0.0
        prob[jerked, top] = 1.0
        return prob

    def _low_allows(self, seat: int, drawn: Array) -> Array:
        """``low``: ``allowed[r, c]``, whether ``seat`` may be dealt ``c`` after the cards ``drawn[r]``,
        i.e. the cards of the first ``n - 2`` seats can still have ``low`` as their weakest (see
        :func:`low_part`): every card below its strongest is one of ``low``'s, the ones missing fit
        in the draws left, and the other draws left can be of that strength or higher."""
        assert self.low is not None
        k = self.rank_count
        need = np.bincount(np.array(self.low, dtype=np.int64), minlength=k)
        top = int(max(self.low))
        left = self.hand.players - 3 - seat  # seats still to be dealt among the first n - 2
        allowed = np.zeros(drawn.shape, dtype=bool)
        for c in range(k):
            after = drawn.astype(np.int64)
            after[:, c] += 1
            below = after[:, :top]
            fits = (below <= need[None, :top]).all(axis=1)
            missing = (need[None, :top] - below).sum(axis=1) + np.maximum(need[top] - after[:, top], 0)
            room = (self._copies[None, top:] - after[:, top:]).sum(axis=1)
            allowed[:, c] = fits & (missing <= left) & (room >= left - (need[None, :top] - below).sum(axis=1))
        return allowed

    def _low_owner(self, seat: int, drawn: Array) -> Array:
        """``low``: whether this part owns each node of ``seat``'s position with the cards ``drawn``
        (a node may be in several parts; its reach counts in one: the part of the deal that fills
        the seats left among the first ``n - 2`` with the strongest cards left)."""
        assert self.low is not None
        left = self.hand.players - 3 - seat
        if left <= 0:
            return np.ones(len(drawn), dtype=bool)
        full = drawn.astype(np.int64)
        for v in range(self.rank_count - 1, -1, -1):
            take = np.minimum(self._copies[v] - full[:, v], left - (full.sum(axis=1) - drawn.sum(axis=1)))
            full[:, v] += np.maximum(take, 0)
        return (low_cards(full, len(self.low)) == np.array(self.low, dtype=np.int64)[None, :]).all(axis=1)

    def _stopped(self, hids: Array) -> Array:
        if not self.hand.stops:
            return np.zeros(len(hids), dtype=bool)
        table = np.array([any(t in ("K", "b") for t in h) for h in self._hists])
        return table[hids]

    def _infoset_ids(self, j: int, hid: Array, card: Array, given: Array) -> Array:
        if not len(hid):
            return np.zeros(0, dtype=np.int64)
        code = (hid.astype(np.int64) * (self.rank_count + 1) + card) * (self.rank_count + 2) + given + 1
        _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
        ids = []
        for i in first.tolist():
            info = (j, self._hists[int(hid[i])], int(card[i]), int(given[i]))
            v = self._info_index.get(info)
            if v is None:
                v = self._info_index[info] = len(self.infosets)
                self.infosets.append(info)
            ids.append(v)
        return np.array(ids, dtype=np.int64)[inverse]
