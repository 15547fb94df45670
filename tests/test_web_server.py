"""The web server with several simultaneous WebSocket clients: whole games, hidden cards, bad input."""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from helpers import TEST_TOOL

pytest.importorskip("uvicorn")
pytest.importorskip("httpx", reason=TEST_TOOL.format("httpx"))
import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed

import chasetheace as cta
from chasetheace.web.protocol import MAX_MESSAGE_BYTES
from chasetheace.web.store import Store
from webtools import CARD, Client, LiveServer, create, join, known_cards, play_to_end


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(str(tmp_path_factory.mktemp("web") / "tables.sqlite3"), timer_scale=0.01)
    yield live
    live.stop()


@pytest.fixture
def clients(server: LiveServer) -> Iterator[list[Client]]:
    made: list[Client] = []
    yield made
    for c in made:
        c.close()


def connect(server: LiveServer, clients: list[Client], n: int = 1) -> list[Client]:
    new = [server.client() for _ in range(n)]
    clients.extend(new)
    return new


def seated_table(server: LiveServer, clients: list[Client], humans: int, seats: int,
                 **options: Any) -> tuple[str, list[Client]]:
    """A started table with ``humans`` people (seats 0.. in join order) and bots in the rest."""
    people = connect(server, clients, humans)
    table = create(people[0], seats=seats, **options)["table"]
    for i, c in enumerate(people[1:], 1):
        join(c, table, f"P{i}")
    people[0].send({"type": "start"})
    for c in people:
        c.until(lambda m: m["type"] == "state" and m["game"] is not None)
    return table, people


def actions(server: LiveServer, table: str) -> int:
    return server.count("SELECT COUNT(*) FROM actions WHERE table_id=?", table)


# --- whole games --------------------------------------------------------------------------------

@pytest.mark.parametrize("preset", ["standard", "chase-the-ace", "cuckoo"])
def test_no_client_ever_receives_a_card_it_may_not_know(server: LiveServer, clients: list[Client],
                                                         preset: str) -> None:
    table, people = seated_table(server, clients, humans=3, seats=5, preset=preset, bots="counting",
                                 options={"lives": 2})
    watcher = connect(server, clients)[0]
    watcher.request({"type": "watch", "table": table}, "joined")
    play_to_end([*people, watcher])
    record = Store(server.db).game_record(table, 1, people[0].table_info["options"]["rules"])
    events = record.to_json()["events"]
    game = cta.Game.from_record(record)  # the stored log is a valid game, replayed by the engine
    assert game.over
    for c in [*people, watcher]:
        states = 0
        for raw, msg in c.log:
            if msg["type"] == "state" and msg["game"] is not None:
                states += 1
                upto = msg["events_from"] + len(msg["events"])
                allowed = known_cards(events[:upto], c.seat)
                leaked = set(CARD.findall(raw)) - allowed
                assert not leaked, f"seat {c.seat} was sent {leaked} at event {upto}"
                if c.seat is not None and msg["game"]["card"] is not None:
                    assert msg["game"]["card"] in allowed  # its own card is always one it may know
            elif msg["type"] != "state":
                assert not CARD.findall(raw), raw
        assert states > 10
        # the history each client rebuilt is exactly its seat's view of the whole record
        assert c.history == game.observation(c.seat)["history"]


def test_every_game_over_state_names_the_winner_and_a_rematch_keeps_the_table(
        server: LiveServer, clients: list[Client]) -> None:
    table, people = seated_table(server, clients, humans=2, seats=4, bots="threshold:9")
    play_to_end(people)
    assert people[1].game is not None and people[1].game["winners"]
    assert people[1].request({"type": "rematch"}, "error")["code"] == "not_creator"
    people[0].send({"type": "rematch"})
    for c in people:
        msg = c.until(lambda m: m["type"] == "state" and m["table"]["game_no"] == 2)
        assert msg["events_from"] == 0 and not msg["game"]["over"]
    play_to_end(people)
    assert server.count("SELECT COUNT(*) FROM games WHERE table_id=?", table) == 2


def test_a_turn_timer_keeps_for_an_absent_player(server: LiveServer, clients: list[Client]) -> None:
    (ann,) = connect(server, clients)
    create(ann, seats=3, bots="random", timer=5, on_timeout="keep")
    ann.send({"type": "start"})
    ann.until(lambda m: m["type"] == "state" and m["game"] is not None and m["game"]["over"], timeout=30)
    assert server.count("SELECT COUNT(*) FROM actions WHERE table_id=? AND actor='timer' AND action='keep'",
                        ann.table) > 0


def test_a_timer_can_hand_the_turn_to_a_bot(server: LiveServer, clients: list[Client]) -> None:
    (ann,) = connect(server, clients)
    create(ann, seats=2, bots=None, timer=5, on_timeout="bot")
    (bob,) = connect(server, clients)
    join(bob, ann.table or "", "Bob")
    ann.send({"type": "start"})
    ann.until(lambda m: m["type"] == "state" and m["game"] is not None and m["game"]["over"], timeout=30)
    assert server.count("SELECT COUNT(*) FROM actions WHERE table_id=? AND actor='timer'", ann.table) > 0


def test_an_act_sent_again_with_its_id_is_applied_once(server: LiveServer, clients: list[Client]) -> None:
    table, (ann, bob) = seated_table(server, clients, humans=2, seats=2)
    first = ann if ann.my_turn() else bob
    first.wait_for(lambda c: c.my_turn())
    seen = first.events_seen
    first.send({"type": "act", "action": "keep", "act_id": "once"})
    first.wait_for(lambda c: c.events_seen > seen)
    first.send({"type": "act", "action": "keep", "act_id": "once"})  # as after a lost answer
    assert not [m for m in first.quiet() if m["type"] == "error"]
    assert server.count("SELECT count(*) FROM actions WHERE table_id=? AND act_id='once'", table) == 1
    assert server.count("SELECT count(*) FROM actions WHERE table_id=?", table) == 1


def test_reconnecting_with_the_token_returns_to_the_seat(server: LiveServer, clients: list[Client]) -> None:
    table, (ann, bob) = seated_table(server, clients, humans=2, seats=3)
    token = bob.token
    bob.close()
    (again,) = connect(server, clients)
    msg = again.request({"type": "resume", "table": table, "token": token}, "joined")
    assert msg["seat"] == 1 and "token" not in msg
    state = again.until(lambda m: m["type"] == "state")
    assert state["events_from"] == 0 and state["you"]["seat"] == 1
    assert again.history[:len(bob.history)] == bob.history
    play_to_end([ann, again])


def test_the_table_on_the_sockets_address_is_for_proxies_only(server: LiveServer,
                                                               clients: list[Client]) -> None:
    """The page opens ``/ws?table=ID`` (a proxy may hash on it): the server ignores it; the seat
    token alone decides, whatever table the address names."""
    table, (_, bob) = seated_table(server, clients, humans=2, seats=3)
    token = bob.token
    bob.close()
    named = Client(f"{server.ws_url}?table=nosuchtable")
    clients.append(named)
    msg = named.request({"type": "resume", "table": table, "token": token}, "joined")
    assert msg["table"] == table and msg["seat"] == 1
    stranger = Client(f"{server.ws_url}?table={table}")
    clients.append(stranger)
    refused = stranger.request({"type": "act", "action": "keep"}, "error")
    assert refused["code"] == "not_seated"


def test_a_notice_that_a_seat_was_taken_elsewhere_replaces_by_the_databases_order(
        server: LiveServer, clients: list[Client]) -> None:
    """Several processes: ``r|SEAT@WHEN`` says a person took a seat on another process. The
    database orders the announcements: a connection here whose own announcement was not heard back
    yet took the seat after the other (the other process's connection is the one replaced, by this
    one's notice): kept; but not against a notice more than ``LATE_ANNOUNCEMENT`` seconds younger
    than it (its own announcement lost). One whose announcement was heard back, or any connection
    against a notice without a time (an older process), is replaced."""
    from chasetheace.web.seating import LATE_ANNOUNCEMENT

    table_id, (ann, _) = seated_table(server, clients, humans=2, seats=3)
    core = server.core

    def ann_kept(at: float | None, taken: float, announced: bool) -> bool:
        conn = next(c for c in core.watchers[table_id] if c.seat == 0)
        conn.seated_at, conn.announced = taken, announced
        core.replace_seat(core.lobby.tables[table_id], 0, at)
        kept = conn.seat == 0
        conn.announced = True
        return kept

    assert server.call(ann_kept, 50.0, 100.0, False)  # its own not heard back yet: kept
    assert server.call(ann_kept, 100.0 + LATE_ANNOUNCEMENT / 2, 100.0, False)  # still kept
    assert server.call(ann_kept, 100.0 + 2 * LATE_ANNOUNCEMENT, 100.0, False) is False  # lost: replaced
    told = ann.until(lambda m: m["type"] == "error")
    assert told["code"] == "replaced", told


def test_a_notice_replaces_a_connection_whose_announcement_was_heard_back(
        server: LiveServer, clients: list[Client]) -> None:
    table_id, (ann, _) = seated_table(server, clients, humans=2, seats=3)
    core = server.core

    def ann_kept(at: float | None) -> bool:
        conn = next(c for c in core.watchers[table_id] if c.seat == 0)
        conn.seated_at, conn.announced = 100.0, True
        core.replace_seat(core.lobby.tables[table_id], 0, at)
        return conn.seat == 0

    assert server.call(ann_kept, 50.0) is False  # heard back, then another took it: replaced
    told = ann.until(lambda m: m["type"] == "error")
    assert told["code"] == "replaced", told


def test_a_write_held_up_by_a_lock_on_the_sqlite_file_freezes_no_ping(tmp_path: Path) -> None:
    db = tmp_path / "tables.sqlite3"
    live = LiveServer(str(db))
    made: list[Client] = []
    try:
        table, (ann, bob) = seated_table(live, made, humans=2, seats=2, bots=None)
        lobby = connect(live, made)[0]  # at no table
        mover = ann if ann.my_turn() else bob
        seen = mover.events_seen
        store = live.app.state.server.store
        holder = sqlite3.connect(db, isolation_level=None)  # another program writing the file
        holder.execute("BEGIN IMMEDIATE")
        try:
            mover.send({"type": "act", "action": "keep", "act_id": "held"})
            deadline = time.monotonic() + 10
            while store.waiting == 0:  # the move's write waits for the file's lock, off the loop
                assert time.monotonic() < deadline, "the move's write did not start"
                time.sleep(0.01)
            assert lobby.request({"type": "ping"}, "pong")["type"] == "pong"  # answered meanwhile
            time.sleep(0.2)
            health = httpx.get(live.url + "/healthz", timeout=10)  # an operator sees the hand-off
            assert store.waiting == 1  # still waiting: the pong did not wait for the write
        finally:
            holder.rollback()
            holder.close()
        assert health.status_code == 200, health.text
        writer = health.json()["writer"]
        assert writer["waiting"] == 1 and writer["handed"] >= 1 and writer["backed_up_s"] >= 0.2, writer
        for c in (ann, bob):  # the write goes through once the lock is gone
            c.wait_for(lambda c: c.events_seen > seen)
        assert store.loop_waits == 0
        writer = httpx.get(live.url + "/healthz", timeout=10).json()["writer"]
        assert writer["waiting"] == 0 and writer["backed_up_s"] == 0 and writer["handed"] == store.handed
    finally:
        for c in made:
            c.close()
        live.stop()
    assert len(Store(str(db)).load_table(table).games[-1].actions) == 1  # type: ignore[union-attr]


def test_a_game_while_nothing_holds_the_sqlite_file_hands_no_write_to_the_writer_thread(
        tmp_path: Path) -> None:
    live = LiveServer(str(tmp_path / "tables.sqlite3"))
    made: list[Client] = []
    try:
        _, people = seated_table(live, made, humans=2, seats=3, bots="random")
        play_to_end(people)
        store = live.app.state.server.store
        assert live.app.state.server.saver is not None  # its calls made from greenlets
        assert (store.handed, store.loop_waits) == (0, 0)  # each made at once on the loop
        assert httpx.get(live.url + "/healthz", timeout=10).json()["writer"] == {
            "handed": 0, "waiting": 0, "backed_up_s": 0.0}
    finally:
        for c in made:
            c.close()
        live.stop()


def test_a_move_whose_write_waits_past_the_busy_timeout_is_refused_and_nothing_is_half_saved(
        tmp_path: Path) -> None:
    db = tmp_path / "tables.sqlite3"
    live = LiveServer(str(db))
    made: list[Client] = []
    try:
        table, (ann, bob) = seated_table(live, made, humans=2, seats=2, bots=None)
        mover = ann if ann.my_turn() else bob
        holder = sqlite3.connect(db, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # held past the store's busy timeout (5 s)
        try:
            mover.send({"type": "act", "action": "keep", "act_id": "refused"})
            refused = mover.until(lambda m: m["type"] == "error", timeout=30)
            assert refused["code"] == "database_unavailable", refused
        finally:
            holder.rollback()
            holder.close()
        mover.wait_for(lambda c: c.my_turn())  # the copy that played it was rebuilt: still their turn
        seen = mover.events_seen
        mover.send({"type": "act", "action": "keep", "act_id": "after"})
        for c in (ann, bob):
            c.wait_for(lambda c: c.events_seen > seen)
    finally:
        for c in made:
            c.close()
        live.stop()
    saved = Store(str(db)).load_table(table)
    assert saved is not None and [a.act_id for a in saved.games[-1].actions] == ["after"]


def test_without_greenlet_the_server_still_plays_its_writes_on_the_loop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "greenlet", None)  # an install of the web extra from before it
    live = LiveServer(str(tmp_path / "tables.sqlite3"))
    made: list[Client] = []
    try:
        assert live.app.state.server.saver is None  # said in the log; nothing else changes
        _, (ann, bob) = seated_table(live, made, humans=2, seats=2, bots=None)
        mover = ann if ann.my_turn() else bob
        seen = mover.events_seen
        mover.send({"type": "act", "action": "keep"})
        for c in (ann, bob):
            c.wait_for(lambda c: c.events_seen > seen)
    finally:
        for c in made:
            c.close()
        live.stop()


def test_the_page_and_health_are_served_with_a_strict_policy(server: LiveServer) -> None:
    for path in ("/", "/t/anything"):
        page = httpx.get(server.url + path)
        assert page.status_code == 200 and "<title>" in page.text
        assert "default-src 'self'" in page.headers["content-security-policy"]
    assert httpx.get(server.url + "/static/app.js").status_code == 200
    assert httpx.get(server.url + "/healthz").json()["ok"] is True
    assert httpx.get(server.url + "/static/../store.py").status_code == 404


# --- bad input: each refused with one clear error, nothing changes ---------------------------------

def assert_refused(c: Client, message: dict[str, Any] | str | bytes, code: str,
                   watchers: Sequence[Client] = ()) -> dict[str, Any]:
    """Send a bad message: exactly one error comes back and no client hears of any change."""
    c.quiet()  # everything sent before is in (a ping's pong comes after it)
    for w in watchers:
        w.quiet()
    c.send(message)
    got = c.quiet()
    assert [m["type"] for m in got] == ["error"], got
    assert got[0]["code"] == code, got[0]
    assert got[0]["message"]
    for w in watchers:
        assert [m for m in w.quiet() if m["type"] == "state"] == []
    return got[0]


def test_malformed_unknown_and_oversized_messages(server: LiveServer, clients: list[Client]) -> None:
    table, (ann, bob) = seated_table(server, clients, humans=2, seats=2, bots=None)
    before = actions(server, table)
    assert "malformed JSON" in assert_refused(ann, "{oops", "bad_json", [bob])["message"]
    assert_refused(ann, b"\x00\x01binary", "bad_json", [bob])
    assert_refused(ann, {"type": "cheat", "seat": 1}, "unknown_type", [bob])
    assert_refused(ann, json.dumps({"type": "act", "action": "keep", "pad": "x" * MAX_MESSAGE_BYTES}),
                   "too_large", [bob])
    assert actions(server, table) == before


def test_a_huge_frame_closes_the_connection(server: LiveServer, clients: list[Client]) -> None:
    (c,) = connect(server, clients)
    c.send("x" * 200_000)
    with pytest.raises(ConnectionClosed) as info:
        c.pump(2.0)
        c.quiet()
    assert info.value.rcvd is not None and info.value.rcvd.code == 1009  # message too big


def test_out_of_turn_and_unseated_actions(server: LiveServer, clients: list[Client]) -> None:
    table, (ann, bob) = seated_table(server, clients, humans=2, seats=2, bots=None)
    waiting = bob if ann.my_turn() else ann
    before = actions(server, table)
    msg = assert_refused(waiting, {"type": "act", "action": "swap"}, "out_of_turn", [ann, bob])
    assert "not your turn" in msg["message"]
    (stranger,) = connect(server, clients)
    assert_refused(stranger, {"type": "act", "action": "keep"}, "not_seated", [ann, bob])
    stranger.request({"type": "watch", "table": table}, "joined")
    assert_refused(stranger, {"type": "act", "action": "keep"}, "not_seated", [ann, bob])
    assert_refused(stranger, {"type": "start"}, "not_seated", [ann, bob])
    assert_refused(bob, {"type": "start"}, "not_creator", [ann])
    assert_refused(ann, {"type": "start"}, "not_now", [bob])
    assert_refused(ann, {"type": "rematch"}, "not_now", [bob])
    assert actions(server, table) == before


def test_a_token_acts_only_for_its_own_seat(server: LiveServer, clients: list[Client]) -> None:
    table, (ann, bob) = seated_table(server, clients, humans=2, seats=2, bots=None)
    _other, (carl, _) = seated_table(server, clients, humans=2, seats=2, bots=None)
    before = actions(server, table)
    (mallory,) = connect(server, clients)
    assert_refused(mallory, {"type": "resume", "table": table, "token": "A" * 32}, "bad_token", [ann, bob])
    assert_refused(mallory, {"type": "resume", "table": table, "token": carl.token}, "bad_token", [ann, bob])
    assert_refused(mallory, {"type": "resume", "table": "nope", "token": ann.token}, "no_table", [ann, bob])
    assert_refused(mallory, {"type": "resume", "table": "../../etc", "token": ann.token}, "no_table")
    # a token acts for its own seat only: whoever is not to act cannot play the other's turn
    idle, busy = (ann, bob) if bob.my_turn() else (bob, ann)
    assert busy.my_turn()
    assert_refused(idle, {"type": "act", "action": "swap"}, "out_of_turn", [busy])
    assert_refused(idle, {"type": "act", "action": "swap", "seat": busy.seat}, "bad_message", [busy])
    assert actions(server, table) == before


def test_a_reused_token_takes_the_seat_over_and_the_old_connection_loses_it(
        server: LiveServer, clients: list[Client]) -> None:
    table, (_ann, bob) = seated_table(server, clients, humans=2, seats=2, bots=None)
    (thief,) = connect(server, clients)
    thief.request({"type": "resume", "table": table, "token": bob.token}, "joined")
    replaced = bob.until(lambda m: m["type"] == "error")
    assert replaced["code"] == "replaced"
    assert_refused(bob, {"type": "act", "action": "keep"}, "not_seated")


def test_joining_a_full_started_or_finished_table(server: LiveServer, clients: list[Client]) -> None:
    ann, bob, cat = connect(server, clients, 3)
    table = create(ann, seats=2, bots=None)["table"]
    join(bob, table, "Bob")
    assert "full" in assert_refused(cat, {"type": "join", "table": table, "name": "Cat"}, "table_full",
                                    [ann, bob])["message"]
    dan = connect(server, clients)[0]
    table2 = create(dan, name="Dan", seats=3, bots=None)["table"]
    assert_refused(cat, {"type": "join", "table": table2, "name": "dan"}, "name_taken", [dan])
    ann.send({"type": "start"})
    assert_refused(cat, {"type": "join", "table": table, "name": "Cat"}, "game_started")
    play_to_end([ann, bob])
    assert_refused(cat, {"type": "join", "table": table, "name": "Cat"}, "game_over")
    assert_refused(cat, {"type": "join", "table": "no-such-table", "name": "Cat"}, "no_table")
    assert server.count("SELECT COUNT(*) FROM seats WHERE table_id=?", table) == 2


@pytest.mark.parametrize(("options", "words"), [
    ({"preset": "poker"}, "unknown preset 'poker'"),
    ({"options": {"lives": 0}}, "bad value 0 for rule 'lives'"),
    ({"options": {"lives": 10 ** 80}}, "at most 99 at a web table"),
    ({"options": {"ante": 1.5}}, "bad value 1.5 for rule 'ante'"),
    ({"options": {"blocker": "queen"}}, "bad value 'queen' for rule 'blocker'"),
    ({"options": {"jokers": True}}, "unknown rule 'jokers'"),
    ({"bots": "genius"}, "bot 'genius' is not offered here"),
    ({"seats": 13}, "'seats' must be an integer 2..12"),
    ({"timer": 3600}, "'timer' must be an integer 5..600"),
])
def test_invalid_table_options_create_nothing(server: LiveServer, clients: list[Client],
                                              options: dict[str, Any], words: str) -> None:
    (c,) = connect(server, clients)
    before = server.count("SELECT COUNT(*) FROM tables")
    msg = assert_refused(c, {"type": "create", "name": "Ann", **options}, "bad_options")
    assert words in msg["message"]
    assert server.count("SELECT COUNT(*) FROM tables") == before


def test_the_rate_limit_refuses_a_flood(server: LiveServer, clients: list[Client]) -> None:
    (c,) = connect(server, clients)
    for _ in range(60):
        c.send({"type": "ping"})
    replies = [c.recv() for _ in range(60)]
    kinds = [m["type"] for m in replies]
    assert "pong" in kinds and kinds.count("error") > 0
    assert all(m["code"] == "rate_limited" for m in replies if m["type"] == "error")


def test_the_welcome_offers_presets_options_and_bots(server: LiveServer, clients: list[Client]) -> None:
    (c,) = connect(server, clients)
    assert c.welcome["v"] == 1
    assert {p["name"] for p in c.welcome["presets"]} >= {"standard", "cuckoo", "le-her"}
    assert {o["key"] for o in c.welcome["options"]} == set(cta.OPTIONS)
    assert set(c.welcome["bots"]) >= {"random", "threshold", "counting"}
    from chasetheace.registry import GAMES

    assert set(c.welcome["game_bots"]) == set(c.welcome["games"]) == set(GAMES)
    for game, kind in GAMES.items():  # each game's bots, from its kind
        assert set(kind.server_bots) <= set(c.welcome["game_bots"][game])
    assert c.welcome["game_bots"]["chase-the-ace"] == c.welcome["bots"]
    # each game's own presets: Chase the Ace's are `presets`, Ace Chasing has none to choose
    assert set(c.welcome["game_presets"]) == set(GAMES)
    assert c.welcome["game_presets"]["chase-the-ace"] == c.welcome["presets"]
    assert c.welcome["game_presets"]["ace-chasing"] == []
    assert c.welcome["game_hints"] == {game: kind.solver for game, kind in GAMES.items()}


def test_the_store_uses_wal_and_never_holds_a_token(server: LiveServer, clients: list[Client],
                                                     tmp_path: Path) -> None:
    _table, (ann, bob) = seated_table(server, clients, humans=2, seats=2, bots=None)
    store = Store(server.db)
    assert store.journal_mode == "wal"
    dump = "\n".join(store.db.iterdump())
    assert ann.token is not None and bob.token is not None
    assert ann.token not in dump and bob.token not in dump


_JUNK = st.one_of(
    st.text(max_size=200),
    st.dictionaries(st.sampled_from(["type", "action", "table", "name", "token", "v", "seat", "options"]),
                    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=30),
                              st.sampled_from(["act", "start", "rematch", "keep", "swap", "ping"]),
                              st.dictionaries(st.text(max_size=8), st.integers(), max_size=3)),
                    max_size=5).map(json.dumps),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(junk=_JUNK)
def test_junk_from_a_stranger_changes_nothing(server: LiveServer, junk: str) -> None:
    before = [server.count(f"SELECT COUNT(*) FROM {t}") for t in ("tables", "seats", "actions")]
    c = server.client()
    try:
        c.send(junk)
        replies = c.quiet()
    finally:
        c.close()
    assert [m["type"] for m in replies] in ([], ["error"], ["pong"]), replies
    assert [server.count(f"SELECT COUNT(*) FROM {t}") for t in ("tables", "seats", "actions")] == before


def test_a_table_left_alone_and_found_again_is_one_table(server: LiveServer, clients: list[Client]) -> None:
    (ann,) = connect(server, clients)
    table = create(ann, seats=2, bots=None)["table"]
    ann.close()  # nobody at the table: the server may let it go and load it again when asked
    (bob,) = connect(server, clients)
    bob.request({"type": "watch", "table": table}, "joined")  # as the invite page does
    join(bob, table, "Bob")
    (ann2,) = connect(server, clients)
    ann2.request({"type": "resume", "table": table, "token": ann.token}, "joined")
    ann2.send({"type": "start"})
    play_to_end([ann2, bob])  # both seats act on the same game
    assert server.count("SELECT COUNT(DISTINCT seat) FROM actions WHERE table_id=?", table) == 2
