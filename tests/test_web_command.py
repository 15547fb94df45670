"""The ``serve`` command: its arguments, and one clear line for a user's mistake."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from chasetheace.cli import serve as command


@pytest.fixture
def web_extra() -> None:
    """The checks past the first need the web extra (without it, serve says so and stops)."""
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")


def test_register_adds_serve_with_its_defaults() -> None:
    parser = argparse.ArgumentParser(prog="chase-the-ace")
    command.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["serve"])
    assert (args.host, args.port, args.db) == ("127.0.0.1", 8000, "chase-the-ace.sqlite3")
    assert args.func is command.run


@pytest.mark.parametrize(("argv", "words"), [
    (["--port", "70000"], "bad port 70000"),
    (["--bot-delay", "-1"], "bad --bot-delay"),
    (["--db", "/no/such/folder/x.sqlite3"], "cannot open database"),
    (["--queue", "0"], "bad limit --queue 0: allowed >= 1"),
    (["--table-ttl", "-5"], "bad limit --table-ttl -5.0: allowed >= 0"),
    (["--solutions", "/no/such/folder"], "is not a folder"),
])
def test_bad_arguments_are_one_line_and_status_2(argv: list[str], words: str, web_extra: None,
                                                 capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert command.main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_a_database_from_a_newer_schema_is_refused(tmp_path: Path, web_extra: None,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import sqlite3

    db = tmp_path / "future.sqlite3"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    con.execute("INSERT INTO meta VALUES ('schema', '99')")
    con.commit()
    con.close()
    assert command.main(["--db", str(db)]) == 2
    assert "schema version 99" in capsys.readouterr().err


def test_a_port_in_use_is_one_line_and_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                web_extra: None) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert command.main(["--port", str(port), "--db", str(tmp_path / "x.sqlite3")]) == 2
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # no database file and no lock file left behind


def test_the_cli_has_serve() -> None:
    cli = pytest.importorskip("chasetheace.cli.command")
    args = cli.build_parser().parse_args(["serve", "--port", "8123"])
    assert args.func is command.run and args.port == 8123
