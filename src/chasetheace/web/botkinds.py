"""The bots a web table offers: a fixed list, never a path, and the solved bot only from
solutions the operator prepared.

A client names a bot kind from :meth:`WebBots.kinds`; anything else, ``solved:/etc/passwd``
included, is refused with one ``bad_options`` error before anything is opened or computed. The
``solved`` kind is offered only for the rules and seat counts of the solutions loaded at start
(``serve --solutions DIR``, files written by ``chase-the-ace solve --save``): no client message
ever starts the solver. When players drop out and no prepared solution covers the number left,
the solved bot plays as the ``counting`` bot.

>>> bots = WebBots()
>>> bots.check("threshold:T", None, 4)
>>> bots.check("solved:/etc/passwd", None, 4)
Traceback (most recent call last):
...
ValueError: bot 'solved:/etc/passwd' is not offered here: allowed random, threshold, threshold:RANK, counting
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..bots import CountingBot
from ..kinds import GameConfig
from ..observation import Observation
from ..registry import GAMES
from ..rules import Rules

__all__ = ["WebBots", "SOLVED", "RANKS"]

SOLVED = "solved"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
_MAX_SOLUTION_BYTES = 64 << 20


def _rules_key(rules: Rules) -> str:
    return json.dumps(rules.to_dict(), sort_keys=True)


class WebBots:
    """The bot kinds of one server, with the operator's prepared solutions (if any)."""

    def __init__(self, solutions: Mapping[tuple[str, int], Any] | None = None) -> None:
        self.solutions: dict[tuple[str, int], Any] = dict(solutions or {})

    @classmethod
    def from_folder(cls, folder: str | None) -> WebBots:
        """Load every solution in ``folder``, ``*.npz`` (the compact form: ``solve --save FILE.npz``,
        or the solution cache's files) and ``*.json`` (the operator's, read once at start);
        ValueError names a file that is not a solution, or one of another format version."""
        if folder is None:
            return cls()
        path = Path(folder)
        if not path.is_dir():
            raise ValueError(f"--solutions {folder!r} is not a folder")
        from ..solver import Solution  # the solve extra: only when the operator asks for it

        found: dict[tuple[str, int], Any] = {}
        for file in sorted([*path.glob("*.json"), *path.glob("*.npz")]):
            if file.name.startswith("."):  # a file the cache is still writing
                continue
            if file.stat().st_size > _MAX_SOLUTION_BYTES:
                raise ValueError(f"{file}: larger than {_MAX_SOLUTION_BYTES >> 20} MB")
            try:
                sol = Solution.load(str(file))
            except (ValueError, OSError) as exc:
                raise ValueError(f"{file}: {exc}") from None
            found[(_rules_key(sol.rules), sol.players)] = sol
        if not found:
            raise ValueError(f"--solutions {folder!r} holds no solution "
                             "(*.npz or *.json files from 'chase-the-ace solve --save')")
        return cls(found)

    def kinds(self, game: str = "chase-the-ace") -> dict[str, str]:
        """The kinds offered at ``game``, each with a line of help (sent to every client)."""
        kind = GAMES[game]
        offered = dict(kind.server_bots)
        if self.solutions and kind.solver:
            covered = sorted({players for _, players in self.solutions})
            offered[SOLVED] = ("plays a prepared equilibrium (for these rules and seat counts only: "
                               f"{', '.join(map(str, covered))} players)")
        return offered

    def prepared(self, rules: Rules) -> dict[int, Any]:
        """The prepared solutions for ``rules``, by player count."""
        key = _rules_key(rules)
        return {players: sol for (k, players), sol in self.solutions.items() if k == key}

    def check(self, kind: str, config: GameConfig | None, seats: int, game: str = "chase-the-ace") -> None:
        """ValueError unless ``kind`` is offered for a table of ``seats`` of ``game`` under
        ``config`` (its rules; None: the standard ones); it looks only at the fixed list and the
        solutions already in memory."""
        game_kind = GAMES[game]
        if kind in game_kind.server_bot_specs:
            return
        if kind == SOLVED and self.solutions and game_kind.solver:
            rules = None if config is None else game_kind.rules_of(config)
            if seats not in self.prepared(Rules() if rules is None else rules):
                raise ValueError(f"bot 'solved' has no prepared solution for these rules with {seats} "
                                 f"players: the server offers it for {self.kinds()[SOLVED].split(': ')[-1]}")
            return
        names = [name for kind_name in game_kind.server_bots
                 for name in ((kind_name, f"{kind_name}:RANK") if kind_name == "threshold" else (kind_name,))]
        if self.solutions and game_kind.solver:
            names.append(SOLVED)
        raise ValueError(f"bot {kind[:40]!r} is not offered here: allowed {', '.join(names)}")

    def make(self, kind: str, config: GameConfig, game: str = "chase-the-ace") -> Any:
        """A bot of an offered kind for a table of ``game`` under ``config`` (a kind no longer
        offered, e.g. read back from an older database, plays as the game's stand-in:
        ``counting``, or at Ace Chasing ``odds``)."""
        game_kind = GAMES[game]
        rules = game_kind.rules_of(config) if game_kind.solver else None
        if kind == SOLVED and rules is not None:
            prepared = self.prepared(rules)
            if prepared:
                return _PreparedSolved(rules, prepared)
        spec = kind if kind in game_kind.server_bot_specs else game_kind.stand_in_bot
        return game_kind.make_bot(spec, config, 0)


class _PreparedSolved:
    """The solver's equilibrium from prepared solutions; the counting bot where none applies."""

    name = SOLVED

    def __init__(self, rules: Rules, solutions: Mapping[int, Any]) -> None:
        from ..solver import SolvedBot

        self.solutions = dict(solutions)
        self.inner = SolvedBot(rules, self.solutions)
        self.fallback = CountingBot()

    def choose(self, observation: Observation, legal: Sequence[Any], rng: random.Random) -> Any:
        # fed every observation, so it is up to date when the solutions stop applying
        fallback = self.fallback.choose(observation, legal, rng)
        if len(observation["order"]) in self.solutions:
            return self.inner.choose(observation, legal, rng)
        return fallback
