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
            assert view == event.view(seat)  # the log's View (public_view's, say) is the event's view
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
            assert view == event.view(seat)  # the log's View (public_view's, say) is the event's view
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


def test_each_game_has_a_closed_union_of_events_and_of_views() -> None:
    import typing

    from chasetheace import events
    from chasetheace.acechasing import events as ace

    games = ((events.GameEvent, events.SeenEvent, events.EVENT_TYPES, events.VIEW_TYPES),
             (ace.AceChasingEvent, ace.AceChasingSeen, ace.ACE_CHASING_EVENTS, ace.ACE_CHASING_VIEWS))
    for full, seen, types, views in games:
        assert list(types.values()) == list(typing.get_args(full))
        assert list(views.values()) == list(typing.get_args(seen))
        assert set(types) == set(views)  # every event has one class its views read back as
        for name, cls in types.items():
            assert views[name] is cls or views[name].__name__ == cls.__name__ + "Seen", name


def test_every_match_over_events_ends_in_assert_never() -> None:
    """A match over events names its cases by class; its last case hands the rest to
    assert_never, so that mypy names the match when an event is added to a game's union."""
    import ast
    from pathlib import Path

    from chasetheace import events
    from chasetheace.acechasing import events as ace

    names = {cls.__name__ for cls in (*events.VIEW_TYPES.values(), *events.EVENT_TYPES.values(),
                                      *ace.ACE_CHASING_EVENTS.values())}
    src = Path(__file__).parent.parent / "src"
    found = []
    for path in src.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Match):
                continue
            classes = {ast.unparse(n.cls) for case in node.cases for n in ast.walk(case.pattern)
                       if isinstance(n, ast.MatchClass)}
            if classes & names:
                last = node.cases[-1]
                found.append(f"{path.relative_to(src)}:{node.lineno}")
                assert (isinstance(last.pattern, ast.MatchAs) and last.pattern.pattern is None
                        and "assert_never" in ast.unparse(last.body[0])), found[-1]
    assert len(found) >= 10  # the narrators, the bot, the encoder, the observers, the tallies...
