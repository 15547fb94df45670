"""The shared encoder: fixed size, values in 0..1, one line of text, for any rules and play."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy")

from hypothesis import given, settings
from hypothesis import strategies as st

import chasetheace as cta
from chasetheace.adapters.encoding import Encoder, hand_events

rule_sets = st.fixed_dictionaries({}, optional={
    key: (st.integers(1, 3) if key == "lives" else st.integers(0, 2) if key == "ante"
          else st.sampled_from(option.values))
    for key, option in cta.OPTIONS.items()})


@settings(max_examples=40, deadline=None)
@given(rule_sets, st.integers(2, 6), st.integers(0, 10**6), st.lists(st.booleans(), max_size=60))
def test_tensor_shape_range_and_text(options: dict[str, object], players: int, seed: int,
                                     moves: list[bool]) -> None:
    rules = cta.Rules().replace(**options)
    game = cta.Game(rules, players=players, seed=seed)
    enc = Encoder(rules, players)
    for swap in moves:
        if game.over:
            break
        for seat in (None, game.to_act):
            obs = game.observation(seat)
            for hand in (None, max(1, game.hand - 1)):
                tensor = enc.tensor(obs, hand=hand)
                assert tensor.shape == (enc.size,)
                assert tensor.min() >= 0.0 and tensor.max() <= 1.0
                assert "\n" not in enc.text(obs, hand=hand, history=True)
        game.act("swap" if swap else "keep")


def test_hand_events_picks_one_hand() -> None:
    game = cta.Game(cta.Rules(), players=3, seed=2)
    while game.hand < 3:
        game.act("keep")
    obs = game.observation(0)
    for hand in (1, 2, 3):
        events = hand_events(obs, hand)
        assert events[0] == {"type": "hand_started", "hand": hand, "dealer": events[0]["dealer"],
                             "order": events[0]["order"]}
        assert all(e["type"] != "hand_started" for e in events[1:])
    assert hand_events(obs) == hand_events(obs, 3) and hand_events(obs, 9) == []
