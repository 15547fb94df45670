"""The old home of the solve command, which now lives in :mod:`chasetheace.cli.solve` (each folder is
one layer, and the terminal's front ends live in ``cli/``). Importing from here still works, with a
DeprecationWarning; import from :mod:`chasetheace.cli.solve` instead."""

from ..moved import forward

__getattr__ = forward(__name__, "chasetheace.cli.solve")


if __name__ == "__main__":  # ``python -m chasetheace.solver.command``, as before
    import runpy

    runpy.run_module("chasetheace.cli.solve", run_name="__main__", alter_sys=True)
