"""The kernel's ``run`` plays the game through copies compiled apart (the default rules with
threshold bots, every option a constant; any rules and bots): each plays the same games as
``play_game``, which reads every option and mode at run time."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

import chasetheace as cta
from chasetheace.fast import compile_bots, play_chunk
from chasetheace.fast import kernel as K
from chasetheace.fast.tables import new_counts, new_table, nothing_given, rule_arrays, rule_vector


def test_the_standard_rule_vector_is_the_default_rules() -> None:
    assert tuple(int(x) for x in rule_vector(cta.Rules())) == K.STANDARD


CASES = [
    ({}, ("threshold:8",) * 4),  # the copy with every option a constant
    ({"lives": 1}, ("threshold:7", "threshold:9")),
    ({}, ("threshold:8", "random", "threshold:J")),  # not every seat a threshold: the other copy
    ({"kings_jerk": True, "ties": "eldest-loses", "ace_pays_double": True, "last_chance": True,
      "final_tie": "cut", "dealer_draws_blocker": "dealer-loses"}, ("threshold:9",) * 5),
    ({"blocker": "none", "dealer_exchange": "top", "between_hands": "to-bottom", "pairing": True,
      "dealer_same_rank": "dealer-wins", "king_stops_play": True},
     ("threshold:T", "counting", "threshold:6")),
]


@pytest.mark.parametrize(("changes", "bots"), CASES)
def test_run_plays_the_games_play_game_plays(changes: dict[str, Any], bots: tuple[str, ...]) -> None:
    rules = cta.Rules(**changes)
    n, games, seed = len(bots), 300, 21
    policies = compile_bots(bots, rules)
    fast = play_chunk(rules, policies, seed=seed, games=games)
    counts, table, wins = new_counts(n), new_table(n, seed=seed), np.zeros(n, np.int64)
    arrays, pol = rule_arrays(rules), policies.arrays()
    for _ in range(games):
        table.st[K.S_PHASE] = K.PH_NEW
        w = K.play_game(arrays, pol, nothing_given(rules.deck), counts, table, 1 << 62, False, False)
        if w >= 0:
            wins[w] += 1
    assert fast.hands == table.g[K.G_HANDS] and fast.wins == wins.tolist()
    for size in range(2, n + 1):
        for place in range(size):
            assert fast.position_hands[size, place] == counts.position_hands[size, place]
            assert fast.position_losses[size, place] == counts.position_losses[size, place]
    for rank in range(1, 14):
        assert fast.rank_hands[rank] == counts.rank_hands[rank]
        assert fast.rank_losses[rank] == counts.rank_losses[rank]
