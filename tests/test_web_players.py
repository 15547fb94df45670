"""The people at a web table: an absent player's turn is played for them at once, the creator's
role passes on, public tables can be found, and a seat's token works from another device."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
from webtools import Client, LiveServer, create, game_on, join, play_to_end, wait_until


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    s = LiveServer(str(tmp_path / "t.sqlite3"))
    yield s
    s.stop()


def actors_at(server: LiveServer, table: str, seat: int) -> set[str]:
    """Who made the moves stored for ``seat`` at ``table`` ("human", "timer", "bot")."""
    return {actor for actor in ("human", "timer", "bot")
            if server.count("SELECT COUNT(*) FROM actions WHERE table_id=? AND seat=? AND actor=?",
                            table, seat, actor)}


def play_until_seat_had_a_turn(server: LiveServer, table: str, clients: list[Client], seat: int,
                               games: int = 6) -> None:
    """Play the game to its end, and rematches (the first client is the creator) until ``seat`` has
    had a decision to make: a seat holding a king, or swapped into, has no turn, so one short game
    can pass without one (about 1 game in 170 at two seats)."""
    for game_no in range(1, games + 1):
        if game_no > 1:
            clients[0].send({"type": "rematch"})
            for c in clients:
                c.until(game_on(game_no))
        play_to_end(clients, limit=30)
        if actors_at(server, table, seat):
            return
    raise AssertionError(f"seat {seat} had no turn in {games} games")


def test_an_absent_players_turns_are_played_at_once_without_a_timer(server: LiveServer) -> None:
    ann, bob = server.client(), server.client()
    table = create(ann, seats=3, bots=None, options={"lives": 2})["table"]
    join(bob, table, "Bob")
    cat = server.client()
    join(cat, table, "Cat")
    ann.send({"type": "start"})
    ann.until(lambda m: m["type"] == "state" and m["game"] is not None)
    bob.close()  # Bob leaves; no turn timer at this table
    play_until_seat_had_a_turn(server, table, [ann, cat], seat=1)
    assert actors_at(server, table, seat=1) == {"timer"}
    states = [m for _, m in ann.log if m["type"] == "state"]
    assert any(1 not in m["table"]["connected"] for m in states)  # the page can show Bob away


def test_an_absent_player_gets_the_stand_in_bot_when_the_table_says_so(server: LiveServer) -> None:
    ann, bob = server.client(), server.client()
    table = create(ann, seats=2, bots=None, timer=600, on_timeout="bot", options={"lives": 2})["table"]
    join(bob, table, "Bob")
    ann.send({"type": "start"})
    bob.close()
    play_until_seat_had_a_turn(server, table, [ann], seat=1)  # a 600 s timer, yet Bob's turns do not wait
    assert actors_at(server, table, seat=1) == {"timer"}


def test_the_creators_role_passes_on_while_the_creator_is_away(server: LiveServer) -> None:
    ann, bob = server.client(), server.client()
    table = create(ann, seats=3, bots="random", options={"lives": 1})["table"]
    join(bob, table, "Bob")
    refused = bob.request({"type": "start"}, "error")
    assert refused["code"] == "not_creator"
    ann.close()
    state = bob.until(lambda m: m["type"] == "state" and m["table"]["creator"] == 1)
    assert state["table"]["connected"] == [1]
    bob.send({"type": "start"})
    bob.until(lambda m: m["type"] == "state" and m["game"] is not None)
    play_to_end([bob])
    bob.send({"type": "rematch"})
    bob.until(lambda m: m["type"] == "state" and m["table"]["game_no"] == 2)
    back = server.client()  # Ann comes back: the role is hers again
    back.request({"type": "resume", "table": table, "token": ann.token}, "joined")
    assert back.until(lambda m: m["type"] == "state")["table"]["creator"] == 0
    assert bob.request({"type": "rematch"}, "error")["code"] in ("not_creator", "not_now")


def test_only_tables_opened_as_public_are_listed(server: LiveServer) -> None:
    ann, bob, finder = server.client(), server.client(), server.client()
    listed = create(ann, name="Ann", public=True, seats=3)["table"]
    hidden = create(bob, name="Bob", seats=3)["table"]
    tables = finder.request({"type": "list"}, "tables")["tables"]
    ids = [t["id"] for t in tables]
    assert listed in ids and hidden not in ids
    entry = tables[ids.index(listed)]
    assert entry["host"] == "Ann" and entry["taken"] == 1 and entry["seats"] == 3
    assert "token" not in str(entry)
    join(finder, listed, "Finn")
    ann.send({"type": "start"})
    ann.until(lambda m: m["type"] == "state" and m["game"] is not None)
    other = server.client()
    assert listed not in [t["id"] for t in other.request({"type": "list"}, "tables")["tables"]]
    refused = other.request({"type": "create", "name": "Z", "public": "yes"}, "joined")
    assert refused["code"] == "bad_options"


def test_a_seat_token_takes_the_seat_on_another_device(server: LiveServer) -> None:
    ann, bob = server.client(), server.client()
    table = create(ann, seats=2, bots=None)["table"]
    join(bob, table, "Bob")
    phone = server.client()  # the seat link carries the token to another device
    msg = phone.request({"type": "resume", "table": table, "token": bob.token}, "joined")
    assert msg["seat"] == 1
    assert bob.until(lambda m: m["type"] == "error")["code"] == "replaced"
    ann.send({"type": "start"})
    play_to_end([ann, phone])


def test_the_creator_can_hand_a_gone_players_seat_to_a_bot_and_they_take_it_back(
        server: LiveServer) -> None:
    ann, bob = server.client(), server.client()
    table = create(ann, seats=2, bots=None, options={"lives": 9})["table"]
    join(bob, table, "Bob")
    ann.send({"type": "start"})
    ann.until(lambda m: m["type"] == "state" and m["game"] is not None)
    assert ann.request({"type": "replace", "seat": 1}, "error")["code"] == "not_now"  # Bob is here
    assert bob.request({"type": "replace", "seat": 0}, "error")["code"] == "not_creator"
    bob.close()
    ann.until(lambda m: m["type"] == "state" and m["table"]["connected"] == [0])
    ann.send({"type": "replace", "seat": 1})
    state = ann.until(lambda m: m["type"] == "state" and m["table"]["seats"][1]["kind"] == "bot")
    assert state["table"]["seats"][1]["name"] == "Bob" and state["table"]["seats"][1]["bot"] == "counting"
    assert ann.request({"type": "replace", "seat": 1}, "error")["code"] == "bad_message"  # a bot already
    play_to_end([ann], stop=lambda: server.count(
        "SELECT COUNT(*) FROM actions WHERE table_id=? AND seat=1 AND actor='bot'", table) > 0)
    back = server.client()
    back.request({"type": "resume", "table": table, "token": bob.token}, "joined")
    state = back.until(lambda m: m["type"] == "state")
    assert state["table"]["seats"][1]["kind"] == "human"  # the seat is Bob's again
    play_to_end([ann, back])


def test_people_coming_and_going_never_reset_a_turn_timer(tmp_path: Path) -> None:
    s = LiveServer(str(tmp_path / "timer.sqlite3"), timer_scale=0.3)  # a 5 s timer runs 1.5 s
    try:
        ann, bob = s.client(), s.client()
        table = create(ann, seats=2, bots=None, timer=5, on_timeout="keep")["table"]
        join(bob, table, "Bob")
        ann.send({"type": "start"})
        ann.until(lambda m: m["type"] == "state" and m["game"] is not None)
        bob.wait_for(lambda c: c.game is not None)
        idle = ann if ann.my_turn() else bob  # nobody acts: only the timer may
        assert idle.my_turn()

        def due() -> tuple[tuple[int, int], str, float] | None:
            """The move set for the table: for which position, why, and when (the loop's clock)."""
            def read() -> tuple[tuple[int, int], str, float] | None:
                d = s.core.pending.get(table)
                return None if d is None else (d.marker, d.why, d.handle.when())
            found: tuple[tuple[int, int], str, float] | None = s.call(read)
            return found

        first = due()
        assert first is not None and first[1] == "timer"
        for _ in range(10):
            churn = s.client()
            churn.request({"type": "watch", "table": table}, "joined")  # a spectator comes ...
            churn.close()  # ... and goes, again and again
            wait_until(lambda: s.call(lambda: len(s.core.watchers[table])) == 2, "the spectator left")
            now = due()
            if now is None or now[0] != first[0]:
                break  # the timer went off (a slow machine): the turn is over
            assert now == first, "the turn timer was reset by people coming and going"
        wait_until(lambda: s.count("SELECT COUNT(*) FROM actions WHERE table_id=? AND actor='timer'",
                                   table) > 0, "the turn timer played the idle person's move")
    finally:
        s.stop()
