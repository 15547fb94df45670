"""The old home of Ace Chasing's terminal game and simulate command, which now lives in
:mod:`chasetheace.cli.acechasing` (each folder is one layer, and the terminal's front ends live in
``cli/``). Importing from here still works, with a DeprecationWarning; import from
:mod:`chasetheace.cli.acechasing` instead."""

from __future__ import annotations

import importlib
import warnings
from typing import Any

_NEW = "chasetheace.cli.acechasing"


def __getattr__(name: str) -> Any:
    module = importlib.import_module(_NEW)
    if name.startswith("_") or not hasattr(module, name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"{__name__} moved to {_NEW}: import {name} from there", DeprecationWarning,
                  stacklevel=2)
    return getattr(module, name)
