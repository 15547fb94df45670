"""The old path of :mod:`chasetheace.solver.model.words`: the very same module, kept for imports
from before the solver's sub-packages (new code imports the new path)."""

import sys

from .model import words as _moved
from .model.words import *  # noqa: F403

sys.modules[__name__] = _moved
