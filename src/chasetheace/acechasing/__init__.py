"""Ace Chasing, the matador game of RULES.md part B, as a game kind of its own.

``game`` holds :class:`AceChasingGame`; ``events`` its event records (and how a seat's views read
back); ``odds`` the matador's knockout chance; ``estimate`` a sampled one against any bots;
``exchange`` the odds of a keep/swap decision; ``bots`` the bots that play it; ``render`` its
narrator; ``review`` the review of a record by the odds; ``sim`` its simulator; ``kind`` its
:class:`chasetheace.kinds.GameKind` (bots by spec, moves as text, records). Its terminal front
end is :mod:`chasetheace.cli.acechasing`.
"""

from .bots import AceChasingBot, ExactBot, OddsBot, RandomAceChasingBot, play_ace_chasing_game
from .game import MAX_OFFERS, AceAction, AceChasingGame, Offer

__all__ = ["MAX_OFFERS", "AceAction", "AceChasingBot", "AceChasingGame", "ExactBot", "OddsBot", "Offer",
           "RandomAceChasingBot", "play_ace_chasing_game"]
