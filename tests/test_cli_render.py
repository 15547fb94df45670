"""The narrator: every event of every rule set told in words, and nothing a seat may not know."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chasetheace as cta
from chasetheace.cli.play import parse_answer
from chasetheace.render import Narrator, card_text, explain_rules
from chasetheace.seats import position_name

SILENT = {"shuffle", "pick", "collected"}  # chance and tidying, which players do not remark on


def _rules(draw: Any) -> cta.Rules:
    values = {key: draw(st.sampled_from(option.values)) for key, option in cta.OPTIONS.items()
              if option.minimum is None}
    values["lives"] = draw(st.integers(1, 3))
    values["ante"] = draw(st.integers(0, 2))
    return cta.Rules(**values)


rule_sets = st.composite(_rules)()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets, players=st.integers(2, 6), seed=st.integers(0, 10**6))
def test_every_event_is_told(rules: cta.Rules, players: int, seed: int) -> None:
    game = cta.Game(rules, players=players, seed=seed)
    cta.play_game(game, [cta.RandomBot()] * players, seed=seed)
    full = Narrator(game.names, rules)
    for event in game.events:
        lines = full.tell(event.to_dict())
        assert lines or event.type in SILENT, event
        assert all(isinstance(line, str) and line and "\n" not in line for line in lines)
    assert full.lives == game.lives  # the narrator kept count of every life
    assert any(game.names[w] in line for w in game.winners
               for line in full.tell(game.events[-1].to_dict())) or not game.winners
    for explained in explain_rules(rules, players):
        assert explained.endswith(".")


@settings(max_examples=25, deadline=None)
@given(rules=rule_sets, seed=st.integers(0, 10**6))
def test_a_seat_is_told_only_what_it_may_know(rules: cta.Rules, seed: int) -> None:
    """Lines from seat 0's view name a card only if seat 0's view holds that card."""
    game = cta.Game(rules, players=4, seed=seed)
    cta.play_game(game, [cta.RandomBot()] * 4, seed=seed)
    narrator = Narrator(game.names, rules, viewer=0)
    for view in game.observation(0)["history"]:
        told = " ".join(narrator.tell(view))
        visible = " ".join(str(v) for v in _strings(view))
        for card in cta.pack(52):
            if card_text(card) in told:
                assert str(card) in visible, (card, view, told)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_words_a_player_uses() -> None:
    game = cta.Game(cta.Rules(), players=["Ann", "Bob", "Cat"], stack=["Kh", "5c", "9d", "2s"], dealer=2)
    narrator = Narrator(game.names, game.rules, viewer=1)
    lines = [line for view in game.observation(1)["history"] for line in narrator.tell(view)]
    assert lines == ["Hand 1: Cat deals, Ann is eldest.", "You are dealt 5♣.", "Ann: King! (Ann shows K♥.)"]
    game.act("swap")  # Bob asks Cat
    lines = [line for view in game.observation(1)["history"][-1:] for line in narrator.tell(view)]
    assert lines == ["You: Change! You give 5♣ to Cat and get 9♦."]
    assert position_name(0, 5) == "eldest" and position_name(4, 5) == "dealer"
    assert position_name(3, 6) == "4th"


def test_blocked_and_the_dealer_cut() -> None:
    game = cta.Game(cta.Rules(), players=["Ann", "Bob", "Cat"], stack=["5h", "Kc", "9d", "2s"], dealer=2)
    game.act("swap")
    game.act("keep")  # never reached by Bob: Bob's turn was done by the block, so Cat decides
    narrator = Narrator(game.names, game.rules)
    told = [line for e in game.events for line in narrator.tell(e.to_dict())]
    assert "Ann: Change! Bob shows K♣: blocked." in told
    assert "Cat: Stand." in told


def test_parse_answer_words() -> None:
    assert parse_answer("Change!") == "swap" and parse_answer("STAND") == "keep"
    assert parse_answer("") is None and parse_answer("r") == "rules"
