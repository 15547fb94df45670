"""One server per database: an exclusive lock on the database file itself, held for the server's life.

Two servers on one SQLite file would each act on their own copy of a table and break it for
good; the second to start finds the lock held and refuses, naming the process that holds it.
The lock is keyed on the file, not on the name it was given: a symlink or a hard link to the
same file finds it held too (on Linux an ``flock`` on the database file, which SQLite's own
``fcntl`` locks never meet; elsewhere a lock on ``DB.lock`` beside the file the name resolves to,
which a symlink cannot dodge). ``DB.lock`` holds the process id, for the message. The operating
system lets the lock go when the process ends, however it ends.
"""

from __future__ import annotations

import os
import sys
from typing import IO

__all__ = ["DatabaseLock", "DatabaseInUseError", "check_sqlite_name"]


def check_sqlite_name(db: str) -> None:
    """ValueError if SQLite would read ``db`` as a URI (``file:...``): it would open another file
    than the one of that name, which the lock takes, and a second server would start on it."""
    if db[:5].lower() == "file:":
        raise ValueError(f"--db {db!r} is a SQLite URI (file:...): give the database file's path instead "
                         "(a file whose name starts with 'file:' as ./file:...)")


class DatabaseInUseError(RuntimeError):
    """Another server holds the database."""


class DatabaseLock:
    """An exclusive, non-blocking lock on the database file (on Linux) or on ``DB.lock`` beside
    the file its name resolves to (elsewhere); nothing for ``:memory:``."""

    def __init__(self, db: str) -> None:
        check_sqlite_name(db)
        self.db = db
        self.path = None if db == ":memory:" else os.path.realpath(db) + ".lock"
        self._file: IO[str] | None = None
        self._held: int | None = None  # the database file's descriptor that holds the lock (Linux)

    def acquire(self) -> None:
        """Take the lock, or DatabaseInUseError naming who holds it."""
        if self.path is None or self._file is not None:
            return
        held = None
        if _ON_FILE:
            held = os.open(self.db, os.O_RDWR | os.O_CREAT, 0o644)  # an empty file is a new database
            try:
                _flock(held)
            except OSError:
                # closing a descriptor of the file would drop this process's own SQLite locks on it
                # (POSIX fcntl locks go with any close): a refused one is kept till the process ends
                _REFUSED.append(held)
                raise self._in_use(_holder(self.path)) from None
        try:
            f = open(self.path, "a+", encoding="ascii")  # noqa: SIM115 (held open while locked)
        except OSError:
            if held is not None:
                _REFUSED.append(held)
            raise
        try:
            if held is None:
                _lock(f)
        except OSError:
            holder = _holder(self.path)
            f.close()
            raise self._in_use(holder) from None
        f.seek(0)
        f.truncate()
        f.write(str(os.getpid()))
        f.flush()
        self._file, self._held = f, held

    def _in_use(self, holder: str) -> DatabaseInUseError:
        return DatabaseInUseError(
            f"database {self.db!r} is in use by another chase-the-ace server (process {holder}); "
            "one server per database: stop it first, or give this one another --db")

    def release(self) -> None:
        """Let the lock go."""
        if self._file is not None:
            self._file.close()  # closing the file releases the lock
            self._file = None
        if self._held is not None:  # after the server's store is closed
            os.close(self._held)
            self._held = None

    def __enter__(self) -> DatabaseLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


_ON_FILE = sys.platform.startswith("linux")
"""Lock the database file itself: on Linux ``flock`` and SQLite's ``fcntl`` locks never interact
(on the BSDs and macOS they may, and Windows locks are mandatory)."""
_REFUSED: list[int] = []


def _holder(path: str) -> str:
    try:
        with open(path, encoding="ascii") as f:
            return f.read().strip() or "unknown"
    except (OSError, ValueError):
        return "unknown"


def _flock(fd: int) -> None:
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _lock(f: IO[str]) -> None:
    try:
        import fcntl
    except ImportError:  # Windows
        import msvcrt

        f.seek(0)
        msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined,unused-ignore]
        return
    fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
