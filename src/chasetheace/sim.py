"""Bots against bots, many times over: loss rates by position, win rates by seat, 95% intervals.

The work is cut into chunks of a fixed size, each with its own seed derived from the run's seed
and the chunk's number, so a run gives the same numbers whether one process plays every chunk
or several share them out (``workers``).

>>> from chasetheace import Rules
>>> config = SimConfig(rules=Rules(), bots=("threshold:8",) * 4, seed=1, games=10)
>>> result = simulate(config)
>>> result.tally.games, sum(result.tally.wins) + result.tally.no_sole_winner
(10, 10)
>>> [row["position"] for row in result.loss_rate_by_position()]
['eldest', '2nd', '3rd', 'dealer']
"""

from __future__ import annotations

import multiprocessing
import random
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, assert_never

from .cards import rank_char
from .events import (
    Blocked,
    Collected,
    CutDraw,
    DealerChosen,
    DealerDraw,
    DealerDrewBlocker,
    DealerExchange,
    DealerSameRank,
    Dealt,
    Eliminated,
    FinalTie,
    GameEvent,
    GameOver,
    HandStarted,
    Keep,
    KingJerk,
    LivesLost,
    Pick,
    ShowBlocker,
    Showdown,
    Shuffle,
    Swap,
)
from .game import Game
from .rates import Z95, rate_row, wilson  # noqa: F401  (Z95: its old home)
from .registry import CHASE_THE_ACE, make_bot
from .rules import Rules
from .seats import default_names, position_name

__all__ = ["SimConfig", "Tally", "SimResult", "Job", "simulate", "wilson", "rate_row", "first_game",
           "run_chunks", "CHUNK_GAMES", "CHUNK_HANDS"]

CHUNK_GAMES = 20
"""Games per chunk of work (fixed, so results do not depend on the number of workers)."""
CHUNK_HANDS = 200
"""Hands per chunk of work when the run is counted in hands."""
@dataclass(frozen=True)
class SimConfig:
    """A run of Chase the Ace to simulate: the rules, one bot spec per seat, the seed and how much
    (each game's kind owns its simulation: this is Chase the Ace's, and Ace Chasing's is
    :func:`chasetheace.acechasing.sim.simulate_ace_chasing`).

    Give ``games`` (play that many whole games) or ``hands`` (stop after that many hands).
    """

    rules: Rules
    bots: tuple[str, ...]
    seed: int = 0
    games: int | None = None
    hands: int | None = None

    def __post_init__(self) -> None:
        if (self.games is None) == (self.hands is None):
            raise ValueError("give a number of games or a number of hands, not both")
        amount = self.games if self.games is not None else self.hands
        if not isinstance(amount, int) or amount < 1:
            raise ValueError(f"bad amount {amount!r}: simulate at least 1 game or hand")
        Game(self.rules, len(self.bots))  # checks the player count against the pack
        for spec in self.bots:
            make_bot(spec, self.rules, len(self.bots))

    @property
    def players(self) -> int:
        """The number of seats."""
        return len(self.bots)

    @property
    def game(self) -> str:
        """The game it plays (its kind's name; part of every chunk's seed)."""
        return CHASE_THE_ACE.name


@dataclass(frozen=True)
class Job:
    """One chunk of a run: ``games`` whole games or ``hands`` hands, from its own seed."""

    config: SimConfig
    index: int
    games: int | None
    hands: int | None

    @property
    def size(self) -> int:
        """How many games or hands this chunk plays."""
        return self.games if self.games is not None else self.hands or 0

    def rng(self) -> random.Random:
        """The chunk's own generator: depends only on the run's seed and the chunk's number."""
        return random.Random(f"{self.config.game}/{self.config.seed}/{self.index}")


@dataclass
class Tally:
    """Counts that add up across chunks.

    Positions are keyed by ``(players in the hand, place in the turn order)``, the dealer last.
    ``wins`` counts games each seat won alone; split pots and games without a winner go to
    ``no_sole_winner``.
    """

    players: int
    hands: int = 0
    games: int = 0
    position_hands: Counter[tuple[int, int]] = field(default_factory=Counter)
    position_losses: Counter[tuple[int, int]] = field(default_factory=Counter)
    rank_hands: Counter[int] = field(default_factory=Counter)
    rank_losses: Counter[int] = field(default_factory=Counter)
    wins: list[int] = field(default_factory=list)
    no_sole_winner: int = 0

    def __post_init__(self) -> None:
        if not self.wins:
            self.wins = [0] * self.players

    def merge(self, other: Tally) -> None:
        """Add ``other``'s counts to these."""
        self.hands += other.hands
        self.games += other.games
        self.position_hands.update(other.position_hands)
        self.position_losses.update(other.position_losses)
        self.rank_hands.update(other.rank_hands)
        self.rank_losses.update(other.rank_losses)
        self.wins = [a + b for a, b in zip(self.wins, other.wins)]
        self.no_sole_winner += other.no_sole_winner


class _HandReader:
    """Reads a game's events into a tally, one hand at a time, up to a limit of hands."""

    def __init__(self, tally: Tally, hand_limit: int | None) -> None:
        self.tally, self.limit = tally, hand_limit
        self.seen = 0
        self.order: list[int] = []
        self.dealt: dict[int, int] = {}

    @property
    def full(self) -> bool:
        return self.limit is not None and self.tally.hands >= self.limit

    def read(self, events: Sequence[GameEvent]) -> None:
        tally = self.tally
        for i in range(self.seen, len(events)):
            if self.full:
                break
            match events[i]:
                case HandStarted(order=order):
                    self.order, self.dealt = list(order), {}
                case Dealt(cards=cards):
                    self.dealt = {s: c.rank for s, c in cards}
                case LivesLost(payments=payments):
                    losers = {s for s, _ in payments}
                    size = len(self.order)
                    for place, seat in enumerate(self.order):
                        lost = seat in losers
                        tally.position_hands[size, place] += 1
                        tally.position_losses[size, place] += lost
                        rank = self.dealt.get(seat)
                        if rank is not None:
                            tally.rank_hands[rank] += 1
                            tally.rank_losses[rank] += lost
                    tally.hands += 1
                case GameOver(winners=winners):
                    tally.games += 1
                    if len(winners) == 1:
                        tally.wins[winners[0]] += 1
                    else:
                        tally.no_sole_winner += 1
                case (Shuffle() | Pick() | DealerDraw() | DealerChosen() | KingJerk() | Keep() | Swap()
                      | Blocked() | ShowBlocker() | DealerExchange() | DealerDrewBlocker()
                      | DealerSameRank() | Showdown() | FinalTie() | CutDraw() | Eliminated()
                      | Collected()):
                    pass  # counted by the events above
                case other:
                    assert_never(other)
        self.seen = len(events)


def _chase_chunk(job: Job) -> Tally:
    """Play one chunk of Chase the Ace (RULES.md part A)."""
    config = job.config
    rng = job.rng()
    tally = Tally(config.players)
    games_left = job.games
    reader = _HandReader(tally, job.hands)
    while (not reader.full) if job.hands is not None else games_left:
        game, bots, choice_rng = _new_game(config, rng)
        reader.seen = 0
        while game.to_act is not None and not reader.full:
            seat = game.to_act
            game.act(bots[seat].choose(game.observation(seat), game.legal_actions(), choice_rng))
            reader.read(game.events)
        reader.read(game.events)
        if games_left is not None:
            games_left -= 1
    return tally


def _new_game(config: SimConfig, rng: random.Random) -> tuple[Game, list[Any], random.Random]:
    """A chunk's next game, its bots and the generator of their choices, drawn from ``rng``."""
    game = Game(config.rules, config.players, rng=random.Random(rng.getrandbits(64)))
    bots = [make_bot(spec, config.rules, config.players) for spec in config.bots]
    return game, bots, random.Random(rng.getrandbits(64))


def first_game(config: SimConfig) -> Game:
    """The run's first game, played to its end exactly as :func:`simulate` plays it (for
    ``simulate --save``: its record can be replayed and reviewed)."""
    game, bots, choices = _new_game(config, _jobs(config)[0].rng())
    while game.to_act is not None:
        seat = game.to_act
        game.act(bots[seat].choose(game.observation(seat), game.legal_actions(), choices))
    return game


def _jobs(config: SimConfig) -> list[Job]:
    total = config.games if config.games is not None else config.hands
    assert total is not None
    step = CHUNK_GAMES if config.games is not None else CHUNK_HANDS
    jobs = []
    for index, start in enumerate(range(0, total, step)):
        size = min(step, total - start)
        jobs.append(Job(config, index, size if config.games is not None else None,
                        size if config.hands is not None else None))
    return jobs


def _run_job(job: Job) -> Tally:
    return _chase_chunk(job)


def _quiet_worker() -> None:
    """Workers leave Ctrl-C to the parent, which stops them: no traceback from each worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


J = TypeVar("J")


def run_chunks(jobs: list[J], run: Callable[[J], Tally], workers: int) -> Iterator[tuple[J, Tally]]:
    """Each job with its tally, in order: played here, or shared among ``workers`` processes
    (``run`` must be a module-level function, so that a worker can find it)."""
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield job, run(job)
        return
    methods = multiprocessing.get_all_start_methods()
    # fork keeps bot kinds registered at run time; spawn is the fallback elsewhere.
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with context.Pool(min(workers, len(jobs)), initializer=_quiet_worker) as pool:
        yield from zip(jobs, pool.imap(run, jobs))


def _results(jobs: list[Job], workers: int) -> Iterator[tuple[Job, Tally]]:
    return run_chunks(jobs, _run_job, workers)


@dataclass
class SimResult:
    """The outcome of a run: the config, the counts, and the time it took."""

    config: SimConfig
    tally: Tally
    seconds: float
    workers: int = 1
    engine: str = "python"  # or "fast": the compiled kernel played it

    @property
    def hands_per_second(self) -> float:
        """Hands played per second of wall-clock time."""
        return self.tally.hands / self.seconds if self.seconds > 0 else 0.0

    def loss_rate_by_position(self, players_in: int | None = None) -> list[dict[str, Any]]:
        """Loss rate per hand by place in the turn order, eldest first and the dealer last.

        With ``players_in``, only hands with that many players; otherwise every hand, with the
        dealer always last and the others counted from the eldest.
        """
        n = self.config.players
        hands: Counter[str] = Counter()
        losses: Counter[str] = Counter()
        labels = [position_name(i, n) for i in range(n)]
        for (size, place), count in self.tally.position_hands.items():
            if players_in is not None and size != players_in:
                continue
            label = position_name(place, size)
            hands[label] += count
            losses[label] += self.tally.position_losses[size, place]
        return [rate_row({"position": label}, losses[label], hands[label])
                for label in labels if hands[label]]

    def loss_rate_by_players_in(self) -> dict[str, list[dict[str, Any]]]:
        """:meth:`loss_rate_by_position` for each number of players in the hand, largest first."""
        sizes = sorted({size for size, _ in self.tally.position_hands}, reverse=True)
        return {str(size): self.loss_rate_by_position(size) for size in sizes}

    def loss_rate_by_rank_dealt(self) -> list[dict[str, Any]]:
        """Loss rate per hand by the rank a player was dealt, weakest first."""
        rules = self.config.rules
        ranks = sorted(self.tally.rank_hands, key=rules.strength)
        return [rate_row({"rank": "10" if r == 10 else rank_char(r)}, self.tally.rank_losses[r],
                          self.tally.rank_hands[r]) for r in ranks]

    def win_rate_by_seat(self) -> list[dict[str, Any]]:
        """Each seat's share of games won alone, with its bot."""
        names = list(default_names(self.config.players))
        return [rate_row({"seat": s, "name": names[s], "bot": self.config.bots[s]},
                          self.tally.wins[s], self.tally.games, key="wins", total="games")
                for s in range(self.config.players)]

    def to_dict(self) -> dict[str, Any]:
        """Everything as one JSON-serialisable object."""
        c = self.config
        return {
            "game": c.game,
            "rules": c.rules.to_dict(),
            "players": c.players,
            "bots": list(c.bots),
            "seed": c.seed,
            "hands": self.tally.hands,
            "games": self.tally.games,
            "loss_rate_by_position": self.loss_rate_by_position(),
            "loss_rate_by_players_in": self.loss_rate_by_players_in(),
            "loss_rate_by_rank_dealt": self.loss_rate_by_rank_dealt(),
            "win_rate_by_seat": self.win_rate_by_seat(),
            "games_without_sole_winner": self.tally.no_sole_winner,
            "hands_per_second": round(self.hands_per_second, 1),
            "seconds": round(self.seconds, 3),
            "workers": self.workers,
            "engine": self.engine,
        }


def simulate(config: SimConfig, *, workers: int = 1,
             progress: Callable[[int, int], None] | None = None) -> SimResult:
    """Run ``config`` on the engine over ``workers`` processes; ``progress(done, total)`` follows
    the chunks. The numbers depend only on the config (its seed included), never on ``workers``.
    The compiled kernel plays the same configs: :func:`chasetheace.fast.sim.simulate`.
    """
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"bad workers {workers!r}: at least 1")
    jobs = _jobs(config)
    total = sum(job.size for job in jobs)
    tally = Tally(config.players)
    done = 0
    start = time.perf_counter()
    for job, part in _results(jobs, workers):
        tally.merge(part)
        done += job.size
        if progress is not None:
            progress(done, total)
    return SimResult(config, tally, time.perf_counter() - start, workers)
