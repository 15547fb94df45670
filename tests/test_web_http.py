"""The web table's HTTP side as strict as its WebSocket side (issue 24): odd game numbers are a
client's mistake (404), finished games' records and reviews built once and served with an ETag,
HTTP requests and WebSocket messages limited per client address, only the operator's host names
answered (DNS rebinding), and an idle connection closed with its close frame."""

from __future__ import annotations

import base64
import concurrent.futures
import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import TEST_TOOL

pytest.importorskip("uvicorn")
pytest.importorskip("httpx", reason=TEST_TOOL.format("httpx"))

import httpx
from websockets.exceptions import InvalidStatus

from chasetheace.kinds import GameKind
from chasetheace.record import Record
from chasetheace.web.guards import allowed_hosts
from chasetheace.web.ids import game_number
from chasetheace.web.limits import Buckets, Limits
from chasetheace.web.protocol import Create
from chasetheace.web.store import Store
from chasetheace.web.tables import Lobby
from webtools import TEST_LIMITS, LiveServer, create


def finished_table(db: str, seats: int = 3, lives: int = 3, game: str = "chase-the-ace") -> str:
    """A table whose first game was played to its end by random bots; its id."""
    store = Store(db)
    options = {"lives": lives} if game == "chase-the-ace" else {}
    table, _, _ = Lobby(store).create(Create("Ann", seats=seats, bots="random", options=options, game=game))
    table.start(0)
    played = table.game
    assert played is not None
    while played.to_act is not None:
        table.act(played.to_act, table.bot_action(played.to_act, "random"), "bot")
    assert played.over
    store.close()
    return table.id


@pytest.fixture
def played(tmp_path: Path) -> Iterator[tuple[LiveServer, str]]:
    db = str(tmp_path / "t.sqlite3")
    table_id = finished_table(db)
    server = LiveServer(db)
    yield server, table_id
    server.stop()


def live(tmp_path: Path, **limits: Any) -> LiveServer:
    return LiveServer(str(tmp_path / "t.sqlite3"), limits=Limits(**{**TEST_LIMITS.to_dict(), **limits}))


# --- 1. odd game numbers are a client's mistake --------------------------------------------------

ODD = ["%C2%B2", "%E2%91%A0", "%D9%A3", "%EF%BC%91", "999999999999", "99999999999999999999999999",
       "-1", "+1", "0", "01", "1.0", "1e3", "%201", "1%20", "0x1", "x", "%00", "1%0A"]


@pytest.mark.parametrize("what", ["record", "review"])
def test_odd_game_numbers_are_no_such_game(played: tuple[LiveServer, str], what: str) -> None:
    server, table_id = played
    with httpx.Client(base_url=server.url) as http:
        assert http.get(f"/api/record/{table_id}/1").status_code == 200  # the table is there
        for game in ODD:
            response = http.get(f"/api/{what}/{table_id}/{game}")
            assert response.status_code == 404, (game, response.status_code, response.text)
            message = response.json()["error"]
            assert message.count(".") == 0 and message.startswith("no such game"), message
        for path in (f"/api/{what}/{table_id}/", f"/api/{what}//1", f"/api/{what}/{table_id}//",
                     f"/api/{what}/%C2%B2/1", f"/api/{what}/{'x' * 65}/1", f"/api/{what}/"):
            response = http.get(path, follow_redirects=True)
            assert response.status_code == 404, (path, response.status_code, response.text)
            assert response.json()["error"].startswith("no such"), path


def test_a_game_number_is_ascii_digits() -> None:
    assert game_number("1") == 1 and game_number("999999999") == 999_999_999
    for odd in ("²", "①", "\u0661", "\uff11", "0", "01", "-1", "+1", "", " 1", "1 ", "9999999999"):
        assert game_number(odd) is None, odd


# --- 2. finished games' records built once, served with an ETag ----------------------------------

def test_a_finished_games_record_is_built_once_and_served_with_an_etag(
        played: tuple[LiveServer, str], monkeypatch: pytest.MonkeyPatch) -> None:
    server, table_id = played
    built: list[int] = []
    real = Store.game_record

    def counted(store: Store, *args: Any, **kwargs: Any) -> Any:
        built.append(1)
        return real(store, *args, **kwargs)

    monkeypatch.setattr(Store, "game_record", counted)
    url = f"{server.url}/api/record/{table_id}/1"
    with concurrent.futures.ThreadPoolExecutor(8) as pool:  # eight at once share one build
        answers = list(pool.map(lambda _: httpx.get(url), range(8)))
    with httpx.Client() as http:
        answers += [http.get(url) for _ in range(3)]
        assert {r.status_code for r in answers} == {200}
        assert len({r.content for r in answers}) == 1
        assert built == [1]
        first = answers[0]
        etag = first.headers["etag"]
        assert etag.startswith('"') and etag.endswith('"') and len({r.headers["etag"] for r in answers}) == 1
        assert "max-age" in first.headers["cache-control"]
        assert first.headers["content-type"] == "application/json"
        assert json.loads(first.content)["events"]
        for header in (etag, f"W/{etag}", f'"other", {etag}', "*"):
            again = http.get(url, headers={"if-none-match": header})
            assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
        assert http.get(url, headers={"if-none-match": '"other"'}).content == first.content
        missing = http.get(f"{server.url}/api/record/{table_id}/2")
        assert missing.status_code == 404 and "etag" not in missing.headers
    assert built == [1]


def test_a_finished_games_review_is_worked_out_once_and_served_with_an_etag(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An Ace Chasing game (its review needs no solution): reviewed once, however many ask; a
    review the solver is still preparing answers 503 with Retry-After and is not kept."""
    from chasetheace.web.advice import Advisor

    db = str(tmp_path / "t.sqlite3")
    table_id = finished_table(db, seats=4, game="ace-chasing")
    worked: list[int] = []
    real = Advisor.review

    def counted(advisor: Advisor, record: Record,
                kind: GameKind[Any, Any] | None = None) -> dict[str, Any] | None:
        worked.append(1)
        return real(advisor, record, kind)

    monkeypatch.setattr(Advisor, "review", counted)
    s = LiveServer(db)
    try:
        with httpx.Client(base_url=s.url) as http:
            answers = [http.get(f"/api/review/{table_id}/1") for _ in range(3)]
            assert {r.status_code for r in answers} == {200} and len({r.content for r in answers}) == 1
            etag = answers[0].headers["etag"]
            again = http.get(f"/api/review/{table_id}/1", headers={"if-none-match": etag})
            assert again.status_code == 304 and again.content == b""
            assert worked == [1]
            monkeypatch.setattr(Advisor, "review", lambda advisor, record, kind=None: None)
            s.call(lambda: s.app.state.downloads.kept.clear())
            waiting = http.get(f"/api/review/{table_id}/1")
            assert waiting.status_code == 503 and waiting.json()["retry"] is True
            assert waiting.headers["retry-after"] == "2" and "etag" not in waiting.headers
            assert not s.call(lambda: dict(s.app.state.downloads.kept))
    finally:
        s.stop()


def test_a_running_games_record_is_refused_and_not_kept(tmp_path: Path) -> None:
    s = live(tmp_path)
    try:
        c = s.client()
        table_id = create(c, seats=2, bots="random")["table"]
        c.send({"type": "start"})
        c.until(lambda m: m["type"] == "state" and m["game"] is not None)
        with httpx.Client(base_url=s.url) as http:
            response = http.get(f"/api/record/{table_id}/1")
            assert response.status_code == 409 and "etag" not in response.headers
            assert response.headers["cache-control"] == "no-store"
        assert s.app.state.downloads.kept == {}
        c.close()
    finally:
        s.stop()


# --- 2. and 4. limits per client address ---------------------------------------------------------

def test_http_requests_per_client_are_limited_with_retry_after(tmp_path: Path) -> None:
    s = live(tmp_path, http_rate=1.0, http_burst=4.0)
    try:
        with httpx.Client(base_url=s.url) as http:
            answers = [http.get("/healthz") for _ in range(4)]  # the burst
            while answers[-1].status_code == 200 and len(answers) < 200:  # then one a second
                answers.append(http.get("/healthz"))
            assert [r.status_code for r in answers[:4]] == [200] * 4
            refused = answers[-1]
            assert refused.status_code == 429
            assert int(refused.headers["retry-after"]) >= 1
            assert refused.json()["error"].startswith("too many requests from your address")
            assert "content-security-policy" in refused.headers
        statuses = []
        for _ in range(200):  # a handshake is a request too
            try:
                s.client().close()  # a token had come back meanwhile
            except InvalidStatus as exc:
                statuses.append(exc.response.status_code)
                break
        assert statuses == [429]
    finally:
        s.stop()


def test_messages_per_client_address_are_limited_over_all_its_connections(tmp_path: Path) -> None:
    """Each connection may send 1,000 a second, but the address only a burst of 5 and one more a
    second over all of them: three connections sending 30 pings each get few pongs."""
    s = live(tmp_path, rate=1000.0, burst=1000.0, rate_per_client=1.0, burst_per_client=5.0, strikes=1000)
    try:
        clients = [s.client() for _ in range(3)]
        start = time.monotonic()
        for c in clients:
            for _ in range(30):
                c.send({"type": "ping"})
        replies = [c.recv() for c in clients for _ in range(30)]
        elapsed = time.monotonic() - start
        pongs = sum(1 for m in replies if m["type"] == "pong")
        refused = [m for m in replies if m["type"] == "error"]
        assert len(replies) == 90 and pongs + len(refused) == 90
        assert 5 <= pongs <= 5 + int(elapsed) + 1  # the burst, and the rate while the test ran
        assert {m["code"] for m in refused} == {"rate_limited"}
        assert "from your address" in refused[0]["message"]
        for c in clients:
            c.close()
    finally:
        s.stop()


def test_buckets_refill_and_forget_full_ones() -> None:
    now = [0.0]
    buckets = Buckets(2.0, 3.0, clock=lambda: now[0])
    assert [buckets.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert buckets.take("a") == pytest.approx(0.5)
    assert buckets.take("b") == 0.0  # another client has its own
    now[0] = 10.0
    buckets.take("c")
    assert set(buckets.held) == {"c"}  # the full ones are forgotten
    assert Buckets.retry_after(0.01) == "1" and Buckets.retry_after(2.1) == "3"


# --- 3. DNS rebinding: only the operator's host names --------------------------------------------

def handshake(port: int, host: str, origin: str | None = None) -> bytes:
    """A raw WebSocket handshake with the given Host (and Origin): the response's status line."""
    key = base64.b64encode(os.urandom(16)).decode()
    lines = ["GET /ws HTTP/1.1", f"Host: {host}", "Upgrade: websocket", "Connection: Upgrade",
             f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
    if origin is not None:
        lines.append(f"Origin: {origin}")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        data = b""
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    return data.split(b"\r\n", 1)[0]


def test_a_rebinding_host_is_refused_over_http_and_websocket(tmp_path: Path) -> None:
    s = live(tmp_path)
    try:
        evil = f"rebind.attacker.example:{s.port}"
        status = handshake(s.port, evil, f"http://{evil}")
        assert b" 101 " not in status and b" 400 " in status, status
        with httpx.Client(base_url=s.url) as http:
            for path in ("/", "/healthz", "/static/app.js", "/t/abc"):
                response = http.get(path, headers={"host": evil})
                assert response.status_code == 400, path
            for host in (f"127.0.0.1:{s.port}", f"localhost:{s.port}", f"[::1]:{s.port}", "localhost"):
                assert http.get("/healthz", headers={"host": host}).status_code == 200, host
        assert b" 101 " in handshake(s.port, f"localhost:{s.port}", f"http://localhost:{s.port}")
    finally:
        s.stop()


def test_the_operators_host_names_are_answered(tmp_path: Path) -> None:
    s = LiveServer(str(tmp_path / "t.sqlite3"), hosts=("cards.example.org", "*.games.example"))
    try:
        assert b" 101 " in handshake(s.port, "cards.example.org", "https://cards.example.org")
        assert b" 101 " in handshake(s.port, "a.games.example:443")
        assert b" 400 " in handshake(s.port, f"127.0.0.1:{s.port}")  # not named: not answered
        assert b" 400 " in handshake(s.port, "cards.example.org.attacker.example")
    finally:
        s.stop()


def test_allow_host_names_are_checked_and_normalised() -> None:
    assert allowed_hosts(["Cards.Example.org", "::1", "127.0.0.1:8000", "*.example.org", "*"]) == [
        "cards.example.org", "[::1]", "127.0.0.1", "*.example.org", "*"]
    for bad in ("", "a b", "http://x", "x/y", "a..b", "*x.org"):
        with pytest.raises(ValueError, match="bad --allow-host"):
            allowed_hosts([bad])


def test_serve_refuses_a_bad_allow_host(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from chasetheace.cli import serve

    code = serve.main(["--db", str(tmp_path / "t.sqlite3"), "--allow-host", "http://x/"])
    assert code == 2 and "bad --allow-host" in capsys.readouterr().err
    assert serve._default_hosts("0.0.0.0") == ["localhost", "127.0.0.1", "::1"]
    assert serve._default_hosts("10.0.0.5")[0] == "10.0.0.5"


# --- 5. an idle connection gets its close frame --------------------------------------------------

def frames(data: bytes) -> list[tuple[int, bytes]]:
    """The (opcode, payload) of each unmasked frame in ``data``."""
    out, i = [], 0
    while i + 2 <= len(data):
        opcode, length = data[i] & 0x0F, data[i + 1] & 0x7F
        i += 2
        if length == 126:
            length, i = int.from_bytes(data[i:i + 2], "big"), i + 2
        elif length == 127:
            length, i = int.from_bytes(data[i:i + 8], "big"), i + 8
        out.append((opcode, data[i:i + length]))
        i += length
    return out


def open_raw(port: int) -> tuple[socket.socket, bytes]:
    """A raw WebSocket connection (the handshake done); the bytes read after the response head."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                 f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                 .encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, "the server closed during the handshake"
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    assert b" 101 " in head.split(b"\r\n")[0]
    return sock, rest


@pytest.mark.parametrize("echo", [False, True])
def test_an_idle_connection_ends_with_a_close_frame_1000(tmp_path: Path, echo: bool) -> None:
    """Read at the byte level: after the ``idle`` error comes a close frame with code 1000 (and
    reason ``idle``) before the end of the stream, whether or not the client answers it; a client
    that answers it sees the stream end (the socket's timeout is only a generous deadline)."""
    s = live(tmp_path, idle_seconds=0.3)
    try:
        sock, data = open_raw(s.port)
        with sock:
            while not any(op == 8 for op, _ in frames(data)):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
            got = frames(data)
            closes = [payload for op, payload in got if op == 8]
            assert closes, f"the stream ended without a close frame after {[p[:40] for _, p in got]}"
            texts = [json.loads(payload) for op, payload in got if op == 1]
            assert texts[-1]["code"] == "idle" and got[-1][0] == 8
            assert int.from_bytes(closes[0][:2], "big") == 1000 and closes[0][2:] == b"idle"
            if echo:  # the client's masked close frame, code 1000
                mask = os.urandom(4)
                body = bytes(b ^ mask[i % 4] for i, b in enumerate((1000).to_bytes(2, "big")))
                sock.sendall(bytes([0x88, 0x82]) + mask + body)
                while sock.recv(65536):
                    pass  # the server ends the stream once the closing handshake is done
    finally:
        s.stop()


def test_an_idle_connection_with_a_full_queue_still_gets_its_error_and_close_frame() -> None:
    """A client that neither sends nor reads (a phone asleep at a busy table) has its send queue
    full when it is found idle: its unsent updates give way to the ``idle`` error and the close
    frame (code 1000), rather than a drop without a close frame."""
    import asyncio

    from chasetheace.web.app import Connection, Server

    async def check() -> tuple[list[str | None], bool, int]:
        server = Server(Store(":memory:"), limits=Limits(queue=4, idle_seconds=1.0))
        conn = Connection(None, "10.0.0.1", server.limits)  # type: ignore[arg-type]  # never written to
        server.open.add(conn)
        for n in range(4):
            conn.send(f"update {n}")
        conn.heard -= 5  # silent for 5 s
        assert server.close_idle() == 1
        queued = [conn.queue.get_nowait() for _ in range(conn.queue.qsize())]
        return queued, conn.abort, conn.close_code

    queued, aborted, code = asyncio.run(check())
    assert not aborted and code == 1000
    assert queued[:2] == ["update 0", "update 1"] and queued[-1] is None
    last = queued[-2]
    assert last is not None and json.loads(last)["code"] == "idle"
