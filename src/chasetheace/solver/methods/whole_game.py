"""The whole game: a run of hands with lives, won by the last player in.

Each hand is one decision per seat, as in :mod:`..model.tree`, but a seat no longer minimises the lives it
expects to lose: it maximises its chance of winning the game (with ``final_tie = split`` or ``cut``,
a shared win counts as its share). Who loses how many lives in a hand moves the game to another
*lives state*; the value of that state (each player's chance of winning from there, solved first)
is the hand's payoff. Every hand costs at least one life, so solving the states in order of total
lives is backward induction; ``final_tie = replay`` sends a hand in which everybody still in loses
their last life back to the same lives (the deal passed on), a cycle solved by iterating to its
fixed point.

A lives state is the tuple of the living players' lives in turn order (eldest first, dealer last):
the seats themselves do not matter, only their places. The deal passes to the left, so after a hand
the new dealer is the old eldest if still in (else the next living player), and the order turns.

One hand is modelled exactly (every deal with true card removal): by the merged tree of
:class:`~chasetheace.solver.model.outcome_tree.OutcomeTree`, whose nodes also remember who holds the
weakest card so far (2.4 M nodes at 5 players), or, under pairing (where every card held decides
the loser), by :class:`HandPaths`, which lists every path of play (5 M at 4 players, 150 M at 5: so
pairing is solved up to 4 players). Each hand is solved by discounted CFR to an exact NashConv (the
sum over players of the chance of winning a best response would add). ``benchmarks/whole.py``
measures the time and memory per player count and lives.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ...rules import Rules
from ..model.hand import Deck, Hand, InfoKey, deck_of
from .game_limits import MAX_GAME_LIVES, MAX_GAME_PLAYERS, MAX_PAIRING_PLAYERS, check_game
from .sampled import HandBatch, SampledSolver

__all__ = ["MAX_GAME_PLAYERS", "MAX_GAME_LIVES", "MAX_PAIRING_PLAYERS", "Difference", "GameBot",
           "GameSolution", "HandModel", "HandPaths", "StateSolution", "check_game", "differences",
           "game_nash_conv", "hand_model", "hero_win", "next_state", "situation_reach", "solve_game"]

Array = Any
State = tuple[int, ...]



class HandModel(Protocol):
    """One hand as :func:`solve_game` uses it: :class:`HandPaths` or
    :class:`~chasetheace.solver.model.outcome_tree.OutcomeTree`."""

    hand: Hand
    infosets: list[InfoKey]
    index: dict[InfoKey, int]
    outcomes: Array

    def utilities(self, payoff: Array) -> Array:
        """What :meth:`cfv` takes for ``payoff[outcome, position]``."""

    def cfv(self, keep: Array, utility: Array) -> tuple[Array, Array]:
        """Counterfactual values (keep, swap) per information set, and each position's payoff."""

    def situation_reach(self, keep: Array) -> Array:
        """The chance that each information set arises."""

    def value(self, keep: Array, utility: Array) -> Array:
        """Each position's expected payoff."""


def hand_model(hand: Hand) -> HandModel:
    """The merged tree, or the list of paths under pairing (which the tree does not model)."""
    if hand.pairing:
        return HandPaths(hand)
    from ..model.outcome_tree import OutcomeTree

    return OutcomeTree(hand)


class HandPaths:
    """Every path of play of one hand: its chance, each position's information set and action on
    it, and the lives each position loses at its end (an *outcome*)."""

    def __init__(self, hand: Hand) -> None:
        self.hand = hand
        n = hand.players
        self._machine = machine = SampledSolver(hand)
        cards, prob = _all_deals(hand.deck.copies, n + 1)
        seats = cards[:, :n].copy()
        jerk = np.zeros(len(cards), dtype=np.int64)
        if hand.jerk:
            jerk = (seats == hand.top).astype(np.int64) @ (1 << np.arange(n, dtype=np.int64))
        state = HandBatch(seats, cards[:, n].copy(), jerk)
        info = np.full((len(cards), n), -1, dtype=np.int32)
        act = np.zeros((len(cards), n), dtype=np.int8)
        for t in range(n):
            rows = machine.deciding(t, state)
            ids = machine.infoset_ids(t, state, rows, grow=True)
            rest = np.setdiff1d(np.arange(len(prob)), rows)
            parts, infos, acts, probs = [state.take(rest)], [info[rest]], [act[rest]], [prob[rest]]
            for a, keep in ((0, True), (1, False)):
                fork = state.take(rows)
                machine.act(t, fork, np.arange(len(rows)), np.full(len(rows), keep))
                i, c = info[rows].copy(), act[rows].copy()
                i[:, t], c[:, t] = ids, a
                parts.append(fork)
                infos.append(i)
                acts.append(c)
                probs.append(prob[rows])
            state = HandBatch.concat(parts)
            info, act, prob = np.concatenate(infos), np.concatenate(acts), np.concatenate(probs)
        lives, _ = machine.showdown(state)
        self.outcomes, self.outcome = np.unique(lives.astype(np.int8), axis=0, return_inverse=True)
        self.outcome = self.outcome.reshape(-1).astype(np.int32)
        self.prob, self.info, self.act = prob, info, act
        self.infosets: list[InfoKey] = machine.infosets()
        self.index = {key: i for i, key in enumerate(self.infosets)}
        self._decisions = []  # per position: the paths where it decides, the information set, keep?
        for t in range(n):
            rows = np.flatnonzero(info[:, t] >= 0)
            self._decisions.append((rows, info[rows, t].astype(np.int64), act[rows, t] == 0))

    @property
    def paths(self) -> int:
        """How many paths of play the hand has."""
        return len(self.prob)

    def utilities(self, payoff: Array) -> Array:
        """``(paths, positions)``: each path's chance times each position's payoff at its end, for
        ``payoff`` of shape ``(outcomes, positions)``."""
        return self.prob[:, None] * payoff[self.outcome]

    def cfv(self, keep: Array, utility: Array) -> tuple[Array, Array]:
        """Counterfactual values ``(infosets, 2)`` (keep, swap) of each information set's owner, and
        each position's expected payoff, when everybody keeps with ``keep[infoset]``; ``utility``
        from :meth:`utilities`."""
        n = self.hand.players
        sig = np.ones(self.info.shape)
        for t, (rows, ids, keeps) in enumerate(self._decisions):
            p = keep[ids]
            sig[rows, t] = np.where(keeps, p, 1 - p)
        prefix = np.ones((len(self.prob), n + 1))
        suffix = np.ones((len(self.prob), n + 1))
        for t in range(n):
            prefix[:, t + 1] = prefix[:, t] * sig[:, t]
            suffix[:, n - 1 - t] = suffix[:, n - t] * sig[:, n - 1 - t]
        out = np.zeros(len(keep) * 2)
        value = utility.T @ prefix[:, n]
        for t, (rows, ids, keeps) in enumerate(self._decisions):
            w = utility[rows, t] * prefix[rows, t] * suffix[rows, t + 1]
            out += np.bincount(ids * 2 + ~keeps, w, minlength=len(keep) * 2)
        return out.reshape(-1, 2), value

    def value(self, keep: Array, utility: Array) -> Array:
        """Each position's expected payoff when everybody keeps with ``keep[infoset]``."""
        return self.cfv(keep, utility)[1]

    def situation_reach(self, keep: Array) -> Array:
        """The chance that each information set arises when everybody plays ``keep``: the paths
        through it, each weighted by its whole chance (what follows a situation adds up to one)."""
        full = self.prob.copy()
        for rows, ids, keeps in self._decisions:
            p = keep[ids]
            full[rows] *= np.where(keeps, p, 1 - p)
        out = np.zeros(len(self.infosets))
        for rows, ids, _ in self._decisions:
            out += np.bincount(ids, full[rows], minlength=len(out))
        return out


def _all_deals(copies: Sequence[int], count: int) -> tuple[Array, Array]:
    """Every ordered deal of ``count`` strengths from a pack with these multiplicities, and its chance."""
    k, size = len(copies), sum(copies)
    cards = np.zeros((1, 0), dtype=np.int64)
    prob = np.ones(1)
    used = np.zeros((1, k), dtype=np.int64)
    base = np.array(copies, dtype=np.int64)
    for i in range(count):
        left = base[None, :] - used                     # rows x k
        row, col = np.nonzero(left)
        prob = prob[row] * left[row, col] / (size - i)
        cards = np.c_[cards[row], col]
        used = used[row]
        used[np.arange(len(col)), col] += 1
    return cards, prob


# --- the lives states -------------------------------------------------------------------------------

def next_state(rules: Rules, state: State, lost: Sequence[int]) -> tuple[State | None, list[float] | None,
                                                                         list[int]]:
    """Where a hand in ``state`` leads when position ``i`` loses ``lost[i]`` lives.

    Returns ``(next state, None, where)`` with ``where[i]`` the new position of old position ``i``
    (-1: out); or ``(None, shares, [])`` when the game ends: ``shares[i]`` is position ``i``'s share
    of the win.
    """
    m = len(state)
    after = [life - min(x, life) for life, x in zip(state, lost)]
    alive = [i for i in range(m) if after[i] > 0]
    if not alive:
        if rules.final_tie == "replay":  # the losses are cancelled; the deal passes on
            order = [*range(1, m), 0]
            return tuple(state[i] for i in order), None, [(i - 1) % m for i in range(m)]
        share = 0.0 if rules.final_tie == "no-winner" else 1.0 / m
        return None, [share] * m, []
    if len(alive) == 1:
        return None, [1.0 if i == alive[0] else 0.0 for i in range(m)], []
    dealer = alive[0]  # the old eldest if still in, else the next living player
    order = [i for i in alive if i > dealer] + [i for i in alive if i < dealer] + [dealer]
    where = [-1] * m
    for new, old in enumerate(order):
        where[old] = new
    return tuple(after[i] for i in order), None, where


@dataclass
class StateSolution:
    """The equilibrium of the hand played in one lives state."""

    state: State
    keep: Array                 # probability of keeping at each information set of the hand's model
    value: list[float]          # each position's chance of winning the game from here
    nash_conv: float            # exact, in chance of winning the game
    iterations: int


GAME_FORMAT = "chase-the-ace game solution 1"


@dataclass
class GameSolution:
    """An equilibrium of the whole game: one hand strategy per lives state.

    ``keys[m]`` lists the information sets of an ``m``-player hand in the order of each state's
    ``keep``; ``paths[m]`` holds the hand models the solution was solved on (empty when read back
    from a file: a bot needs only the strategies)."""

    rules: Rules
    players: int
    lives: int
    states: dict[State, StateSolution]
    keys: dict[int, list[InfoKey]] = field(repr=False)
    paths: dict[int, HandModel] = field(repr=False, default_factory=dict)
    seconds: float = 0.0
    whole_nash_conv: float | None = None  # :attr:`nash_conv`, once computed

    def __post_init__(self) -> None:
        self._index = {m: {key: i for i, key in enumerate(keys)} for m, keys in self.keys.items()}
        self.deck: Deck = deck_of(self.rules)

    @property
    def start(self) -> StateSolution:
        """The first hand: everybody on ``lives``."""
        return self.states[(self.lives,) * self.players]

    @property
    def nash_conv(self) -> float:
        """The whole game's NashConv, in chance of winning the game: what each player would add to
        its chance by a best response that deviates in every lives state (each hand played against
        the others' strategy, and every later hand too), summed over the places of the first hand
        (every player's gain, the first dealer chosen at random). Computed exactly by
        :func:`game_nash_conv` when solved; not the largest of the states' own figures
        (:attr:`hand_nash_conv`), which each take the later hands' values as given."""
        if self.whole_nash_conv is None:
            self.whole_nash_conv = game_nash_conv(self)
        return self.whole_nash_conv

    @property
    def hand_nash_conv(self) -> float:
        """The largest NashConv of any state's hand on its own (the later hands played by the
        equilibrium), in chance of winning: what each hand's solve was held to."""
        return max(s.nash_conv for s in self.states.values())

    def infosets(self, players: int) -> list[InfoKey]:
        """The information sets of a hand of ``players``, in the order of ``keep``."""
        return self.keys[players]

    def model(self, players: int) -> HandModel:
        """The model of a hand of ``players`` the strategies are for (built again, and kept, when
        the solution was read from a file)."""
        built = self.paths.get(players)
        if built is None:
            built = self.paths[players] = hand_model(Hand(self.rules, players))
            if built.infosets != self.keys[players]:
                raise ValueError("the hand's information sets differ from the solution's (another version)")
        return built

    def keep_probability(self, state: State, key: InfoKey) -> float:
        """The probability of keeping at ``key`` in lives state ``state`` (KeyError if unknown)."""
        return float(self.states[state].keep[self._index[len(state)][key]])

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable form (:meth:`from_dict` reads it back)."""
        return {"format": GAME_FORMAT, "rules": self.rules.to_dict(), "players": self.players,
                "lives": self.lives, "seconds": self.seconds, "nash_conv": self.nash_conv,
                "hand_nash_conv": self.hand_nash_conv,
                "infosets": {str(m): [[k[0], list(k[1]), k[2], k[3]] for k in keys]
                             for m, keys in self.keys.items()},
                "states": [{"state": list(s.state), "keep": [float(x) for x in s.keep], "value": s.value,
                            "nash_conv": s.nash_conv, "iterations": s.iterations}
                           for s in self.states.values()]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameSolution:
        """Read what :meth:`to_dict` wrote; ValueError if it is not a whole-game solution."""
        if not isinstance(data, Mapping) or data.get("format") != GAME_FORMAT:
            raise ValueError(f"not a chase-the-ace whole-game solution (format {GAME_FORMAT!r})")
        try:
            keys = {int(m): [(int(k[0]), tuple(str(t) for t in k[1]), int(k[2]), int(k[3])) for k in v]
                    for m, v in data["infosets"].items()}
            states = {}
            for entry in data["states"]:
                state = tuple(int(x) for x in entry["state"])
                keep = np.array([float(x) for x in entry["keep"]])
                if len(keep) != len(keys[len(state)]):
                    raise ValueError("a state's strategy does not match its information sets")
                states[state] = StateSolution(state, keep, [float(v) for v in entry["value"]],
                                              float(entry["nash_conv"]), int(entry["iterations"]))
            whole = data.get("nash_conv")
            return cls(Rules.from_dict(data["rules"]), int(data["players"]), int(data["lives"]), states,
                       keys, seconds=float(data["seconds"]),
                       whole_nash_conv=None if whole is None else float(whole))
        except (KeyError, TypeError, IndexError) as exc:
            raise ValueError(f"a damaged whole-game solution: {exc!r}") from None


def solve_game(rules: Rules | None = None, players: int = 3, *, lives: int | None = None,
               tolerance: float = 1e-5, iterations: int = 5000,
               progress: Callable[[str], None] | None = None) -> GameSolution:
    """An equilibrium of the whole game with ``players`` (2..5; 2..4 under pairing) each starting
    on ``lives`` (default the rules' ``lives``; at most 4, at most 3 with 5 players): every lives
    state's hand solved by discounted CFR until its exact NashConv is at most ``tolerance`` (in
    chance of winning the game) or for ``iterations`` (see :mod:`.game_limits`).
    """
    rules = Rules() if rules is None else rules
    lives = rules.lives if lives is None and isinstance(rules, Rules) else lives
    check_game(rules, players, lives)
    assert isinstance(lives, int)
    start = time.perf_counter()
    paths = {m: hand_model(Hand(rules, m)) for m in range(2, players + 1)}
    states = _states(players, lives)
    solved: dict[State, StateSolution] = {}
    latest: dict[int, Array] = {}
    for group in _groups(rules, states):
        guess = {s: [1.0 / len(s)] * len(s) for s in group}
        cyclic = _cyclic(rules, group, paths)
        for _ in range(200):  # replay cycles: iterate to the fixed point (one pass without them)
            change = 0.0
            for s in group:
                payoff = _payoffs(rules, s, paths[len(s)], solved, guess)
                # this state's own last pass, else the last state solved with as many players
                warm = solved[s].keep if s in solved else latest.get(len(s))
                ran = solved[s].iterations if s in solved else 0
                solved[s] = _solve_hand(s, paths[len(s)], payoff, tolerance, iterations, warm)
                solved[s].iterations += ran
                latest[len(s)] = solved[s].keep
                change = max(change, max(abs(a - b) for a, b in zip(solved[s].value, guess[s])))
                guess[s] = solved[s].value
            if change < tolerance or not cyclic:
                break
        if progress is not None:
            seconds = time.perf_counter() - start
            last = solved[group[-1]]
            progress(f"solved {len(solved)} of {len(states)} lives states, {seconds:.0f} s (lives "
                     f"{','.join(map(str, last.state))}: {last.iterations} iterations, NashConv "
                     f"{last.nash_conv:.1e} in chance of winning the game)")
    keys = {m: p.infosets for m, p in paths.items()}
    game = GameSolution(rules, players, lives, solved, keys, paths)
    game.whole_nash_conv = game_nash_conv(game)
    game.seconds = time.perf_counter() - start
    return game


def game_nash_conv(game: GameSolution) -> float:
    """The whole game's NashConv of ``game``'s strategies (:attr:`GameSolution.nash_conv`).

    Backward induction over the lives states, as the solve: in each state, a position's best
    response value is its value when it plays the state's strategy in this hand and best responds
    in every later one, plus what the better action gains at each of its information sets in this
    hand (each seat acts once a hand, so the gains add up). Replay cycles are iterated to their
    fixed point."""
    rules = game.rules
    best: dict[tuple[State, int], float] = {}
    for group in _groups(rules, list(game.states)):
        guess = {(s, i): game.states[s].value[i] for s in group for i in range(len(s))}
        cyclic = _cyclic(rules, group, {len(s): game.model(len(s)) for s in group})
        for _ in range(200):
            change = 0.0
            for s in group:
                m, paths, keep = len(s), game.model(len(s)), game.states[s].keep
                payoff = _seat_payoffs(rules, s, paths, guess, best)
                cfv, value = paths.cfv(keep, paths.utilities(payoff))
                here = keep * cfv[:, 0] + (1 - keep) * cfv[:, 1]
                owner = np.array([key[0] for key in game.infosets(m)], dtype=np.int64)
                gains = np.bincount(owner, cfv.max(axis=1) - here, minlength=m)
                for i in range(m):
                    got = float(value[i] + gains[i])
                    change = max(change, abs(got - guess[(s, i)]))
                    guess[(s, i)] = got
            if change < 1e-12 or not cyclic:
                break
        best.update(guess)
    start = (game.lives,) * game.players
    return float(sum(best[(start, h)] - game.start.value[h] for h in range(game.players)))


def _states(players: int, lives: int) -> list[State]:
    out: list[State] = [()]
    for _ in range(players):
        out = [(*s, x) for s in out for x in range(1, lives + 1)]
    smaller = _states(players - 1, lives) if players > 2 else []
    return smaller + out


def _groups(rules: Rules, states: list[State]) -> list[list[State]]:
    """States in solving order: by number of players, then total lives; each group closed under replay."""
    order = sorted(states, key=lambda s: (len(s), sum(s), s))
    groups: list[list[State]] = []
    seen: set[State] = set()
    for s in order:
        if s in seen:
            continue
        group = [s]
        if rules.final_tie == "replay":
            group = sorted({s[i:] + s[:i] for i in range(len(s))})
        seen.update(group)
        groups.append(group)
    return groups


def _cyclic(rules: Rules, group: list[State], models: Mapping[int, HandModel]) -> bool:
    """Whether a hand in one of these states can lead back into the group (a replay)."""
    for s in group:
        for lost in models[len(s)].outcomes.tolist():
            nxt, _, _ = next_state(rules, s, lost)
            if nxt in group:
                return True
    return False


def _payoffs(rules: Rules, state: State, paths: HandModel, solved: Mapping[State, StateSolution],
             guess: Mapping[State, list[float]]) -> Array:
    m = len(state)
    out = np.zeros((len(paths.outcomes), m))
    for o, lost in enumerate(paths.outcomes.tolist()):
        nxt, shares, where = next_state(rules, state, lost)
        if nxt is None:
            out[o] = shares
            continue
        value = guess[nxt] if nxt in guess else solved[nxt].value
        for i in range(m):
            if where[i] >= 0:
                out[o, i] = value[where[i]]
    return out


def _seat_payoffs(rules: Rules, state: State, paths: HandModel, guess: Mapping[tuple[State, int], float],
                  done: Mapping[tuple[State, int], float]) -> Array:
    """Each outcome's payoff to each seat of ``state``: the game's shares where it ends, else the
    seat's value in the state that follows, by (state, seat): from ``guess`` (the group being
    iterated) or else ``done`` (the groups settled before)."""
    m = len(state)
    payoff = np.zeros((len(paths.outcomes), m))
    for o, lost in enumerate(paths.outcomes.tolist()):
        nxt, shares, where = next_state(rules, state, lost)
        for i in range(m):
            if shares is not None:
                payoff[o, i] = shares[i]
            elif nxt is not None and where[i] >= 0:
                later = (nxt, where[i])
                payoff[o, i] = guess[later] if later in guess else done[later]
    return payoff


WARM_ITERATIONS = 10
"""How many iterations a warm start counts for."""


def _solve_hand(state: State, paths: HandModel, payoff: Array, tolerance: float, iterations: int,
                warm: Array | None) -> StateSolution:
    """Discounted CFR (alpha 1.5, beta 0, gamma 2) maximising each position's payoff.

    ``warm`` (a strategy: this state's in an earlier pass, or a neighbouring state's) is returned as
    it is if it is already within ``tolerance``; otherwise the run starts as if it had been played
    for :data:`WARM_ITERATIONS` iterations (regrets favouring its actions by the gaps it meets here),
    as :func:`~chasetheace.solver.methods.cfr.run_cfr` warm-starts. The iterations counted are those run."""
    m = len(paths.infosets)
    utility = paths.utilities(payoff)
    regret = np.zeros((m, 2))
    avg = np.zeros((m, 2))
    sigma = np.full(m, 0.5)
    first = 1
    if warm is not None:
        sigma = np.asarray(warm, dtype=float).copy()
        cfv, value = paths.cfv(sigma, utility)
        nash_conv = _nash_conv(sigma, cfv)
        if nash_conv <= tolerance:
            return StateSolution(state, sigma, [float(v) for v in value], nash_conv, 0)
        both = np.c_[sigma, 1 - sigma]
        regret = both * np.abs(cfv[:, 0] - cfv[:, 1])[:, None] * WARM_ITERATIONS
        avg = both * sum(t ** 2 for t in range(1, WARM_ITERATIONS + 1))
        first = WARM_ITERATIONS + 1
    mean = sigma
    nash_conv, t = float("inf"), first - 1
    last = first + iterations - 1
    for t in range(first, last + 1):
        cfv, _ = paths.cfv(sigma, utility)
        both = np.c_[sigma, 1 - sigma]
        inst = cfv - (both * cfv).sum(axis=1, keepdims=True)
        pos = t ** 1.5 / (t ** 1.5 + 1)
        regret = np.where(regret > 0, regret * pos, regret * 0.5) + inst
        avg += both * t ** 2
        plus = np.maximum(regret, 0.0)
        total = plus.sum(axis=1)
        sigma = np.where(total > 0, plus[:, 0] / np.where(total > 0, total, 1.0), 0.5)
        if t % 5 == 0 or t == last:
            norm = avg.sum(axis=1)
            mean = np.where(norm > 0, avg[:, 0] / np.where(norm > 0, norm, 1.0), 0.5)
            cfv, value = paths.cfv(mean, utility)
            nash_conv = _nash_conv(mean, cfv)
            if nash_conv <= tolerance:
                break
    cfv, value = paths.cfv(mean, utility)
    return StateSolution(state, mean, [float(v) for v in value], _nash_conv(mean, cfv), t - first + 1)


def _nash_conv(keep: Array, cfv: Array) -> float:
    """What best responses would add to the players' payoffs, summed (each seat acts once a hand,
    so a best response picks the better action at each of its information sets)."""
    here = keep * cfv[:, 0] + (1 - keep) * cfv[:, 1]
    return float((cfv.max(axis=1) - here).sum())


# --- playing it, and how it differs from the one-hand strategy ----------------------------------------

def situation_reach(paths: HandModel, keep: Array) -> Array:
    """The chance that each information set arises when everybody plays ``keep``."""
    return paths.situation_reach(keep)


@dataclass
class Difference:
    """A situation where the whole-game equilibrium keeps with another probability than the one-hand one."""

    state: State
    key: InfoKey
    reach: float          # the chance the situation arises in that state's hand
    keep_game: float
    keep_hand: float


def differences(game: GameSolution, hands: Mapping[int, Any], threshold: float = 0.05) -> list[Difference]:
    """Situations (every lives state) where the keep probabilities differ by more than ``threshold``
    from the one-hand solutions ``hands[players]`` (:class:`~chasetheace.solver.Solution`), most
    frequent first."""
    out = []
    for state, sol in game.states.items():
        paths, hand = game.model(len(state)), hands[len(state)]
        reach = situation_reach(paths, sol.keep)
        for i, key in enumerate(paths.infosets):
            if reach[i] <= 0 or not hand.knows(key):
                continue
            a, b = float(sol.keep[i]), hand.keep_probability(key)
            if abs(a - b) > threshold:
                out.append(Difference(state, key, float(reach[i]), a, b))
    out.sort(key=lambda d: -d.reach)
    return out


class GameBot:
    """Plays the whole-game equilibrium: the hand strategy of the current lives state.

    Every situation a hand can reach is solved; should one be missing (``fallbacks`` counts them),
    it keeps or swaps at even odds."""

    name = "solved-game"

    def __init__(self, solution: GameSolution) -> None:
        self.solution = solution
        self.fallbacks = 0

    def choose(self, observation: Mapping[str, Any], legal: Sequence[Any], rng: Any) -> Any:
        """Keep with the equilibrium's probability in this lives state and situation."""
        from ...game import Action
        from ..model.hand import infoset_of

        sol = self.solution
        order = list(observation["order"])
        state = tuple(int(observation["lives"][s]) for s in order)
        key = infoset_of(observation, sol.deck, kings_jerk=sol.rules.kings_jerk)
        try:
            p = sol.keep_probability(state, key)
        except KeyError:
            self.fallbacks += 1
            p = 0.5
        return Action.KEEP if rng.random() < p else Action.SWAP

    def __repr__(self) -> str:
        return f"GameBot({self.solution.players} players, {self.solution.lives} lives)"


def hero_win(game: GameSolution, hands: Mapping[int, Any], hero_plays_game: bool = True,
             tolerance: float = 1e-10) -> float:
    """The exact chance that one player wins the whole game when it plays the whole-game
    equilibrium (``hero_plays_game``; else the one-hand strategy too) and every other player plays
    the one-hand equilibrium ``hands[players]`` (a :class:`~chasetheace.solver.Solution`), starting
    on equal lives with a dealer chosen at random."""
    rules = game.rules
    sizes = range(2, game.players + 1)
    one = {m: np.array([hands[m].played_keep(key) for key in game.infosets(m)]) for m in sizes}
    owner = {m: np.array([key[0] for key in game.infosets(m)]) for m in sizes}
    win: dict[tuple[State, int], float] = {}
    for group in _groups(rules, list(game.states)):
        guess = {(s, h): 1.0 / len(s) for s in group for h in range(len(s))}
        cyclic = _cyclic(rules, group, {len(s): game.model(len(s)) for s in group})
        for _ in range(200):
            change = 0.0
            for s in group:
                m, paths = len(s), game.model(len(s))
                payoff = _seat_payoffs(rules, s, paths, guess, win)
                utility = paths.utilities(payoff)
                # everybody on the one-hand strategy: every position's value in one pass
                heroes: list[int | None] = list(range(m)) if hero_plays_game else [None]
                for hero in heroes:
                    keep = one[m] if hero is None else np.where(owner[m] == hero, game.states[s].keep, one[m])
                    value = paths.value(keep, utility)
                    for i in range(m) if hero is None else [hero]:
                        change = max(change, abs(float(value[i]) - guess[(s, i)]))
                        guess[(s, i)] = float(value[i])
            if change < tolerance or not cyclic:
                break
        win.update(guess)
    start = (game.lives,) * game.players
    return sum(win[(start, h)] for h in range(game.players)) / game.players
