"""The compiled step of ``ChaseTheAceVector-v0`` (:mod:`chasetheace.adapters.vector`): every table
played on to its agent's next decision in the kernel, reset when its episode ended, scored, and its
observation encoded, in one call. Apart from the env's Python so that numba's cache of it (the
kernel's game inlined: minutes to compile) is kept when only the env's Python changes."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..fast import kernel as K
from ..fast.layout import STANDARD, Counts, Given, Mode, PolicyArrays, RuleArrays, Table, jit

__all__ = ["BAD_ACTION", "Cells"]


READY, OVER, OUT = 0, 1, 2


@jit(inline=True)
def _advance(agent: int, rules: RuleArrays, policies: PolicyArrays, given: Given, counts: Counts,
             table: Table, mode: Mode) -> int:  # pragma: no cover - compiled
    """Play a table on to the agent's decision (READY), the game's end (OVER) or the agent's
    elimination (OUT, at the first decision after it); the other seats play their policies in
    the kernel (``S_PAUSE_FOR``). -1 if the script ran out. Inlined with the game
    (:func:`chasetheace.fast.kernel.play_on`), in ``mode`` (recorded: what a seat may see; paused
    at the agent's decisions), without a call per table."""
    table.st[K.S_PAUSE_FOR] = agent + 1
    code = K.play_on(rules, policies, given, counts, table, mode)
    if code == K.STOPPED:
        return -1
    if code != K.PAUSED:
        return OVER
    if table.ws[K.W_ALIVE, agent] == 0:
        return OUT
    return READY


@jit()
def _put(out: np.ndarray, set_: np.ndarray, count: int, i: int,
         value: float) -> int:  # pragma: no cover - compiled
    """Write one cell of an observation and note it in ``set_`` (after its ``count`` cells noted
    so far), so that the next encoding clears only the cells written. Returns the new count
    (-1: too many to note, clear everything next time)."""
    out[i] = value
    if count < 0 or count + 1 >= set_.shape[0]:
        return -1
    set_[count + 1] = i
    return count + 1


@jit()
def _encode(out: np.ndarray, set_: np.ndarray, seat: int, n: int, d: int, chips: float, pot: float,
            ws: np.ndarray, st: np.ndarray, evs: np.ndarray,
            index: np.ndarray) -> None:  # pragma: no cover - compiled
    """The Encoder's vector of the seat's observation (hand: the current one, with history),
    written over the previous one at this table: only the cells it set are cleared (``set_``)."""
    count = set_[0]
    if count < 0:
        for i in range(out.shape[0]):
            out[i] = 0.0
    else:
        for j in range(1, count + 1):
            out[set_[j]] = 0.0
    noted = 0  # the cells noted in set_ (kept here, written to set_[0] at the end)
    state_size = 6 * n + 3 + 2 * d + n * d
    event_size = 8 + 2 * n + 2 * d + 3
    max_events = 2 * n + 2
    history_size = d + max_events * event_size
    hands, seen, order = ws[K.W_HANDS], ws[K.W_SEEN], ws[K.W_ORDER]
    k = st[K.S_K]
    noted = _put(out, set_, noted, seat, 1.0)
    if st[K.S_PHASE] != K.PH_OVER:
        noted = _put(out, set_, noted, n + st[K.S_DEALER], 1.0)
        if st[K.S_TO_ACT] >= 0:
            noted = _put(out, set_, noted, 2 * n + st[K.S_TO_ACT], 1.0)
        for s in range(n):
            noted = _put(out, set_, noted, 3 * n + s, ws[K.W_LIVES, s] / chips)
            noted = _put(out, set_, noted, 4 * n + s, float(ws[K.W_ALIVE, s]))
        for i in range(k):
            if ws[K.W_DONE, order[i]]:
                noted = _put(out, set_, noted, 5 * n + order[i], 1.0)
        at = 6 * n
        noted = _put(out, set_, noted, at, st[K.S_KITTY] / chips)
        noted = _put(out, set_, noted, at + 1, pot)
        noted = _put(out, set_, noted, at + 2, st[K.S_LEN] / d)
        at += 3
        if hands[seat] >= 0:
            noted = _put(out, set_, noted, at + index[hands[seat]], 1.0)
        aside = st[K.S_SET_ASIDE]
        if aside >= 0 and (seen[aside] >> seat) & 1:
            noted = _put(out, set_, noted, at + d + index[aside], 1.0)
        at += 2 * d
        for s in range(n):
            c = hands[s]
            if c >= 0 and (seen[c] >> seat) & 1:
                noted = _put(out, set_, noted, at + s * d + index[c], 1.0)
    base = state_size
    for i in range(k):
        if order[i] == seat:
            noted = _put(out, set_, noted, base + index[ws[K.W_DEALT, seat]], 1.0)
    for i in range(min(st[K.S_EVENTS], max_events)):
        e = evs[i]
        kind = e[K.E_KIND]
        at = base + d + i * event_size
        noted = _put(out, set_, noted, at + kind, 1.0)
        at += 8
        noted = _put(out, set_, noted, at + e[K.E_SEAT], 1.0)
        if e[K.E_NEIGHBOUR] >= 0:
            noted = _put(out, set_, noted, at + n + e[K.E_NEIGHBOUR], 1.0)
        at += 2 * n
        first, second = e[K.E_FIRST], e[K.E_SECOND]
        if kind == K.E_SWAP and seat != e[K.E_SEAT] and seat != e[K.E_NEIGHBOUR]:
            first = second = -1
        if kind == K.E_DEALER_EXCHANGE and seat != e[K.E_SEAT]:
            first = second = -1
        if first >= 0:
            noted = _put(out, set_, noted, at + index[first], 1.0)
        if second >= 0:
            noted = _put(out, set_, noted, at + d + index[second], 1.0)
        at += 2 * d
        if e[K.E_ANNOUNCED] == 1 or e[K.E_ANNOUNCED] == 2:
            noted = _put(out, set_, noted, at + e[K.E_ANNOUNCED] - 1, 1.0)
        if kind == K.E_DEALER_EXCHANGE:
            noted = _put(out, set_, noted, at + 2, e[K.E_POSITION] / d)
    base = state_size + history_size
    for s in range(n):
        if ws[K.W_SHOWN, s] >= 0:
            noted = _put(out, set_, noted, base + s * d + index[ws[K.W_SHOWN, s]], 1.0)
        if ws[K.W_LOST, s] > 0:
            noted = _put(out, set_, noted, base + n * d + s, 1.0)
        if ws[K.W_PAYMENT, s] >= 0:
            noted = _put(out, set_, noted, base + n * d + n + s, ws[K.W_PAYMENT, s] / 2)
        if ws[K.W_OUT, s] > 0:
            noted = _put(out, set_, noted, base + n * d + 2 * n + s, 1.0)
    if st[K.S_FINAL_TIE]:
        noted = _put(out, set_, noted, base + n * d + 3 * n, 1.0)
    if st[K.S_NO_SHOWDOWN]:
        noted = _put(out, set_, noted, base + n * d + 3 * n + 1, 1.0)
    set_[0] = noted


class _Agent(NamedTuple):
    """The agent's seat and how its steps are scored and seen."""

    seat: int
    win_reward: float
    chips: float          # lives are seen divided by this
    pot: float
    places: np.ndarray    # a card id's place in the encoder's pack


class _Steps(NamedTuple):
    """The batch's actions in, and what a step gives back, by table (the observations apart:
    :class:`Cells`)."""

    actions: np.ndarray
    finished: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    hand: np.ndarray      # (tables,): the hand's number, for info (copied while the table is at hand)
    lives: np.ndarray     # (tables, players): every seat's lives, for info
    winners: np.ndarray   # (tables, players + 1): at a table whose episode just ended, how many
    #                       seats won its game (0 if not over), then those seats in turn order (the engine's)


class Cells(NamedTuple):
    """An array of every table's observation, and the cells each table's row has set (``set_``:
    (tables, cells + 1), the count first; -1: unknown, clear the whole row), so that the next
    observation written there clears only those."""

    obs: np.ndarray
    set_: np.ndarray

    @classmethod
    def zeros(cls, tables: int, size: int, players: int) -> Cells:
        """Fresh zero observations (nothing set)."""
        cells = 32 + 24 * players  # at most 28 + 23 n cells are set (else all are cleared)
        return cls(np.zeros((tables, size), np.float32), np.zeros((tables, cells + 1), np.int64))


BAD_ACTION = -2


@jit()
def _batch(out: Cells, steps: _Steps, agent: _Agent, rules: RuleArrays, policies: PolicyArrays,
           given: Given, counts: Counts, tables: Table) -> int:  # pragma: no cover - compiled
    """One step of every table (``tables``: each array with the table first): a table marked
    ``finished`` starts a new game (reward 0), any other plays ``actions[b]`` (0 keep, 1 swap);
    each table's observation is written to its row of ``out``. Returns -1; BAD_ACTION, with
    nothing played, if an action is not 0 or 1; or a table whose script ran out."""
    return _tables(out, steps, agent, rules, policies, given, counts, tables, K.pause_mode(rules, policies))


@jit()
def _batch_standard(out: Cells, steps: _Steps, agent: _Agent, rules: RuleArrays, policies: PolicyArrays,
                    given: Given, counts: Counts, tables: Table) -> int:  # pragma: no cover - compiled
    """:func:`_batch` for the default rules (any lives; :data:`STANDARD`), threshold bots at every
    seat but the agent's (whose policy is never consulted) and chance from the tables' generators
    (no script): every rule option, the mode and what is given are constants here, so the game
    compiles without their checks, as the kernel's own run of the default rules
    (:func:`chasetheace.fast.kernel.run`)."""
    mode = Mode(policies.kind.shape[0], False, False, False, True, True, True, False)
    nothing = Given(-1, False, given.picks, given.shuffles, False, given.decisions, given.probe)
    lives = (rules.vector[K.R_LIVES],)
    standard = RuleArrays(lives + STANDARD[1:], rules.strength, rules.solver_strength,  # type: ignore[arg-type]
                          rules.pack)
    return _tables(out, steps, agent, standard, policies, nothing, counts, tables, mode)


@jit(inline=True)
def _tables(out: Cells, steps: _Steps, agent: _Agent, rules: RuleArrays, policies: PolicyArrays,
            given: Given, counts: Counts, tables: Table, mode: Mode) -> int:  # pragma: no cover - compiled
    """:func:`_batch` in ``mode``, inlined in each caller (with its rules, mode and given)."""
    for b in range(steps.actions.shape[0]):
        if steps.actions[b] != 0 and steps.actions[b] != 1:
            return BAD_ACTION
    seat, n, d = agent.seat, policies.kind.shape[0], rules.vector[K.R_DECK]
    for b in range(steps.actions.shape[0]):
        table = Table(tables.ws[b], tables.st[b], tables.evs[b], tables.g[b], tables.rng[b])
        ws, st = table.ws, table.st
        code = READY
        if steps.finished[b]:
            while True:
                st[K.S_PHASE] = K.PH_NEW
                code = _advance(seat, rules, policies, given, counts, table, mode)
                if code == READY:
                    break
                if code < 0:
                    return b
            steps.rewards[b] = 0.0
            steps.terminated[b] = False
            steps.finished[b] = False
        else:
            before = ws[K.W_LIVES, seat]
            st[K.S_PENDING] = 1 if steps.actions[b] == 0 else 0
            code = _advance(seat, rules, policies, given, counts, table, mode)
            if code < 0:
                return b
            reward = float(ws[K.W_LIVES, seat] - before)
            if code == OVER and ws[K.W_WON, seat] > 0:
                winners = 0
                for s in range(n):
                    winners += 1 if ws[K.W_WON, s] > 0 else 0
                reward += agent.win_reward / winners
            steps.rewards[b] = reward
            steps.terminated[b] = code != READY
            steps.finished[b] = code != READY
        _encode(out.obs[b], out.set_[b], seat, n, d, agent.chips, agent.pot, ws, st, table.evs,
                agent.places)
        steps.hand[b] = st[K.S_HAND]
        for s in range(n):
            steps.lives[b, s] = ws[K.W_LIVES, s]
        if code != READY:  # the game's winners in the last hand's turn order, as the engine's
            w, order = 0, ws[K.W_ORDER]
            if code == OVER:
                for i in range(st[K.S_K]):
                    if ws[K.W_WON, order[i]] > 0:
                        w += 1
                        steps.winners[b, w] = order[i]
            steps.winners[b, 0] = w
    return -1
