"""The old home of Ace Chasing's terminal game and simulate command, which now lives in
:mod:`chasetheace.cli.acechasing` (each folder is one layer, and the terminal's front ends live in
``cli/``). Importing from here still works until 0.3.0, with a DeprecationWarning; import from
:mod:`chasetheace.cli.acechasing` instead."""

from ..moved import forward

__getattr__ = forward(__name__, "chasetheace.cli.acechasing")
