"""The old path of :mod:`chasetheace.solver.uses.advice`: the very same module, kept for imports
from before the solver's sub-packages (new code imports the new path)."""

import sys

from .uses import advice as _moved
from .uses.advice import *  # noqa: F403

sys.modules[__name__] = _moved
