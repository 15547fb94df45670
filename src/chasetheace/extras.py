"""The optional extras, and the one command that adds one to the Python running this.

Every "add X" message of the package comes from :func:`install_command`, so it names a command
that works where the user is. A checkout played with ``make play`` has a ``.venv`` without pip
and a package no index knows, so ``pip install 'chase-the-ace[fast]'`` fails there: the command
named is a make target of the checkout in its ``.venv`` (``make hints``, ``make fast``, ``make
serve``, ``make add-plot``, ...), the Python's own pip over the checkout in another environment,
and the ``pip install`` of the package outside a checkout.

>>> needs_extra_text("Plotting", "plot", missing="matplotlib", command="make add-plot")
'Plotting needs matplotlib (the plot extra), which is not installed here: run make add-plot'
>>> needs_solver_text("Hints", missing="numpy", command="make hints", plural=True)
'Hints need the solver, which is not installed here (numpy is missing): run make hints'
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

__all__ = ["ROOT", "MAKE_TARGETS", "SOLVER_MODULES", "install_command", "first_missing",
           "needs_extra_text", "solver_missing", "needs_solver_text"]

ROOT = Path(__file__).resolve().parents[2]
"""The checkout, when the package runs from one (``src/chasetheace`` under it)."""

MAKE_TARGETS = {"solve": "hints", "fast": "fast", "web": "serve"}
"""The make targets named for an extra; any other extra X is added by ``make add-X``."""
SOLVER_MODULES = ("numpy", "scipy")
"""What the ``solve`` extra adds that the solver imports."""


def _in_checkout() -> bool:
    return (ROOT / "pyproject.toml").is_file() and (ROOT / "src" / "chasetheace").is_dir()


def install_command(extra: str) -> str:
    """The one command that adds the extra ``extra`` to the Python running this.

    In a checkout's own ``.venv`` (made by ``make``): its make target. In another environment
    running a checkout: that Python's pip (or, when it has none, the pip of ``python3`` aimed at
    it). Outside a checkout: the package's ``pip install``.
    """
    if not _in_checkout():
        return f"pip install 'chase-the-ace[{extra}]'"
    if (ROOT / "Makefile").is_file() and Path(sys.prefix).resolve() == (ROOT / ".venv").resolve():
        return f"make {MAKE_TARGETS.get(extra, 'add-' + extra)}"
    if importlib.util.find_spec("pip") is None:
        return f"python3 -m pip --python {sys.executable} install -e '{ROOT}[{extra}]'"
    return f"{sys.executable} -m pip install -e '{ROOT}[{extra}]'"


def first_missing(*modules: str) -> str | None:
    """The first of ``modules`` that cannot be imported here, or None when all can."""
    for name in modules:
        try:
            if importlib.util.find_spec(name) is None:
                return name
        except (ImportError, ValueError):
            return name
    return None


def needs_extra_text(what: str, extra: str, *, missing: str, command: str | None = None,
                     plural: bool = False) -> str:
    """One sentence: ``what`` needs the module ``missing`` of ``extra``, and the command that adds it."""
    verb = "need" if plural else "needs"
    return (f"{what} {verb} {missing} (the {extra} extra), which is not installed here: "
            f"run {command or install_command(extra)}")


def solver_missing() -> str | None:
    """The first module the solver needs that is not installed, or None when it can run."""
    return first_missing(*SOLVER_MODULES)


def needs_solver_text(what: str, *, missing: str | None = None, command: str | None = None,
                      plural: bool = False) -> str:
    """One sentence: ``what`` needs the solver, missing here, and the command that adds it."""
    name = missing if missing is not None else solver_missing()
    verb = "need" if plural else "needs"
    return (f"{what} {verb} the solver, which is not installed here ({name} is missing): "
            f"run {command or install_command('solve')}")
