"""Bad input gets one clear error naming what was wrong, and changes nothing."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import chasetheace as cta
from helpers import stacked


def test_unknown_action_out_of_turn_and_after_the_end() -> None:
    g = stacked("9c 9d 8h 2c 5s", players=4)
    before = (list(g.events), g.to_act)
    with pytest.raises(cta.IllegalActionError, match="unknown action 'fold': allowed keep, swap"):
        g.act("fold")
    with pytest.raises(cta.IllegalActionError, match="out of turn: it is seat 0's turn"):
        g.act("keep", seat=2)
    assert (g.events, g.to_act) == before
    assert g.can_act("keep", seat=0) and not g.can_act("keep", seat=1)
    with pytest.raises(ValueError, match="unknown action"):  # an IllegalActionError is a ValueError
        g.act("fold")
    assert (g.events, g.to_act) == before
    g = stacked("2c 9d", players=2, lives=1)
    g.act("keep")
    g.act("keep")
    with pytest.raises(cta.IllegalActionError, match="the game is over"):
        g.act("keep")


def test_action_values_and_members_are_both_accepted() -> None:
    g = stacked("9c 9d 8h 2c 5s", players=4)
    g.act(cta.Action.KEEP)
    g.act("swap")
    assert [e.type for e in g.events[-2:]] == ["keep", "swap"]


@pytest.mark.parametrize("call,message", [
    (lambda: cta.Rules.preset("poker"), "unknown preset 'poker': allowed standard"),
    (lambda: cta.Rules().replace(live=3), "unknown rule 'live': allowed lives, ranking"),
    (lambda: cta.Rules().replace(lives=0), "bad value 0 for rule 'lives': allowed any integer >= 1"),
    (lambda: cta.Rules().replace(deck=36), "bad value 36 for rule 'deck': allowed 52, 32"),
    (lambda: cta.Rules().replace(ties="dealer"), "allowed all-lose, eldest-loses, latest-loses"),
    (lambda: cta.Rules().replace(pairing="yes"), "bad value 'yes' for rule 'pairing'"),
    (lambda: cta.Rules().with_text("lives", "many"), "bad value 'many' for rule 'lives'"),
    (lambda: cta.Game(cta.Rules(), players=1), "bad number of players 1: allowed 2..51"),
    (lambda: cta.Game(cta.Rules(), players=52), "bad number of players 52"),
    (lambda: cta.Game(cta.Rules(), players=["A", "A"]), "names must differ"),
    (lambda: cta.Game(cta.Rules(), players=3, dealer=3), "bad dealer 3: allowed 0..2"),
    (lambda: cta.Game(cta.Rules(), players=3, stack=["Kc", "Kc"]), "Kc appears twice"),
    (lambda: cta.Game(cta.Rules(), players=3, stack=["Kx"]), "not a card: 'Kx'"),
    (lambda: cta.Game(cta.Rules(), players=3).observation(7), "bad seat 7"),
    (lambda: cta.make_bot("genius"), "unknown bot 'genius': allowed random, threshold"),
])
def test_bad_input_is_one_clear_value_error(call: Any, message: str) -> None:
    with pytest.raises(ValueError) as info:
        call()
    assert message in str(info.value)


def test_rules_text_and_aliases() -> None:
    assert cta.Rules().with_text("pairing", "true").pairing is True
    assert cta.Rules().with_text("king-stops-play", "yes").king_stops_play is True
    assert cta.Rules().with_text("deck", "32").deck == 32
    assert cta.Rules.preset("Ranter-Go-Round") == cta.Rules.preset("standard")
    assert cta.Rules.preset("screw-your-neighbor") == cta.Rules.preset("screw-your-neighbour")
    assert cta.Rules.preset("wikipedia-1926") == cta.Rules.preset("hoyle")
    assert cta.Rules.from_dict(cta.Rules.preset("cuckoo").to_dict()) == cta.Rules.preset("cuckoo")
    assert cta.Rules.preset("cuckoo").changes() == {
        "blocker": "king", "dealer_exchange": "top", "dealer_draws_blocker": "void",
        "final_tie": "split"}


def test_cards_read_and_write_symmetrically() -> None:
    for card in cta.pack(52):
        assert cta.Card.parse(str(card)) is card
        assert eval(repr(card), {"Card": cta.Card}) is card
    assert cta.Card.parse("10h") is cta.Card.parse("Th")
    assert cta.Card(10, "h") is cta.Card.parse("Th")


def _record() -> dict[str, Any]:
    game = cta.Game(cta.Rules(), players=4, seed=11)
    cta.play_game(game, [cta.ThresholdBot(8)] * 4, seed=2)
    record: dict[str, Any] = json.loads(json.dumps(game.record()))  # as a file would give it back
    return record


def _index_of(record: dict[str, Any], kind: str) -> int:
    return next(i for i, e in enumerate(record["events"]) if e["type"] == kind)


def test_a_tampered_deal_is_named() -> None:
    rec = _record()
    i = _index_of(rec, "dealt")
    cards = rec["events"][i]["cards"]
    cards[0][1], cards[1][1] = cards[1][1], cards[0][1]
    with pytest.raises(cta.RecordError, match=f"^event {i}: the record says"):
        cta.Game.from_record(rec)


def test_a_tampered_decision_is_named() -> None:
    rec = _record()
    i = _index_of(rec, "keep")
    rec["events"][i]["seat"] = (rec["events"][i]["seat"] + 1) % 4
    with pytest.raises(cta.RecordError, match=f"^event {i}: seat .* must decide here"):
        cta.Game.from_record(rec)


@pytest.mark.parametrize("mutate,message", [
    (lambda r: r.update(version=9), "unsupported record version 9"),
    (lambda r: r.update(format="pgn"), "not a game record"),
    (lambda r: r.pop("events"), "the record lacks events"),
    (lambda r: r["rules"].update(lives="x"), "bad rules: bad value 'x' for rule 'lives'"),
    (lambda r: r["events"].append({"type": "keep", "seat": 0}), "the game is over, but the record"),
    (lambda r: r["events"].__setitem__(2, {"type": "nonsense"}), "event 2: unknown event type"),
    (lambda r: r["events"][2].update(cards=["Ac"] * 52), "event 2: the shuffle is not an order"),
    (lambda r: r["events"][3].update(extra=1), "event 3: hand_started event has unknown fields"),
    (lambda r: r["events"][3].update(hand="one"), "event 3: hand_started event, field 'hand'"),
    (lambda r: r.update(players=["A"]), "bad set-up: bad number of players 1"),
])
def test_broken_records_get_one_clear_error(mutate: Any, message: str) -> None:
    rec = _record()
    mutate(rec)
    with pytest.raises(cta.RecordError, match=message.replace("(", r"\(")):
        cta.Game.from_record(rec)


def test_a_truncated_record_replays_a_game_in_progress() -> None:
    game = cta.Game(cta.Rules(), players=4, seed=11)
    for _ in range(5):
        game.act("swap")
    rec = game.record()
    again = cta.Game.from_record(copy.deepcopy(rec))
    assert again.to_act == game.to_act and again.events == game.events
    rec["events"] = rec["events"][:4]  # cut inside the automatic deal: the rules go on
    with pytest.raises(cta.RecordError, match="the record ends"):
        cta.Game.from_record(rec)


def test_not_a_mapping() -> None:
    with pytest.raises(cta.RecordError, match="must be a JSON object"):
        cta.Game.from_record([1, 2])
