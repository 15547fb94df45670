"""Typed events all the way: every dict of a seat's history reads back as a typed event, and the
typed form the log attaches (``Event.seen``) is exactly what reading the dict gives."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

import chasetheace as cta
from chasetheace.events import Event, Swap, SwapSeen, View, read_view
from test_properties import RULES, play_randomly


@settings(max_examples=40, deadline=None)
@given(rules=RULES, players=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_every_view_reads_back_as_its_typed_form(rules: cta.Rules, players: int, seed: int) -> None:
    game = cta.Game(rules, players, seed=seed)
    play_randomly(game, random.Random(seed), 0.5, check=False)
    for seat in [None, *range(players)]:
        history = game.observation(seat)["history"]
        assert len(history) == len(game.events)
        for view, event in zip(history, game.events):
            assert isinstance(view, View)
            plain = json.loads(json.dumps(view))  # what a client or a file would hand back
            assert read_view(plain) == view.seen == event.seen(seat)
            assert read_view(event.to_dict()) == event.revealed()


def test_a_swap_between_others_hides_its_cards() -> None:
    game = cta.Game(cta.Rules(), ["Ann", "Bob", "Cat"], seed=1)
    while game.to_act is not None and not any(e.type == "swap" for e in game.events):
        game.act("swap")
    swap = next(e for e in game.events if isinstance(e, Swap))
    outsider = next(s for s in range(3) if s not in (swap.seat, swap.neighbour))
    seen, own = swap.seen(outsider), swap.seen(swap.seat)
    assert isinstance(seen, SwapSeen) and seen.given is None and seen.received is None
    assert isinstance(own, SwapSeen) and own.given == swap.given


@settings(max_examples=25, deadline=None)
@given(players=st.integers(4, 7), seed=st.integers(0, 2**32 - 1))
def test_ace_chasing_views_read_back_as_their_typed_form(players: int, seed: int) -> None:
    from chasetheace.acechasing.events import read_view as read_ace_view

    game = cta.AceChasingGame(players, seed=seed)
    cta.play_ace_chasing_game(game, [cta.make_ace_chasing_bot("random")] * players, seed=seed)
    for seat in [None, *range(players)]:
        history = game.observation(seat)["history"]
        assert len(history) == len(game.events)
        for view, event in zip(history, game.events):
            assert isinstance(view, View)
            plain = json.loads(json.dumps(view))
            assert read_ace_view(plain) == view.seen == event.seen(seat)


@settings(max_examples=40, deadline=None)
@given(rules=RULES, players=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_a_seat_outside_an_events_insiders_sees_what_a_spectator_sees(
        rules: cta.Rules, players: int, seed: int) -> None:
    # the log works a view out once for every seat outside the insiders: it must be theirs
    game = cta.Game(rules, players, seed=seed)
    play_randomly(game, random.Random(seed), 0.5, check=False)
    for event in game.events:
        insiders = event.insiders()
        for seat in range(players):
            if type(event).view is not Event.view and insiders is not None \
                    and seat not in insiders:
                assert event.view(seat) == event.view(None)
                assert event.seen(seat) == event.seen(None)


@settings(max_examples=40, deadline=None)
@given(rules=RULES, players=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_histories_built_a_step_at_a_time_are_each_seats_own_views(
        rules: cta.Rules, players: int, seed: int) -> None:
    game = cta.Game(rules, players, seed=seed)
    rng = random.Random(seed)
    while not game.over:
        game.observation(rng.choice([None, *range(players)]))  # each seat's history grows unevenly
        game.act(rng.choice(["keep", "swap"]))
    for seat in [None, *range(players)]:
        history = game.observation(seat)["history"]
        assert list(history) == [event.view(seat) for event in game.events]
        assert [read_view(view) for view in history] == [event.seen(seat) for event in game.events]
