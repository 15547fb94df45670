"""The old path of :mod:`chasetheace.solver.solutions.cache`, from before the solver's sub-packages.
Importing from here still works until 0.3.0, with a DeprecationWarning; import from the new path
instead."""

from ..moved import forward

__getattr__ = forward(__name__, "chasetheace.solver.solutions.cache")
