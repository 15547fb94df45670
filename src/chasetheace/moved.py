"""Old import paths of modules that moved: each keeps answering, forwarding names to the new
module at run time with a DeprecationWarning (so that the old path imports nothing from a layer
above its own).

An old module holds its docstring and one line: ``__getattr__ = forward(__name__, "new.path")``.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["forward"]


def forward(old: str, new: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) for the module ``old`` that hands on the public names of
    the module ``new``, warning each time that the name has moved."""
    def __getattr__(name: str) -> Any:
        module = importlib.import_module(new)
        if name.startswith("_") or not hasattr(module, name):
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        warnings.warn(f"{old} moved to {new}: import {name} from there", DeprecationWarning, stacklevel=2)
        return getattr(module, name)
    return __getattr__
