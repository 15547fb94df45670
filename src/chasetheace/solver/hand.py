"""The old path of :mod:`chasetheace.solver.model.hand`: the very same module, kept for imports
from before the solver's sub-packages (new code imports the new path)."""

import sys

from .model import hand as _moved
from .model.hand import *  # noqa: F403

sys.modules[__name__] = _moved
