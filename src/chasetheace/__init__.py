"""chase-the-ace: the Chase the Ace card game family as one configurable engine.

>>> import chasetheace as cta
>>> rules = cta.Rules.preset("standard").replace(lives=2)
>>> game = cta.Game(rules, players=["Ann", "Bob", "Cat"], seed=7)
>>> cta.play_game(game, [cta.ThresholdBot(8)] * 3, seed=7)
>>> game.over
True
"""

from . import events
from .acechasing import AceChasingGame, Offer
from .acechasing_bots import OddsBot, RandomAceChasingBot, make_ace_chasing_bot, play_ace_chasing_game
from .bots import (
    BOT_KINDS,
    Bot,
    CountingBot,
    RandomBot,
    ThresholdBot,
    bot_kinds,
    make_bot,
    play_game,
    register_bot,
)
from .cards import Card, pack
from .errors import IllegalActionError, RecordError
from .events import Event
from .game import Action, Game
from .rules import OPTIONS, PRESETS, Option, Preset, Rules, preset_info
from .session import Session
from .solver import Solution, solve, solve_game  # registers the "solved" bot; numpy is imported only to solve

__version__ = "0.1.0"

__all__ = [
    "BOT_KINDS", "OPTIONS", "PRESETS",
    "AceChasingGame", "Action", "Bot", "Card", "CountingBot", "Event", "Game", "IllegalActionError",
    "OddsBot", "Offer", "Option", "Preset", "RandomAceChasingBot", "RandomBot", "RecordError", "Rules",
    "Session", "Solution", "ThresholdBot",
    "bot_kinds", "events", "make_ace_chasing_bot", "make_bot", "pack", "play_ace_chasing_game", "play_game",
    "preset_info", "register_bot", "solve", "solve_game", "__version__",
]
