"""The old path of :mod:`chasetheace.solver.guide.docs`: the very same module, kept for imports
from before the solver's sub-packages (new code imports the new path)."""

import sys

from .guide import docs as _moved
from .guide.docs import *  # noqa: F403

if __name__ == "__main__":  # python -m chasetheace.solver.docs
    _moved.main()
else:
    sys.modules[__name__] = _moved
