"""Solves that survive interruption: a folder holding each finished part of a pass and each CFR iterate.

``cta.solve(..., checkpoint=DIR)`` (``chase-the-ace solve --checkpoint DIR``) keeps there:

- ``manifest.json``: what is being solved (the rules, the players, the method and its parameters,
  the solver's version and this folder's :data:`FORMAT`). A folder whose manifest differs in any of
  them is refused with one ValueError naming what differs, before any work: a checkpoint is never
  mixed into another solve;
- ``warm.npz``: the strategy solved without card removal that CFR starts from;
- ``iterate.npz``: CFR's state after its last finished iteration (the iteration, the regrets, the
  average and the next strategy, the NashConv checks so far, the seconds spent, whether it is done);
- ``passes/<digest>/part-A-B.npz``: in the exact tree in parts (:mod:`.parts`), each finished part
  of a pass, in a folder named for the strategy evaluated (a digest of its bytes), so a part is only
  ever reused for the very strategy it was computed for. The passes of earlier iterations are
  removed as each iterate is written; those of the last iteration stay (a finished solve run again
  returns at once);
- ``solution.npz``: the solution of the finished solve (the compact binary form of
  :mod:`chasetheace.solver.solutions.packed`): the same solve run again returns it at once, without
  building a tree or reading a pass.

Every file is written to a temporary name in the same folder, flushed to disk, then renamed over
its name (``os.replace``, atomic on POSIX and Windows): a kill (even ``kill -9``) or a power cut
leaves each file whole or absent, never half written. Running the same solve again resumes after
the last iterate written, reusing the parts of the pass it was in. Every figure is a float64 array
saved as is, and the parts of a pass are summed in one fixed order whichever finished first, so a
resumed solve returns the same strategy and figures, bit for bit, as an uninterrupted one; only the
times differ (the solution's ``seconds`` are those of the last run; the NashConv checks' seconds
count from the first run's start, the earlier runs' time included, up to the last iterate each
wrote).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import IO, Any

__all__ = ["FORMAT", "SOLVER", "Checkpoint", "digest"]

FORMAT = 1
"""The layout of a checkpoint folder; bumped whenever a file's meaning changes (a folder of another
format is refused)."""
SOLVER = 3
"""The version of the solver's figures as far as a checkpoint goes, written in its manifest: bump it
whenever a part's or an iterate's figures change in any bit (a new evaluation of the parts, another
CFR update), so that a checkpoint of the old arithmetic is refused, never mixed in."""

MANIFEST = "manifest.json"

Array = Any  # numpy arrays


def digest(array: Array) -> str:
    """A short name for an array's exact bytes (SHA-256, 24 hex digits)."""
    import numpy as np

    data = np.ascontiguousarray(array)
    head = f"{data.dtype}{data.shape}".encode()
    return hashlib.sha256(head + data.tobytes()).hexdigest()[:24]


class Checkpoint:
    """A checkpoint folder for one solve, described by ``manifest`` (JSON-able: the rules, players,
    method, parameters and versions). Opening it checks the folder before writing anything: a
    folder of another solve, a file in its place or a folder with other files and no manifest are
    ValueErrors; a missing folder is made."""

    def __init__(self, folder: str | os.PathLike[str], manifest: dict[str, Any]) -> None:
        self.folder = Path(folder)
        self.manifest = {"format": FORMAT, **manifest}
        self._used: set[str] = set()  # the passes of the iteration under way
        path = self.folder / MANIFEST
        if self.folder.exists() and not self.folder.is_dir():
            raise ValueError(f"checkpoint {self.folder}: not a folder")
        if path.exists():
            try:
                theirs = json.loads(path.read_text())
                if not isinstance(theirs, dict):
                    raise ValueError("not an object")
            except (OSError, ValueError) as exc:
                raise ValueError(f"checkpoint {self.folder}: unreadable {MANIFEST} ({exc}): "
                                 "remove the folder or use another") from None
            mine = json.loads(json.dumps(self.manifest))  # as it reads back (tuples become lists)
            differ = _differences(theirs, mine)
            if differ:
                said = "; ".join(differ)
                raise ValueError(f"checkpoint {self.folder} is of another solve ({said}): "
                                 "use another folder, or remove it to start again")
        elif self.folder.is_dir() and any(self.folder.iterdir()):
            raise ValueError(f"checkpoint {self.folder}: a folder with other files and no {MANIFEST}: "
                             "give an empty or new folder")
        else:
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                self._write(path, lambda f: f.write(json.dumps(self.manifest, indent=1).encode()))
            except OSError as exc:
                raise ValueError(f"checkpoint {self.folder}: cannot write there ({exc})") from None

    # --- files, atomically ------------------------------------------------------------------------

    def _write(self, path: Path, fill: Any) -> None:
        """Write ``path`` whole or not at all: a temporary file beside it, synced, then renamed."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                fill(f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            with suppress(OSError):
                os.unlink(tmp)
            raise

    def write(self, name: str, fill: Callable[[IO[bytes]], object]) -> None:
        """Write the file ``name`` (inside the folder) with ``fill(file)``, atomically."""
        self._write(self.folder / name, fill)

    def save(self, name: str, **arrays: Array) -> None:
        """Save ``arrays`` as ``name`` (a path inside the folder, ending in .npz), atomically."""
        import numpy as np

        def fill(f: IO[bytes]) -> None:
            np.savez(f, **arrays)

        self._write(self.folder / name, fill)

    def load(self, name: str) -> dict[str, Array] | None:
        """The arrays saved as ``name``, or ``None`` if there is no such file. A file that does not
        read back is a ValueError (files are written atomically: it was damaged afterwards)."""
        import numpy as np

        path = self.folder / name
        if not path.exists():
            return None
        try:
            with np.load(path, allow_pickle=False) as data:
                return {key: data[key] for key in data.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            raise ValueError(f"checkpoint {self.folder}: broken file {name} ({exc}): remove it to "
                             "compute it again") from None

    def check(self, *names: str) -> None:
        """Read back each of the files ``names`` that is there (a ValueError naming a damaged one):
        what a solve does when it opens its checkpoint, so that a damaged file is found before any
        work, not after the trees are built."""
        for name in names:
            self.load(name)

    # --- the parts of a pass ----------------------------------------------------------------------

    def pass_name(self, keep: Array) -> str:
        """The folder (inside this one) of the pass that evaluates the strategy ``keep``."""
        name = f"passes/{digest(keep)}"
        self._used.add(name)
        return name

    def save_part(self, pass_name: str, part: tuple[int, ...], **arrays: Array) -> None:
        """Save one finished part of a pass."""
        self.save(f"{pass_name}/part-{'-'.join(map(str, part))}.npz", **arrays)

    def load_part(self, pass_name: str, part: tuple[int, ...]) -> dict[str, Array] | None:
        """One part of a pass, if it was finished before."""
        return self.load(f"{pass_name}/part-{'-'.join(map(str, part))}.npz")

    # --- CFR's iterates -----------------------------------------------------------------------------

    def save_iterate(self, **arrays: Array) -> None:
        """Save CFR's state after an iteration; then remove the passes of earlier iterations."""
        self.save("iterate.npz", **arrays)
        passes = self.folder / "passes"
        if passes.is_dir():
            for sub in passes.iterdir():
                if f"passes/{sub.name}" not in self._used:
                    shutil.rmtree(sub, ignore_errors=True)
        self._used.clear()

    def load_iterate(self) -> dict[str, Array] | None:
        """CFR's state after the last iteration saved, if any."""
        return self.load("iterate.npz")


def _differences(theirs: dict[str, Any], mine: dict[str, Any], within: str = "") -> list[str]:
    """What differs between two manifests, one entry per field: ``"players 7 there, 8 here"``; a
    field that is an object on both sides (the rules) names the options inside it that differ
    (``"rules.ties "all-lose" there, "eldest-loses" here"``), not the whole rule sets."""
    out = []
    for key in sorted(set(mine) | set(theirs)):
        a, b = theirs.get(key), mine.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            out += _differences(a, b, f"{within}{key}.")
        else:
            out.append(f"{within}{key} {_short(a)} there, {_short(b)} here")
    return out


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."
