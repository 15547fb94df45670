"""The rules and the pack as the integer arrays the kernel reads, and the kernel's other records
made empty (a table, the counts, nothing given)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..cards import Card, pack, stacked_pack
from ..rules import OPTIONS, Rules
from . import kernel as K
from .layout import Counts, Given, RuleArrays, Table

__all__ = ["rule_code", "rule_vector", "strengths", "pack_array", "rule_arrays", "new_table", "new_counts",
           "nothing_given"]



def rule_code(rules: Rules, key: str) -> int:
    """The kernel's integer code of the option ``key`` of ``rules``: the index of its value among
    the option's values (``rules.OPTIONS``, read from the typed values; the codes of
    :mod:`.layout` are derived the same way)."""
    return OPTIONS[key].values.index(getattr(rules, key))


def rule_vector(rules: Rules) -> np.ndarray:
    """Every option of ``rules`` as one int64 vector indexed by the kernel's ``R_*`` constants."""
    r = np.zeros(K.R_SIZE, np.int64)
    r[K.R_LIVES] = rules.lives
    r[K.R_DECK] = rules.deck
    r[K.R_BLOCKER] = rules.blocker_rank or 0
    r[K.R_TOP] = rules.top_rank
    r[K.R_KSP] = rules.king_stops_play
    r[K.R_KJ] = rules.kings_jerk
    r[K.R_DEX_TOP] = rules.dealer_exchange == "top"
    r[K.R_DDB] = rule_code(rules, "dealer_draws_blocker")
    r[K.R_DSR] = rule_code(rules, "dealer_same_rank")
    r[K.R_ANN] = rules.announce_low
    r[K.R_TIES] = rule_code(rules, "ties")
    r[K.R_PAIR] = rules.pairing
    r[K.R_APD] = rules.ace_pays_double
    r[K.R_LC] = rules.last_chance
    r[K.R_FT] = rule_code(rules, "final_tie")
    r[K.R_FD] = rule_code(rules, "first_dealer")
    r[K.R_BH] = rules.between_hands == "to-bottom"
    return r


def strengths(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """By rank (index 1..13): the engine's strength (1 weakest .. 13), and the solver's (0 weakest
    among the ranks in the pack; -1 for a rank not in it)."""
    engine = np.zeros(14, np.int64)
    solver = np.full(14, -1, np.int64)
    present = sorted({c.rank for c in pack(rules.deck)}, key=rules.strength)
    for rank in range(1, 14):
        engine[rank] = rules.strength(rank)
    for i, rank in enumerate(present):
        solver[rank] = i
    return engine, solver


def pack_array(rules: Rules, stacked: Sequence[str | Card] | None = None) -> np.ndarray:
    """The first hand's stock as card ids, top first, and a last entry: 1 if it is stacked (dealt
    as it is), 0 if the first hand shuffles it. A stacked pack is completed as ``Game`` does."""
    cards = stacked_pack(stacked, pack(rules.deck)) if stacked is not None else pack(rules.deck)
    return np.array([c.id for c in cards] + [int(stacked is not None)], np.int64)


def rule_arrays(rules: Rules, stacked: Sequence[str | Card] | None = None) -> RuleArrays:
    """The kernel's rules record: the rule vector, both strengths and the pack (as ``pack_array``)."""
    engine, solver = strengths(rules)
    return RuleArrays(rule_vector(rules), engine, solver, pack_array(rules, stacked))


def new_table(players: int, *, counting: bool = True, events: int = 0, seed: int = 0) -> Table:
    """A table for ``players`` seats before its first game: the counting seats' rows when
    ``counting``, room for ``events`` turn events, the generator seeded with ``seed``."""
    ws = np.full((K.WS_ROWS + (3 * players if counting else 0), K.RING), -1, np.int64)
    rng = np.array([seed % 2**64], np.uint64)
    return Table(ws, np.zeros(K.ST_SIZE, np.int64), np.zeros((events, K.E_FIELDS), np.int64),
                 np.zeros(K.G_SIZE, np.int64), rng)


def new_counts(players: int, log: int = 0) -> Counts:
    """Zero counts for ``players`` seats, with room to log ``log`` hands."""
    return Counts(np.zeros((players + 1, players), np.int64), np.zeros((players + 1, players), np.int64),
                  np.zeros(14, np.int64), np.zeros(14, np.int64), np.zeros((log, 3 * players + 2), np.int64))


def nothing_given(deck: int = 52) -> Given:
    """Nothing given: the first dealer by the rules, chance from the generator, the policies decide."""
    none = np.zeros(0, np.int64)
    return Given(-1, False, none, np.zeros((0, deck), np.int64), False, none, np.zeros(0, np.float64))
