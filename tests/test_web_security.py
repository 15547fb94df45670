"""The web table facing the internet: no message starts unbounded work or touches a file, limits
per client and per table, tables that pause and expire, rate-limit and Origin closes, precise
errors, look-alike names refused, history capped on the wire (issue 14)."""

from __future__ import annotations

import itertools
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

pytest.importorskip("uvicorn")
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from chasetheace.web.botkinds import WebBots
from chasetheace.web.limits import Limits, client_key
from chasetheace.web.lock import DatabaseInUseError, DatabaseLock
from chasetheace.web.names import check_name, skeleton
from chasetheace.web.protocol import ProtocolError
from chasetheace.web.tables import TableOptions
from webtools import (
    TEST_LIMITS,
    LiveServer,
    create,
    game_on,
    join,
    play_to_end,
    play_with_moved_sockets,
    wait_until,
)


def live(tmp_path: Path, **limits: Any) -> LiveServer:
    values = {**TEST_LIMITS.to_dict(), **limits}
    return LiveServer(str(tmp_path / "t.sqlite3"), limits=Limits(**values))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    s = live(tmp_path)
    yield s
    s.stop()


def tables(server: LiveServer) -> int:
    return server.count("SELECT COUNT(*) FROM tables")


# --- 1. no client message starts unbounded work -------------------------------------------------

def test_no_message_and_no_bot_turn_does_more_than_one_move_on_the_loop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever bots a client asks for, every callback the event loop runs (a client's message, a
    bot's turn) plays at most one move, so the loop is back for the other clients in between; the
    solved bot without a prepared solution is refused. Counted, not timed."""
    from chasetheace.web.app import Server
    from chasetheace.web.tables import Table

    played = 0
    most = {"receive": 0, "automatic": 0}  # the most moves one callback played
    real_act = Table.act

    def act(table: Table, *args: Any, **kwargs: Any) -> Any:
        nonlocal played
        played += 1
        return real_act(table, *args, **kwargs)

    def counted(name: str) -> Callable[..., Any]:
        real = getattr(Server, name)

        def callback(server: Server, *args: Any) -> Any:
            before = played
            try:
                return real(server, *args)
            finally:
                most[name] = max(most[name], played - before)
        return callback

    monkeypatch.setattr(Table, "act", act)
    for name in most:
        monkeypatch.setattr(Server, name, counted(name))
    server = live(tmp_path, rate=1000.0, burst=1000.0)  # the asker sends faster than the default rate
    watcher, asker = server.client(), server.client()
    try:
        kinds = [*asker.welcome["bots"], "threshold:T", "solved", "solved:/dev/zero", "solved:/etc/passwd"]
        answers = {}
        for kind in kinds:
            for preset, seats in (("standard", 12), ("standard", 5), ("le-her", 2)):
                asker.send({"type": "create", "name": "Ann", "bots": kind, "seats": seats, "preset": preset,
                            "options": {"kings_jerk": True} if seats == 5 else {}})
                answer = asker.until(lambda m: m["type"] in ("joined", "error"))
                answers[(kind, seats)] = answer.get("code", "joined")
                if answer["type"] == "joined":
                    asker.send({"type": "start"})  # the bots play at once (bot delay 0)
                    asker.until(lambda m: m["type"] == "state" and m["game"] is not None)
                assert watcher.request({"type": "ping"}, "pong")["type"] == "pong"  # served meanwhile
        wait_until(lambda: most["automatic"] > 0, "a bot played")  # at many of these tables a bot is first
    finally:
        watcher.close()
        asker.close()
        server.stop()
    assert answers[("counting", 12)] == answers[("random", 5)] == "joined"
    assert answers[("solved", 12)] == answers[("solved:/dev/zero", 5)] == "bad_options"
    assert most["receive"] <= 1 and most["automatic"] == 1, most


class FileWatch:
    """Records every file the process opens (a Python audit hook; hooks cannot be removed, so
    one hook is added and switched on and off)."""

    opened: ClassVar[list[str]] = []
    on = False
    installed = False

    @classmethod
    def install(cls) -> None:
        if not cls.installed:
            def hook(event: str, args: tuple[Any, ...]) -> None:
                if cls.on and event in ("open", "os.listdir", "os.scandir", "pathlib.Path.glob"):
                    cls.opened.append(f"{event} {args[0]!r}")
            sys.addaudithook(hook)
            cls.installed = True


@pytest.mark.parametrize("kind", ["solved:/etc/passwd", "solved:/dev/zero", "solved:/no/such/file",
                                  "solved:../../x.json", "solved", "threshold:/etc/passwd"])
def test_a_bot_kind_is_never_a_path_and_touches_no_file(kind: str) -> None:
    FileWatch.install()
    FileWatch.opened.clear()
    FileWatch.on = True
    try:
        with pytest.raises(ProtocolError) as info:
            TableOptions.build("standard", {}, 4, kind, None, "keep", offered=WebBots())
    finally:
        FileWatch.on = False
    assert FileWatch.opened == []
    assert info.value.code == "bad_options"
    assert str(info.value) == (f"bot {kind!r} is not offered here: allowed random, threshold, "
                               "threshold:RANK, counting")


def test_paths_answer_the_same_error_over_the_socket(server: LiveServer) -> None:
    c = server.client()
    before = tables(server)
    answers = []
    for kind in ("solved:/etc/passwd", "solved:/no/such/file", "solved:/dev/zero"):
        msg = c.request({"type": "create", "name": "Ann", "bots": kind}, "joined")
        answers.append((msg["type"], msg["code"], msg["message"].replace(kind, "KIND")))
    assert answers[0] == answers[1] == answers[2] == (
        "error", "bad_options", "bot 'KIND' is not offered here: allowed random, threshold, "
        "threshold:RANK, counting")
    assert tables(server) == before
    c.close()


def test_the_solved_bot_comes_only_from_prepared_solutions(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    pytest.importorskip("scipy")
    import chasetheace as cta
    from chasetheace.solver import solve

    folder = tmp_path / "solutions"
    folder.mkdir()
    solve(cta.Rules.preset("le-her"), players=2).save(str(folder / "le-her-2.json"))
    bots = WebBots.from_folder(str(folder))
    assert "solved" in bots.kinds()
    s = LiveServer(str(tmp_path / "t.sqlite3"), bots=bots)
    try:
        ann = s.client()
        assert "solved" in ann.welcome["bots"]
        refused = ann.request({"type": "create", "name": "Ann", "preset": "le-her", "seats": 3,
                               "bots": "solved"}, "joined")
        assert refused["code"] == "bad_options" and "no prepared solution" in refused["message"]
        create(ann, preset="le-her", seats=2, bots="solved")
        ann.send({"type": "start"})
        for game_no in range(2, 12):  # a deal can leave the bot nothing to decide: play until it did
            play_to_end([ann])
            if s.count("SELECT COUNT(*) FROM actions WHERE actor='bot'") > 0:
                break
            ann.send({"type": "rematch"})
            ann.until(game_on(game_no))
        assert s.count("SELECT COUNT(*) FROM actions WHERE actor='bot'") > 0
        ann.close()
    finally:
        s.stop()
    with pytest.raises(ValueError, match="holds no solution"):
        WebBots.from_folder(str(tmp_path))  # the database is there, but no *.json


# --- 3. quotas and expiry -----------------------------------------------------------------------

def test_connections_per_client_are_limited_with_a_clear_close(tmp_path: Path) -> None:
    s = live(tmp_path, connections_per_client=3)
    try:
        held = [s.client() for _ in range(3)]
        with connect(s.ws_url, proxy=None, open_timeout=5) as ws:
            got = json.loads(ws.recv(5))
            assert got["type"] == "error" and got["code"] == "too_many_connections"
            # words a person on another device behind the same router understands
            assert "already has 3 pages open from your internet address" in got["message"]
            assert "other phones or computers" in got["message"]
            assert "this page will connect by itself" in got["message"]
            with pytest.raises(ConnectionClosed) as info:
                ws.recv(5)
            assert info.value.rcvd is not None and info.value.rcvd.code == 1008
        held[0].close()
        # the server counts the closed one out, then lets one more in
        wait_until(lambda: s.call(lambda: s.core.connections) == 2, "the closed connection is counted out")
        again = s.client()
        assert again.welcome["type"] == "welcome"
        for c in [*held[1:], again]:
            c.close()
    finally:
        s.stop()


def test_tables_per_client_and_spectators_per_table_are_limited(tmp_path: Path) -> None:
    s = live(tmp_path, tables_per_client=2, spectators_per_table=1)
    try:
        ann = s.client()
        first = create(ann)["table"]
        create(ann)
        before = tables(s)
        refused = ann.request({"type": "create", "name": "Ann"}, "joined")
        assert refused["code"] == "too_many_tables" and "2 tables" in refused["message"]
        assert tables(s) == before
        one, two = s.client(), s.client()
        assert one.request({"type": "watch", "table": first}, "joined")["type"] == "joined"
        msg = two.request({"type": "watch", "table": first}, "joined")
        assert msg["type"] == "error" and msg["code"] == "too_many_spectators"
        for c in (ann, one, two):
            c.close()
    finally:
        s.stop()


def test_an_idle_connection_is_closed(tmp_path: Path) -> None:
    s = live(tmp_path, idle_seconds=0.3)
    try:
        c = s.client()
        msg = c.until(lambda m: m["type"] == "error", timeout=5)
        assert msg["code"] == "idle"
        with pytest.raises(ConnectionClosed) as info:
            c.recv(5)
        assert info.value.rcvd is not None and info.value.rcvd.code == 1000
    finally:
        s.stop()


def pending(s: LiveServer, table: str) -> bool:
    return bool(s.call(lambda: table in s.core.pending))


def test_bots_and_timers_pause_with_nobody_at_the_table_and_go_on_when_someone_returns(
        server: LiveServer) -> None:
    ann = server.client()
    table = create(ann, seats=6, bots="random", timer=5, on_timeout="keep", options={"lives": 9})["table"]
    ann.send({"type": "start"})
    ann.until(lambda m: m["type"] == "state" and m["game"] is not None)
    ann.close()
    wait_until(lambda: not pending(server, table) and not server.call(lambda: table in server.core.watchers),
               "the table has no move due with nobody there")
    moves = server.count("SELECT COUNT(*) FROM actions WHERE table_id=?", table)
    # nothing is due and the table is let go from memory: no bot or timer of it can move any more
    # (a round trip through the loop runs whatever was already set to run)
    assert server.call(lambda: table not in server.core.lobby.tables and table not in server.core.pending)
    assert server.count("SELECT COUNT(*) FROM actions WHERE table_id=?", table) == moves
    back = server.client()
    back.request({"type": "resume", "table": table, "token": ann.token}, "joined")
    play_to_end([back])  # the bots play on
    assert server.count("SELECT COUNT(*) FROM actions WHERE table_id=?", table) > moves
    back.close()


def test_a_table_nobody_is_at_expires_and_its_rows_go(tmp_path: Path) -> None:
    s = live(tmp_path, table_ttl=0.0)
    try:
        ann, bob = s.client(), s.client()
        left = create(ann, seats=3)["table"]
        ann.send({"type": "start"})
        ann.close()
        kept = create(bob, seats=3)["table"]
        wait_until(lambda: not s.call(lambda: left in s.core.watchers), "nobody is at the table left")
        gone = s.call(lambda: s.core.expire(time.time() + 1))
        assert left in gone and kept not in gone  # someone is at ``kept``
        for name, key in (("tables", "id"), ("seats", "table_id"), ("games", "table_id"),
                          ("actions", "table_id")):
            assert s.count(f"SELECT COUNT(*) FROM {name} WHERE {key}=?", left) == 0
        assert bob.request({"type": "watch", "table": left}, "joined")["code"] == "no_table"
        assert s.count("SELECT COUNT(*) FROM tables WHERE id=?", kept) == 1
        bob.close()
    finally:
        s.stop()


# --- 4. one server per database -----------------------------------------------------------------

def test_the_database_lock_is_exclusive(tmp_path: Path) -> None:
    db = str(tmp_path / "x.sqlite3")
    with DatabaseLock(db), pytest.raises(DatabaseInUseError, match="in use by another chase-the-ace server"):
        DatabaseLock(db).acquire()
    with DatabaseLock(db):  # let go: free again
        pass
    DatabaseLock(":memory:").acquire()  # nothing to lock


# --- 5. history on the wire ---------------------------------------------------------------------

def test_history_on_the_wire_is_capped_and_updates_carry_only_new_events(tmp_path: Path) -> None:
    s = live(tmp_path, history_on_wire=40)
    try:
        ann = s.client()
        table = create(ann, seats=12, bots="counting", options={"lives": 3})["table"]
        ann.send({"type": "start"})
        ann.until(lambda m: m["type"] == "state" and m["game"] is not None)
        play_to_end([ann], stop=lambda: ann.events_seen > 120)
        late = s.client()
        late.request({"type": "watch", "table": table}, "joined")
        first = late.until(lambda m: m["type"] == "state")
        assert first["events_from"] > 0 and len(first["events"]) == 40
        play_to_end([ann, late])
        states = [m for _, m in late.log if m["type"] == "state"]
        for before, after in itertools.pairwise(states):
            assert after["events_from"] == before["events_from"] + len(before["events"])
        assert max(len(m["events"]) for m in states[1:]) < 40
        ann.close()
        late.close()
    finally:
        s.stop()


# --- 6. closes, origins, errors, names ----------------------------------------------------------

def test_the_rate_limit_disconnect_sends_1008_after_every_queued_reply(tmp_path: Path) -> None:
    s = live(tmp_path, rate=1.0, burst=5.0, strikes=5)
    try:
        c = s.client()
        for _ in range(40):
            try:
                c.send({"type": "ping"})
            except ConnectionClosed:  # the server may close before all 40 are out
                break
        replies = []
        with pytest.raises(ConnectionClosed) as info:
            while True:
                replies.append(c.recv(5))
        assert info.value.rcvd is not None and info.value.rcvd.code == 1008
        kinds = [m["type"] for m in replies]
        assert kinds.count("pong") >= 5 and kinds.count("error") == 5  # a reply to each one handled
        assert replies[-1]["code"] == "rate_limited" and "disconnected" in replies[-1]["message"]
        assert len(replies) == kinds.count("pong") + 5
    finally:
        s.stop()


def test_only_the_servers_own_origin_or_an_allowed_one_may_open_the_socket(tmp_path: Path) -> None:
    s = live(tmp_path, origins=("https://cards.example.org",))
    try:
        with pytest.raises(InvalidStatus) as info:
            s.client(origin="https://evil.example")
        assert info.value.response.status_code == 403
        for origin in (f"http://127.0.0.1:{s.port}", "https://cards.example.org"):
            assert s.client(origin=origin).welcome["type"] == "welcome"
        assert s.client().welcome["type"] == "welcome"  # no Origin: not a browser
    finally:
        s.stop()


@pytest.mark.parametrize(("name", "code"), [
    ("\u0410nn", "name_taken"),  # a Cyrillic A
    ("\uff21\uff4e\uff4e", "name_taken"),  # full width, NFKC-normalised to Ann
    ("ANN", "name_taken"),
    ("A\u0301nn", "name_taken"),  # an accent over the A
    ("Bot 1", "bad_name"),
    ("b0t 12", "bad_name"),
    ("Ann (you)", "bad_name"),
    ("<b>Bob</b>", "bad_name"),
])
def test_look_alike_and_reserved_names_are_refused(server: LiveServer, name: str, code: str) -> None:
    ann, other = server.client(), server.client()
    table = create(ann)["table"]
    msg = other.request({"type": "join", "table": table, "name": name}, "joined")
    assert msg["type"] == "error" and msg["code"] == code, msg
    assert server.count("SELECT COUNT(*) FROM seats WHERE table_id=?", table) == 1
    join(other, table, "Bob")
    ann.close()
    other.close()


def test_the_skeleton_joins_look_alikes_and_keeps_others_apart() -> None:
    assert skeleton("\u0410nn") == skeleton("Ann") == skeleton("a n n")
    assert skeleton("Bob") != skeleton("Rob")
    assert skeleton("Zo\u00eb") == skeleton("Zoe")
    check_name("Ann", ["Bob", "Carl"])
    with pytest.raises(ValueError, match="looks like 'Ann'"):
        check_name("\u0410nn", ["Ann"])


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-5, 200), st.floats(allow_nan=True),
                    st.text(max_size=12), st.lists(st.integers(), max_size=3),
                    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(options=st.dictionaries(st.sampled_from(["lives", "ante", "blocker", "ranking", "deck", "kings_jerk",
                                                "pairing", "first_dealer", "nonsense"]), _VALUES, max_size=4),
       extra=st.dictionaries(st.sampled_from(["seats", "bots", "timer", "on_timeout", "preset", "public"]),
                             _VALUES, max_size=3))
def test_a_clients_mistake_never_answers_internal(server: LiveServer, options: dict[str, Any],
                                                  extra: dict[str, Any]) -> None:
    c = server.client()
    try:
        c.send(json.dumps({"type": "create", "name": "Ann", "options": options, **extra}))
        msg = c.until(lambda m: m["type"] in ("joined", "error"))
        if msg["type"] == "joined":
            c.send({"type": "start"})
            msg = c.until(lambda m: m["type"] in ("state", "error"))
        assert msg.get("code") != "internal", msg
    finally:
        c.close()


def test_client_key_groups_ipv6_by_network() -> None:
    assert client_key("2001:db8::1") == client_key("2001:db8::2") == "2001:db8::/64"
    assert client_key("::ffff:10.0.0.1") == "10.0.0.1"
    assert client_key("10.0.0.1") != client_key("10.0.0.2")
    with pytest.raises(ValueError, match="--queue 0"):
        Limits(queue=0)


def test_loading_a_long_game_runs_off_the_event_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table not in memory is read and replayed in the loader thread: while its replay is held
    up (here, until the test lets it go), the event loop still answers another client's ping."""
    from chasetheace.web.protocol import Create
    from chasetheace.web.store import Store
    from chasetheace.web.tables import Lobby, Table

    db = str(tmp_path / "long.sqlite3")
    store = Store(db)
    table, _, _ = Lobby(store).create(Create("Ann", seats=12, bots="random", options={"lives": 99}))
    table.start(0)
    game = table.game
    assert game is not None
    moves = 0
    while moves < 9000 and game.to_act is not None:  # a long game (random bots; it may end sooner)
        table.act(game.to_act, table.bot_action(game.to_act, "random"), "bot")
        moves += 1
    assert moves > 2000
    store.close()

    replaying, go_on = threading.Event(), threading.Event()
    threads: list[threading.Thread] = []
    real_restore = Table.restore

    def restore(*args: Any, **kwargs: Any) -> Table:
        threads.append(threading.current_thread())
        replaying.set()
        assert go_on.wait(60), "the test never let the replay go on"
        return real_restore(*args, **kwargs)

    monkeypatch.setattr(Table, "restore", restore)
    s = LiveServer(db, limits=Limits(**{**TEST_LIMITS.to_dict(), "rate": 1000.0, "burst": 1000.0}))
    try:
        watcher, other = s.client(), s.client()
        watcher.send({"type": "watch", "table": table.id})
        assert replaying.wait(10), "the table was not replayed"
        try:
            assert other.request({"type": "ping"}, "pong")["type"] == "pong"  # the loop is free
        finally:
            go_on.set()
        joined = watcher.until(lambda m: m["type"] in ("joined", "error"))
        state = watcher.until(lambda m: m["type"] == "state")
        assert joined["type"] == "joined" and state["events_from"] > 0  # the history is capped too
        assert threads and s.thread not in threads and all(t.name.startswith("cta-loader") for t in threads)
        watcher.close()
        other.close()
    finally:
        go_on.set()
        s.stop()


def test_a_table_loaded_for_a_refused_message_is_let_go(tmp_path: Path) -> None:
    s = live(tmp_path)
    try:
        ann = s.client()
        table = create(ann)["table"]
        ann.close()
        wait_until(lambda: not s.call(lambda: table in s.core.lobby.tables),  # nobody there
                   "the table is let go from memory")
        mallory = s.client()
        assert mallory.request({"type": "resume", "table": table, "token": "x" * 32}, "joined")["code"] == \
            "bad_token"
        assert s.call(lambda: table not in s.core.lobby.tables)
        mallory.close()
    finally:
        s.stop()


def test_a_page_moving_its_socket_to_the_tables_address_is_sent_no_card_it_may_not_know(
        server: LiveServer) -> None:
    # the page's socket move after a create or a join (/ws?table=ID, the seat resumed, the first
    # socket let go): neither socket, before, during or after, carries a hidden card
    play_with_moved_sockets(server.client, server.ws_url, server.url)
