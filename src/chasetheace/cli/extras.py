"""Which optional extras are installed here, and the one command that adds one in this place.

A checkout played with ``make play`` has a ``.venv`` without pip and a package no index knows,
so ``pip install 'chase-the-ace[solve]'`` fails there: the command named is ``make hints`` in
that venv, ``python -m pip install -e 'CHECKOUT[solve]'`` in another environment running a
checkout, and the ``pip install`` of the package otherwise.

>>> needs_solver_text("Hints", missing="numpy", command="make hints", plural=True)
'Hints need the solver, which is not installed here (numpy is missing): run make hints'
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

__all__ = ["SOLVER_MODULES", "solver_missing", "solver_install_command", "needs_solver_text"]

SOLVER_MODULES = ("numpy", "scipy")
"""What the ``solve`` extra adds that the solver imports."""
ROOT = Path(__file__).resolve().parents[3]


def solver_missing() -> str | None:
    """The first module the solver needs that is not installed, or None when it can run."""
    for name in SOLVER_MODULES:
        if importlib.util.find_spec(name) is None:
            return name
    return None


def solver_install_command() -> str:
    """The one command that installs the solver for the Python running this."""
    checkout = (ROOT / "pyproject.toml").is_file() and (ROOT / "src" / "chasetheace").is_dir()
    if not checkout:
        return "pip install 'chase-the-ace[solve]'"
    if (ROOT / "Makefile").is_file() and Path(sys.prefix).resolve() == (ROOT / ".venv").resolve():
        return "make hints"
    return f"{sys.executable} -m pip install -e '{ROOT}[solve]'"


def needs_solver_text(what: str, *, missing: str | None = None, command: str | None = None,
                      plural: bool = False) -> str:
    """One sentence: ``what`` needs the solver, missing here, and the command that adds it."""
    name = missing if missing is not None else solver_missing()
    verb = "need" if plural else "needs"
    return (f"{what} {verb} the solver, which is not installed here ({name} is missing): "
            f"run {command or solver_install_command()}")
