"""The PettingZoo environment of Ace Chasing under its versioned name, as PettingZoo's own games
are imported.

>>> from chasetheace.adapters import ace_chasing_v0
>>> ace_chasing_v0.env(players=4).metadata["name"]
'ace_chasing_v0'
"""

from .ace_chasing import env, raw_env

__all__ = ["env", "raw_env"]
