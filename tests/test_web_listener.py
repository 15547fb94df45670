"""The HTTP listener's own limits (issue 31, item 2): a request's head that is too slow (408), too
large or of too many lines (431) is refused early and its socket let go; one address holds only so
many HTTP sockets (503); the server answers others meanwhile. The same knobs reach ``serve``."""

from __future__ import annotations

import dataclasses
import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import TEST_TOOL

pytest.importorskip("uvicorn")
pytest.importorskip("httpx", reason=TEST_TOOL.format("httpx"))

import httpx

from chasetheace.web.limits import Limits
from chasetheace.web.listener import trusted, uvicorn_config
from webtools import TEST_LIMITS, LiveServer, ServerProcess, server_processes

HEAD = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"


def limits(**changes: float) -> Limits:
    return dataclasses.replace(TEST_LIMITS, **changes)  # type: ignore[arg-type]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    live = LiveServer(str(tmp_path / "t.sqlite3"), limits=limits(head_seconds=0.5, head_bytes=8192,
                                                                  head_fields=40))
    yield live
    live.stop()


def opened(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    return sock


def answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a socket timeout if it never does)."""
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    sock.close()
    return b"".join(chunks)


def send_all(sock: socket.socket, pieces: list[bytes]) -> None:
    """Send ``pieces`` one by one, stopping when the server has closed the connection."""
    for piece in pieces:
        try:
            sock.sendall(piece)
        except (BrokenPipeError, ConnectionResetError):
            return


def healthy(port: int) -> bool:
    return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).status_code == 200


def test_a_partial_request_is_answered_408_and_closed(server: LiveServer) -> None:
    sock = opened(server.port)
    sock.sendall(HEAD + b"X-Slow: a")  # and never the rest
    assert healthy(server.port)  # others are answered meanwhile
    got = answer(sock)
    assert got.startswith(b"HTTP/1.1 408 "), got
    assert b"did not arrive within 0.5 s" in got


def test_a_connection_that_sends_nothing_is_closed_too(server: LiveServer) -> None:
    got = answer(opened(server.port))
    assert got.startswith(b"HTTP/1.1 408 "), got


def test_a_kept_alive_connection_answers_its_requests_and_times_out_only_a_partial_one(
        server: LiveServer) -> None:
    sock = opened(server.port)
    for _ in range(3):
        sock.sendall(HEAD + b"\r\n")
        first = sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 "), first
    sock.sendall(HEAD)
    assert answer(sock).startswith(b"HTTP/1.1 408 ")


def test_a_huge_header_sent_in_pieces_is_refused_431(server: LiveServer) -> None:
    sock = opened(server.port)
    send_all(sock, [HEAD + b"X-Big: "] + [b"a" * 4096] * 8192 + [b"\r\n\r\n"])  # 32 MB
    got = answer(sock)
    assert got.startswith(b"HTTP/1.1 431 "), got[:200]
    assert b"over 8192 bytes" in got
    assert healthy(server.port)


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.mark.parametrize("count", [41, 100_000])
def test_too_many_header_lines_are_refused_431(server: LiveServer, count: int) -> None:
    logger = logging.getLogger("uvicorn.error")
    heard = _Records()
    logger.addHandler(heard)
    try:
        sock = opened(server.port)
        send_all(sock, [HEAD, b"a: b\r\n" * count, b"\r\n"])
        got = answer(sock)
        assert got.startswith(b"HTTP/1.1 431 "), got[:200]
        assert healthy(server.port)
    finally:
        logger.removeHandler(heard)
    # the refusal is the answer: no warning per refused request in the server's log
    assert [r.getMessage() for r in heard.records if r.levelno >= logging.WARNING] == []


def test_headers_within_the_limits_are_answered(server: LiveServer) -> None:
    sock = opened(server.port)
    sock.sendall(HEAD + b"a: b\r\n" * 36 + b"X-Long: " + b"a" * 6000 + b"\r\nConnection: close\r\n\r\n")
    assert answer(sock).startswith(b"HTTP/1.1 200 ")


def test_one_address_holds_only_so_many_http_sockets(tmp_path: Path) -> None:
    # the tests' address is not a trusted proxy here, so the per-address limit applies to it
    live = LiveServer(str(tmp_path / "t.sqlite3"), limits=limits(sockets_per_client=3),
                      forwarded_allow_ips="10.9.9.9")
    try:
        held = [opened(live.port) for _ in range(3)]
        for sock in held:
            sock.sendall(HEAD)  # partial: each holds its socket
        extra = answer(opened(live.port))
        assert extra.startswith(b"HTTP/1.1 503 "), extra
        assert b"too many connections from your address" in extra
        held.pop().close()

        def freed() -> bool:
            with httpx.Client(transport=httpx.HTTPTransport(retries=0)) as http:
                return http.get(f"{live.url}/healthz", timeout=10).status_code == 200

        from webtools import wait_until

        wait_until(freed, "a socket is free for the address again")
        for sock in held:
            sock.close()
    finally:
        live.stop()


def test_trusted_proxies_are_read_from_forwarded_allow_ips() -> None:
    assert trusted("127.0.0.1, ::1") == frozenset({"127.0.0.1", "::1"})
    assert trusted("*") is None


def test_the_keep_alive_and_concurrency_limits_reach_uvicorn() -> None:
    config = uvicorn_config(object(), Limits(keep_alive_seconds=7, sockets=900))
    assert config.timeout_keep_alive == 7
    assert config.limit_concurrency == 900
    assert config.http.__name__ == "GuardedHttpProtocol"


def test_serve_applies_the_limits(tmp_path: Path) -> None:
    with server_processes() as procs:
        proc = ServerProcess(str(tmp_path / "t.sqlite3"), "--head-seconds", "0.5", "--head-fields", "10")
        procs.append(proc)
        sock = opened(proc.port)
        sock.sendall(HEAD)
        assert answer(sock).startswith(b"HTTP/1.1 408 ")
        sock = opened(proc.port)
        send_all(sock, [HEAD, b"a: b\r\n" * 11, b"\r\n"])
        assert answer(sock).startswith(b"HTTP/1.1 431 ")
        proc.stop()


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="file limits are POSIX")
def test_serve_raises_the_file_limit_for_its_sockets() -> None:
    import subprocess
    import sys

    script = ("import resource\n"
              "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
              "resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))\n"
              "from chasetheace.cli.serve import _raise_file_limit\n"
              "_raise_file_limit(1000)\n"
              "print(resource.getrlimit(resource.RLIMIT_NOFILE)[0], hard)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    soft, hard = (int(v) for v in done.stdout.split())
    assert soft == (1256 if hard < 0 or hard >= 1256 else hard), done
    if soft < 1256:
        assert "fewer than --sockets 1000 needs" in done.stderr
