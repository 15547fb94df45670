"""``python -m chasetheace.fast``: ``chase-the-ace simulate --engine fast`` with the same options.

The command line is a front end, so it lives in ``cli/`` (:mod:`chasetheace.cli.fast`); this
entry point only runs that module.
"""

import runpy

runpy.run_module("chasetheace.cli.fast", run_name="__main__", alter_sys=True)
