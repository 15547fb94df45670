"""``python -m chasetheace``: the ``chase-the-ace`` command."""

import sys

from .cli import main

sys.exit(main())
