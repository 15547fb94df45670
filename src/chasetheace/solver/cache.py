"""The old path of :mod:`chasetheace.solver.solutions.cache`: the very same module, kept for imports
from before the solver's sub-packages (new code imports the new path)."""

import sys

from .solutions import cache as _moved
from .solutions.cache import *  # noqa: F403

sys.modules[__name__] = _moved
