"""The PettingZoo environment under its versioned name, as PettingZoo's own games are imported.

>>> from chasetheace.adapters import chase_the_ace_v0
>>> chase_the_ace_v0.env(players=2).metadata["name"]
'chase_the_ace_v0'
"""

from .pettingzoo import env, raw_env

__all__ = ["env", "raw_env"]
