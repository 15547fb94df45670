"""Policies as data: what the kernel plays for each seat.

- **threshold**: keep at or above a strength, per seat, per number of players in the hand and per
  place in the turn order (``ThresholdBot`` is the same threshold everywhere);
- **random**: keep or swap with even chances (``RandomBot``);
- **table**: the solver's strategy (``SolvedBot``), a keep probability for every information set
  the solution holds, read through a trie of the hand's public tokens;
- **counting**: ``CountingBot``, not as a table (its choice depends on which seat it knows to hold
  which card, too many situations to list) but computed in the kernel from what each counting
  seat has learnt this hand (and, with ``between_hands = to-bottom``, of the stock from hand to
  hand), with the bot's own arithmetic.

:func:`compile_bots` turns bots (or bot specs) into :class:`Policies`, or raises
:class:`NotCompilableError` naming the bot it cannot play (any bot it does not know, or solved
bots of two different strategies).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..bots import Bot, CountingBot, RandomBot, ThresholdBot
from ..errors import NotCompilableError
from ..registry import make_bot
from ..rules import Rules
from . import kernel as K
from .layout import PolicyArrays

__all__ = ["NotCompilableError", "Policies", "compile_bots", "MAX_TABLE_PLAYERS"]

MAX_TABLE_PLAYERS = 10
"""The most players a solver table covers (the solver's own limit for the sampled method)."""

_TOKENS = {"k": K.T_KEEP, "s": K.T_SWAP, "sA": K.T_SWAP_A, "s2": K.T_SWAP_2, "b": K.T_BLOCKED,
           "K": K.T_SHOWN}


@dataclass(frozen=True)
class Policies:
    """One policy per seat, as the kernel's arrays (see the module's docstring)."""

    players: int
    kind: np.ndarray       # (players,) P_THRESHOLD, P_RANDOM or P_TABLE
    threshold: np.ndarray  # (players, players + 1, players): the weakest strength kept
    root: np.ndarray       # (players + 1, 2**players or 1): trie root per players in the hand, jerk mask
    child: np.ndarray      # (nodes, TOKENS): the trie
    table: np.ndarray      # (nodes, 13, 14): keep probability by node, own strength, strength given + 1
    fallback: np.ndarray   # (players + 1, players, 13): keep probability off the trie

    def arrays(self) -> PolicyArrays:
        """The kernel's record of these policies (a tuple of the arrays, in this order)."""
        return PolicyArrays(self.kind, self.threshold, self.root, self.child, self.table, self.fallback)

    @classmethod
    def build(cls, players: int, kinds: Sequence[int], thresholds: np.ndarray | None = None,
              solver: _SolverTable | None = None) -> Policies:
        """Policies from their parts (missing parts are empty)."""
        thr = np.zeros((players, players + 1, players), np.int64) if thresholds is None else thresholds
        if solver is None:
            solver = _SolverTable.empty(players)
        return cls(players, np.array(kinds, np.int64), thr, solver.root, solver.child, solver.table,
                   solver.fallback)

    @classmethod
    def thresholds(cls, rules: Rules, by_seat: Sequence[int | str | Mapping[tuple[int, int], int | str]]
                   ) -> Policies:
        """Threshold policies: per seat a rank (keep at or above it), or a mapping from
        ``(players in the hand, place in the turn order)`` to a rank (missing entries keep all)."""
        from ..cards import parse_rank

        n = len(by_seat)
        thr = np.zeros((n, n + 1, n), np.int64)
        for seat, spec in enumerate(by_seat):
            if isinstance(spec, Mapping):
                for (size, place), rank in spec.items():
                    if not (2 <= size <= n and 0 <= place < size):
                        raise ValueError(f"bad position {(size, place)!r} for {n} players")
                    thr[seat, size, place] = rules.strength(parse_rank(rank))
            else:
                thr[seat, :, :] = rules.strength(parse_rank(spec))
        return cls.build(n, [K.P_THRESHOLD] * n, thr)


@dataclass(frozen=True)
class _SolverTable:
    root: np.ndarray
    child: np.ndarray
    table: np.ndarray
    fallback: np.ndarray

    @classmethod
    def empty(cls, players: int) -> _SolverTable:
        return cls(np.full((players + 1, 1), -1, np.int64), np.full((1, K.TOKENS), -1, np.int64),
                   np.zeros((1, 13, 14)), np.zeros((players + 1, players, 13)))


def solver_table(bot: Any, players: int) -> _SolverTable:
    """The keep probabilities of a ``SolvedBot`` for every player count 2..``players``
    (solving the counts it does not have yet, as the bot itself would in play)."""

    rules: Rules = bot.rules
    jerk = rules.kings_jerk
    width = 2 ** players if jerk else 1
    root = np.full((players + 1, width), -1, np.int64)
    child_rows: list[list[int]] = []
    probs: list[np.ndarray] = []
    fallback = np.zeros((players + 1, players, 13))

    def new_node() -> int:
        child_rows.append([-1] * K.TOKENS)
        probs.append(np.full((13, 14), np.nan))
        return len(child_rows) - 1

    for size in range(2, players + 1):
        sol = bot.solution(size)
        average = sol.keep_by_card()
        for place in range(size):
            for s, p in enumerate(average[place]):
                fallback[size, place, s] = 1.0 if p == p and p >= 0.5 else 0.0  # NaN: never met, swap
        for (_place, tokens, strength, given), p in zip(sol.infosets, sol.keep):
            rest = list(tokens)
            mask = 0
            if jerk:
                bits = rest.pop(0)[1:]
                mask = sum(1 << i for i, b in enumerate(bits) if b == "1")
            node = root[size, mask]
            if node < 0:
                node = root[size, mask] = new_node()
            for tok in rest:
                t = _TOKENS[tok]
                nxt = child_rows[node][t]
                if nxt < 0:
                    nxt = child_rows[node][t] = new_node()
                node = nxt
            probs[node][strength, given + 1] = p
    # the place of a node is fixed by its tokens; entries the solution never met use the fallback
    table = np.stack(probs) if probs else np.zeros((1, 13, 14))
    _fill_fallback(root, np.array(child_rows, np.int64).reshape(-1, K.TOKENS), table, fallback, players)
    child = np.array(child_rows, np.int64).reshape(-1, K.TOKENS) if child_rows else np.full(
        (1, K.TOKENS), -1, np.int64)
    return _SolverTable(root, child, np.nan_to_num(table, nan=0.0), fallback)


def _fill_fallback(root: np.ndarray, child: np.ndarray, table: np.ndarray, fallback: np.ndarray,
                   players: int) -> None:
    """Give every (node, strength, given) the solution lacks the bot's fallback for that place."""
    for size in range(2, players + 1):
        for start in set(root[size].tolist()) - {-1}:
            stack = [(start, [False] * size)]
            while stack:
                node, done = stack.pop()
                place = next((i for i, d in enumerate(done) if not d), size - 1)
                row = table[node]
                missing = np.isnan(row)
                if missing.any():
                    row[missing] = np.repeat(fallback[size, place, :13, None], 14, axis=1)[missing]
                for tok, nxt in enumerate(child[node].tolist()):
                    if nxt >= 0:
                        stack.append((nxt, _after(done, place, tok, size)))


def _after(done: list[bool], place: int, token: int, size: int) -> list[bool]:
    out = list(done)
    out[place] = True
    if token == K.T_BLOCKED and place + 1 < size:
        out[place + 1] = True
    return out


def compile_bots(bots: Sequence[Bot | str], rules: Rules, players: int | None = None) -> Policies:
    """The kernel's policies for these bots (or bot specs), one per seat.

    Raises NotCompilableError naming the first bot the kernel cannot play.
    """
    n = len(bots) if players is None else players
    if n > MAX_TABLE_PLAYERS and any(isinstance(b, str) and b.strip().lower().partition(":")[0] == "solved"
                                     for b in bots):  # said before the bot is made: making it solves
        raise NotCompilableError(f"the solved bot is tabled up to {MAX_TABLE_PLAYERS} players")
    made = [make_bot(b, rules, n) if isinstance(b, str) else b for b in bots]
    kinds: list[int] = []
    thr = np.zeros((n, n + 1, n), np.int64)
    solved: Any = None
    for seat, bot in enumerate(made):
        if isinstance(bot, ThresholdBot):
            kinds.append(K.P_THRESHOLD)
            thr[seat, :, :] = rules.strength(bot.threshold)
        elif isinstance(bot, RandomBot):
            kinds.append(K.P_RANDOM)
        elif isinstance(bot, CountingBot):
            kinds.append(K.P_COUNTING)
        elif type(bot).__name__ == "SolvedBot":
            if solved is not None and not _same_strategy(solved, bot):
                raise NotCompilableError("the kernel plays one solved strategy per run, "
                                         "and these seats have different ones")
            if n > MAX_TABLE_PLAYERS:
                raise NotCompilableError(f"the solved bot is tabled up to {MAX_TABLE_PLAYERS} players")
            if getattr(bot, "rules", rules) != rules:
                raise NotCompilableError("the solved bot was solved for other rules")
            solved = bot
            kinds.append(K.P_TABLE)
        else:
            raise NotCompilableError(f"the kernel cannot play {bot!r}: it has no table for it")
    table = solver_table(solved, n) if solved is not None else None
    return Policies.build(n, kinds, thr, table)


def _same_strategy(a: Any, b: Any) -> bool:
    return a is b or all(a.solutions.get(k) is b.solutions.get(k)
                         for k in set(a.solutions) | set(b.solutions))
