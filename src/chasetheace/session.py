"""A session: consecutive games at one table sharing one money ledger.

>>> import chasetheace as cta
>>> s = cta.Session(cta.Rules.preset("hoyle").replace(ante=2), players=3, seed=4)
>>> g = s.new_game()
>>> cta.play_game(g, [cta.ThresholdBot(8)] * 3, seed=1)
>>> sum(s.money) + s.pot
0
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .cards import Card
from .game import Game, seat_names
from .rules import Rules

__all__ = ["Session"]


class Session:
    """Games played one after another by the same players, with one ledger.

    Each game every player antes ``rules.ante``; the winner takes the pot; with
    ``final_tie = no-winner`` (or a split's remainder) the pot carries over to the next game.
    """

    def __init__(self, rules: Rules | None = None, players: int | Sequence[str] = 5, *,
                 seed: int | None = None, rng: random.Random | None = None) -> None:
        self.rules = Rules() if rules is None else rules
        self.names = seat_names(players, self.rules)
        if seed is not None and rng is not None:
            raise ValueError("give seed or rng, not both")
        self._rng = rng if rng is not None else random.Random(seed)
        self.games: list[Game] = []

    @property
    def game(self) -> Game | None:
        """The latest game, finished or not."""
        return self.games[-1] if self.games else None

    def new_game(self, *, stack: Sequence[str | Card] | None = None,
                 dealer: int | None = None) -> Game:
        """Start the next game (the previous one must be over); antes go into the pot."""
        if self.games and not self.games[-1].over:
            raise ValueError("the current game is not over yet")
        game = Game(self.rules, self.names, rng=self._rng, stack=stack, dealer=dealer,
                    carry=self.carry)
        self.games.append(game)
        return game

    @property
    def carry(self) -> int:
        """Money left in the pot by the last finished game, for the next one."""
        last = self.games[-1] if self.games else None
        return last.pot if last is not None and last.over else 0

    @property
    def pot(self) -> int:
        """The money in the pot now (the current game's, or the carry-over between games)."""
        last = self.games[-1] if self.games else None
        return 0 if last is None else last.pot

    @property
    def money(self) -> list[int]:
        """Each player's net money over the session (antes paid, pots won)."""
        totals = [0] * len(self.names)
        for game in self.games:
            for seat, amount in enumerate(game.money):
                totals[seat] += amount
        return totals
