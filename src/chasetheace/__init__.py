"""chase-the-ace: the Chase the Ace card game family as one configurable engine.

>>> import chasetheace as cta
>>> rules = cta.Rules.preset("standard").replace(lives=2)
>>> game = cta.Game(rules, players=["Ann", "Bob", "Cat"], seed=7)
>>> cta.play_game(game, [cta.ThresholdBot(8)] * 3, seed=7)
>>> game.over
True

The package's layers, lowest first (each imports only from layers below it):
``seats``, ``errors``, ``cards`` (and the plain helpers ``sources``, ``files``, ``rates``);
``rules``, ``events``; ``observation``, ``record``; ``game``;
``session``, ``bots``, ``render``; ``kinds`` (what a game of the family is);
``acechasing`` (part B, a game kind of its own); ``solver``;
``registry``; ``sim``; ``fast`` (the compiled kernel, above the engine's simulation);
``adapters``, ``web``; ``cli`` (every command-line front end). Each folder is one layer.
This module is the facade above them all.
"""

from . import events
from .acechasing import AceChasingGame, OddsBot, Offer, RandomAceChasingBot, play_ace_chasing_game
from .bots import Bot, CountingBot, RandomBot, ThresholdBot, play_game
from .cards import Card, pack
from .errors import IllegalActionError, RecordError
from .events import Event
from .game import Action, Game
from .registry import BOT_KINDS, bot_kinds, make_ace_chasing_bot, make_bot, register_bot
from .rules import OPTIONS, PRESETS, Option, Preset, Rules, preset_info
from .session import Session
from .solver import Solution, SolvedBot, solve, solve_game  # numpy is imported only to solve

__version__ = "0.1.0"

__all__ = [
    "BOT_KINDS", "OPTIONS", "PRESETS",
    "AceChasingGame", "Action", "Bot", "Card", "CountingBot", "Event", "Game", "IllegalActionError",
    "OddsBot", "Offer", "Option", "Preset", "RandomAceChasingBot", "RandomBot", "RecordError", "Rules",
    "Session", "Solution", "SolvedBot", "ThresholdBot",
    "bot_kinds", "events", "make_ace_chasing_bot", "make_bot", "pack", "play_ace_chasing_game", "play_game",
    "preset_info", "register_bot", "solve", "solve_game", "__version__",
]
