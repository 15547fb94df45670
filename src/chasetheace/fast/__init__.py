"""Fast simulation: whole games of Chase the Ace compiled with numba (extra ``[fast]``).

The kernel (:mod:`chasetheace.fast.kernel`) plays every option of RULES.md part A exactly as
:class:`chasetheace.Game` does, on integer arrays, with policies given as data
(:mod:`chasetheace.fast.policy`). ``chase-the-ace simulate --engine fast`` and
``python -m chasetheace.fast`` use it.
"""

from __future__ import annotations

from .policy import NotCompilableError, Policies, compile_bots
from .run import Replay, Script, chunk_seed, play_chunk, replay, script_of

__all__ = ["NotCompilableError", "Policies", "Replay", "Script", "chunk_seed", "compile_bots",
           "play_chunk", "replay", "script_of"]
