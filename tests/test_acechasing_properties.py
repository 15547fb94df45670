"""Property tests of Ace Chasing: any legal play keeps the invariants of RULES.md part B.

The referee here re-derives every round from the omniscient events (the deal, then each keep or
swap) and resolves it by its own reading of the five steps, so the engine is checked against an
independent implementation.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chasetheace as cta
from chasetheace.acechasing.events import BetAccepted, RoundStarted, Settled, Shown
from chasetheace.cards import Card, pack
from chasetheace.events import Dealt, Eliminated, GameOver, Swap

PACK = sorted(pack(52))


def referee_out(hands: dict[int, Card], matador: int) -> tuple[int, ...]:
    """Who is out by part B's five steps, in seat order of ``hands`` (the deal order)."""
    top = hands[matador]
    face_up = {matador} | {s for s, c in hands.items() if c.rank < top.rank}
    aces = {hands[s].suit for s in face_up if hands[s].rank == 1}
    face_up |= {s for s, c in hands.items() if c.suit in aces}
    others = tuple(s for s in hands if s in face_up and s != matador)
    return others or (matador,)


def check_history(game: cta.AceChasingGame) -> None:
    """Replays the event list by hand and checks each round's outcome and payments."""
    alive = set(range(game.players))
    hands: dict[int, Card] = {}
    bets: list[tuple[int, int]] = []
    matador = game.first_matador
    money = [0] * game.players
    rounds = 0
    for ev in game.events:
        if isinstance(ev, RoundStarted):
            rounds += 1
            assert ev.matador == matador and ev.matador in alive
            n = game.players  # clockwise from the matador's left, the matador last:
            assert list(ev.order) == [s % n for s in range(matador + 1, matador + n + 1) if s % n in alive]
            bets = []
        elif isinstance(ev, Dealt):
            hands = dict(ev.cards)
        elif isinstance(ev, BetAccepted):
            bets.append((ev.seat, ev.amount))
        elif isinstance(ev, Swap):
            assert (hands[ev.seat], hands[ev.neighbour]) == (ev.given, ev.received)
            assert ev.seat != matador
            hands[ev.seat], hands[ev.neighbour] = ev.received, ev.given
        elif isinstance(ev, Shown):
            assert all(hands[s] == c for s, c in ev.cards)
        elif isinstance(ev, Settled):
            survived = referee_out(hands, matador) != (matador,)
            assert ev.survived == survived
            total = sum(a for _, a in bets)
            for s, a in bets:
                money[s] += -a if survived else a
            if bets:
                money[matador] += total if survived else -total
        elif isinstance(ev, Eliminated):
            assert ev.seats == referee_out(hands, matador)
            alive -= set(ev.seats)
            if len(alive) > 1:
                right = [(matador - k) % game.players for k in range(1, game.players)]
                matador = next(s for s in right if s in alive)
        elif isinstance(ev, GameOver):
            assert ev.winners == tuple(alive)
    assert money == game.money
    assert rounds <= game.players - 1  # every round puts at least one player out


def card_strings(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for v in value.values():
            yield from card_strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from card_strings(v)
    elif isinstance(value, str) and len(value) == 2:
        with contextlib.suppress(ValueError):
            yield str(Card.parse(value))


def knowable(game: cta.AceChasingGame, seat: int | None) -> set[str]:
    """Every card ``seat`` has been allowed to see so far: dealt to it, swapped by it, or shown."""
    known: set[str] = set()
    for ev in game.events:
        if isinstance(ev, Dealt):
            known |= {str(c) for s, c in ev.cards if s == seat}
        elif isinstance(ev, Swap) and seat in (ev.seat, ev.neighbour):
            known |= {str(ev.given), str(ev.received)}
        elif isinstance(ev, Shown):
            known |= {str(c) for _, c in ev.cards}
    return known


def check_state(game: cta.AceChasingGame) -> None:
    held = [c for c in (game.card(s) for s in range(game.players)) if c is not None]
    assert sorted(held + game.stock) == PACK  # cards conserved
    assert sum(game.money) == 0  # money only moves between players
    for seat in [*range(game.players), None]:
        obs = game.observation(seat)
        json.dumps(obs)
        assert set(card_strings(obs)) <= knowable(game, seat)
        for s, text in enumerate(obs["cards"]):
            assert text is None or text == str(game.card(s))
        assert (obs["legal"] != []) == (seat is not None and seat == game.to_act)


def drive(game: cta.AceChasingGame, data: st.DataObject, *, check_every: bool) -> None:
    steps = 0
    while not game.over:
        legal = game.legal_actions()
        if legal == ["offer"]:
            action: Any = cta.Offer(data.draw(st.integers(0, 12), label="offer"))
        else:
            action = data.draw(st.sampled_from(legal), label="decision")
        game.act(action)
        steps += 1
        assert steps < 52 * 60, "the game does not end"
        if check_every:
            check_state(game)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # examples: the profile
@given(players=st.integers(4, 7), seed=st.integers(0, 2**32), matador=st.integers(0, 6), data=st.data())
def test_any_play_keeps_the_invariants(players: int, seed: int, matador: int, data: st.DataObject) -> None:
    game = cta.AceChasingGame(players, seed=seed, matador=matador % players)
    check_state(game)
    drive(game, data, check_every=True)
    assert game.over and game.players_in == [game.winner]
    check_history(game)
    again = cta.AceChasingGame.from_record(json.loads(json.dumps(game.record())))
    assert again.events == game.events and again.money == game.money


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(8, 52), seed=st.integers(0, 2**32), data=st.data())
def test_large_tables_end_and_replay(players: int, seed: int, data: st.DataObject) -> None:
    game = cta.AceChasingGame(players, seed=seed)
    drive(game, data, check_every=False)
    check_state(game)
    check_history(game)
    again = cta.AceChasingGame.from_record(json.loads(json.dumps(game.record())))
    assert again.events == game.events


@settings(max_examples=20, deadline=None)
@given(players=st.integers(4, 9), seed=st.integers(0, 2**32),
       specs=st.lists(st.sampled_from(["odds", "random", "threshold:9", "odds:stake=25,margin=0.2"]),
                      min_size=9, max_size=9))
def test_bots_play_legal_games(players: int, seed: int, specs: list[str]) -> None:
    game = cta.AceChasingGame(players, seed=seed)
    cta.play_ace_chasing_game(game, [cta.make_ace_chasing_bot(s) for s in specs[:players]], seed=seed)
    check_state(game)
    check_history(game)
