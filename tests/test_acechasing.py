"""Ace Chasing (RULES.md part B): the worked example, the betting, bad actions, records."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import chasetheace as cta
from chasetheace.acechasing.events import BetAccepted, BetDeclined, Offered, Settled, Shown
from chasetheace.acechasing.game import MAX_OFFERS, AceAction
from chasetheace.events import Eliminated, Swap

# Seats 0..3 are A (the matador), B, C, D. The deal goes B, C, D, then the matador last.
EXAMPLE = ["A", "B", "C", "D"]


def example(matador_card: str) -> cta.AceChasingGame:
    """The worked example of part B: B 9c, C Ah, D 7h, and the matador's card; every bet is 5."""
    game = cta.AceChasingGame(EXAMPLE, stack=["9c", "Ah", "7h", matador_card])
    for _ in range(3):
        game.act(cta.Offer(5))
        game.act("accept")
    for _ in range(3):
        game.act("keep")
    return game


def shown(game: cta.AceChasingGame, round_: int = 1) -> dict[int, list[tuple[int, str]]]:
    """The cards shown at each resolution step of a round."""
    out: dict[int, list[tuple[int, str]]] = {}
    current = 0
    for ev in game.events:
        if ev.type == "round_started":
            current = ev.to_dict()["round"]
        if isinstance(ev, Shown) and current == round_:
            out[ev.step] = [(s, str(c)) for s, c in ev.cards]
    return out


def eliminated(game: cta.AceChasingGame) -> list[tuple[int, ...]]:
    return [ev.seats for ev in game.events if isinstance(ev, Eliminated)]


def test_example_matador_ace_of_clubs_knocks_out_the_club() -> None:
    game = example("Ac")
    assert shown(game) == {1: [(0, "Ac")], 3: [(1, "9c")]}
    assert eliminated(game)[0] == (1,)
    assert game.money == [15, -5, -5, -5]
    assert game.players_in == [0, 2, 3]
    assert game.matador == 3  # the nearest survivor to A's right is D


def test_example_matador_two_of_clubs_knocks_out_the_ace_then_its_suit() -> None:
    game = example("2c")
    assert shown(game) == {1: [(0, "2c")], 2: [(2, "Ah")], 3: [(3, "7h")]}
    assert eliminated(game)[0] == (2, 3)
    assert game.money == [15, -5, -5, -5]
    assert game.players_in == [0, 1]
    assert game.matador == 1  # D and C are out: B is the nearest survivor to A's right


def test_example_matador_ace_of_diamonds_is_knocked_out_and_pays() -> None:
    game = example("Ad")
    assert shown(game) == {1: [(0, "Ad")]}
    assert eliminated(game)[0] == (0,)
    settled = next(ev for ev in game.events if isinstance(ev, Settled))
    assert not settled.survived and settled.payments == ((1, 5), (2, 5), (3, 5), (0, -15))
    assert game.money == [-15, 5, 5, 5]
    assert game.players_in == [1, 2, 3]
    assert game.matador == 3


def test_equal_rank_does_not_show() -> None:
    game = cta.AceChasingGame(4, stack=["7c", "7d", "8h", "7s"])
    for _ in range(3):
        game.act(cta.Offer(0))
    for _ in range(3):
        game.act("keep")
    assert shown(game) == {1: [(0, "7s")]}
    assert eliminated(game)[0] == (0,)


def test_deal_goes_clockwise_from_the_matadors_left_matador_last() -> None:
    game = cta.AceChasingGame(5, stack=["2c", "3c", "4c", "5c", "6c"], matador=2)
    assert game.order == [3, 4, 0, 1, 2]
    assert [game.card(s) for s in game.order] == [cta.Card.parse(c) for c in ("2c", "3c", "4c", "5c", "6c")]
    assert game.to_act == 3
    assert len(game.stock) == 47


def test_the_matador_receives_what_the_player_on_its_right_passes() -> None:
    game = cta.AceChasingGame(4, stack=["Kc", "Qc", "3d", "Jh"])
    for _ in range(3):
        game.act(cta.Offer(0))
    game.act("keep")
    game.act("keep")
    assert game.to_act == 3 and game.legal_actions() == [AceAction.KEEP, AceAction.SWAP]
    events = game.act("swap")
    swap = next(ev for ev in events if isinstance(ev, Swap))
    assert (swap.seat, swap.neighbour, str(swap.given), str(swap.received)) == (3, 0, "3d", "Jh")
    # The matador's card is now the 3: Kc, Qc and the Jh all stay hidden, the matador is out.
    assert shown(game) == {1: [(0, "3d")]}
    assert eliminated(game)[0] == (0,)


def test_the_matador_takes_no_turn_in_the_exchanges() -> None:
    game = cta.AceChasingGame(4, seed=1)
    for _ in range(3):
        game.act(cta.Offer(0))
    seats = []
    while game.round == 1:
        seats.append(game.to_act)
        game.act("keep")
    assert seats == [1, 2, 3]


def test_next_matador_is_to_the_right_even_when_the_matador_survives() -> None:
    game = cta.AceChasingGame(6, stack=["Kd", "Kh", "Ks", "Qd", "Ac", "5d"], matador=3)
    # order 4 5 0 1 2 3: seat 2 holds Ac (lower than 5d) and shows; the matador survives.
    assert game.order == [4, 5, 0, 1, 2, 3]
    for _ in range(5):
        game.act(cta.Offer(0))
    for _ in range(5):
        game.act("keep")
    assert eliminated(game)[0] == (2,)
    assert game.matador == 1  # seat 2, on the matador's right, is out


def test_a_bet_needs_both_sides_and_three_offers_at_most() -> None:
    game = cta.AceChasingGame(4, seed=5)
    game.act(cta.Offer(10))
    assert game.to_act == 0 and game.offer == (1, 10)
    assert game.legal_actions() == [AceAction.ACCEPT, AceAction.DECLINE]
    game.act("decline")
    assert game.to_act == 1
    game.act(cta.Offer(6))
    game.act("decline")
    game.act(cta.Offer(3))
    game.act("decline")
    assert game.to_act == 2  # a third declined offer ends seat 1's turn with no bet
    game.act(cta.Offer(4))
    game.act("accept")
    game.act(cta.Offer(0))
    offers = [(ev.seat, ev.amount, ev.number) for ev in game.events if isinstance(ev, Offered)]
    assert offers == [(1, 10, 1), (1, 6, 2), (1, 3, 3), (2, 4, 1), (3, 0, 1)]
    answers = [type(ev) for ev in game.events if isinstance(ev, BetAccepted | BetDeclined)]
    assert answers == [BetDeclined] * 3 + [BetAccepted]
    assert game.bets == [(2, 4)]
    assert game.phase == "exchanges"
    assert game.observation(3)["bets"] == [[2, 4]]


def test_withdraw_after_a_decline() -> None:
    game = cta.AceChasingGame(4, seed=5)
    game.act(cta.Offer(10))
    game.act("decline")
    game.act(cta.Offer(0))
    assert game.to_act == 2 and game.bets == []


# --- bad actions: one clear error, nothing changed -------------------------------------------

def snapshot(game: cta.AceChasingGame) -> tuple[Any, ...]:
    return (json.dumps(game.record()), game.to_act, list(game.money), game.phase,
            json.dumps([game.observation(s) for s in range(game.players)]))


def in_exchanges() -> cta.AceChasingGame:
    game = cta.AceChasingGame(4, seed=9)
    for _ in range(3):
        game.act(cta.Offer(0))
    return game


def after_three_offers() -> cta.AceChasingGame:
    game = cta.AceChasingGame(4, seed=9)
    for amount in (9, 8, 7):
        game.act(cta.Offer(amount))
        game.act("decline")
    return game


@pytest.mark.parametrize(("make", "action", "seat", "words"), [
    (lambda: cta.AceChasingGame(4, seed=9), cta.Offer(-1), None, "bad offer -1"),
    (lambda: cta.AceChasingGame(4, seed=9), cta.Offer(2.5), None, "bad offer 2.5"),  # type: ignore[arg-type]
    (lambda: cta.AceChasingGame(4, seed=9), cta.Offer("5"), None, "bad offer '5'"),  # type: ignore[arg-type]
    (lambda: cta.AceChasingGame(4, seed=9), cta.Offer(True), None, "bad offer True"),
    (lambda: cta.AceChasingGame(4, seed=9), cta.Offer(5), 2, "seat 2 acted out of turn"),
    (lambda: cta.AceChasingGame(4, seed=9), cta.Offer(5), 0, "seat 0 acted out of turn"),
    (lambda: cta.AceChasingGame(4, seed=9), "accept", None, "cannot accept now"),
    (lambda: cta.AceChasingGame(4, seed=9), "keep", None, "cannot keep now"),
    (lambda: cta.AceChasingGame(4, seed=9), "offer", None, "say how much"),
    (lambda: cta.AceChasingGame(4, seed=9), "bet", None, "unknown action 'bet'"),
    (in_exchanges, cta.Offer(5), None, "the betting is closed"),
    (in_exchanges, cta.Offer(0), None, "the betting is closed"),
    (in_exchanges, "keep", 0, "the matador takes no turn"),
    (after_three_offers, cta.Offer(5), 1, f"it has made its {MAX_OFFERS} offers this round"),
])
def test_bad_actions_raise_and_change_nothing(make: Any, action: Any, seat: int | None,
                                              words: str) -> None:
    game = make()
    before = snapshot(game)
    assert not game.can_act(action, seat)
    with pytest.raises(cta.IllegalActionError, match=words.replace("(", r"\(")):
        game.act(action, seat)
    assert snapshot(game) == before


def test_an_offer_while_the_matador_must_answer() -> None:
    game = cta.AceChasingGame(4, seed=9)
    game.act(cta.Offer(5))
    before = snapshot(game)
    words = r"seat 0 \(the matador\) must accept or decline seat 1's offer of 5, not offer"
    with pytest.raises(cta.IllegalActionError, match=words):
        game.act(cta.Offer(6))
    assert snapshot(game) == before


def test_no_action_after_the_game_is_over() -> None:
    game = cta.AceChasingGame(4, seed=2)
    cta.play_ace_chasing_game(game, [cta.make_ace_chasing_bot("odds")] * 4, seed=2)
    assert game.over and game.legal_actions() == []
    with pytest.raises(cta.IllegalActionError, match="the game is over"):
        game.act("keep")


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"players": 3}, "bad number of players 3"),
    ({"players": 53}, "bad number of players 53"),
    ({"players": ["a", "a", "b", "c"]}, "must differ"),
    ({"players": 4, "matador": 4}, "bad matador 4"),
    ({"players": 4, "stack": ["Ac", "Ac"]}, "appears twice"),
    ({"players": 4, "stack": ["Zz"]}, "not a card"),
    ({"players": 4, "seed": 1, "rng": object()}, "seed or rng"),
])
def test_bad_set_up(kwargs: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        cta.AceChasingGame(**kwargs)


# --- observations ----------------------------------------------------------------------------

def test_a_bettor_sees_its_own_card_only() -> None:
    game = cta.AceChasingGame(4, stack=["9c", "Ah", "7h", "Ac"])
    obs = game.observation(1)
    assert obs["card"] == "9c" and obs["cards"] == [None, "9c", None, None]
    assert obs["legal"] == ["offer"] and game.observation(2)["legal"] == []
    text = json.dumps(game.observation(None))
    for card in ("9c", "Ah", "7h", "Ac"):
        assert card not in text


def test_a_swap_tells_both_sides_and_nobody_else() -> None:
    game = cta.AceChasingGame(4, stack=["9c", "Ah", "7h", "Ac"])
    for _ in range(3):
        game.act(cta.Offer(0))
    game.act("swap")  # B gives 9c to C, takes Ah
    assert game.observation(1)["cards"] == [None, "Ah", "9c", None]
    assert game.observation(2)["cards"] == [None, "Ah", "9c", None]
    assert game.observation(3)["cards"] == [None, None, None, "7h"]
    assert "Ah" not in json.dumps(game.observation(3))


# --- records ---------------------------------------------------------------------------------

def played(seed: int = 4, players: int = 5) -> cta.AceChasingGame:
    game = cta.AceChasingGame(players, seed=seed)
    bots = [cta.make_ace_chasing_bot(s) for s in ("odds", "random", "threshold:9", "odds:stake=30", "random")]
    cta.play_ace_chasing_game(game, bots[:players], seed=seed)
    return game


def test_record_replays_event_for_event() -> None:
    game = played()
    data = json.loads(json.dumps(game.record()))
    assert data["format"] == "chase-the-ace/ace-chasing" and data["version"] == 1
    again = cta.AceChasingGame.from_record(data)
    assert again.events == game.events
    assert (again.money, again.winner, again.players_in) == (game.money, game.winner, game.players_in)


def test_a_record_of_an_unfinished_game_replays_and_plays_on() -> None:
    game = cta.AceChasingGame(4, stack=["9c", "Ah", "7h", "Ac"], matador=0)
    game.act(cta.Offer(3))
    game.act("decline")
    again = cta.AceChasingGame.from_record(game.record(), seed=1)
    assert again.events == game.events and again.to_act == 1 and again.offer is None
    again.act(cta.Offer(2))
    assert again.offer == (1, 2)


def bad(record: dict[str, Any], index: int, **change: Any) -> dict[str, Any]:
    out = copy.deepcopy(record)
    out["events"][index].update(change)
    return out


def event_index(record: dict[str, Any], kind: str) -> int:
    return next(i for i, ev in enumerate(record["events"]) if ev["type"] == kind)


def test_a_bad_record_names_the_first_bad_event() -> None:
    record = played().record()
    i_offer, i_shown, i_settled = (event_index(record, k) for k in ("offered", "shown", "settled"))
    cases = [
        (bad(record, i_offer, amount=-3), i_offer, "bad offer"),
        (bad(record, i_offer, number=2), i_offer, "the record says"),
        (bad(record, i_shown, step=2), i_shown, "the record says"),
        (bad(record, i_settled, survived="yes"), i_settled, "expected true or false"),
        (bad(record, 0, cards=["Ac"] * 52), 0, "not an order of the cards being shuffled"),
        (bad(record, 2, type="nonsense"), 2, "unknown event type"),
    ]
    for data, index, words in cases:
        with pytest.raises(cta.RecordError, match=words) as info:
            cta.AceChasingGame.from_record(data)
        assert info.value.index == index, words


def test_a_record_cut_short_or_run_on() -> None:
    record = played().record()
    short = dict(record, events=record["events"][:-1])
    with pytest.raises(cta.RecordError, match="the record ends"):
        cta.AceChasingGame.from_record(short)
    long = dict(record, events=[*record["events"], {"type": "keep", "seat": 0}])
    with pytest.raises(cta.RecordError, match="the game is over, but the record goes on") as info:
        cta.AceChasingGame.from_record(long)
    assert info.value.index == len(record["events"])


@pytest.mark.parametrize(("data", "words"), [
    ([], "must be a JSON object"),
    ({"format": "chase-the-ace/game", "version": 1}, "not an Ace Chasing record"),
    ({"format": "chase-the-ace/ace-chasing", "version": 7}, "unsupported record version 7"),
    ({"format": "chase-the-ace/ace-chasing", "version": 1}, "lacks events, players"),
    ({"format": "chase-the-ace/ace-chasing", "version": 1, "players": 2, "events": []}, "bad set-up"),
])
def test_bad_record_set_up(data: Any, words: str) -> None:
    with pytest.raises(cta.RecordError, match=words):
        cta.AceChasingGame.from_record(data)


def test_a_decision_the_record_cannot_explain() -> None:
    record = cta.AceChasingGame(4, seed=3).record()
    record["events"].append({"type": "keep", "seat": 1})
    with pytest.raises(cta.RecordError, match="seat 1 cannot keep now: it must offer a bet") as info:
        cta.AceChasingGame.from_record(record)
    assert info.value.index == 3
    record["events"][3] = {"type": "bet_accepted", "seat": 1, "amount": 5}
    with pytest.raises(cta.RecordError, match="seat 1 must offer a bet") as info:
        cta.AceChasingGame.from_record(record)
    assert info.value.index == 3
