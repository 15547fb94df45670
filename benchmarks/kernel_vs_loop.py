"""The kernel against a minimal compiled loop doing the same work, in the same run.

Run: python benchmarks/kernel_vs_loop.py [--hands N] [--games N] [--pairs P] [--players 2 5 10 20]

The minimal loop is the project's own: the standard rules (kings block, the dealer cuts the stock,
ties all lose, the final tie replayed) and a threshold bot at every seat, written as one numba
function with nothing but what those rules need; it draws from the kernel's generator (splitmix64,
Lemire's bounded draws) in the same order, keeps the stock on the same ring, and adds up the same
counts (by place and players in the hand, by rank dealt, games and wins). So both play exactly the
same hands: the benchmark checks that their counts are equal before it prints a figure.

Two measures, at each table size: one endless game (lives so many that nobody is ever out: only
the hands) and whole games (3 lives, the default). The kernel is timed through
:func:`chasetheace.fast.play_chunk`, what ``simulate`` runs. The kernel and the loop alternate,
``--pairs`` times; each figure is CPU time (``time.process_time``: on a shared machine it does not
count the time others take), and the ratio printed is the kernel's rate over the loop's (>= 1: the
kernel is as fast), the median over the pairs.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from numba import njit

import chasetheace as cta
from chasetheace.cards import parse_rank
from chasetheace.fast import compile_bots, play_chunk
from chasetheace.fast.chance import _below
from chasetheace.fast.tables import strengths
from chasetheace.sim import Tally

ENDLESS_LIVES = 10**12
THRESHOLD = "8"


@njit(cache=True)
def minimal(n: int, lives0: int, keep_from: int, strength: np.ndarray, seed: int, games: int,
            hand_limit: int, pos_hands: np.ndarray, pos_losses: np.ndarray, rank_hands: np.ndarray,
            rank_losses: np.ndarray, wins: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """Standard rules, a threshold bot (keep at strength ``keep_from`` or above) at every seat:
    ``games`` whole games, or (``games`` 0) hands up to ``hand_limit``. Returns [hands, games, no sole
    winner]."""
    rng = np.zeros(1, np.uint64)
    rng[0] = np.uint64(seed)
    stk = np.zeros(128, np.int64)
    lives = np.zeros(n, np.int64)
    alive = np.zeros(n, np.int64)
    hands = np.zeros(n, np.int64)
    dealt = np.zeros(n, np.int64)
    order = np.zeros(n, np.int64)
    hands_played = played = no_sole = 0
    while (played < games) if games > 0 else (hands_played < hand_limit):
        for s in range(n):
            lives[s] = lives0
            alive[s] = 1
        for i in range(52):
            stk[i] = i
        head, length, kitty = 0, 52, 0
        dealer = _below(rng, n)
        winner = -3
        while winner == -3 and hands_played < hand_limit:
            k = 0
            s = dealer
            while True:
                s = s + 1 if s + 1 < n else 0
                if alive[s]:
                    order[k] = s
                    k += 1
                    if s == dealer:
                        break
            for i in range(k):  # a lazy shuffle: only the cards dealt
                j = i + _below(rng, length - i)
                a, b = (head + i) & 127, (head + j) & 127
                c = stk[a]
                stk[a] = stk[b]
                stk[b] = c
            for i in range(k):
                c = stk[(head + i) & 127]
                hands[order[i]] = c
                dealt[order[i]] = c
            head += k
            length -= k
            set_aside = -1
            for t in range(k - 1):
                s = order[t]
                card = hands[s]
                if card >= 48 or strength[(card >> 2) + 1] >= keep_from:
                    continue  # a king shown, or kept
                nb = order[t + 1]
                theirs = hands[nb]
                if theirs >= 48:
                    continue  # blocked
                hands[nb] = card
                hands[s] = theirs
            card = hands[dealer]
            if card < 48 and strength[(card >> 2) + 1] < keep_from:
                pos = _below(rng, length)
                a = (head + pos) & 127
                hands[dealer] = stk[a]
                stk[a] = stk[head & 127]
                head += 1
                length -= 1
                set_aside = card
            low = 99
            for i in range(k):
                v = strength[(hands[order[i]] >> 2) + 1]
                if v < low:
                    low = v
            nout = 0
            for i in range(k):
                s = order[i]
                r = (dealt[s] >> 2) + 1
                pos_hands[k, i] += 1
                rank_hands[r] += 1
                if strength[(hands[s] >> 2) + 1] == low:
                    lives[s] -= 1
                    kitty += 1
                    pos_losses[k, i] += 1
                    rank_losses[r] += 1
                    if lives[s] == 0:
                        nout += 1
            hands_played += 1
            if nout == k:  # all in the hand out: the hand is replayed
                for i in range(k):
                    lives[order[i]] += 1
                    kitty -= 1
            elif nout > 0:
                for i in range(k):
                    if lives[order[i]] == 0:
                        alive[order[i]] = 0
                if k - nout == 1:
                    for i in range(k):
                        if alive[order[i]]:
                            winner = order[i]
            if hands_played >= hand_limit and games == 0:
                break
            for i in range(k):
                stk[(head + length) & 127] = hands[order[i]]
                length += 1
            if set_aside >= 0:
                stk[(head + length) & 127] = set_aside
                length += 1
            s = dealer + 1 if dealer + 1 < n else 0
            while not alive[s]:
                s = s + 1 if s + 1 < n else 0
            dealer = s
        if winner == -3:
            break
        played += 1
        wins[winner] += 1
    return np.array([hands_played, played, no_sole], np.int64)


def loop_tally(n: int, lives: int, seed: int, games: int | None, hands: int | None) -> Tally:
    """The minimal loop's counts as a :class:`~chasetheace.sim.Tally`."""
    engine, _ = strengths(cta.Rules())
    pos_h, pos_l = np.zeros((n + 1, n), np.int64), np.zeros((n + 1, n), np.int64)
    rank_h, rank_l, wins = np.zeros(14, np.int64), np.zeros(14, np.int64), np.zeros(n, np.int64)
    limit = hands if hands is not None else np.iinfo(np.int64).max
    done = minimal(n, lives, int(engine[parse_rank(THRESHOLD)]), engine, seed, games or 0, limit,
                   pos_h, pos_l, rank_h, rank_l, wins)
    tally = Tally(n, hands=int(done[0]), games=int(done[1]), wins=[int(w) for w in wins],
                  no_sole_winner=int(done[2]))
    for size, place in zip(*np.nonzero(pos_h)):
        tally.position_hands[int(size), int(place)] = int(pos_h[size, place])
        tally.position_losses[int(size), int(place)] = int(pos_l[size, place])
    for rank in np.nonzero(rank_h)[0]:
        tally.rank_hands[int(rank)] = int(rank_h[rank])
        tally.rank_losses[int(rank)] = int(rank_l[rank])
    return tally


def kernel_tally(n: int, lives: int, seed: int, games: int | None, hands: int | None) -> Tally:
    """The kernel's counts, through ``play_chunk`` (what ``simulate`` runs)."""
    rules = cta.Rules(lives=lives)
    return play_chunk(rules, compile_bots((f"threshold:{THRESHOLD}",) * n, rules), seed=seed, games=games,
                      hands=hands)


def same(a: Tally, b: Tally) -> bool:
    return (a.hands, a.games, a.wins, a.no_sole_winner, +a.position_hands, +a.position_losses,
            +a.rank_hands, +a.rank_losses) == (b.hands, b.games, b.wins, b.no_sole_winner,
                                              +b.position_hands, +b.position_losses, +b.rank_hands,
                                              +b.rank_losses)


def compare(n: int, lives: int, games: int | None, hands: int | None,
            pairs: int) -> tuple[float, float, float]:
    """(median ratio kernel/loop, kernel ns per hand, loop ns per hand), CPU time, alternating."""
    for run in (kernel_tally, loop_tally):  # compiled, or loaded from the cache
        run(n, lives, 1, None, 100)
    ratios, k_ns, l_ns = [], [], []
    for pair in range(pairs):
        timed = []
        for run in (kernel_tally, loop_tally) if pair % 2 == 0 else (loop_tally, kernel_tally):
            cpu = time.process_time()
            tally = run(n, lives, 7 + pair, games, hands)
            timed.append((run, time.process_time() - cpu, tally))
        (_, t_k, kt), (_, t_l, lt) = sorted(timed, key=lambda x: x[0] is not kernel_tally)
        if not same(kt, lt):
            raise SystemExit(f"{n} players: the kernel and the loop played different hands")
        ratios.append(t_l / t_k)
        k_ns.append(t_k / kt.hands * 1e9)
        l_ns.append(t_l / lt.hands * 1e9)
    return statistics.median(ratios), statistics.median(k_ns), statistics.median(l_ns)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5_000_000, help="hands per endless run (5e6)")
    parser.add_argument("--games", type=int, default=200_000, help="whole games per run (2e5)")
    parser.add_argument("--pairs", type=int, default=5, help="alternated pairs at each size (5)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 5, 10, 20])
    args = parser.parse_args()
    print(f"standard rules, threshold:{THRESHOLD} at every seat; CPU time, kernel / minimal loop "
          f"(median of {args.pairs} alternated pairs; >= 1.0: the kernel as fast)")
    print(f"{'players':>7}  {'measure':24} {'kernel/loop':>11} {'kernel ns/hand':>15} {'loop ns/hand':>13}")
    for n in args.players:
        for label, lives, games, hands in (("one endless game", ENDLESS_LIVES, None, args.hands),
                                           ("whole games (3 lives)", 3, max(1, args.games // n), None)):
            ratio, k_ns, l_ns = compare(n, lives, games, hands, args.pairs)
            print(f"{n:>7}  {label:24} {ratio:>11.2f} {k_ns:>15.1f} {l_ns:>13.1f}", flush=True)


if __name__ == "__main__":
    main()
