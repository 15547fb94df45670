"""The web table on PostgreSQL: its schema versions, bad input at start, and several server
processes on one database (real ``python -m chasetheace.web`` processes, real WebSocket clients,
a throwaway PostgreSQL server from the installed binaries: skipped where it is missing)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import helpers
from helpers import TEST_TOOL, missing_extra
from pgtools import PgServer, fresh_name, pg_server

pytest.importorskip("uvicorn")
pytest.importorskip("httpx", reason=TEST_TOOL.format("httpx"))
psycopg = pytest.importorskip("psycopg", reason=missing_extra("psycopg", "postgres"))
import httpx  # noqa: E402

import chasetheace as cta  # noqa: E402
from chasetheace.extras import install_command  # noqa: E402
from chasetheace.record import Record  # noqa: E402
from chasetheace.web.pgstore import PG_SCHEMA_V1, PG_UPGRADES, PgStore, mask_url  # noqa: E402
from chasetheace.web.store import SCHEMA_VERSION, StoreConflict  # noqa: E402
from webtools import (  # noqa: E402
    CARD,
    Client,
    ServerProcess,
    create,
    finish_together,
    join,
    play_to_end,
    play_with_moved_sockets,
    resume,
    server_processes,
    swap_until,
    wait_until,
)

# the tests' limits: one client address (127.0.0.1) opens many connections and tables
LIMITS = ["--connections-per-client", "1000", "--tables-per-client", "100000", "--rate-per-client", "100000",
          "--burst-per-client", "100000", "--http-rate", "100000", "--http-burst", "100000"]


# --- the schema -----------------------------------------------------------------------------------


def _at_version(url: str, version: int) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(PG_SCHEMA_V1.encode())
        for step in range(1, version):
            for statement in PG_UPGRADES[step]:
                conn.execute(statement.encode())
        conn.execute("INSERT INTO meta VALUES ('schema', %s)", (str(version),))
        conn.execute("INSERT INTO tables VALUES ('T1', 1.0, '{}')")
        conn.execute("INSERT INTO seats (table_id, seat, name, token_hash) VALUES ('T1', 0, 'Ann', 'h')")


def _columns(url: str, table: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s", (table,))}


def test_a_database_of_each_earlier_version_is_upgraded_on_start(pg: PgServer) -> None:
    assert sorted(PG_UPGRADES) == list(range(1, SCHEMA_VERSION))
    for version in range(1, SCHEMA_VERSION + 1):
        url = pg.new_database(fresh_name(f"v{version}"))
        _at_version(url, version)
        PgStore(url).close()
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == (
                str(SCHEMA_VERSION),)
            assert conn.execute("SELECT name, token_hash FROM seats").fetchall() == [("Ann", "h")]
        assert {"recovery_hash"} <= _columns(url, "seats") and {"act_id"} <= _columns(url, "actions")
        PgStore(url).close()  # opening it again changes nothing


def test_processes_starting_together_create_the_schema_once(pg_url: str) -> None:
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        stores = list(pool.map(lambda _: PgStore(pg_url), range(4)))
    for store in stores:
        store.close()
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT value FROM meta").fetchall() == [(str(SCHEMA_VERSION),)]


@pytest.mark.parametrize("version", ["99", "two"])
def test_a_newer_or_unknown_version_is_refused_changing_nothing(pg_url: str, version: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(PG_SCHEMA_V1.encode())
        conn.execute("INSERT INTO meta VALUES ('schema', %s)", (version,))
    with pytest.raises(ValueError, match="schema version"):
        PgStore(pg_url)
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT value FROM meta").fetchall() == [(version,)]
    assert "recovery_hash" not in _columns(pg_url, "seats")


def test_a_database_of_another_application_is_refused_changing_nothing(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    with pytest.raises(ValueError, match=r"another application \(invoices\)"):
        PgStore(pg_url)
    with psycopg.connect(pg_url) as conn:
        assert [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")] == ["invoices"]


def test_a_password_is_masked() -> None:
    assert mask_url("postgresql://ann:s3cret@db:5432/cta") == "postgresql://ann:***@db:5432/cta"
    assert mask_url("postgresql://ann@db/cta") == "postgresql://ann@db/cta"


# --- bad input at start ---------------------------------------------------------------------------


def _serve(*argv: str, prelude: str = "") -> subprocess.CompletedProcess[str]:
    code = f"{prelude}import sys; from chasetheace.cli.serve import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, "--port", "0", *argv], capture_output=True, text=True,
                          timeout=60)


def _one_error(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("chase-the-ace: error: "), done.stderr
    assert "Traceback" not in done.stderr and "s3cret" not in done.stderr + done.stdout
    for word in words:
        assert word in done.stderr, done.stderr


def test_an_unreachable_or_wrong_url_is_one_error_line_without_the_password(pg: PgServer) -> None:
    free = _free_port()
    _one_error(_serve("--db", f"postgresql://ann:s3cret@127.0.0.1:{free}/cta"), "cannot use database",
               "ann:***@")
    _one_error(_serve("--db", f"postgresql://ann:s3cret@127.0.0.1:{pg.port}/"), "name the database")
    _one_error(_serve("--db", "postgresql://ann:s3cret@127.0.0.1:99999999/x"), "bad database URL")
    _one_error(_serve("--db", f"postgresql://nobody:s3cret@127.0.0.1:{pg.port}/no_such_db"),
               "cannot use database")


def test_a_database_of_another_application_is_refused_at_start(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    _one_error(_serve("--db", pg_url), "another application")


def test_a_missing_driver_is_one_error_line_naming_the_extra(pg_url: str) -> None:
    done = _serve("--db", pg_url, prelude="import sys; sys.modules['psycopg'] = None; ")
    _one_error(done, "(the postgres extra)", "run " + install_command("postgres"))
    with psycopg.connect(pg_url) as conn:  # nothing written
        assert conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone() == (0,)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


# --- several processes ----------------------------------------------------------------------------


def Process(url: str, *extra: str) -> ServerProcess:
    return ServerProcess(url, *LIMITS, *extra, bot_delay=0.02, wait=90.0)


@pytest.fixture
def started() -> Iterator[list[ServerProcess]]:
    with server_processes() as procs:
        yield procs


def record_of(url: str, table: str, game_no: int = 1) -> Record:
    store = PgStore(url)
    try:
        saved = store.load_table(table)
        assert saved is not None
        return store.game_record(table, game_no, saved.options["rules"],
                                 saved.options.get("game", "chase-the-ace"))
    finally:
        store.close()


def _holder(url: str, table: str) -> str | None:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT holder FROM leases WHERE table_id = %s AND expires > now()",
                           (table,)).fetchone()
        return None if row is None else str(row[0])


def test_two_people_on_two_processes_play_a_game_to_the_end(
        pg_url: str, started: list[ServerProcess]) -> None:
    one, two = Process(pg_url), Process(pg_url)
    started += [one, two]
    ann, bob = one.client(), two.client()
    table = create(ann, seats=2, bots=None, options={"lives": 2})["table"]
    join(bob, table, "Bob")
    ann.wait_for(lambda c: c.table_info["seats"][1]["name"] == "Bob")  # Bob's seat reached Ann's process
    ann.send({"type": "start"})
    bob.until(lambda m: m["type"] == "state" and m["game"] is not None)
    play_to_end([ann, bob])
    for c in (ann, bob):
        c.wait_for(lambda c: c.game is not None and c.game["over"])
    assert ann.history[-1] == bob.history[-1]
    record = record_of(pg_url, table)
    game = cta.Game.from_record(record)
    assert game.over and len(game.events) >= len(ann.history)
    # the finished game's record downloads from either process, the same
    for proc in (one, two):
        got = httpx.get(f"http://127.0.0.1:{proc.port}/api/record/{table}/1", timeout=10)
        assert got.status_code == 200, got.text
        assert cta.Game.from_record(got.json()).events == game.events
    # each was sent only cards its seat may know (its own, and those shown to all), from either process
    for c in (ann, bob):
        allowed = helpers.known_cards(game.events, c.seat)
        for raw, _ in c.log:
            assert set(CARD.findall(raw)) <= allowed
    for c in (ann, bob):
        c.close()


def test_pages_moving_their_sockets_to_another_process_are_sent_no_card_they_may_not_know(
        pg_url: str, started: list[ServerProcess]) -> None:
    # the page's socket move (/ws?table=ID) to the process the proxy sends the table to: the seat
    # resumed there takes it from the first process's connection; no hidden card on either socket
    one, two = Process(pg_url), Process(pg_url)
    started += [one, two]
    play_with_moved_sockets(one.client, f"ws://127.0.0.1:{two.port}/ws", f"http://127.0.0.1:{one.port}")


def _counts(proc: ServerProcess) -> dict[str, int]:
    counts: dict[str, int] = httpx.get(f"http://127.0.0.1:{proc.port}/healthz", timeout=10).json()["cluster"]
    return counts


def test_a_game_started_on_another_process_is_dealt_from_its_notification(
        pg_url: str, started: list[ServerProcess]) -> None:
    one, two = Process(pg_url), Process(pg_url)
    started += [one, two]
    ann, bob = one.client(), two.client()
    table = create(ann, seats=2, bots=None)["table"]
    join(bob, table, "Bob")
    ann.wait_for(lambda c: c.table_info["seats"][1]["name"] == "Bob")
    ann.send({"type": "start"})
    bob.until(lambda m: m["type"] == "state" and m["game"] is not None)
    ann.wait_for(lambda c: c.game is not None)
    # Bob's process dealt the game from the notification (its seed, players and deal), no read
    assert _counts(two)["games_applied"] == 1
    assert bob.game is not None and ann.game is not None
    assert bob.game["dealer"] == ann.game["dealer"] and bob.game["lives"] == ann.game["lives"]
    finish_together([ann, bob])  # and the game goes on from there on both processes


def test_a_process_hears_only_the_tables_it_has_in_memory(pg_url: str, started: list[ServerProcess]) -> None:
    one, two = Process(pg_url), Process(pg_url)
    started += [one, two]
    ann, cid = one.client(), one.client()
    table = create(ann, seats=2, bots=None)["table"]
    join(cid, table, "Cid")
    ann.wait_for(lambda c: c.table_info["seats"][1]["name"] == "Cid")
    ann.send({"type": "start"})
    cid.until(lambda m: m["type"] == "state" and m["game"] is not None)
    play_to_end([ann, cid])
    for c in (ann, cid):
        c.wait_for(lambda c: c.game is not None and c.game["over"])
    # the other process never had the table: not one of its writes woke it
    assert _counts(two)["notified"] == 0
    # once it has the table (Bob opens it there), it hears the next writes: a new game dealt
    bob = two.client()
    bob.send({"type": "watch", "table": table})
    bob.wait_for(lambda c: c.game is not None and c.game["over"])
    ann.send({"type": "rematch"})
    bob.wait_for(lambda c: c.game is not None and not c.game["over"])
    assert _counts(two)["notified"] >= 1
    for c in (ann, cid, bob):
        c.close()


def test_a_retried_act_is_applied_once_on_any_process(pg_url: str, started: list[ServerProcess]) -> None:
    one, two = Process(pg_url), Process(pg_url)
    started += [one, two]
    ann = one.client()
    table = create(ann, seats=3, bots="threshold:8")["table"]
    ann.send({"type": "start"})
    ann.wait_for(lambda c: c.my_turn() or (c.game is not None and c.game["over"]), timeout=20)
    assert ann.my_turn()
    moves = ann.events_seen
    ann.send({"type": "act", "action": "keep", "act_id": "ann-1"})
    ann.wait_for(lambda c: c.events_seen > moves)
    again = resume(two, table, ann.token)  # as a page that reconnected elsewhere and sent it again
    again.send({"type": "act", "action": "keep", "act_id": "ann-1"})
    answers = again.quiet()
    assert not [m for m in answers if m["type"] == "error"], answers
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM actions WHERE act_id = 'ann-1'").fetchone() == (1,)
        assert conn.execute("SELECT count(*) FROM actions WHERE table_id = %s AND seat = 0",
                            (table,)).fetchone() == (1,)
    again.close()
    ann.close()


def test_a_killed_lease_holder_hands_the_table_over_and_the_game_finishes(
        pg_url: str, started: list[ServerProcess]) -> None:
    one, two, three = Process(pg_url), Process(pg_url), Process(pg_url)
    started += [one, two, three]
    ann, bob = one.client(), two.client()
    table = create(ann, seats=5, bots="counting", options={"lives": 3})["table"]
    join(bob, table, "Bob")
    ann.wait_for(lambda c: c.table_info["seats"][1]["name"] == "Bob")
    ann.send({"type": "start"})
    # mid-game, the bots having played
    swap_until([ann, bob], lambda acted: acted >= 4 and ann.game is not None and ann.game["hand"] >= 2, 60)
    assert ann.game is None or not ann.game["over"], "over before the kill: give it more lives"
    holder = _holder(pg_url, table)
    assert holder is not None
    killed, other = (one, two) if holder.split(":")[1] == str(one.proc.pid) else (two, one)
    assert holder.split(":")[1] == str(killed.proc.pid)
    survivor_client = ann if other is one else bob
    gone_client = bob if survivor_client is ann else ann
    seen_before = list(gone_client.history), gone_client.base
    killed.kill()
    # the page of the dead process's player reconnects by itself: here, to the third process
    back = resume(three, table, gone_client.token)
    assert back.history[:len(seen_before[0])] == seen_before[0] or back.base > seen_before[1]
    wait_for_lease = time.monotonic() + 30  # a deadline against a hang (benchmarks/ measures the time)
    while _holder(pg_url, table) in (None, holder):
        assert time.monotonic() < wait_for_lease, "no process took the table over"
        time.sleep(0.1)
    play_to_end([survivor_client, back], limit=120)
    record = record_of(pg_url, table)
    game = cta.Game.from_record(record)
    assert game.over
    # no move anyone saw accepted is lost: each client's events are the record's as that seat sees them
    final = resume(other, table, survivor_client.token)
    assert final.history[-1] == survivor_client.history[-1]
    assert survivor_client.history == final.history[-len(survivor_client.history):]
    for c in (survivor_client, back, final):
        c.close()


def test_postgresql_stopped_and_started_under_a_running_server() -> None:
    with pg_server() as server:
        url = server.new_database("stopstart")
        proc = Process(url)
        try:
            ann = proc.client()
            table = create(ann, seats=3, bots="threshold:8")["table"]
            ann.send({"type": "start"})
            ann.wait_for(lambda c: c.my_turn(), timeout=20)
            server.stop()
            told = ann.until(lambda m: m["type"] == "error", timeout=15)
            assert told["code"] == "database_unavailable"
            ann.send({"type": "act", "action": "keep"})  # refused: nothing can be saved
            refused = ann.until(lambda m: m["type"] == "error", timeout=15)
            assert refused["code"] == "database_unavailable"
            assert proc.health()["database"] is False
            server.start()
            back = ann.until(lambda m: m["type"] == "notice", timeout=20)
            assert back["code"] == "database_back"
            ann.acted = None
            play_to_end([ann], limit=120)
            game = cta.Game.from_record(record_of(url, table))
            assert game.over
            ann.close()
        finally:
            proc.stop()


def _timed_table_of_two(url: str, started: list[ServerProcess]) -> tuple[ServerProcess, ServerProcess, str,
                                                                         Client, Client]:
    """Two processes, a 2-seat table with a 60 s turn timer, Ann on process one and Bob (joined) on
    two, not started yet: the processes, the table and both clients."""
    one, two = Process(url), Process(url)
    started += [one, two]
    ann, bob = one.client(), two.client()
    table = create(ann, seats=2, bots=None, timer=60)["table"]
    join(bob, table, "Bob")
    ann.wait_for(lambda c: c.table_info["seats"][1]["name"] == "Bob")
    return one, two, table, ann, bob


def _both_see_the_timer(url: str, table: str, procs: tuple[ServerProcess, ...],
                        clients: tuple[Client, ...]) -> None:
    """Each client (whichever process runs the timer) sees the started game's turn timer, which is
    written once in the database; the clients are closed."""
    for c in clients:
        try:  # a deadline against a hang, generous for a loaded machine (a lease may change hands)
            c.wait_for(lambda c: c.game is not None and c.table_info["turn_ms_left"] is not None, timeout=30)
        except TimeoutError:
            raise AssertionError(f"seat {c.seat} shows no turn timer; {_holder(url, table)} holds the "
                                 f"lease; healthz: {[p.health() for p in procs]}") from None
        assert 0 < c.table_info["turn_ms_left"] <= 60_000
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM turns WHERE table_id = %s", (table,)).fetchone() == (1,)
    for c in clients:
        c.close()


def test_a_turn_timer_shows_on_every_process(pg_url: str, started: list[ServerProcess]) -> None:
    one, two, table, ann, bob = _timed_table_of_two(pg_url, started)
    ann.send({"type": "start"})
    _both_see_the_timer(pg_url, table, (one, two), (ann, bob))


def test_a_turn_timer_whose_write_failed_is_written_again(pg_url: str, started: list[ServerProcess]) -> None:
    # the turns table locked while the game starts: the timer's write waits for the lock, gives up
    # (the lock timeout), and is written again at a later heartbeat: the other process shows it
    one, two, table, ann, bob = _timed_table_of_two(pg_url, started)
    waiting = ("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
               "WHERE c.relname = 'turns' AND NOT l.granted")
    with psycopg.connect(pg_url) as locker, psycopg.connect(pg_url, autocommit=True) as watch:
        locker.execute("LOCK TABLE turns IN EXCLUSIVE MODE")  # its reads go on
        ann.send({"type": "start"})
        wait_until(lambda: watch.execute(waiting).fetchone()[0] > 0, "the timer's write waits", 30)
        wait_until(lambda: watch.execute(waiting).fetchone()[0] == 0, "the timer's write gave up", 30)
        locker.rollback()
    _both_see_the_timer(pg_url, table, (one, two), (ann, bob))


def test_the_public_list_shows_tables_of_every_process(pg_url: str, started: list[ServerProcess]) -> None:
    one, two = Process(pg_url), Process(pg_url)
    started += [one, two]
    ann = one.client()
    table = create(ann, seats=3, bots=None, public=True)["table"]
    private = create(one.client(), name="Cy", seats=3, bots=None)["table"]
    looker = two.client()
    found: list[dict[str, Any]] = []

    def listed() -> bool:  # Ann's seat reaches the other process as soon as its presence is written
        found[:] = looker.request({"type": "list"}, "tables")["tables"]
        return table in [t["id"] for t in found]

    wait_until(listed, "the public table is listed by the other process")
    ids = [t["id"] for t in found]
    assert table in ids and private not in ids
    entry = found[ids.index(table)]
    assert entry["host"] == "Ann" and entry["taken"] == 1 and entry["seats"] == 3
    for c in (ann, looker):
        c.close()


def test_a_seat_resumed_on_another_process_is_taken_from_the_old_connection(
        pg_url: str, started: list[ServerProcess]) -> None:
    one, two = Process(pg_url), Process(pg_url)
    started += [one, two]
    ann = one.client()
    table = create(ann, seats=3, bots=None)["table"]
    again = resume(two, table, ann.token)
    told = ann.until(lambda m: m["type"] == "error", timeout=30)
    assert told["code"] == "replaced", told
    ann.send({"type": "start"})  # the old connection holds no seat now
    refused = ann.until(lambda m: m["type"] == "error", timeout=30)
    assert refused["code"] == "not_seated", refused
    answer = again.request({"type": "ping"}, "pong")
    assert answer["type"] == "pong", answer
    for c in (ann, again):
        c.close()


def test_a_creator_resuming_at_once_on_another_process_keeps_its_seat(
        pg_url: str, started: list[ServerProcess], tmp_path: Path) -> None:
    # what the page does once it has created a table: it opens a socket on the table's process and
    # resumes there at once, the first socket still open. The first process's announcement of the
    # seat is in the database before the creator is told ``joined`` (so before the resume): the
    # second process, hearing it after the resume, keeps the resumed seat; the first socket loses it.
    # The first process reads the database's clock 0.3 s fast (a starved process's readings can be
    # that far off): its announcement then says the seat was taken after the resume, which the
    # database's order of the announcements overrules.
    from chasetheace.web.pgstore import channel

    fast = tmp_path / "fast"
    fast.mkdir()
    (fast / "sitecustomize.py").write_text(
        "import time\nfrom chasetheace.web import cluster\n"
        "cluster.Cluster.now = lambda self: time.time() + self.offset + 0.3\n")
    path = os.pathsep.join([str(fast), *filter(None, [os.environ.get("PYTHONPATH")])])
    one = ServerProcess(pg_url, *LIMITS, bot_delay=0.02, wait=90.0, env={"PYTHONPATH": path})
    started.append(one)
    two = Process(pg_url)
    started.append(two)
    pairs = []
    for _ in range(10):
        first = one.client()
        first.send({"type": "create", "name": "Ann", "seats": 2, "bots": "counting", "public": False})
        joined = first.until(lambda m: m["type"] == "joined")
        moved = two.client()
        moved.send({"type": "resume", "table": joined["table"], "token": joined["token"]})
        pairs.append((first, moved, joined["table"]))
    for first, moved, _ in pairs:
        answer = moved.until(lambda m: m["type"] in ("joined", "error"), timeout=30)
        assert answer["type"] == "joined" and answer["role"] == "player" and answer["seat"] == 0, answer
        told = first.until(lambda m: m["type"] == "error", timeout=30)
        assert told["code"] == "replaced", told
    # the second process has handled every notification sent before this one (its count shows it;
    # sent on the channel of a table it has: it listens on no other)
    heard = _counts(two)["notified"]
    last = pairs[-1][2]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("SELECT pg_notify(%s, %s)", (channel(last), f"test|{last}|p"))
    wait_until(lambda: _counts(two)["notified"] > heard, "the second process heard the test's notice")
    for first, moved, table in pairs:
        moved.send({"type": "start"})
        moved.until(lambda m: m["type"] == "state" and m["game"] is not None, timeout=30)
        moved.pump(0.05)
        assert not [m for _, m in moved.log if m.get("type") == "error"], table
        first.close()
        moved.close()


def test_a_start_missing_a_seat_taken_elsewhere_is_refused_by_the_database(pg_url: str) -> None:
    # a copy that has not heard of Bob's seat (taken on another process) deals Ann and two bots:
    # the database refuses it (a conflict: the table is read and the start made again)
    store = PgStore(pg_url)
    try:
        store.create_table("T1", {"seats": 3})
        store.add_seat("T1", 0, "Ann", "h0")
        store.add_seat("T1", 1, "Bob", "h1")
        with pytest.raises(StoreConflict):
            store.start_game("T1", 1, 7, 0, ["Ann", "Bot 1", "Bot 2"],
                             ["human", "threshold:8", "threshold:8"], [])
        saved = store.load_table("T1")
        assert saved is not None and saved.games == []
        store.start_game("T1", 1, 7, 0, ["Ann", "Bob", "Bot 1"], ["human", "human", "threshold:8"], [])
        saved = store.load_table("T1")
        assert saved is not None and [g.names for g in saved.games] == [["Ann", "Bob", "Bot 1"]]
    finally:
        store.close()


def test_a_start_right_after_a_join_on_another_process_deals_every_seat(
        pg_url: str, started: list[ServerProcess]) -> None:
    one, two = Process(pg_url), Process(pg_url)
    started += [one, two]
    ann, bob = one.client(), two.client()
    table = create(ann, seats=3, bots="threshold:8")["table"]
    join(bob, table, "Bob")
    ann.send({"type": "start"})  # at once: Ann's process may not have heard of Bob's seat yet
    for c in (ann, bob):
        c.wait_for(lambda c: c.game is not None)
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT names, kinds FROM games WHERE table_id = %s AND game_no = 1",
                           (table,)).fetchone()
    assert row is not None
    assert json.loads(row[0])[:2] == ["Ann", "Bob"] and json.loads(row[1])[:2] == ["human", "human"]
    for c in (ann, bob):
        c.close()
