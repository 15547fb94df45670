"""Old import paths of modules that moved: each keeps answering until :data:`REMOVAL`, forwarding
names to the new module at run time with a DeprecationWarning (so that the old path imports
nothing from a layer above its own, and no module has two names).

An old module holds its docstring and one line: ``__getattr__ = forward(__name__, "new.path")``.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["REMOVAL", "forward", "run_as_main"]

REMOVAL = "0.3.0"
"""The release that removes the old paths (CHANGELOG.md, Deprecated)."""


def forward(old: str, *new: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) for the module ``old`` that hands on the public names of
    the modules ``new`` (the first that has the name), warning each time that the name has moved."""
    def __getattr__(name: str) -> Any:
        if not name.startswith("_"):
            for path in new:
                module = importlib.import_module(path)
                if hasattr(module, name):
                    warnings.warn(f"{old} moved to {path}: import {name} from there "
                                  f"({old} goes in {REMOVAL})", DeprecationWarning, stacklevel=2)
                    return getattr(module, name)
        raise AttributeError(f"module {old!r} has no attribute {name!r}")
    return __getattr__


def run_as_main(old: str, new: str) -> None:
    """Run the module ``new`` as ``python -m old`` used to run, warning that it has moved."""
    import runpy

    warnings.warn(f"python -m {old} moved to python -m {new} ({old} goes in {REMOVAL})",
                  DeprecationWarning, stacklevel=2)
    runpy.run_module(new, run_name="__main__", alter_sys=True)
