"""Many players: mini-batch external-sampling MCCFR, and a sampled NashConv estimate with its error.

Each batch deals ``batch`` hands at random (exact multiplicities). Every hand is played on-policy;
at each decision both actions are played out from there (the rest of the hand sampled again), which
gives the deciding seat an unbiased sample of its counterfactual values for keep and swap. Regrets are
accumulated per information set (CFR+ style) and the average strategy is kept.

The NashConv estimate plays fresh hands with the average strategy and, at every decision, both
actions: per information set, the mean paired difference ``d`` of lives lost (keep minus swap) and
its standard error. A best response would gain ``P(I) * sigma(worse action) * |d|``; summing gives
the estimate, and the standard errors (in quadrature) its error. Where a decision is close to
indifferent and samples are few, this estimate is biased upwards (``|mean d|`` counts noise as
gain), by more than its standard error. A second, cross-fitted estimate splits each information
set's samples in two halves, picks the deviation from one half and values it on the other: it
measures a fixed deviation without bias, so its expectation is at most the true NashConv. The two
bracket the truth in expectation; neither is a proof (an exact best response needs the exact tree).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model.hand import Hand, InfoKey

__all__ = ["Estimate", "HandBatch", "SampledSolver", "SummarySolver", "summary_code", "summary_key"]

TOKENS = {"k": 1, "s": 2, "b": 3, "K": 4, "sA": 5, "s2": 6}  # 3 bits each in a history code
_NAMES = {v: k for k, v in TOKENS.items()}
Array = Any


@dataclass
class Estimate:
    """Sampled figures for a strategy."""

    hands: int
    nash_conv: float
    nash_conv_error: float
    nash_conv_low: float            # cross-fitted: its expectation is at most the true NashConv
    losses: list[float]
    losses_error: list[float]
    lives: list[float]
    lives_error: list[float]


class HandBatch:
    """A batch of hands in progress."""

    def __init__(self, cards: Array, stock: Array, jerk: Array) -> None:
        b, n = cards.shape
        self.cards = cards
        self.stock = stock
        self.jerk = jerk  # kings_jerk: bit i set when position i showed the top rank at the deal
        self.hist = np.zeros(b, dtype=np.int64)     # tokens so far, 3 bits each
        self.given = np.full(b, -1, dtype=np.int64)  # card the next seat gave (swapped with)
        self.done = np.zeros((b, n), dtype=bool)
        self.stopped = np.zeros(b, dtype=bool)
        self.special = np.zeros(b, dtype=np.int64)  # 0 normal, 1 dealer alone loses, 2 others lose, 3 immune

    @staticmethod
    def concat(batches: list[HandBatch]) -> HandBatch:
        """The hands of several batches, one after another."""
        out = HandBatch.__new__(HandBatch)
        for name in ("cards", "stock", "jerk", "hist", "given", "done", "stopped", "special"):
            setattr(out, name, np.concatenate([getattr(s, name) for s in batches]))
        return out

    def take(self, rows: Array) -> HandBatch:
        out = HandBatch.__new__(HandBatch)
        for name in ("cards", "stock", "jerk", "hist", "given", "done", "stopped", "special"):
            setattr(out, name, getattr(self, name)[rows].copy())
        return out


MAX_PLAYERS = 21  # 20 earlier turns of 3 bits fit an int64 history code


class _Table:
    """One position's information sets by number, as sorted arrays (a lookup is a search in C):
    ``pairs`` the (history << ``rest_bits`` | rest) met, with ``pair_ids`` the information sets,
    where that fits an int64 (``single``: position ``t`` has a history of at most ``t`` tokens of 3
    bits); else ``hists`` the history codes met, with ``hist_ids`` their numbers here (``count`` of
    them), and ``pairs`` the (history number << 34 | rest)."""

    def __init__(self, history_bits: int = 64, rest_bits: int = 34) -> None:
        self.rest_bits = rest_bits
        self.single = history_bits + rest_bits <= 63
        self.hists = np.zeros(0, dtype=np.int64)
        self.hist_ids = np.zeros(0, dtype=np.int64)
        self.count = 0
        self.pairs = np.zeros(0, dtype=np.int64)
        self.pair_ids = np.zeros(0, dtype=np.int64)


def _find(table: Array, values: Array, keys: Array) -> Array:
    """Per key, its value in the sorted ``table`` (``values`` beside it), or -1 where it is absent."""
    if not len(table):
        return np.full(len(keys), -1, dtype=np.int64)
    order = np.argsort(keys)  # sorted keys are searched in half the time (each search starts at the last)
    at = np.empty_like(order)
    at[order] = np.searchsorted(table, keys[order])
    np.minimum(at, len(table) - 1, out=at)
    return np.where(table[at] == keys, values[at], -1)


class SampledSolver:
    """Sampled equilibrium search for a hand of up to :data:`MAX_PLAYERS` seats."""

    def __init__(self, hand: Hand, seed: int = 0, weighting: float = 1.0) -> None:
        if isinstance(weighting, bool) or not isinstance(weighting, (int, float)) or not 0 <= weighting <= 4:
            raise ValueError(f"bad weighting {weighting!r}: a number from 0 to 4")
        self.hand = hand
        # the average strategy weighs mini-batch ``it`` by ``it ** weighting`` (1: linear, CFR+'s; 2
        # forgets the early batches faster: at 10 players the lower estimate 12 % lower, measured)
        self.weighting = float(weighting)
        self.n, self.k = hand.players, hand.rank_count
        if self.n > MAX_PLAYERS:
            raise ValueError(f"the sampled method handles up to {MAX_PLAYERS} players, not {self.n}")
        self.rng = np.random.default_rng(seed)
        self.pack = np.repeat(np.arange(self.k), hand.deck.copies)
        self.index: dict[tuple[int, int, int, int, int], int] = {}
        self.keys: list[tuple[int, int, int, int, int]] = []
        self._histories: dict[tuple[int, int], tuple[str, ...]] = {}  # info_key's, by (history, jerk)
        rest_bits = 12 + (self.n if hand.jerk else 0)  # the jerk pattern (a bit per seat), card, given
        self._tables = [_Table(3 * t, rest_bits) for t in range(self.n)]  # per position (infoset_ids)
        self.met: dict[int, tuple[float, float, float]] = {}  # share of hands, keep and swap values
        self.regret = np.zeros((1024, 2))
        self.avg = np.zeros((1024, 2))
        self.trained = 0  # mini-batches of training so far (the next one's weight in the average is one more)
        self.refined = 0  # passes of :meth:`SummarySolver.refine` so far
        kind = np.zeros((self.k, self.k), dtype=np.int64)
        card = np.zeros((self.k, self.k), dtype=np.int64)
        codes = {"card": 0, "dl": 1, "dw": 2, "immune": 3}
        for x in range(self.k):
            for s in range(self.k):
                what, c = hand.dealer_draw(x, s)
                kind[x, s], card[x, s] = codes[what], c
        self.draw_kind, self.draw_card = kind, card
        self.token_of = np.array([TOKENS[hand.swap_token(c)] for c in range(self.k)])
        self.lives_of = np.array([hand.lives(c) for c in range(self.k)], dtype=float)

    # --- information sets ---------------------------------------------------------------------

    def infoset_ids(self, t: int, state: HandBatch, rows: Array, grow: bool) -> Array:
        """The information sets of position ``t`` in the hands ``rows`` of ``state`` (``grow``: number
        the ones not met before, in the order of their (history, rest) pairs; else they are -1)."""
        if not len(rows):
            return np.zeros(0, dtype=np.int64)
        hist, x, p = self.history_code(state.hist[rows]), state.cards[rows, t], state.given[rows]
        rest = (state.jerk[rows] * 64 + x) * 64 + p + 1  # < 2**33: the jerk pattern, card and given
        table = self._tables[t]
        if table.single:
            hid = hist
            ids = _find(table.pairs, table.pair_ids, hist << table.rest_bits | rest)
        else:
            hid = _find(table.hists, table.hist_ids, hist)
            ids = _find(table.pairs, table.pair_ids, hid << 34 | rest)
            ids[hid < 0] = -1
        if not grow:
            return ids
        new = np.flatnonzero(ids < 0)
        if not len(new):
            return ids
        # the pairs met for the first time, numbered in their order: by history, then rest
        h_new, r_new = hist[new], rest[new]
        order = np.lexsort((r_new, h_new))
        h_new, r_new = h_new[order], r_new[order]
        first = np.ones(len(order), dtype=bool)
        first[1:] = (h_new[1:] != h_new[:-1]) | (r_new[1:] != r_new[:-1])
        h_new, r_new = h_new[first], r_new[first]
        if table.single:
            codes = h_new << table.rest_bits | r_new
        else:
            fresh = np.unique(h_new[hid[new[order[first]]] < 0])  # histories first met now
            if len(fresh):
                at = np.searchsorted(table.hists, fresh)
                table.hists = np.insert(table.hists, at, fresh)
                table.hist_ids = np.insert(table.hist_ids, at, np.arange(len(fresh)) + table.count)
                table.count += len(fresh)
            codes = _find(table.hists, table.hist_ids, h_new) << 34 | r_new
        numbers = np.arange(len(codes), dtype=np.int64) + len(self.keys)
        order = np.argsort(codes, kind="stable")
        at = np.searchsorted(table.pairs, codes[order])
        table.pairs = np.insert(table.pairs, at, codes[order])
        table.pair_ids = np.insert(table.pair_ids, at, numbers[order])
        for h, r in zip(h_new.tolist(), r_new.tolist()):
            key = (t, h, r // 4096, r // 64 % 64, r % 64 - 1)
            self.index[key] = len(self.keys)
            self.keys.append(key)
        while len(self.keys) >= len(self.regret):  # the last row stays free: sigma's -1
            self.regret = np.vstack([self.regret, np.zeros_like(self.regret)])
            self.avg = np.vstack([self.avg, np.zeros_like(self.avg)])
        if table.single:
            return _find(table.pairs, table.pair_ids, hist << table.rest_bits | rest)
        return _find(table.pairs, table.pair_ids, _find(table.hists, table.hist_ids, hist) << 34 | rest)

    def history_code(self, hist: Array) -> Array:
        """The part of the public history (3-bit token codes) that the information sets tell apart:
        all of it here; a coarser learner (:class:`SummarySolver`) keeps less."""
        return hist

    def sigma(self, ids: Array, average: bool) -> Array:
        """Keep probabilities at information set ids (-1: unknown, 1/2)."""
        table = self.avg if average else self.regret
        v = table[ids]  # -1: the tables' last row, never a set's (infoset_ids keeps it free): zeros
        if not average:
            v = np.maximum(v, 0)
        tot = v[:, 0] + v[:, 1]
        out = np.full(len(ids), 0.5)
        return np.divide(v[:, 0], tot, out=out, where=tot > 0)

    # --- playing --------------------------------------------------------------------------------

    def deal(self, batch: int) -> HandBatch:
        """``batch`` random hands."""
        order = np.argsort(self.rng.random((batch, len(self.pack))), axis=1)[:, :self.n + 1]
        cards = self.pack[order]
        seats = cards[:, :self.n].copy()
        jerk = np.zeros(batch, dtype=np.int64)
        if self.hand.jerk:
            jerk = (seats == self.hand.top).astype(np.int64) @ (1 << np.arange(self.n, dtype=np.int64))
        return HandBatch(seats, cards[:, self.n].copy(), jerk)

    def deciding(self, t: int, state: HandBatch) -> Array:
        """Rows where seat ``t`` has a decision now; shows blockers first."""
        hand = self.hand
        active = ~state.done[:, t] & ~state.stopped
        show = active & (state.cards[:, t] == hand.blocker)
        if show.any():
            state.hist[show] = state.hist[show] * 8 + TOKENS["K"]
            state.done[show, t] = True
            if hand.stops:
                state.stopped[show] = True
        return np.flatnonzero(active & ~show)

    def act(self, t: int, state: HandBatch, rows: Array, keep: Array) -> None:
        """Seat ``t`` keeps (``keep`` True) or swaps in ``rows``."""
        hand, n = self.hand, self.n
        state.done[rows, t] = True
        state.given[rows] = -1
        if t == n - 1:
            s_rows = rows[~keep]
            x, s = state.cards[s_rows, t], state.stock[s_rows]
            state.special[s_rows] = self.draw_kind[x, s]
            state.cards[s_rows, t] = self.draw_card[x, s]
            return
        nb = state.cards[rows, t + 1]
        blocked = ~keep & (nb == hand.blocker)
        # every row's token at once: keep, blocked, or the card taken from the next seat
        token = np.where(keep, TOKENS["k"], np.where(blocked, TOKENS["b"], self.token_of[nb]))
        state.hist[rows] = state.hist[rows] * 8 + token
        b_rows = rows[blocked]
        state.done[b_rows, t + 1] = True
        if hand.stops:
            state.stopped[b_rows] = True
        swap = ~keep & ~blocked
        x_rows, theirs = rows[swap], nb[swap]
        state.cards[x_rows, t + 1] = state.cards[x_rows, t]
        state.cards[x_rows, t] = theirs
        state.given[x_rows] = theirs

    def finish(self, t: int, state: HandBatch, average: bool) -> Array:
        """Play seats ``t``.. on-policy to the end; lives lost per row and seat."""
        for u in range(t, self.n):
            rows = self.deciding(u, state)
            if len(rows):
                p = self.sigma(self.infoset_ids(u, state, rows, grow=False), average)
                self.act(u, state, rows, self.rng.random(len(rows)) < p)
        return self.showdown(state)[0]

    def showdown(self, state: HandBatch) -> tuple[Array, Array]:
        """(lives lost, lost) per row and seat."""
        n, d = self.n, self.n - 1
        cards = state.cards.astype(float)
        if self.hand.pairing:  # a seat's group: how many hold its rank, then the rank
            counts = np.zeros((len(cards), self.k), dtype=np.int64)
            rows = np.repeat(np.arange(len(cards)), n)
            np.add.at(counts, (rows, state.cards.reshape(-1)), 1)
            immune = np.flatnonzero(state.special == 3)
            counts[immune, state.cards[immune, d]] -= 1
            cards = np.take_along_axis(counts, state.cards, axis=1) * self.k + cards
        cards[state.special == 3, d] = np.inf
        low = cards.min(axis=1, keepdims=True)
        lose = cards == low
        ties = self.hand.rules.ties
        if ties != "all-lose" and not self.hand.pairing:
            pick = lose.argmax(axis=1) if ties == "eldest-loses" else n - 1 - lose[:, ::-1].argmax(axis=1)
            lose = np.zeros_like(lose)
            lose[np.arange(len(lose)), pick] = True
        lives = lose * self.lives_of[state.cards]
        dl, dw = state.special == 1, state.special == 2
        lose[dl] = False
        lose[dl, d] = True
        lose[dw] = True
        lose[dw, d] = False
        lives[dl | dw] = lose[dl | dw]
        return lives, lose

    # --- learning and measuring ----------------------------------------------------------------

    def _both(self, t: int, state: HandBatch, rows: Array, average: bool) -> tuple[Array, Array]:
        """Lives seat ``t`` loses after keeping / swapping in ``rows`` (rest of the hand sampled)."""
        out = []
        for keep in (True, False):
            fork = state.take(rows)
            self.act(t, fork, np.arange(len(rows)), np.full(len(rows), keep))
            out.append(self.finish(t + 1, fork, average)[:, t])
        return out[0], out[1]

    def train(self, batches: int, batch: int = 2000, seconds: float | None = None,
              callback: Callable[[int, float], None] | None = None) -> int:
        """Train until ``batches`` mini-batches in all have run (counting those run before, by an
        earlier call or in the state :meth:`restore` set; or until ``seconds``); returns how many
        have run in all. ``callback(batches done in all, seconds)`` is called after each batch."""
        start = time.perf_counter()
        done = self.trained
        for it in range(self.trained + 1, batches + 1):
            state = self.deal(batch)
            for t in range(self.n):
                rows = self.deciding(t, state)
                if not len(rows):
                    continue
                ids = self.infoset_ids(t, state, rows, grow=True)
                p = self.sigma(ids, average=False)
                v_keep, v_swap = self._both(t, state, rows, average=False)
                value = p * v_keep + (1 - p) * v_swap
                # the sums per information set met (the others unchanged: their regrets are >= 0),
                # each summed in the rows' order, as a bincount over every set summed it
                met, at = np.unique(ids, return_inverse=True)
                at = at.reshape(-1)
                add = np.stack([np.bincount(at, value - v_keep, minlength=len(met)),
                                np.bincount(at, value - v_swap, minlength=len(met))], axis=1)
                self.regret[met] = np.maximum(self.regret[met] + add, 0.0)
                weight = np.stack([np.bincount(at, p, minlength=len(met)),
                                   np.bincount(at, 1 - p, minlength=len(met))], axis=1)
                self.avg[met] += (it if self.weighting == 1.0 else float(it) ** self.weighting) * weight
                self.act(t, state, rows, self.rng.random(len(rows)) < p)
            done = self.trained = it
            if callback is not None:
                callback(it, time.perf_counter() - start)
            if seconds is not None and time.perf_counter() - start > seconds:
                break
        return done

    def estimate(self, hands: int, batch: int = 5000,
                 callback: Callable[[int], None] | None = None) -> Estimate:
        """Play ``hands`` fresh hands with the average strategy; sampled NashConv and losses.

        Information sets first met here join the table with the average strategy's default, 1/2.
        ``callback(hands played)`` is called after each batch.
        """
        n = self.n
        sums: dict[int, list[float]] = {}
        lives_all, lost_all = [], []
        played = 0
        while played < hands:
            b = min(batch, hands - played)
            state = self.deal(b)
            for t in range(n):
                rows = self.deciding(t, state)
                if not len(rows):
                    continue
                ids = self.infoset_ids(t, state, rows, grow=True)
                p = self.sigma(ids, average=True)
                v_keep, v_swap = self._both(t, state, rows, average=True)
                diff = v_keep - v_swap
                for i, dv, vk, vs in zip(ids.tolist(), diff.tolist(), v_keep.tolist(), v_swap.tolist()):
                    s = sums.setdefault(i, [0.0] * 9)
                    half = 5 + 2 * (int(s[0]) % 2)  # alternate samples go to the two halves
                    s[0] += 1
                    s[1] += dv
                    s[2] += dv * dv
                    s[3] += vk
                    s[4] += vs
                    s[half] += 1
                    s[half + 1] += dv
                self.act(t, state, rows, self.rng.random(len(rows)) < p)
            lives, lost = self.showdown(state)
            lives_all.append(lives)
            lost_all.append(lost)
            played += b
            if callback is not None:
                callback(played)
        gain, var, low = 0.0, 0.0, 0.0
        keep = self.sigma(np.array(list(sums), dtype=np.int64), average=True)
        for (count, total, square, _, _, n_a, t_a, n_b, t_b), q in zip(sums.values(), keep.tolist()):
            mean = total / count
            sd = max(square / count - mean * mean, 0.0) ** 0.5
            worse = q if mean > 0 else 1 - q
            share = count / hands
            gain += share * worse * abs(mean)
            var += (share * worse * sd) ** 2 / count
            if n_a and n_b:
                m_a, m_b = t_a / n_a, t_b / n_b
                low += share * (_deviation_gain(m_a, m_b, q) + _deviation_gain(m_b, m_a, q)) / 2
        lives_m, lost_m = np.concatenate(lives_all), np.concatenate(lost_all).astype(float)
        root = np.sqrt(len(lives_m))
        self.met = {i: (s[0] / hands, s[3] / s[0], s[4] / s[0]) for i, s in sums.items()}
        return Estimate(hands, gain, var ** 0.5, low,
                        lost_m.mean(axis=0).tolist(), (lost_m.std(axis=0) / root).tolist(),
                        lives_m.mean(axis=0).tolist(), (lives_m.std(axis=0) / root).tolist())

    # --- checkpoints ----------------------------------------------------------------------------

    def state(self) -> dict[str, Array]:
        """Everything training has learned and where its random numbers stand, as arrays (for a
        checkpoint, :mod:`.checkpoint`): :meth:`restore` on a solver made with the same hand and
        arguments continues from here, and trains on bit for bit as this one would."""
        import json

        out: dict[str, Array] = {
            "trained": np.array(self.trained, dtype=np.int64),
            "refined": np.array(self.refined, dtype=np.int64),
            "weighting": np.array(self.weighting),
            "rng": np.array(json.dumps(self.rng.bit_generator.state)),
            "keys": np.array(self.keys, dtype=np.int64).reshape(-1, 5),
            "regret": self.regret, "avg": self.avg,
        }
        for t, table in enumerate(self._tables):
            out[f"count_{t}"] = np.array(table.count, dtype=np.int64)
            for name in ("hists", "hist_ids", "pairs", "pair_ids"):
                out[f"{name}_{t}"] = getattr(table, name)
        return out

    def restore(self, state: dict[str, Array]) -> None:
        """Continue from a :meth:`state` of a solver of the same hand and arguments (ValueError if it
        is not one: another table size or weighting)."""
        import json

        if f"count_{self.n - 1}" not in state or f"count_{self.n}" in state:
            raise ValueError(f"a learner's state of another table size, not {self.n} players")
        weighting = float(state["weighting"]) if "weighting" in state else 1.0  # older states: linear
        if weighting != self.weighting:
            raise ValueError(f"a learner's state of another weighting of the average, {weighting:g}, "
                             f"not {self.weighting:g}")
        self.trained = int(state["trained"])
        self.refined = int(state["refined"]) if "refined" in state else 0
        self.rng.bit_generator.state = json.loads(str(state["rng"][()]))
        self.keys = [(a, b, c, d, e) for a, b, c, d, e in state["keys"].tolist()]
        self.index = {key: i for i, key in enumerate(self.keys)}
        self.regret, self.avg = state["regret"].copy(), state["avg"].copy()
        for t, table in enumerate(self._tables):
            table.count = int(state[f"count_{t}"])
            for name in ("hists", "hist_ids", "pairs", "pair_ids"):
                setattr(table, name, state[f"{name}_{t}"].astype(np.int64))

    # --- results ------------------------------------------------------------------------------------

    def infosets(self) -> list[InfoKey]:
        """The visited information sets as solver keys (position, tokens, card, given)."""
        return [self.info_key(i) for i in range(len(self.keys))]

    def info_key(self, i: int) -> InfoKey:
        """The information set numbered ``i`` as a solver key (position, tokens, card, given)."""
        t, h, jerk, x, p = self.keys[i]
        history = self._histories.get((h, jerk))
        if history is None:  # many sets share a history: each spelled out once
            tokens = []
            code = h
            while code:
                tokens.append(_NAMES[code % 8])
                code //= 8
            if self.hand.jerk:
                tokens.append("J" + "".join("1" if jerk >> j & 1 else "0" for j in range(self.n)))
            history = self._histories[h, jerk] = tuple(reversed(tokens))
        return t, history, x, p


def _deviation_gain(pick: float, value: float, keep: float) -> float:
    """The lives saved by switching to the action that the mean difference ``pick`` (keep minus swap)
    calls better, valued with an independent mean difference ``value``."""
    if pick > 0:
        return keep * value
    if pick < 0:
        return -(1 - keep) * value
    return 0.0


class SummarySolver(SampledSolver):
    """The sampled method on an abstraction: a situation is the position, the jerk pattern, the card
    held and the card given, and of the public history only how many times each token occurred
    (``pairs``: each token told apart by whether the seat before had swapped), not in which order.

    A seat's final card is fixed once its turn is over, so what the earlier seats did matters to a
    later one through the cards they hold: a keeper holds a card it chose to keep (its own, or the
    one its neighbour swapped away), a swapper the unseen card of its neighbour, a blocked seat the
    card it wanted rid of. The counts keep most of that and far fewer situations, each met far more
    often in training (with the full history, most situations from the 10th position on are met once
    or never)."""

    def __init__(self, hand: Hand, seed: int = 0, pairs: bool = False, common: bool = False,
                 weighting: float = 1.0) -> None:
        super().__init__(hand, seed, weighting)
        self.pairs, self.common = pairs, common
        rest_bits = self._tables[0].rest_bits
        self._tables = [_Table(40, rest_bits) for _ in range(self.n)]  # 8 kinds of 5 bits

    def history_code(self, hist: Array) -> Array:
        return summary_code(hist, self.pairs)

    def _both(self, t: int, state: HandBatch, rows: Array, average: bool) -> tuple[Array, Array]:
        """As :meth:`SampledSolver._both`, the two forks played out with the same random numbers
        (common random numbers, as the bound does) if ``common``."""
        if not self.common:
            return super()._both(t, state, rows, average)
        u = self.rng.random((len(rows), self.n))
        out = []
        for keep in (True, False):
            fork = state.take(rows)
            self.act(t, fork, np.arange(len(rows)), np.full(len(rows), keep))
            for s in range(t + 1, self.n):
                live = self.deciding(s, fork)
                if len(live):
                    p = self.sigma(self.infoset_ids(s, fork, live, grow=False), average)
                    self.act(s, fork, live, u[live, s] < p)
            out.append(self.showdown(fork)[0][:, t])
        return out[0], out[1]

    def refine(self, hands: int, step: float = 1.0, sure: float = 1.0, batch: int = 5000,
               callback: Callable[[int], None] | None = None) -> int:
        """One pass of best-response-guided refinement of the average strategy (after training):
        play ``hands`` fresh hands with it, forking each decision keep / swap with common random
        numbers for the later seats; per summary, where the mean keep-minus-swap difference of lives
        lost is at least ``sure`` standard errors from 0 (at least 2 samples; the variance taken
        with one more sample of 1, as the bound's selection does), move its keep probability the
        fraction ``step`` of the way to the better action (its weight in the average unchanged; by
        default all the way: the summary then plays that action alone, until a later pass is sure
        of the other). Seeded by the learner's generator: the same passes after the same training
        give the same strategy, and :meth:`state` / :meth:`restore` between passes continue bit for
        bit. Returns how many summaries moved; ``callback(hands played so far)`` is called after
        each ``batch``.

        Measured 2026-11-27 (``benchmarks/sampled_summary.py --players 10 12 --hands 200000 --refine
        3 --skip-shipped``, standard rules, after the shipped budget, 200,000 hands a pass, the
        bound's lower estimate from 200,000 other hands, CPU seconds of training and passes, load
        average 9-18): at 10 players 0.0169 after training (15.7 CPU s), then 0.0097, 0.0054, 0.0028
        (31.2 CPU s in all), where training alone took 231 CPU s (3,840 mini-batches) to 0.0030; at
        12 players 0.0248 (19.5 CPU s), then 0.0137, 0.0072, 0.0035 (42.6 CPU s). Those passes moved
        half way where sure to 2 standard errors (``step=0.5, sure=2``, the defaults until then).
        All the way where sure to 1 is better (measured 2026-11-27, standard rules, 10 players, after
        the shipped budget, the bracket of :mod:`~chasetheace.solver.methods.bound` from 2,000,000
        hands, lower estimate / 95 % upper bound, load 4-7): 4 passes of 2,000,000 hands gave 0.0003
        / 0.0056 (``step=1, sure=1``), 0.0007 / 0.0063 (``step=1, sure=2``; 0.0006 / 0.0060 after 6),
        where 6 passes of 200,000 hands, 2 of 1,000,000 and 2 of 2,000,000 at ``step=0.5, sure=2``
        gave 0.0014 / 0.0076, as did 8 of 1,000,000. At 3 players the exact NashConv
        (``tests/test_solver_sampled.py``'s learner, 3 passes of 20,000 hands) fell 0.0474, 0.0263,
        0.0151, 0.0095 at ``step=0.5, sure=2``; 0.0046, 0.0028, 0.0019 at ``step=1, sure=2``; 0.0020,
        0.0008, 0.0007 at ``step=1, sure=1``."""
        if not isinstance(hands, int) or hands < 1:
            raise ValueError(f"bad hands {hands!r}: an integer >= 1")
        if not 0 < step <= 1:
            raise ValueError(f"bad step {step!r}: a number in (0, 1]")
        sums = np.zeros((len(self.avg), 3))  # per summary: samples, sum of differences, of squares
        played = 0
        while played < hands:
            b = min(batch, hands - played)
            state = self.deal(b)
            for t in range(self.n):
                rows = self.deciding(t, state)
                if not len(rows):
                    continue
                ids = self.infoset_ids(t, state, rows, grow=True)
                p = self.sigma(ids, average=True)
                common, self.common = self.common, True
                try:
                    v_keep, v_swap = self._both(t, state, rows, average=True)
                finally:
                    self.common = common
                d = v_keep - v_swap
                if len(self.avg) > len(sums):
                    sums = np.vstack([sums, np.zeros((len(self.avg) - len(sums), 3))])
                m = len(sums)
                sums[:, 0] += np.bincount(ids, minlength=m)
                sums[:, 1] += np.bincount(ids, d, minlength=m)
                sums[:, 2] += np.bincount(ids, d * d, minlength=m)
                self.act(t, state, rows, self.rng.random(len(rows)) < p)
            played += b
            if callback is not None:
                callback(played)
        count, total, squares = sums[:, 0], sums[:, 1], sums[:, 2]
        mean = total / np.maximum(count, 1)
        var = np.maximum((squares + 1.0) / (count + 1.0) - mean ** 2, 0.0)
        move = (count >= 2) & (mean ** 2 > sure ** 2 * var / np.maximum(count, 1))
        rows_moved = np.flatnonzero(move)
        q = self.sigma(rows_moved, average=True)
        q = np.where(mean[rows_moved] > 0, q * (1 - step), q + (1 - q) * step)  # > 0: keeping loses more
        weight = self.avg[rows_moved].sum(axis=1)
        weight[weight <= 0] = 1.0
        self.avg[rows_moved] = np.stack([q * weight, (1 - q) * weight], axis=1)
        self.refined += 1
        return len(rows_moved)

    def info_key(self, i: int) -> InfoKey:
        """The summary numbered ``i`` as a solver key whose history is the summary's canonical one
        (:func:`summary_key`; without ``pairs`` only): the tokens sorted, the jerk pattern first."""
        if self.pairs:
            raise ValueError("summaries with pairs have no solver key: train with pairs=False")
        t, code, jerk, x, p = self.keys[i]
        shown = "".join("1" if jerk >> j & 1 else "0" for j in range(self.n))
        tokens = [f"J{shown}"] if self.hand.jerk else []
        for kind in range(1, 7):
            tokens += [_NAMES[kind]] * (code >> 5 * (kind - 1) & 31)
        return t, tuple(tokens), x, p

    def keep_at(self, key: InfoKey, average: bool = True) -> float:
        """The keep probability at the solver key ``key`` (position, tokens, card, given) of the full
        game: the strategy of its summary (1/2 where training never met it)."""
        t, tokens, x, p = key
        code, jerk, before = 0, 0, 0
        for token in tokens:  # as summary_code counts them, in Python: a call per situation met
            if token.startswith("J"):
                jerk = sum(1 << j for j, c in enumerate(token[1:]) if c == "1")
                continue
            kind = TOKENS[token]
            if self.pairs and kind <= 2 and before in _SWAPS:
                code += 1 << 5 * (kind + 5)
            else:
                code += 1 << 5 * (kind - 1)
            before = kind
        i = self.index.get((t, code, jerk, x, p))
        if i is None:
            return 0.5
        a, b = (self.avg if average else np.maximum(self.regret, 0.0))[i].tolist()
        return a / (a + b) if a + b > 0 else 0.5


_SWAPS = (TOKENS["s"], TOKENS["sA"], TOKENS["s2"])


def summary_code(hist: Array, pairs: bool = True) -> Array:
    """How many times each token occurs in the history codes ``hist`` (5 bits per kind; ``pairs``:
    keep and swap counted apart after a swap and after anything else)."""
    out = np.zeros_like(hist)
    digits = []
    h = hist.copy()
    while h.any():
        digits.append(h & 7)
        h = h >> 3
    for i, digit in enumerate(digits):  # digits[i + 1] is the token before digits[i]
        kind = digit.copy()  # 1 k, 2 s, 3 b, 4 K, 5 sA, 6 s2
        if pairs:
            before = digits[i + 1] if i + 1 < len(digits) else np.zeros_like(digit)
            after_swap = np.isin(before, _SWAPS) & ((digit == 1) | (digit == 2))
            kind = np.where(after_swap, digit + 6, digit)  # 7: kept after a swap, 8: swapped after one
        shift = np.where(kind > 0, 5 * (kind - 1), 0)
        out += (kind > 0).astype(np.int64) << shift
    return out


_ORDER = {name: code for name, code in TOKENS.items()}


def summary_key(key: InfoKey) -> InfoKey:
    """The situation ``key`` (position, public history, card, card given) as :class:`SummarySolver`
    (without ``pairs``) tells it apart: its history's tokens in one canonical order (the jerk pattern
    first, then keeps, swaps, blocked swaps, blockers shown, swaps for an ace, for a 2), so that
    histories that differ only in the order of the earlier turns have one key.

    >>> summary_key((3, ("s", "k", "b"), 4, -1)) == summary_key((3, ("b", "s", "k"), 4, -1))
    True
    >>> summary_key((3, ("s", "k", "b"), 4, -1))
    (3, ('k', 's', 'b'), 4, -1)
    """
    t, history, x, p = key
    return t, tuple(sorted(history, key=lambda token: _ORDER.get(token, 0))), x, p
