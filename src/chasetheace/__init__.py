"""chase-the-ace: the Chase the Ace card game family as one configurable engine.

>>> import chasetheace as cta
>>> rules = cta.Rules.preset("standard").replace(lives=2)
>>> game = cta.Game(rules, players=["Ann", "Bob", "Cat"], seed=7)
>>> cta.play_game(game, [cta.ThresholdBot(8)] * 3, seed=7)
>>> game.over
True
"""

from .bots import BOT_KINDS, Bot, CountingBot, RandomBot, ThresholdBot, make_bot, play_game
from .cards import Card, pack
from .errors import IllegalActionError, RecordError
from .events import Event
from .game import Action, Game
from .rules import OPTIONS, PRESETS, Option, Preset, Rules, preset_info
from .session import Session

__version__ = "0.1.0"

__all__ = [
    "Action", "BOT_KINDS", "Bot", "Card", "CountingBot", "Event", "Game", "IllegalActionError",
    "OPTIONS", "Option", "PRESETS", "Preset", "RandomBot", "RecordError", "Rules", "Session",
    "ThresholdBot", "make_bot", "pack", "play_game", "preset_info", "__version__",
]
