"""The old path of :mod:`chasetheace.solver.methods.whole_game`: the very same module, kept for imports
from before the solver's sub-packages (new code imports the new path)."""

import sys

from .methods import whole_game as _moved
from .methods.whole_game import *  # noqa: F403

sys.modules[__name__] = _moved
