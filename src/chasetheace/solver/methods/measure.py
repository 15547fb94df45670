"""Measuring a strategy exactly in the true game: an exact best response on the exact tree.

Each seat acts once in a hand, so a best response picks, at each of its information sets, the
action with the smaller counterfactual loss; one forward and one backward pass over the exact tree
(true card removal) give every counterfactual value. Where the tree is too large to hold at once
(from 7 players), it is evaluated in parts (:mod:`.parts`), one per pair of strengths dealt to the
eldest and the 2nd: reaches, counterfactual values and losses are sums over the deals, so the
parts add up to the whole (nodes that two parts share are evaluated in both, which costs time, not
exactness).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..model.hand import Hand, InfoKey

if TYPE_CHECKING:
    from .checkpoint import Checkpoint
    from .parts import Runner

__all__ = ["Measure", "SPLIT_PLAYERS", "MAX_MEASURE_PLAYERS", "measure"]

SPLIT_PLAYERS = 7
"""From this many players the exact tree is evaluated in parts (see :mod:`.parts`)."""
MAX_MEASURE_PLAYERS = 9
"""The most players measured exactly: one pass over the parts (see :mod:`.parts`) takes 2 minutes
at 8 players and about 14 at 9 on two workers (364 parts, the largest 40 s and 2.1 GB; measured
in the 9-player solve of docs/strategy.md); 10 would take hours a pass here (docs/cluster.md)."""


@dataclass
class Measure:
    """A strategy's exact figures in the true game."""

    infosets: list[InfoKey]
    keep: list[float]                   # the strategy measured, per information set
    reach: list[float]
    values: list[tuple[float, float]]   # expected lives lost from there, (keep, swap), given it arises
    loss_probabilities: list[float]
    expected_lives_lost: list[float]
    gains: list[float]                  # per position: lives a best response saves
    seconds: float

    @property
    def nash_conv(self) -> float:
        """The sum of the gains: the strategy's exact NashConv, in lives per hand."""
        return float(sum(self.gains))


def measure(hand: Hand, keep: Callable[[InfoKey], float], *, split: bool | None = None,
            progress: Callable[[str], None] | None = None, workers: int = 1, runner: Runner | None = None,
            checkpoint: Checkpoint | None = None, keys: list[InfoKey] | None = None) -> Measure:
    """Evaluate the strategy ``keep`` (the probability of keeping at an information set) exactly,
    with exact best responses; ``split`` evaluates the tree in parts (default from
    :data:`SPLIT_PLAYERS` players), ``workers`` processes side by side, or the ``runner`` given
    (a Ray cluster: :mod:`.cluster`), keeping each finished part in ``checkpoint`` (see
    :mod:`.parts`; the result depends on none of them: with a checkpoint the parts are always
    kept, so that the same call run again reads them back instead of computing them). ``keys``:
    the situations of the hand without card removal, if the caller has them (else its tree is
    built for them). Needs numpy (imported here: the limits above are cheap to import)."""
    import numpy as np

    from .parts import PartsEngine, evaluate_part, parts_of

    start = time.perf_counter()
    split = hand.players >= SPLIT_PLAYERS if split is None else split
    if split and hand.jerk:
        raise ValueError("the exact tree under kings_jerk is not evaluated in parts")
    if split and (workers > 1 or runner is not None or checkpoint is not None) and not hand.pairing:
        if keys is None:
            from ..model.tree import Tree

            keys = Tree(hand, card_removal=False).infosets  # every situation of the true game is among them
        probs = [keep(key) for key in keys]
        with PartsEngine(hand, keys, workers, progress, runner=runner, checkpoint=checkpoint) as engine:
            got = engine.evaluate(np.c_[probs, 1 - np.array(probs)])
        arisen = np.flatnonzero(got.present)
        return _figures([keys[i] for i in arisen], [probs[i] for i in arisen], got.cfv[arisen].tolist(),
                        got.info_reach[arisen].tolist(), got.lives, got.losses, hand.players, start)
    index: dict[InfoKey, int] = {}
    cfv: list[list[float]] = []
    reach: list[float] = []
    lives = np.zeros(hand.players)
    losses = np.zeros(hand.players)
    parts: list[tuple[int, ...] | None] = list(parts_of(hand)) if split else [None]
    for n, dealt in enumerate(parts):
        if progress is not None and split:
            seconds = time.perf_counter() - start
            progress(f"exact best response: part {n + 1} of {len(parts)}, {seconds:.0f} s")
        part = evaluate_part(hand, dealt, keep)
        if part is None:
            continue
        lives += part.lives
        losses += part.losses
        for key, (k, s), r in zip(part.keys, part.cfv.tolist(), part.reach.tolist()):
            i = index.get(key)
            if i is None:
                i = index[key] = len(cfv)
                cfv.append([0.0, 0.0])
                reach.append(0.0)
            cfv[i][0] += k
            cfv[i][1] += s
            reach[i] += r
    keys = list(index)
    return _figures(keys, [keep(key) for key in keys], cfv, reach, lives, losses, hand.players, start)


def _figures(keys: list[InfoKey], probs: list[float], cfv: list[list[float]], reach: list[float],
             lives: Any, losses: Any, players: int, start: float) -> Measure:
    gains = [0.0] * players
    for key, p, (k, s) in zip(keys, probs, cfv):
        gains[key[0]] += p * k + (1 - p) * s - min(k, s)
    values = [(k / r, s / r) if r > 0 else (0.0, 0.0) for (k, s), r in zip(cfv, reach)]
    return Measure(keys, probs, reach, values, list(map(float, losses)), list(map(float, lives)), gains,
                   time.perf_counter() - start)
