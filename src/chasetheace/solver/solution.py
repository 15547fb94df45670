"""The old path of :mod:`chasetheace.solver.solutions.solving` (``solve``, which also hands on the
:class:`Solution` it returns): the very same module, kept for imports from before the solver's
sub-packages (new code imports the new path)."""

import sys

from .solutions import solving as _moved
from .solutions.solving import *  # noqa: F403

sys.modules[__name__] = _moved
