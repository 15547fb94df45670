"""The old path of :mod:`chasetheace.solver.guide.docs`, from before the solver's sub-packages.
Importing from here, or running it, still works until 0.3.0, with a DeprecationWarning; use the new
path instead."""

from ..moved import forward, run_as_main

__getattr__ = forward(__name__, "chasetheace.solver.guide.docs")

if __name__ == "__main__":  # python -m chasetheace.solver.docs, as before
    run_as_main("chasetheace.solver.docs", "chasetheace.solver.guide.docs")
