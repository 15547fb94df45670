"""Driving the kernel: chunks of a simulation into a :class:`~chasetheace.sim.Tally`, and replays
of given packs and decisions for checking the kernel against :class:`~chasetheace.Game`."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..cards import Card, pack
from ..events import Blocked, DealerExchange, Event, Keep, Pick, Shuffle, Swap
from ..rules import Rules
from ..sim import Tally
from . import kernel as K
from .layout import Given
from .policy import Policies
from .tables import new_counts, new_table, nothing_given, rule_arrays

__all__ = ["chunk_seed", "play_chunk", "Script", "script_of", "HandOutcome", "Replay", "replay"]


def chunk_seed(game: str, seed: int, index: int) -> int:
    """The seed of chunk ``index`` of a run (63 bits): depends only on the run's seed and the index."""
    return random.Random(f"fast/{game}/{seed}/{index}").getrandbits(63)


def _check_table(rules: Rules, policies: Policies) -> int:
    """The number of seats, once it is known to fit the pack (the kernel checks no bounds)."""
    n = policies.players
    if not 2 <= n <= rules.max_players:
        raise ValueError(f"bad number of players {n}: allowed 2..{rules.max_players} "
                         f"with a {rules.deck}-card pack")
    if policies.kind.shape != (n,) or policies.threshold.shape != (n, n + 1, n):
        raise ValueError(f"the policies are not for {n} seats")
    return n


def play_chunk(rules: Rules, policies: Policies, *, seed: int, games: int | None = None,
               hands: int | None = None) -> Tally:
    """Play ``games`` whole games, or ``hands`` hands, in the kernel from ``seed``; the counts."""
    if (games is None) == (hands is None):
        raise ValueError("give a number of games or a number of hands, not both")
    amount = games if games is not None else hands
    if not isinstance(amount, int) or isinstance(amount, bool) or amount < 1:
        raise ValueError(f"bad amount {amount!r}: at least 1 game or hand")
    n = _check_table(rules, policies)
    counts = new_counts(n)
    table = new_table(n, seed=seed)
    wins = np.zeros(n, np.int64)
    limit = hands if hands is not None else np.iinfo(np.int64).max
    K.run(rule_arrays(rules), policies.arrays(), nothing_given(rules.deck), counts, table, wins, games or 0,
          limit)
    g, pos_hands, pos_losses = table.g, counts.position_hands, counts.position_losses
    rank_hands, rank_losses = counts.rank_hands, counts.rank_losses
    tally = Tally(n, hands=int(g[K.G_HANDS]), games=int(g[K.G_GAMES]),
                  wins=[int(w) for w in wins], no_sole_winner=int(g[K.G_NO_SOLE]))
    for size, place in zip(*np.nonzero(pos_hands)):
        tally.position_hands[int(size), int(place)] = int(pos_hands[size, place])
        tally.position_losses[int(size), int(place)] = int(pos_losses[size, place])
    for rank in np.nonzero(rank_hands)[0]:
        tally.rank_hands[int(rank)] = int(rank_hands[rank])
        tally.rank_losses[int(rank)] = int(rank_losses[rank])
    return tally


@dataclass(frozen=True)
class Script:
    """Given chance and decisions: shuffles (each a whole pack order), picks, and keep (True) or
    swap (False) for each decision in the order they are taken."""

    shuffles: tuple[tuple[Card, ...], ...] = ()
    picks: tuple[int, ...] = ()
    decisions: tuple[bool, ...] | None = None


def script_of(events: Sequence[Event]) -> Script:
    """The chance and the decisions of a game of the engine, from its events."""
    shuffles = tuple(ev.cards for ev in events if isinstance(ev, Shuffle))
    picks = tuple(ev.value for ev in events if isinstance(ev, Pick))
    decisions = tuple(isinstance(ev, Keep) for ev in events
                      if isinstance(ev, Keep | Swap | Blocked | DealerExchange))
    return Script(shuffles, picks, decisions)


@dataclass(frozen=True)
class HandOutcome:
    """The end of one hand: the dealer, what each loser paid, then lives, kitty and who is in."""

    dealer: int
    payments: tuple[tuple[int, int], ...]
    lives: tuple[int, ...]
    kitty: int
    alive: tuple[bool, ...]


@dataclass(frozen=True)
class Replay:
    """A game replayed in the kernel: its hands, whether it ended (False when the script ran out
    first), its winner (None if none alone), and, when the decisions were given, the policies'
    keep probability at each of them."""

    hands: tuple[HandOutcome, ...]
    complete: bool
    winner: int | None
    probes: tuple[float, ...]


def replay(rules: Rules, policies: Policies, script: Script, *, deck: Sequence[str | Card] | None = None,
           dealer: int | None = None, max_hands: int = 10_000) -> Replay:
    """One game in the kernel with the chance (and, if given, the decisions) of ``script``.

    ValueError if a shuffle is not an order of the whole pack or a pick is negative.
    """
    n = _check_table(rules, policies)
    deck_size = rules.deck
    if dealer is not None and not (isinstance(dealer, int) and 0 <= dealer < n):
        raise ValueError(f"bad dealer {dealer!r}: allowed 0..{n - 1}")
    whole = sorted(c.id for c in pack(deck_size))
    for i, order in enumerate(script.shuffles):
        if sorted(c.id for c in order) != whole:
            raise ValueError(f"shuffle {i} is not an order of the {deck_size}-card pack")
    if any(p < 0 for p in script.picks):
        raise ValueError("a pick is negative")
    shuffles = np.array([[c.id for c in order] for order in script.shuffles], np.int64).reshape(
        -1, deck_size)
    given = Given(-1 if dealer is None else dealer, True, np.array(script.picks, np.int64), shuffles,
                  script.decisions is not None, np.array(script.decisions or (), np.int64),
                  np.full(len(script.decisions or ()), np.nan))
    counts = new_counts(n, log=max_hands)
    table = new_table(n)
    winner = K.play_game(rule_arrays(rules, deck), policies.arrays(), given, counts, table,
                         np.iinfo(np.int64).max, False, False)
    log, g, probe = counts.log, table.g, given.probe
    hands = []
    for row in log[:g[K.G_LOG]].tolist():
        hands.append(HandOutcome(row[0], tuple((s, row[1 + s]) for s in range(n) if row[1 + s] >= 0),
                                 tuple(row[1 + n:1 + 2 * n]), row[1 + 2 * n],
                                 tuple(bool(a) for a in row[2 + 2 * n:])))
    return Replay(tuple(hands), winner != K.STOPPED, winner if winner >= 0 else None,
                  tuple(float(p) for p in probe[:g[K.G_DEC]]))
