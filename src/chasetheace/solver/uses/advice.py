"""The solver at the table: a hint for the decision in front of a seat, and a review of a game.

A :func:`hint` reads one seat's observation (``game.observation(seat)``) and nothing else: the
seat's card, the public history of this hand and the card it gave away. It answers with the
chance of losing this hand if the seat keeps and if it swaps, given what the seat knows and that
the others play the equilibrium, and the solver's call. A :func:`review` replays a game record once
and asks the same of every decision, then prices each choice: its expected lives lost against the best
choice's (the *cost*). ``docs/review.md`` describes the review's JSON.

>>> import chasetheace as cta
>>> from chasetheace.solver import solve
>>> sol = solve(cta.Rules(), players=3)
>>> game = cta.Game(cta.Rules(), players=3, stack=["Ac", "Kd", "5h"], dealer=2)
>>> h = hint(game.observation(0), sol)     # the eldest holds the lowest card: keeping it loses
>>> h.call, round(h.lose_if_keep, 3), h.lose_if_swap < 0.5
('swap', 1.0, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ...record import Record
from ...render import card_text
from ...rules import Rules
from ...seats import position_name
from ..model.hand import infoset_of
from ..model.words import situation
from ..solutions.choice import QUICK_EXACT_PLAYERS
from ..solutions.solution import NASH_CONV_KINDS, Solution, perfect_play_text
from ..solutions.solving import AGREE_GAP

if TYPE_CHECKING:
    from ..solutions.cache import Progress

APPROXIMATE = ("sampled", "summary", "iid")
"""Methods whose strategy is not an equilibrium of the true game to the solver's tolerance (the
sampled method and its summary learner; ``iid``, solved without card removal): hints from them say
how good they are."""

__all__ = ["MISTAKE", "REVIEW_FORMAT", "REVIEW_VERSION", "Decision", "Hint", "PlayerSummary", "Review",
           "MAX_HINT_PLAYERS", "chance_text", "hint", "hint_for", "review"]

MAX_HINT_PLAYERS = QUICK_EXACT_PLAYERS
"""The most players a table solves for hints and reviews when it opens: where ``method="auto"``
takes seconds (the exact tree), not the minute of 6 players or the sampled method's."""
MISTAKE = AGREE_GAP
"""A choice that costs more than this many expected lives against the best one is a mistake
(1e-3: the solutions are equilibria to a NashConv of 1e-4 lives, smaller gaps are the solver's
noise). A solve ends by playing the better action wherever its strategy mostly played one worse by
more than this and the change does not raise its NashConv (:func:`~..solutions.solving.agree`), so
that a hint and the solved bot disagree (``Hint.disagrees``) only where that change would."""
MIXED = 0.01  # a keep probability within this of 0 or 1 is said as "always"
REVIEW_FORMAT = "chase-the-ace/review"
REVIEW_VERSION = 1


@dataclass(frozen=True)
class Hint:
    """What the solver says of one decision, from the deciding seat's view alone.

    ``lose_if_keep`` / ``lose_if_swap``: the chance of losing this hand; ``lives_if_*``: the
    expected lives lost (they differ only when a loser can pay more than one life). ``call`` is
    ``"keep"``, ``"swap"`` or ``"either"`` (the two are within :data:`MISTAKE` lives), and never
    the opposite of what the solved bot mostly plays: where an approximate strategy mostly plays
    the action its own figures call worse by more than :data:`MISTAKE` (``disagrees``), the call is
    the strategy's, and the hint says that its figures favour the other.
    """

    seat: int
    players: int
    position: int
    card: str
    knew: str
    keep_probability: float
    lose_if_keep: float
    lose_if_swap: float
    lives_if_keep: float
    lives_if_swap: float
    call: str
    method: str
    nash_conv: float
    dealer: bool = False
    generalised: bool = False  # the solution never met the situation: figures of similar ones
    measured: str = "exact"    # what nash_conv is about: Solution.measured
    disagrees: bool = False  # the strategy mostly plays the action its figures call worse: call is its
    person: str = "you"  # spoken to the seat's player ("you": a hint) or about them ("they": a review)

    @property
    def nash_conv_kind(self) -> str:
        """What ``nash_conv`` says of the true game: ``exact``, ``estimate`` or ``model-only``."""
        return NASH_CONV_KINDS[self.measured]

    @property
    def best(self) -> str:
        """The choice with fewer expected lives lost (``keep`` on a tie)."""
        return "keep" if self.lives_if_keep <= self.lives_if_swap else "swap"

    def cost(self, action: str) -> float:
        """The expected lives ``action`` gives away against the best choice (0 for the best)."""
        chosen = self.lives_if_keep if action == "keep" else self.lives_if_swap
        return max(0.0, chosen - min(self.lives_if_keep, self.lives_if_swap))

    def text(self) -> str:
        """The hint in a player's words, on one line."""
        swap = "draw" if self.dealer else "swap"
        lives = ""
        if not (math.isclose(self.lives_if_keep, self.lose_if_keep, abs_tol=1e-9)
                and math.isclose(self.lives_if_swap, self.lose_if_swap, abs_tol=1e-9)):
            lives = f" (expected lives lost {self.lives_if_keep:.3f} and {self.lives_if_swap:.3f})"
        call = {"keep": "keep", "swap": swap, "either": "either: it hardly matters"}[self.call]
        approx = ("" if self.method not in APPROXIMATE
                  else f", approximate: {perfect_play_text(self.nash_conv, self.measured)}")
        if self.disagrees:
            other = "keep" if self.call != "keep" else swap
            approx += (f"; its strategy plays this although its figures favour {other} by "
                       f"{abs(self.lives_if_keep - self.lives_if_swap):.3f} lives")
        if self.generalised:
            approx += "; a situation the solver never met: figures of similar ones"
        keep, swapped = self.chance_texts()
        return (f"{position_name(self.position, self.players)} of {self.players} holding "
                f"{card_text(self.card)} ({self.knew}). Keep: {self.person} lose this hand "
                f"{keep}; {swap}: {swapped}{lives}. Solver: {call}{approx}.")

    def chance_texts(self) -> tuple[str, str]:
        """The chances of losing if keeping and if swapping as :func:`chance_text` says them: a
        certainty (0%, 100%) only from an exact solution's own figure, never from a sampled or
        generalised one (which the strategy may well contradict)."""
        sure = self.nash_conv_kind == "exact" and not self.generalised
        return chance_text(self.lose_if_keep, sure), chance_text(self.lose_if_swap, sure)

    def to_dict(self) -> dict[str, Any]:
        """The hint as JSON-ready data (``lose_if_keep_text``, ``lose_if_swap_text``: the chances in
        words, as :meth:`text` says them: what the web table shows)."""
        keep, swap = self.chance_texts()
        return {**asdict(self), "position_name": position_name(self.position, self.players),
                "best": self.best, "nash_conv_kind": self.nash_conv_kind,
                "lose_if_keep_text": keep, "lose_if_swap_text": swap}


def hint(observation: Mapping[str, Any], solution: Solution, *, person: str = "you") -> Hint:
    """The solver's view of the decision of ``observation``'s seat (``game.observation(seat)``).

    Only what the seat may know is read. Every situation has an answer: one the solution never met
    (the sampled method at a large table) has figures generalised from similar situations
    (:meth:`Solution.figures`), and says so (``generalised``). ValueError if the observation is not
    a seat's own view during a hand, or the solution is for another number of players.
    ``person`` says what the seat knew to its player (``"you"``) or about them (``"they"``: reviews).
    """
    deck = solution.deck
    key = infoset_of(observation, deck, kings_jerk=solution.rules.kings_jerk)
    players = len(observation["order"])
    if players != solution.players:
        raise ValueError(f"this solution is for {solution.players} players, the hand has {players}")
    if not 0 <= key[0] < players:
        raise ValueError(f"no decision in this situation: {situation(key, deck, players)}")
    got = solution.figures(key)
    lives_keep, lives_swap = got.values
    if got.chances is not None:
        lose_keep, lose_swap = got.chances
    elif not solution.rules.ace_pays_double:  # one life per loser: the chance is the expected lives
        lose_keep, lose_swap = lives_keep, lives_swap
    else:
        lose_keep = lose_swap = float("nan")
    if abs(lives_keep - lives_swap) <= MISTAKE:
        call = "either"
    else:
        call = "keep" if lives_keep < lives_swap else "swap"
    # the hint never contradicts the solved bot, which plays the strategy: where the strategy mostly
    # plays the action its figures call worse (an approximate strategy, short of an equilibrium),
    # the call is the strategy's and the hint says so
    plays = "keep" if got.keep > 0.5 else "swap" if got.keep < 0.5 else call
    disagrees = call != "either" and plays != call
    if disagrees:
        call = plays
    return Hint(seat=observation["seat"], players=players, position=key[0], card=observation["card"],
                knew=situation(key, deck, players, person=person), keep_probability=got.keep,
                lose_if_keep=lose_keep, lose_if_swap=lose_swap, lives_if_keep=lives_keep,
                lives_if_swap=lives_swap, call=call, method=solution.method,
                nash_conv=solution.nash_conv, dealer=key[0] == players - 1, generalised=got.generalised,
                measured=solution.measured, disagrees=disagrees, person=person)


def _rules_of(observation: Mapping[str, Any]) -> Rules:
    return Rules.from_dict(observation["rules"])


def hint_for(observation: Mapping[str, Any], *, folder: str | None = None,
             progress: Progress | None = None) -> Hint:
    """:func:`hint` with the solution for the observation's rules and players in the hand, from the
    cache (solved and cached on first use: ``progress`` hears about it)."""
    from ..solutions.cache import solution_for

    rules = _rules_of(observation)
    return hint(observation, solution_for(rules, len(observation["order"]), folder=folder, progress=progress))


# --- reviews ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Decision:
    """One decision of a game: who, what they knew, what they did, and what the solver says."""

    index: int            # the decision's number in the game, from 0
    hand: int
    seat: int
    name: str
    action: str
    hint: Hint
    cost: float           # expected lives given away against the best choice

    @property
    def mistake(self) -> bool:
        """Whether the choice gave away more than :data:`MISTAKE` lives, and was not the solver's
        own call (where the strategy and its figures disagree, playing as the solved bot plays is
        not called a mistake: the cost still says what the figures think of it)."""
        return self.cost > MISTAKE and not (self.hint.disagrees and self.action == self.hint.call)

    def to_dict(self) -> dict[str, Any]:
        """The decision as in ``docs/review.md``."""
        h = self.hint
        return {"index": self.index, "hand": self.hand, "seat": self.seat, "name": self.name,
                "players": h.players, "position": position_name(h.position, h.players), "card": h.card,
                "knew": h.knew, "action": self.action, "call": h.call, "best": h.best,
                "keep_probability": round(h.keep_probability, 6),
                "lose_if_keep": _num(h.lose_if_keep), "lose_if_swap": _num(h.lose_if_swap),
                "lives_if_keep": _num(h.lives_if_keep), "lives_if_swap": _num(h.lives_if_swap),
                "cost": round(self.cost, 6), "mistake": self.mistake, "generalised": h.generalised,
                "disagrees": h.disagrees}


def chance_text(x: float, sure: bool = True) -> str:
    """A chance as a percentage with one decimal, never claiming a certainty the figures do not
    hold: 0% and 100% only for a figure that is exactly that and ``sure`` (an exact solution's own
    figure); a figure that rounds to 0.0% or 100.0% without being it is "under 0.1%" or "over 99.9%",
    and a sampled or generalised figure of exactly 0 or 1 is "about 0%" or "about 100%".

    >>> chance_text(0.25), chance_text(0.0), chance_text(0.0004), chance_text(0.0, sure=False)
    ('25.0%', '0%', 'under 0.1%', 'about 0%')
    >>> chance_text(1.0), chance_text(0.9996), chance_text(1.0, sure=False), chance_text(float("nan"))
    ('100%', 'over 99.9%', 'about 100%', 'unknown')
    """
    if x != x:
        return "unknown"
    if x <= 0:
        return "0%" if sure else "about 0%"
    if x >= 1:
        return "100%" if sure else "about 100%"
    if x < 0.0005:
        return "under 0.1%"
    if x >= 0.9995:
        return "over 99.9%"
    return f"{x:.1%}"


def _num(x: float) -> float | None:
    return None if x != x else round(x, 6)


@dataclass(frozen=True)
class PlayerSummary:
    """One player's decisions in sum, like a chess engine's accuracy."""

    seat: int
    name: str
    decisions: int
    mistakes: int
    lives_given_away: float   # the sum of the mistakes' costs
    accuracy: float           # the share of decisions that were not mistakes, in percent

    def to_dict(self) -> dict[str, Any]:
        """The summary as in ``docs/review.md``."""
        return {"seat": self.seat, "name": self.name, "decisions": self.decisions,
                "mistakes": self.mistakes, "lives_given_away": round(self.lives_given_away, 6),
                "accuracy": round(self.accuracy, 2)}


@dataclass
class Review:
    """Every decision of a game, judged; see :func:`review`."""

    game: str
    names: list[str]
    rules: dict[str, Any]
    decisions: list[Decision]
    solutions: dict[int, dict[str, Any]] = field(default_factory=dict)
    complete: bool = True     # False: the record stops before the game's end
    unjudged: int = 0         # decisions without figures: none since every situation has them
    generalised: int = 0      # decisions in situations the solution never met: judged by similar ones

    def summary(self) -> list[PlayerSummary]:
        """Per seat: decisions, mistakes, lives given away, accuracy."""
        out = []
        for seat, name in enumerate(self.names):
            mine = [d for d in self.decisions if d.seat == seat]
            bad = [d for d in mine if d.mistake]
            accuracy = 100.0 * (len(mine) - len(bad)) / len(mine) if mine else 100.0
            out.append(PlayerSummary(seat, name, len(mine), len(bad), sum(d.cost for d in bad), accuracy))
        return out

    def for_seat(self, seat: int) -> Review:
        """The review of one seat's decisions only (ValueError for a seat not in the game)."""
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.names):
            raise ValueError(f"bad seat {seat!r}: allowed 0..{len(self.names) - 1}")
        mine = [d for d in self.decisions if d.seat == seat]
        return Review(self.game, self.names, self.rules, mine, self.solutions, self.complete, self.unjudged,
                      sum(d.hint.generalised for d in mine))

    def to_dict(self, seat: int | None = None) -> dict[str, Any]:
        """The review as JSON-ready data (``docs/review.md``); ``seat`` keeps one player's part."""
        summary = self.summary()
        if seat is not None:
            summary = [s for s in summary if s.seat == seat]
        return {"format": REVIEW_FORMAT, "version": REVIEW_VERSION, "game": self.game,
                "players": list(self.names), "rules": self.rules, "complete": self.complete,
                "mistake_threshold": MISTAKE, "unjudged": self.unjudged, "generalised": self.generalised,
                "solutions": [{"players": n, **info} for n, info in sorted(self.solutions.items())],
                "decisions": [d.to_dict() for d in self.decisions if seat is None or d.seat == seat],
                "summary": [s.to_dict() for s in summary]}

    def text(self, seat: int | None = None) -> str:
        """The review for people: each decision, then the summary per player."""
        lines = []
        for n, info in sorted(self.solutions.items()):
            exact = "exact" if info["method"] not in APPROXIMATE else f"{info['method']} (approximate)"
            lines.append(f"{n} players: {exact} solution, {info['closeness']}")
        hand = None
        for d in self.decisions:
            if seat is not None and d.seat != seat:
                continue
            if d.hand != hand:
                hand = d.hand
                lines.append(f"Hand {hand}")
            verdict = (f"MISTAKE, gives away {d.cost:.3f} lives" if d.mistake else
                       "best" if d.hint.call != "either" else "fine (close call)")
            lines.append(f"  {d.name}: {d.action} - {verdict}. {d.hint.text()}")
        if not self.complete:
            lines.append("(the record stops before the end of the game)")
        if self.unjudged:
            lines.append(f"({self.unjudged} decisions in situations the approximate solution never met "
                         "are not judged)")
        if self.generalised:
            lines.append(f"({self.generalised} decisions in situations the approximate solution never met "
                         "are judged by the figures of similar situations)")
        lines.append("")
        lines.append("player        decisions  mistakes  lives given away  accuracy")
        for s in self.summary():
            if seat is None or s.seat == seat:
                lines.append(f"{s.name[:12]:12}  {s.decisions:9}  {s.mistakes:8}  {s.lives_given_away:16.3f}"
                             f"  {s.accuracy:7.1f}%")
        return "\n".join(lines)


Solutions = Callable[[Rules, int], Solution]


def review(record: Record | Mapping[str, Any], *, solutions: Solutions | None = None,
           folder: str | None = None, progress: Progress | None = None) -> Review:
    """Judge every decision of a Chase the Ace game record (a :class:`~chasetheace.record.Record`
    or its JSON form: ``Game.record()``, ``play --save``, the web table's, ``simulate --save``):
    each seat's view at its decision, its choice, the solver's call and the cost of the choice.

    ``solutions(rules, players)`` supplies solutions (default: the cache, solving on first use).
    The record is replayed once, before any solution is asked for: a record that is not valid is
    a RecordError before any solving, and every table size it passes through is known first (the
    missing ones are then solved side by side in worker processes, :func:`solve_ahead`).
    """
    from ...game import Game
    from ..solutions.cache import solution_for, solve_ahead

    seen: list[tuple[int, str, dict[str, Any]]] = []  # (seat, action, the seat's view then)
    replay = Game.replaying(record)
    for game, action in replay:
        seat = game.to_act
        assert seat is not None
        view = game.observation(seat)  # its history grows with the game: keep it as it is now
        seen.append((seat, action, {**view, "history": list(view["history"])}))
    game = replay.game
    if solutions is None:
        if seen:
            solve_ahead(game.rules, {len(obs["order"]) for _, _, obs in seen}, folder=folder,
                        progress=progress)

        def solutions(rules: Rules, players: int) -> Solution:
            return solution_for(rules, players, folder=folder, progress=progress)

    decisions: list[Decision] = []
    unjudged = 0
    used: dict[int, Solution] = {}
    for seat, action, obs in seen:
        players = len(obs["order"])
        sol = used.get(players)
        if sol is None:
            sol = used[players] = solutions(game.rules, players)
        try:
            h = hint(obs, sol, person="they")  # a review speaks about each player, bots and all
        except ValueError:  # no figures at all: only a solution without a single situation
            unjudged += 1
            continue
        decisions.append(Decision(len(decisions), obs["hand"], seat, game.names[seat], action, h,
                                  h.cost(action)))
    # "exact": the NashConv is an exact best response in the true game (an iid strategy measured
    # only without card removal is not, nor a sampled estimate)
    info = {n: {"method": s.method, "nash_conv": s.nash_conv, "exact": s.nash_conv_kind == "exact",
                "nash_conv_kind": s.nash_conv_kind, "measured": s.measured,
                "closeness": perfect_play_text(s.nash_conv, s.measured)}
            for n, s in used.items()}
    return Review("chase-the-ace", list(game.names), game.rules.to_dict(), decisions, info,
                  complete=game.over, unjudged=unjudged,
                  generalised=sum(d.hint.generalised for d in decisions))
