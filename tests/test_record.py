"""The typed game record: read once from JSON, written back the same, replayed in one pass by every
consumer (a review at the command line and at the web table counts its replays)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import chasetheace as cta
import chasetheace.acechasing.events as ace_events
import chasetheace.events as events
from chasetheace.cards import Card
from chasetheace.errors import RecordError
from chasetheace.record import FORMATS, LiveChance, Record, Replay
from chasetheace.registry import ACE_CHASING, CHASE_THE_ACE, kind_of_record

GOLDEN = Path(__file__).parent / "golden"
FILES = {"chase-the-ace": GOLDEN / "record_chase_the_ace_v1.json",
         "ace-chasing": GOLDEN / "record_ace_chasing_v1.json"}
"""Records written by the version before the typed record (format version 1), byte for byte."""


def _chase_the_ace(seed: int = 11) -> cta.Game:
    game = cta.Game(cta.Rules(), players=4, seed=seed)
    cta.play_game(game, [cta.ThresholdBot(8)] * 4, seed=2)
    return game


def _ace_chasing(seed: int = 3) -> cta.AceChasingGame:
    game = cta.AceChasingGame(["Ann", "Bob", "Cat", "Dan"], seed=seed)
    cta.play_ace_chasing_game(game, [cta.OddsBot()] * 4, seed=seed)
    return game


@pytest.fixture
def replays(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each replay of a record played (in this process), counted."""
    played: list[int] = []
    real = Replay.__iter__

    def counted(self: Replay[Any]) -> Iterator[tuple[Any, Any]]:
        played.append(1)
        return real(self)

    monkeypatch.setattr(Replay, "__iter__", counted)
    return played


# --- the record and its JSON -------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(FILES))
def test_a_version_1_file_reads_replays_and_writes_back_the_same(name: str) -> None:
    text = FILES[name].read_text(encoding="utf-8")
    record = Record.from_json(json.loads(text))
    kind = kind_of_record(record)
    assert kind.name == name and kind.holds(json.loads(text))
    game = kind.from_record(record)
    assert game.over and record.finished
    assert json.dumps(record.to_json(), indent=1) + "\n" == text  # the same file, key for key
    assert json.dumps(game.record(), indent=1) + "\n" == text


@pytest.mark.parametrize("make", [_chase_the_ace, _ace_chasing])
def test_from_json_and_to_json_are_symmetric(make: Any) -> None:
    game = make()
    record = game.to_record()
    assert Record.from_json(json.loads(json.dumps(record.to_json()))) == record
    assert record.to_json() == game.record()
    assert type(game).from_record(record).events == game.events


def test_the_repr_is_code_that_builds_the_same_record() -> None:
    scope = {**vars(events), **vars(ace_events), "Record": Record, "Rules": cta.Rules, "Card": Card}
    for game in (_chase_the_ace(), _ace_chasing()):
        record = game.to_record()
        assert eval(repr(record), scope) == record


def test_the_set_up_is_typed() -> None:
    game = cta.Game(cta.Rules(lives=2), ["Ann", "Bob", "Cat"], seed=1, stack=["Kd", "2c"], dealer=2, carry=4)
    record = game.to_record()
    assert record.rules == cta.Rules(lives=2) and record.players == ("Ann", "Bob", "Cat")
    assert record.deck is not None and record.deck[:2] == (Card("Kd"), Card("2c")) and len(record.deck) == 52
    assert (record.dealer, record.carry, record.finished) == (2, 4, False)
    assert all(isinstance(e, cta.Event) for e in record.events)
    ace = cta.AceChasingGame(5, seed=2, matador=3).to_record()
    assert (ace.format, ace.rules, ace.dealer, ace.carry) == ("chase-the-ace/ace-chasing", None, 3, 0)
    assert "matador" in ace.to_json() and "dealer" not in ace.to_json() and "rules" not in ace.to_json()


@pytest.mark.parametrize("change,message", [
    ({"players": "Ann"}, "bad set-up: 'players' must be a list of names"),
    ({"deck": "Kd"}, "bad set-up: 'deck' must be a list of cards"),
    ({"deck": ["Kd", "Zz"]}, "bad set-up: not a card: 'Zz'"),
    ({"dealer": "1"}, "bad set-up: 'dealer' must be a seat number or null"),
    ({"carry": 1.5}, "bad set-up: 'carry' must be an integer"),
    ({"format": "pgn"}, "not a game record: 'format' must be one of 'chase-the-ace/game', "
                        "'chase-the-ace/ace-chasing'"),
    ({"events": {}}, "'events' must be a list"),
])
def test_a_broken_record_gets_one_error_naming_what_is_wrong(change: dict[str, Any], message: str) -> None:
    data = {**_chase_the_ace().record(), **change}
    with pytest.raises(RecordError, match="^" + message.replace("(", r"\(")):
        Record.from_json(data)


def test_a_record_of_the_other_game_is_refused_by_name() -> None:
    with pytest.raises(RecordError, match="not an Ace Chasing record"):
        cta.AceChasingGame.from_record(_chase_the_ace().to_record())
    with pytest.raises(RecordError, match="not a game record: 'format' must be 'chase-the-ace/game'"):
        cta.Game.from_record(_ace_chasing().to_record())
    assert set(FORMATS) == {"chase-the-ace/game", "chase-the-ace/ace-chasing"}


# --- one replay, shared -------------------------------------------------------------------------------

def test_a_replay_yields_each_decision_once_then_the_game_at_its_end() -> None:
    game, rng, played = cta.Game(cta.Rules(), players=4, seed=8), random.Random(8), []
    while game.to_act is not None:
        played.append((game.to_act, rng.choice(["keep", "swap"])))
        game.act(played[-1][1])
    replay = cta.Game.replaying(game.to_record())
    assert [(state.to_act, move) for state, move in replay] == played
    assert replay.game.events == game.events and replay.game.over
    with pytest.raises(RuntimeError, match="played once"):
        iter(replay)


def test_an_ace_chasing_review_replays_once(replays: list[int], capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    from chasetheace import cli

    path = tmp_path / "ace.json"
    path.write_text(json.dumps(_ace_chasing().record()))
    assert cli.main(["review", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["decisions"]
    assert replays == [1]
    replays.clear()
    ACE_CHASING.review(ACE_CHASING.read_record(json.loads(path.read_text())), None, None)
    assert replays == [1]


def test_a_chase_the_ace_review_at_the_command_line_replays_once(
        replays: list[int], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    pytest.importorskip("scipy")
    from chasetheace import cli

    game = cta.Game(cta.Rules(), players=3, seed=5)
    cta.play_game(game, [cta.RandomBot()] * 3, seed=random.Random(5).randrange(99))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.record()))
    assert cli.main(["review", str(path), "--json"]) == 0  # solves ahead (2 and 3 players), then judges
    data = json.loads(capsys.readouterr().out)
    assert data["decisions"] and data["complete"]
    assert replays == [1]
    assert CHASE_THE_ACE.holds(game.to_record())


def test_a_web_review_build_replays_once(replays: list[int], tmp_path: Path) -> None:
    pytest.importorskip("uvicorn")
    httpx = pytest.importorskip("httpx")
    pytest.importorskip("numpy")
    pytest.importorskip("scipy")
    from chasetheace.solver.solutions import cache
    from test_web_http import finished_table
    from webtools import LiveServer

    for n in (2, 3):  # the standard rules' solutions, in the test run's cache folder: nothing to prepare
        cache.solution_for(cta.Rules(), n)
    db = str(tmp_path / "t.sqlite3")
    tables = {"chase-the-ace": finished_table(db, seats=3), "ace-chasing": finished_table(db, seats=4,
                                                                                          game="ace-chasing")}
    server = LiveServer(db)
    try:
        with httpx.Client(base_url=server.url) as http:
            for table_id in tables.values():
                replays.clear()
                response = http.get(f"/api/review/{table_id}/1")
                assert response.status_code == 200, response.text
                assert replays == [1]
                assert http.get(f"/api/review/{table_id}/1").content == response.content
                assert replays == [1]  # kept: built once
                record = http.get(f"/api/record/{table_id}/1")
                assert record.status_code == 200 and Record.from_json(record.json()).finished
                assert replays == [1, 1]  # the record sent is checked by one replay too
    finally:
        server.stop()


# --- live chance -------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [0, 1, 2, 3, 5, 32, 52])
def test_live_chance_shuffles_as_random_shuffle_does(size: int) -> None:
    """LiveChance's shuffle (random.Random.shuffle written out) gives the same order as the
    generator's own shuffle from the same seed, and leaves the generator in the same state."""
    for seed in range(200):
        ours, theirs = random.Random(seed), random.Random(seed)
        cards = cta.pack(52)[:size]
        expected = list(cards)
        theirs.shuffle(expected)
        assert LiveChance(ours).shuffle(cards) == expected
        assert cards == cta.pack(52)[:size]  # the input is left as it was
        assert ours.getstate() == theirs.getstate()


def test_live_chance_uses_a_generator_s_own_shuffle_when_it_has_one() -> None:
    class Reversing(random.Random):
        def shuffle(self, x: list[Any]) -> None:  # type: ignore[override]
            x.reverse()

    cards = cta.pack(52)[:3]
    assert LiveChance(Reversing(1)).shuffle(cards) == cards[::-1]
