"""The old home of the serve command, which now lives in :mod:`chasetheace.cli.serve` (each folder is
one layer, and the terminal's front ends live in ``cli/``). Importing from here still works until
0.3.0, with a DeprecationWarning; import from :mod:`chasetheace.cli.serve` instead."""

from ..moved import forward

__getattr__ = forward(__name__, "chasetheace.cli.serve")
