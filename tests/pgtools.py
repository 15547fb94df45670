"""A throwaway PostgreSQL server for the tests, from the installed binaries (initdb, pg_ctl).

It lives in a temporary folder (data and unix socket), listens on 127.0.0.1 on a free port,
trusts local connections, and is stopped and removed at the end. Run as root, initdb and
pg_ctl run as the ``postgres`` user (PostgreSQL refuses root), in a folder that user owns.
Tests that need it skip with the reason when the binaries or that user are missing.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import missing_extra

MISSING = ("PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or under "
           "/usr/lib/postgresql/*/bin: apt-get install postgresql, or run .ci/run")


def find_binaries() -> Path | None:
    """The folder holding initdb and pg_ctl, or None."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.access(os.path.join(folder, "initdb"), os.X_OK):
            return Path(folder)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class PgServer:
    """One PostgreSQL server in a temporary folder."""

    def __init__(self) -> None:
        bins = find_binaries()
        if bins is None:
            pytest.skip(MISSING)
        self.bins = bins
        self.as_user: list[str] = []
        self.root = Path(tempfile.mkdtemp(prefix="cta-pg-"))
        if os.geteuid() == 0:
            runuser = shutil.which("runuser")
            try:
                import pwd

                user = pwd.getpwnam("postgres")
            except KeyError:
                shutil.rmtree(self.root, ignore_errors=True)
                pytest.skip("running as root and there is no 'postgres' user to run PostgreSQL as")
            if runuser is None:
                shutil.rmtree(self.root, ignore_errors=True)
                pytest.skip("running as root and there is no runuser to run PostgreSQL as 'postgres'")
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self.as_user = [runuser, "-u", "postgres", "--"]
        self.data = self.root / "data"
        self.port = _free_port()
        self._run(str(bins / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust",
                  "-E", "UTF8", "--no-sync")
        self.start()

    def _run(self, *argv: str) -> None:
        done = subprocess.run([*self.as_user, *argv], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed: {done.stderr or done.stdout}")

    def start(self) -> None:
        """Start (or start again) on the same port."""
        self._run(str(self.bins / "pg_ctl"), "-D", str(self.data), "-w", "-t", "60", "-l",
                  str(self.root / "log"), "-o",
                  f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                  "-c max_connections=300", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: disconnect every client now)."""
        self._run(str(self.bins / "pg_ctl"), "-D", str(self.data), "-w", "-t", "60", "-m", mode, "stop")

    def processes(self) -> list[int]:
        """The server's processes: the postmaster (from its pid file) and its children."""
        main = int((self.data / "postmaster.pid").read_text().split()[0])
        found = [main]
        for stat in glob.glob("/proc/[0-9]*/stat"):
            with contextlib.suppress(OSError, ValueError, IndexError):
                fields = Path(stat).read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == main:
                    found.append(int(Path(stat).parent.name))
        return found

    def pause(self) -> None:
        """Stop every process of the server (SIGSTOP): it keeps its connections but answers nothing,
        as a hung or overloaded database does."""
        for pid in self.processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGSTOP)

    def resume(self) -> None:
        """Let the paused server run again (SIGCONT)."""
        for pid in self.processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def new_database(self, name: str) -> str:
        """A fresh empty database; its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.resume()  # if a test left it paused
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


def benchmark_server() -> PgServer | None:
    """A throwaway server for a benchmark (not a test): None, the reason said on stderr, where
    PostgreSQL's binaries (or the user to run them as) are missing."""
    try:
        return PgServer()
    except BaseException as exc:  # pytest's skip
        if type(exc).__name__ != "Skipped":
            raise
        print(f"cannot start PostgreSQL: {exc}", file=sys.stderr)
        return None


@contextlib.contextmanager
def pg_server() -> Iterator[PgServer]:
    server = PgServer()
    try:
        yield server
    finally:
        server.close()


_counter = iter(range(1, 1_000_000))


def fresh_name(prefix: str = "t") -> str:
    return f"{prefix}_{os.getpid()}_{next(_counter)}_{int(time.time() * 1000) % 100000}"


@pytest.fixture(scope="session")
def pg() -> Iterator[PgServer]:
    """One throwaway PostgreSQL server for the test session (skips if PostgreSQL is missing)."""
    pytest.importorskip("psycopg", reason=missing_extra("psycopg", "postgres"))
    pytest.importorskip("psycopg_pool", reason=missing_extra("psycopg-pool", "postgres"))
    with pg_server() as server:
        yield server


@pytest.fixture
def pg_url(pg: PgServer) -> str:
    """A fresh empty database on the session's PostgreSQL server: its URL."""
    return pg.new_database(fresh_name())
