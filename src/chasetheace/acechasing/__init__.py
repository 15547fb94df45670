"""Ace Chasing, the matador game of RULES.md part B: its state machine, events, bots and command.

``game`` holds :class:`AceChasingGame`; ``events`` its event records; ``odds`` the matador's
knockout chance; ``exchange`` the odds of a keep/swap decision; ``bots`` the bots that play it;
``command`` the terminal game and its ``simulate`` (the ``[cli]`` extra).
"""

from .bots import AceChasingBot, ExactBot, OddsBot, RandomAceChasingBot, play_ace_chasing_game
from .game import MAX_OFFERS, AceAction, AceChasingGame, Offer

__all__ = ["MAX_OFFERS", "AceAction", "AceChasingBot", "AceChasingGame", "ExactBot", "OddsBot", "Offer",
           "RandomAceChasingBot", "play_ace_chasing_game"]
