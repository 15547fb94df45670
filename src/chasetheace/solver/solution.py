"""The old path of :func:`~chasetheace.solver.solutions.solving.solve` and the names it handed on
(:class:`~chasetheace.solver.solutions.solution.Solution`, the player limits of
:mod:`~chasetheace.solver.solutions.choice`, :func:`~chasetheace.solver.model.hand.infoset_of`),
from before the solver's sub-packages. Importing from here still works until 0.3.0, with a
DeprecationWarning; import from the new paths instead."""

from ..moved import forward

__getattr__ = forward(__name__, "chasetheace.solver.solutions.solving",
                      "chasetheace.solver.solutions.solution", "chasetheace.solver.solutions.choice",
                      "chasetheace.solver.model.hand")
