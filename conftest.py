"""Collection for ``pytest`` (which also runs the modules' doctests): modules of an optional extra
that is not installed are not imported, so the suite skips them instead of failing to collect."""

from __future__ import annotations

import importlib.util

collect_ignore_glob: list[str] = []
if importlib.util.find_spec("numpy") is None or importlib.util.find_spec("scipy") is None:
    # the solver's numeric modules (its __init__, docs and command only import them on use)
    collect_ignore_glob += [f"src/chasetheace/solver/{name}.py"
                            for name in ("cfr", "sampled", "tree", "whole", "lp", "brute", "measure", "plot",
                                         "docs", "__init__")]
