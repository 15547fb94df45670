"""Timestamps of a person's moves through one server process, for ``benchmarks/server_load.py
--trace`` (off unless the environment variable ``CTA_MOVE_TRACE`` names a file).

Each stamp is ``time.perf_counter()``: on Linux the system's monotonic clock, the same in every
process of the machine, so the benchmark sets them beside its own clients' stamps (the move sent,
its update received). The stamps of one move, by its ``act_id``: ``r`` its frame read by the event
loop, ``s`` its save sent to the database, ``c`` the save's answer back (the commit), ``b`` every
client's update queued. They are kept in memory and written to the file (one ``act_id kind time``
a line) every 2,000 stamps and when the process exits: no file write per move.
"""

from __future__ import annotations

import atexit
import os
import time

__all__ = ["stamp", "enabled"]

_PATH = os.environ.get("CTA_MOVE_TRACE") or None
_lines: list[str] = []


def enabled() -> bool:
    """Whether moves are traced in this process."""
    return _PATH is not None


def stamp(act_id: str | None, kind: str, at: float | None = None) -> None:
    """Note that the move ``act_id`` reached point ``kind`` (now, or at ``at``, perf_counter)."""
    if _PATH is None or act_id is None:
        return
    _lines.append(f"{act_id} {kind} {time.perf_counter() if at is None else at:.6f}\n")
    if len(_lines) >= 2000:
        _write()


def _write() -> None:
    if _PATH is None or not _lines:
        return
    with open(_PATH, "a", encoding="utf-8") as f:
        f.writelines(_lines)
    _lines.clear()


if _PATH is not None:
    atexit.register(_write)
