"""Adapters that make chase-the-ace a game for research toolkits.

Each adapter is a thin layer over the engine's public API and :meth:`Game.observation`:

- :mod:`chasetheace.adapters.openspiel`: importing it registers the OpenSpiel game
  ``python_chase_the_ace`` (extra ``[spiel]``);
- :mod:`chasetheace.adapters.pettingzoo`: the AEC environment ``chase_the_ace_v0`` (extra ``[rl]``);
- :mod:`chasetheace.adapters.ace_chasing`: the AEC environment ``ace_chasing_v0`` of Ace Chasing
  (extra ``[rl]``, its own encoder over ``AceChasingGame.observation``), and
  :mod:`chasetheace.adapters.openspiel_ace`, the OpenSpiel game ``python_ace_chasing`` (one round);
- :mod:`chasetheace.adapters.gymnasium`: a single-agent environment against engine bots (``[rl]``).

The two PettingZoo environments share their AEC conventions (:mod:`chasetheace.adapters.aec`).
Part A's adapters share one encoder, :mod:`chasetheace.adapters.encoding`, that turns an observation into a
fixed-size tensor and a line of text.
"""
