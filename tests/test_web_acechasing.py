"""Ace Chasing (RULES.md part B) at the web table: bets over the socket, bots, and every state
exactly the engine's view of the reader's seat."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
import chasetheace as cta
from webtools import CARD, Client, LiveServer, create, join

_IN_TABLE = ("history", "rules", "names")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    s = LiveServer(str(tmp_path / "ace.sqlite3"))
    yield s
    s.stop()


def person(c: Client) -> dict[str, Any] | None:
    """A person's simple play: small offers, accept small bets, swap below a seven."""
    game = c.game
    assert game is not None
    legal = game["legal"]
    if legal == ["offer"]:
        return {"type": "act", "action": "offer", "amount": 2 if game["offers_made"][c.seat] == 0 else 0}
    if "accept" in legal:
        return {"type": "act", "action": "accept" if game["offer"]["amount"] <= 3 else "decline"}
    rank = "A23456789TJQK".index(game["card"][0]) + 1
    return {"type": "act", "action": "swap" if rank < 7 else "keep"}


def play(clients: list[Client], limit: float = 60.0) -> None:
    import time

    end = time.monotonic() + limit
    while not all(c.game is not None and c.game["over"] for c in clients):
        assert time.monotonic() < end, "the game did not finish in time"
        for c in clients:
            c.pump(0.002)
            if c.my_turn() and c.acted != c.marker:
                c.acted = c.marker
                msg = person(c)
                if msg is not None:
                    c.send(msg)


def test_a_whole_game_with_bets_and_every_state_is_the_engines_view(server: LiveServer) -> None:
    ann, bob = server.client(), server.client()
    table = create(ann, game="ace-chasing", seats=5, bots="odds")["table"]
    join(bob, table, "Bob")
    watcher = server.client()
    watcher.request({"type": "watch", "table": table}, "joined")
    ann.send({"type": "start"})
    play([ann, bob, watcher])
    # the stored log replays to the very game; at each point, each reader was sent its own view
    db = sqlite3.connect(server.db)
    seed, names = db.execute("SELECT seed, names FROM games WHERE table_id=?", (table,)).fetchone()
    actions = [(seat, action) for seat, action in db.execute(
        "SELECT seat, action FROM actions WHERE table_id=? ORDER BY seq", (table,))]
    db.close()
    assert any(a.startswith("offer:") and a != "offer:0" for _, a in actions)  # bets were made
    assert any(a in ("accept", "decline") for _, a in actions)
    game = cta.AceChasingGame(json.loads(names), seed=seed)
    views: dict[tuple[int | None, int], dict[str, Any]] = {}

    def snapshot() -> None:
        for seat in (0, 1, None):
            obs = game.observation(seat)  # its history is the game's own, growing list: copy it
            views[(seat, len(game.events))] = {**obs, "history": list(obs["history"])}

    snapshot()
    for seat, action in actions:
        kind, _, amount = action.partition(":")
        game.act(cta.Offer(int(amount)) if kind == "offer" else action, seat)
        snapshot()
    assert game.over
    for c in (ann, bob, watcher):
        states = 0
        for raw, msg in c.log:
            if msg["type"] != "state" or msg["game"] is None:
                if msg["type"] != "state":
                    assert not CARD.findall(raw)
                continue
            upto = msg["events_from"] + len(msg["events"])
            obs = views[(c.seat, upto)]
            assert msg["game"] == {k: v for k, v in obs.items() if k not in _IN_TABLE}
            assert msg["events"] == obs["history"][msg["events_from"]:]
            allowed = set(CARD.findall(json.dumps(obs)))
            assert set(CARD.findall(raw)) <= allowed  # no card the seat may not know
            states += 1
        assert states > 10
    assert ann.game is not None and len(ann.game["winners"]) == 1


def test_bad_bets_and_options_are_refused_precisely(server: LiveServer) -> None:
    ann, bob, cat = server.client(), server.client(), server.client()
    assert ann.request({"type": "create", "name": "Ann", "game": "ace-chasing", "seats": 3},
                       "joined")["code"] == "bad_options"  # 4 seats at least
    assert ann.request({"type": "create", "name": "Ann", "game": "ace-chasing", "bots": "counting"},
                       "joined")["code"] == "bad_options"  # a Chase the Ace bot
    assert ann.request({"type": "create", "name": "Ann", "game": "ace-chasing", "options": {"lives": 2}},
                       "joined")["code"] == "bad_options"
    hints = ann.request({"type": "create", "name": "Ann", "game": "ace-chasing", "hints": True,
                         "bots": "odds"}, "joined")
    assert hints["code"] == "bad_options" and hints["message"].startswith("hints: Ace Chasing has no hints")
    assert ann.welcome["game_hints"] == {"chase-the-ace": True, "ace-chasing": False}  # the page offers none
    table = create(ann, game="ace-chasing", seats=4, bots=None)["table"]
    join(bob, table, "Bob")
    join(cat, table, "Cat")
    assert ann.request({"type": "start"}, "error")["code"] == "not_now"  # 3 people, no bots
    dan = server.client()
    join(dan, table, "Dan")
    ann.send({"type": "start"})
    people = [ann, bob, cat, dan]
    for c in people:
        c.wait_for(lambda c: c.game is not None)
    first = next(c for c in people if c.my_turn())
    assert first.game is not None and first.game["legal"] == ["offer"]
    for bad, code in (({"action": "offer"}, "bad_message"),
                      ({"action": "offer", "amount": -1}, "bad_message"),
                      ({"action": "offer", "amount": True}, "bad_message"),
                      ({"action": "keep"}, "bad_action"), ({"action": "accept"}, "bad_action")):
        assert first.request({"type": "act", **bad}, "error")["code"] == code, bad
    first.send({"type": "act", "action": "offer", "amount": 4})
    matador = next(c for c in people if c.seat == first.game["matador"])
    matador.wait_for(lambda c: c.my_turn())
    assert matador.game is not None and set(matador.game["legal"]) == {"accept", "decline"}
    assert matador.request({"type": "act", "action": "offer", "amount": 1}, "error")["code"] == "bad_action"
    for c in people:
        c.close()


def test_an_absent_players_bets_and_exchanges_are_played_for_them(server: LiveServer) -> None:
    ann, bob = server.client(), server.client()
    table = create(ann, game="ace-chasing", seats=4, bots="random")["table"]
    join(bob, table, "Bob")
    ann.send({"type": "start"})
    ann.wait_for(lambda c: c.game is not None)
    bob.close()
    play([ann])
    db = sqlite3.connect(server.db)
    done = [a for (a,) in db.execute(
        "SELECT action FROM actions WHERE table_id=? AND seat=1 AND actor='timer'", (table,))]
    db.close()
    assert done and set(done) <= {"offer:0", "decline", "keep"}


def test_a_finished_game_is_reviewed_from_the_table_by_the_odds(server: LiveServer) -> None:
    """The review page of an Ace Chasing table judges its bets and its keeps and swaps, as
    ``chase-the-ace review`` does with the record the table offers for download."""
    from helpers import TEST_TOOL, check_schema

    pytest.importorskip("httpx", reason=TEST_TOOL.format("httpx"))
    import httpx

    from chasetheace.acechasing.review import review_ace_chasing
    from test_review_ace import _ace_schema

    ann, bob = server.client(), server.client()
    table = create(ann, game="ace-chasing", seats=6, bots="random")["table"]
    join(bob, table, "Bob")
    with httpx.Client(base_url=server.url) as http:
        ann.send({"type": "start"})
        ann.wait_for(lambda c: c.game is not None)
        assert http.get(f"/api/review/{table}/1").status_code == 409  # not over yet
        assert http.get(f"/api/record/{table}/1").status_code == 409
        play([ann, bob])
        record = http.get(f"/api/record/{table}/1").json()
        assert cta.AceChasingGame.from_record(record).over
        response = http.get(f"/api/review/{table}/1")
        assert response.status_code == 200, response.text
        data = response.json()
        check_schema(data, _ace_schema())
        assert data == review_ace_chasing(record).to_dict()
        swaps = [d for d in data["decisions"] if d["role"] == "exchanger"]
        assert swaps and all(d["out_if_keep"] is not None for d in swaps)
        assert sum(s["exchanges_judged"] for s in data["summary"]) == len(swaps)
        page = http.get(f"/t/{table}/review/1")
        assert page.status_code == 200 and "review.js" in page.text
    for c in (ann, bob):
        c.close()


def test_an_ace_chasing_table_stored_with_hints_never_offers_them() -> None:
    from chasetheace.web.tables import TableOptions

    stored = {**TableOptions.build("standard", {}, 4, None, None, "keep", game="ace-chasing").to_dict(),
              "hints": True}  # written before such tables refused hints
    assert TableOptions.from_dict(stored).hints is False
    cta_table = TableOptions.build("standard", {}, 4, None, None, "keep", hints=True)
    assert TableOptions.from_dict(cta_table.to_dict()).hints is True
