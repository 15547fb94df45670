"""One server per database: an exclusive lock on ``DB.lock`` held for the server's life.

Two servers on one SQLite file would each act on their own copy of a table and break it for
good; the second to start finds the lock held and refuses, naming the process that holds it.
The operating system lets the lock go when the process ends, however it ends.
"""

from __future__ import annotations

import os
from typing import IO

__all__ = ["DatabaseLock", "DatabaseInUseError"]


class DatabaseInUseError(RuntimeError):
    """Another server holds the database."""


class DatabaseLock:
    """An exclusive, non-blocking lock on ``path + '.lock'`` (nothing for ``:memory:``)."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.path = None if db == ":memory:" else db + ".lock"
        self._file: IO[str] | None = None

    def acquire(self) -> None:
        """Take the lock, or DatabaseInUseError naming who holds it."""
        if self.path is None or self._file is not None:
            return
        f = open(self.path, "a+", encoding="ascii")  # noqa: SIM115 (held open while locked)
        try:
            _lock(f)
        except OSError:
            f.seek(0)
            holder = f.read().strip() or "unknown"
            f.close()
            raise DatabaseInUseError(
                f"database {self.db!r} is in use by another chase-the-ace server (process {holder}); "
                "one server per database: stop it first, or give this one another --db") from None
        f.seek(0)
        f.truncate()
        f.write(str(os.getpid()))
        f.flush()
        self._file = f

    def release(self) -> None:
        """Let the lock go."""
        if self._file is not None:
            self._file.close()  # closing the file releases the lock
            self._file = None

    def __enter__(self) -> DatabaseLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _lock(f: IO[str]) -> None:
    try:
        import fcntl
    except ImportError:  # Windows
        import msvcrt

        f.seek(0)
        msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined,unused-ignore]
        return
    fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
