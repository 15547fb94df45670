"""Files the commands read and write: checked before a long run, read with errors that name them.

A command that writes a file at the end (a plot, a CSV table, a saved game) checks first that
it can, so a mistake costs nothing; a command that reads a record says which file was wrong.

>>> check_writable("no/such/folder/out.csv")
Traceback (most recent call last):
ValueError: cannot write no/such/folder/out.csv: there is no folder no/such/folder
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .errors import RecordError
from .extras import needs_extra_text

__all__ = ["check_writable", "check_plot_file", "read_json_record"]


def check_writable(path: str) -> None:
    """Fail before a long run, not after it, when ``path`` cannot be written (ValueError)."""
    folder = Path(path).parent
    if not folder.is_dir():
        raise ValueError(f"cannot write {path}: there is no folder {folder}")
    if Path(path).is_dir():
        raise ValueError(f"cannot write {path}: it is a folder")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"cannot write {path}: the folder {folder} is not writable")


def check_plot_file(path: str, option: str = "--plot") -> None:
    """``path`` must be writable and its suffix a format matplotlib draws (ValueError otherwise).

    Needs matplotlib (the ``[plot]`` extra); says so when it is missing.
    """
    check_writable(path)
    try:
        import matplotlib  # noqa: F401 (the package itself, as the plot will need it)
        from matplotlib.figure import Figure
    except ImportError:
        raise ValueError(needs_extra_text(option, "plot", missing="matplotlib")) from None
    formats = Figure().canvas.get_supported_filetypes()
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in formats:
        allowed = ", ".join("." + f for f in sorted(formats))
        what = f"the suffix .{suffix}" if suffix else "no suffix"
        raise ValueError(f"cannot draw {path}: {what} is not an image format; use one of {allowed}")


def read_json_record(path: str) -> Any:
    """The JSON in ``path``; RecordError (naming the file) if it is not UTF-8 text or not JSON."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{path} is not a game record: it is not text (a record is JSON)") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path} is not JSON: {exc.msg} at line {exc.lineno}") from None
