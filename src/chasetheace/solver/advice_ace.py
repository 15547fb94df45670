"""The old path of :mod:`chasetheace.acechasing.review`: Ace Chasing's review lives beside its game
(it is judged by the odds, without the solver). Importing from here still works until 0.3.0, with a
DeprecationWarning; import from the new path instead."""

from ..moved import forward

__getattr__ = forward(__name__, "chasetheace.acechasing.review")
