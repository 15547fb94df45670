"""``python -m chasetheace.web``: serve the web table.

The command line is a front end, so it lives in ``cli/`` (:mod:`chasetheace.cli.serve`); this
entry point only runs that module, as ``python -m chasetheace.cli.serve`` would.
"""

import runpy

runpy.run_module("chasetheace.cli.serve", run_name="__main__", alter_sys=True)
