"""The old path of :mod:`chasetheace.acechasing.review`: Ace Chasing's review lives beside its game
(it is judged by the odds, without the solver). The very same module, kept for imports from
before; new code imports the new path."""

import sys

from ..acechasing import review as _moved
from ..acechasing.review import *  # noqa: F403

sys.modules[__name__] = _moved
