"""The old path of :mod:`chasetheace.solver.methods.game_limits`: the very same module, kept for imports
from before the solver's sub-packages (new code imports the new path)."""

import sys

from .methods import game_limits as _moved
from .methods.game_limits import *  # noqa: F403

sys.modules[__name__] = _moved
