"""The rules and the pack as the integer arrays the kernel reads."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..cards import Card, pack, stacked_pack
from ..rules import Rules
from . import kernel as K

__all__ = ["rule_vector", "strengths", "pack_array"]

_DDB = {"allowed": K.DDB_ALLOWED, "void": K.DDB_VOID, "dealer-loses": K.DDB_LOSES}
_DSR = {"none": K.DSR_NONE, "dealer-wins": K.DSR_WINS, "dealer-immune": K.DSR_IMMUNE}
_TIES = {"all-lose": K.TIES_ALL, "eldest-loses": K.TIES_ELDEST, "latest-loses": K.TIES_LATEST}
_FT = {"replay": K.FT_REPLAY, "split": K.FT_SPLIT, "cut": K.FT_CUT, "no-winner": K.FT_NO_WINNER}
_FD = {"random": K.FD_RANDOM, "high-card": K.FD_HIGH, "first-jack": K.FD_JACK}


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
    r[K.R_DDB] = _DDB[rules.dealer_draws_blocker]
    r[K.R_DSR] = _DSR[rules.dealer_same_rank]
    r[K.R_ANN] = rules.announce_low
    r[K.R_TIES] = _TIES[rules.ties]
    r[K.R_PAIR] = rules.pairing
    r[K.R_APD] = rules.ace_pays_double
    r[K.R_LC] = rules.last_chance
    r[K.R_FT] = _FT[rules.final_tie]
    r[K.R_FD] = _FD[rules.first_dealer]
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
