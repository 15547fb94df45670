"""The old home of the solve command, which now lives in :mod:`chasetheace.cli.solve` (each folder is
one layer, and the terminal's front ends live in ``cli/``). Importing from here, or running it,
still works until 0.3.0, with a DeprecationWarning; use :mod:`chasetheace.cli.solve` instead."""

from ..moved import forward, run_as_main

__getattr__ = forward(__name__, "chasetheace.cli.solve")

if __name__ == "__main__":  # ``python -m chasetheace.solver.command``, as before
    run_as_main("chasetheace.solver.command", "chasetheace.cli.solve")
