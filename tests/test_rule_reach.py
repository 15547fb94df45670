"""A rule option's reach, checked rather than remembered: every option of ``OPTIONS`` has typed
values, says whether the hand solver models it, refuses it or is unaffected by it, and the solver
is held to that against the engine, hand by hand, under random options; the words
(``render.explain_rules``) and docs/RULES.md say every option too.

The reference is the engine itself, not the solver's own brute force (which shares the solver's
reading of the rules): an option the engine plays but the solver ignores fails here.
"""

from __future__ import annotations

import dataclasses
import typing
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chasetheace as cta
from chasetheace.events import DealerExchange, Dealt, HandStarted, LivesLost
from chasetheace.render import explain_rules
from chasetheace.rules import OPTIONS, Option

RULES_MD = Path(__file__).parent.parent / "docs" / "RULES.md"


def _values(option: Option) -> st.SearchStrategy[Any]:
    if option.minimum is not None:
        return st.integers(option.minimum, option.minimum + 3)
    return st.sampled_from(option.values)


@st.composite
def solvable_rules(draw: st.DrawFn) -> cta.Rules:
    """Any rules the hand solver takes: every option random, but those it refuses at their default."""
    return cta.Rules(**{key: draw(_values(option)) for key, option in OPTIONS.items()
                        if option.solver != "refuses"})


def _other_values(option: Option) -> list[Any]:
    """The values of an option other than its default (two more for an open-ended integer)."""
    if option.minimum is not None:
        return [option.default + 1, option.default + 2]
    return [v for v in option.values if v != option.default]


def test_every_option_has_typed_values_and_declares_its_reach() -> None:
    hints = typing.get_type_hints(cta.Rules)
    assert [f.name for f in dataclasses.fields(cta.Rules)] == list(OPTIONS)
    for key, option in OPTIONS.items():
        assert option.solver in typing.get_args(cta.rules.SolverReach), key
        assert getattr(cta.Rules(), key) == option.default, key
        if option.minimum is not None:
            assert hints[key] is int, key
        elif hints[key] is bool:
            assert option.values == (False, True), key
        else:  # a Literal whose values are the option's values, default first
            assert typing.get_origin(hints[key]) is typing.Literal, key
            assert typing.get_args(hints[key]) == option.values, key


def _pure(salt: int) -> Any:
    """A pure strategy that keeps or swaps by a hash of the information set (stable across runs)."""
    def keep(key: Any) -> int:
        return zlib.crc32(repr((salt, key)).encode()) & 1
    return keep


@settings(max_examples=120, deadline=None)
@given(rules=solvable_rules(), players=st.integers(2, 5), seed=st.integers(0, 10**6),
       salt=st.integers(0, 10**6))
def test_the_hand_solver_plays_a_hand_as_the_engine_does(rules: cta.Rules, players: int, seed: int,
                                                         salt: int) -> None:
    """The first hand of a game played by the engine, and the same deal played out by the solver's
    model of a hand (its brute force), under the same pure strategy: the same seats lose, the same
    lives."""
    pytest.importorskip("numpy")
    from chasetheace.solver.model import brute
    from chasetheace.solver.model.hand import Hand, deck_of, infoset_of

    deck = deck_of(rules)
    hand = Hand(rules, players, deck)
    strategy = _pure(salt)
    game = cta.Game(rules, players=players, seed=seed)
    while game.hand == 1 and game.to_act is not None:
        key = infoset_of(game.observation(game.to_act), deck, kings_jerk=rules.kings_jerk)
        game.act(cta.Action.KEEP if strategy(key) else cta.Action.SWAP)
    started = next(i for i, ev in enumerate(game.events) if isinstance(ev, HandStarted))
    events = game.events[started:]
    order = list(next(ev for ev in events if isinstance(ev, HandStarted)).order)
    dealt = dict(next(ev for ev in events if isinstance(ev, Dealt)).cards)
    drawn = next((ev.drawn for ev in events if isinstance(ev, DealerExchange)), None)
    paid = dict(next(ev for ev in events if isinstance(ev, LivesLost)).payments)
    deal = [deck.strength_of_rank(dealt[seat].rank) for seat in order]
    deal.append(0 if drawn is None else deck.strength_of_rank(drawn.rank))
    lives, losses = brute.outcome(hand, strategy, deal)
    assert {order[i] for i in range(players) if losses[i]} == set(paid), (deal, game.events)
    for i, owed in enumerate(lives):
        if losses[i]:  # a loser pays what it owes, as far as its lives go
            assert paid[order[i]] == min(owed, rules.lives), (deal, game.events)


def test_a_refused_option_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numpy")
    from chasetheace.solver.model.hand import Hand

    for key, option in OPTIONS.items():
        for value in _other_values(option):
            rules = cta.Rules().replace(**{key: value})
            if option.solver == "refuses":
                with pytest.raises(ValueError, match=key):
                    Hand(rules, 3)
            else:
                Hand(rules, 3)
    # the mechanism, on an option declared refused for the test's sake
    refused = dataclasses.replace(OPTIONS["between_hands"], solver="refuses")
    monkeypatch.setitem(OPTIONS, "between_hands", refused)
    with pytest.raises(ValueError, match="between_hands=to-bottom"):
        cta.solve(cta.Rules(between_hands="to-bottom"), players=2)
    Hand(cta.Rules(), 3)


def _said(rules: cta.Rules) -> list[str]:
    """What explain_rules says of ``rules`` in words (not its closing list of option keys)."""
    return [line for line in explain_rules(rules, 4) if not line.startswith("Differs from the standard")]


def test_explain_rules_says_every_value_of_every_option() -> None:
    bases = [cta.Rules(), cta.Rules(ranking="ace-high")]  # under king-high, blocker=king is the default
    for key, option in OPTIONS.items():
        for value in _other_values(option):
            assert any(_said(base.replace(**{key: value})) != _said(base) for base in bases), (key, value)


def test_rules_md_lists_every_option_with_its_values() -> None:
    rows = {line.split("|")[1].strip(): line for line in RULES_MD.read_text(encoding="utf-8").splitlines()
            if line.startswith("| `")}
    for key, option in OPTIONS.items():
        row = rows.get(f"`{key}`")
        assert row is not None, f"docs/RULES.md has no row for the option {key}"
        values = row.split("|")[2]
        for value in option.values:
            shown = str(value).lower() if isinstance(value, bool) else str(value)
            assert shown in values, (key, value)
