"""The old home of the solve command, which now lives in :mod:`chasetheace.cli.solve` (each folder is
one layer, and the terminal's front ends live in ``cli/``). Importing from here still works, with a
DeprecationWarning; import from :mod:`chasetheace.cli.solve` instead."""

from __future__ import annotations

import importlib
import warnings
from typing import Any

_NEW = "chasetheace.cli.solve"


def __getattr__(name: str) -> Any:
    module = importlib.import_module(_NEW)
    if name.startswith("_") or not hasattr(module, name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"{__name__} moved to {_NEW}: import {name} from there", DeprecationWarning,
                  stacklevel=2)
    return getattr(module, name)


if __name__ == "__main__":  # ``python -m chasetheace.solver.command``, as before
    import runpy

    runpy.run_module(_NEW, run_name="__main__", alter_sys=True)
