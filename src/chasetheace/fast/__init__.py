"""Fast simulation: whole games of Chase the Ace compiled with numba (extra ``[fast]``).

The kernel (:mod:`chasetheace.fast.kernel`) plays every option of RULES.md part A exactly as
:class:`chasetheace.Game` does, on integer arrays, with policies given as data
(:mod:`chasetheace.fast.policy`); :mod:`chasetheace.fast.run` drives it, and
:mod:`chasetheace.fast.sim` runs ``chase-the-ace simulate --engine fast`` (also
``python -m chasetheace.fast``). Importing this package needs nothing; its tools need numba and numpy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ..errors import NotCompilableError
from ..extras import needs_extra_text

__all__ = ["NotCompilableError", "Policies", "Replay", "Script", "chunk_seed", "compile_bots",
           "play_chunk", "replay", "script_of"]


if TYPE_CHECKING:
    from .policy import Policies, compile_bots
    from .run import Replay, Script, chunk_seed, play_chunk, replay, script_of

_LAZY = {"Policies": "policy", "compile_bots": "policy", "Replay": "run", "Script": "run",
         "chunk_seed": "run", "play_chunk": "run", "replay": "run", "script_of": "run"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        try:
            module = importlib.import_module(f".{_LAZY[name]}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name not in ("numpy", "numba"):
                raise
            raise ModuleNotFoundError(needs_extra_text(f"chasetheace.fast.{name}", "fast", missing=exc.name),
                                      name=exc.name) from None
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
