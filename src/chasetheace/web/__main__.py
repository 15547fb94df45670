"""``python -m chasetheace.web``: serve the web table."""

import sys

from .command import main

sys.exit(main())
