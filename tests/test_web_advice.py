"""Hints and reviews at the web table: a house rule, the seat's own view, never a solve on the loop."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import TEST_TOOL

pytest.importorskip("starlette")
pytest.importorskip("numpy")
pytest.importorskip("scipy")
pytest.importorskip("httpx", reason=TEST_TOOL.format("httpx"))

import httpx

import chasetheace as cta
from chasetheace.solver.solutions import cache
from chasetheace.solver.uses.advice import hint
from chasetheace.web.protocol import Create, ProtocolError, parse_message
from test_review import _check, _schema
from webtools import Client, LiveServer, create, join, play_to_end

RULES = cta.Rules()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    for n in (2, 3):  # the standard rules' solutions, in the test run's cache folder
        cache.solution_for(RULES, n)
    live = LiveServer(str(tmp_path_factory.mktemp("web") / "tables.sqlite3"))
    yield live
    live.stop()


@pytest.fixture
def clients(server: LiveServer) -> Iterator[list[Client]]:
    made: list[Client] = []
    yield made
    for c in made:
        c.close()


def _table(server: LiveServer, clients: list[Client], humans: int,
           **options: Any) -> tuple[str, list[Client]]:
    people = [server.client() for _ in range(humans)]
    clients.extend(people)
    table = create(people[0], seats=3, bots="threshold:8", **options)["table"]
    for i, c in enumerate(people[1:], 1):
        join(c, table, f"P{i}")
    people[0].send({"type": "start"})
    for c in people:
        c.until(lambda m: m["type"] == "state" and m["game"] is not None)
    return table, people


def _my_turn(clients: list[Client]) -> Client:
    end = time.monotonic() + 10
    while True:
        for c in clients:
            c.pump(0.01)
            if c.my_turn():
                return c
        assert time.monotonic() < end, "nobody's turn came"


def test_the_house_rule_is_off_by_default_and_checked() -> None:
    plain, hinted = (parse_message('{"type": "create", "name": "Ann"}'),
                     parse_message('{"type": "create", "name": "Ann", "hints": true}'))
    assert isinstance(plain, Create) and plain.hints is False
    assert isinstance(hinted, Create) and hinted.hints is True
    with pytest.raises(ProtocolError, match="'hints' must be true or false"):
        parse_message('{"type": "create", "name": "Ann", "hints": "yes"}')
    assert type(parse_message('{"type": "hint"}')).__name__ == "HintRequest"
    with pytest.raises(ProtocolError, match="unknown field"):
        parse_message('{"type": "hint", "seat": 2}')


def test_no_hints_where_the_table_does_not_allow_them(server: LiveServer, clients: list[Client]) -> None:
    _, people = _table(server, clients, 1)
    me = _my_turn(people)
    assert me.state is not None and me.state["table"]["options"]["hints"] is False
    assert me.request({"type": "hint"}, "hint")["code"] == "hints_off"


def test_a_hint_is_the_seats_own_and_only_on_its_turn(server: LiveServer, clients: list[Client]) -> None:
    table_id, people = _table(server, clients, 2, hints=True)
    me = _my_turn(people)
    other = people[1 - people.index(me)]
    assert other.request({"type": "hint"}, "hint")["code"] == "not_now"
    msg = me.request({"type": "hint"}, "hint")
    assert msg["type"] == "hint", msg
    game = server.core.lobby.tables[table_id].game
    assert game is not None and me.seat is not None
    players = len(game.observation(None)["order"])
    expected = hint(game.observation(me.seat), cache.solution_for(RULES, players))
    assert msg["hint"] == json.loads(json.dumps(expected.to_dict())) and msg["text"] == expected.text()
    assert "Keep: you lose this hand" in msg["text"]
    assert msg not in [m for _, m in other.log]  # told to the asking seat only
    assert all(m["type"] != "hint" for _, m in other.log)


def test_a_missing_solution_is_prepared_off_the_loop(server: LiveServer, clients: list[Client],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """With rules whose solution is not cached, the first hint says it is being prepared; solving
    happens in the worker process (solving in the server's own process would fail here)."""
    monkeypatch.setattr(cache, "solve", lambda *a, **k: pytest.fail("solved in the server process"))
    _, people = _table(server, clients, 1, hints=True, options={"ties": "eldest-loses"})
    me = _my_turn(people)
    first = me.request({"type": "hint"}, "hint")
    assert first["type"] == "error" and first["code"] == "hint_not_ready", first
    end = time.monotonic() + 120
    while True:
        time.sleep(0.5)
        msg = me.request({"type": "hint"}, "hint")
        if msg["type"] == "hint":
            break
        assert msg["code"] == "hint_not_ready" and time.monotonic() < end, msg
    assert "Solver:" in msg["text"]


def test_a_finished_game_is_reviewed_from_the_table(server: LiveServer, clients: list[Client],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    table_id, people = _table(server, clients, 1, hints=True)
    with httpx.Client(base_url=server.url) as http:
        assert http.get(f"/api/review/{table_id}/1").status_code == 409  # not over yet
        assert http.get(f"/api/record/{table_id}/1").status_code == 409  # no cards while it is played
        play_to_end(people, choose=lambda c: "keep")
        record = http.get(f"/api/record/{table_id}/1").json()
        assert cta.Game.from_record(record).over
        page = http.get(f"/t/{table_id}/review/1")
        assert page.status_code == 200 and "review.js" in page.text
        assert "content-security-policy" in page.headers
        response = http.get(f"/api/review/{table_id}/1")
        assert response.status_code == 200, response.text
        data = response.json()
        _check(data, _schema())
        human = next(s for s in data["summary"] if s["seat"] == 0)
        assert human["decisions"] > 0
        assert {d["action"] for d in data["decisions"] if d["seat"] == 0} == {"keep"}
        advisor = server.core.advisor
        worked: list[int] = []
        review = advisor.review

        def counted(record: Any, kind: Any = None) -> dict[str, Any] | None:
            worked.append(1)
            return review(record, kind)

        monkeypatch.setattr(advisor, "review", counted)
        for _ in range(3):  # asking again does no work again: a finished game's review is kept
            assert http.get(f"/api/review/{table_id}/1").json() == data
        assert worked == []
        assert http.get(f"/api/review/{table_id}/2").status_code == 404
        assert http.get("/api/review/nope/1").status_code == 404
        assert http.get(f"/api/review/{table_id}/x").status_code == 404


def test_a_web_record_is_reviewed_at_the_command_line(
        server: LiveServer, clients: list[Client], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    from chasetheace import cli

    table_id, people = _table(server, clients, 1)
    play_to_end(people, choose=lambda c: "swap")
    path = tmp_path / "web.json"
    path.write_text(httpx.get(f"{server.url}/api/record/{table_id}/1").text)
    assert cli.main(["review", str(path), "--json", "--seat", "0"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["decisions"] and {d["action"] for d in data["decisions"]} == {"swap"}


def test_a_big_table_gets_hints_from_solutions_ready_and_none_else(tmp_path: Path) -> None:
    import random

    from chasetheace.web.advice import Advisor

    advisor = Advisor(folder=str(tmp_path))
    try:
        game = cta.Game(cta.Rules(), players=12, seed=3)  # standard rules: shipped solved
        msg = advisor.hint(dict(game.observation(game.to_act)))
        assert msg["type"] == "hint" and msg["hint"]["players"] == 12
        other = cta.Game(cta.Rules(ties="eldest-loses"), players=12, seed=3)  # never solved here
        with pytest.raises(ProtocolError, match="at most 5 players") as refused:
            advisor.hint(dict(other.observation(other.to_act)))
        assert refused.value.code == "hint_unavailable"
        rng = random.Random(3)
        while other.to_act is not None:
            other.act(rng.choice(["keep", "swap"]))
        with pytest.raises(ValueError, match="at most 5 players"):
            advisor.review(json.loads(json.dumps(other.record())))
        assert not list(tmp_path.glob("*.npz"))  # nothing solved for the big table
    finally:
        advisor.close()
