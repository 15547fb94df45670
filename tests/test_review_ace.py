"""Reviews of Ace Chasing's keep/swap decisions: the chance of being knocked out either way, from the
deciding seat's view alone, checked against the engine on stacked packs."""

from __future__ import annotations

import io
import json
import math
import random
import re
import sys
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chasetheace as cta
from chasetheace.acechasing import AceAction, AceChasingGame, OddsBot, Offer
from chasetheace.acechasing.exchange import MISTAKE, ExchangeOdds, exchange_odds
from chasetheace.acechasing.review import review_ace_chasing
from chasetheace.cards import Card, pack
from helpers import check_schema

DOCS = Path(__file__).resolve().parent.parent / "docs" / "review.md"


def _to_exchanges(game: AceChasingGame) -> None:
    """Nobody bets: every bettor offers 0 until the exchanges."""
    while game.phase == "betting":
        game.act(Offer(0))


def _round_one(players: int, stack: Sequence[str | Card], actions: Sequence[str]) -> AceChasingGame:
    """A game on a stacked pack: no bets, then ``actions`` in the exchanges of round 1."""
    game = AceChasingGame(players, stack=stack, seed=0)
    _to_exchanges(game)
    for action in actions:
        game.act(action)
    return game


def _exchanges(review: Any) -> list[Any]:
    return [d for d in review.decisions if d.exchange]


# --- forced calls on stacked packs ------------------------------------------------------------------

def test_an_ace_held_last_before_the_matador_must_be_swapped() -> None:
    """Bob, Cat keep; Dan (last before the matador Ann) holds A♠. Kept, it is out unless Ann holds
    an ace (48/51); swapped, Ann gets A♠ and Dan is out only with a spade (12/51)."""
    game = _round_one(4, ["Kd", "5c", "As", "9h"], ["keep", "keep", "keep"])
    assert not game.alive[3]  # the engine agrees: A♠ < 9♥
    dan = _exchanges(review_ace_chasing(game.record()))[-1]
    assert (dan.seat, dan.card, dan.action) == (3, "As", "keep")
    assert dan.out_if_keep == pytest.approx(48 / 51) and dan.out_if_swap == pytest.approx(12 / 51)
    assert dan.call == dan.best == "swap" and dan.mistake
    assert dan.cost == pytest.approx(36 / 51)


def test_a_king_held_last_before_the_matador_must_be_kept() -> None:
    """Dan holds K♥. Kept, he is out only if A♥ is dealt (to Ann: she shows an ace of hearts; to
    Bob or Cat: it is lower than Ann's card and face up) and Ann holds no other ace. Swapped, Ann
    gets K♥ and Dan is out unless he gets a king whose ace is not dealt."""
    game = _round_one(4, ["Qd", "5c", "Kh", "9s"], ["keep", "keep", "swap"])
    dan = _exchanges(review_ace_chasing(game.record()))[-1]
    keep = Fraction(1, 51) + Fraction(47, 51) * Fraction(2, 50)
    swap = Fraction(48, 51) + Fraction(3, 51) * Fraction(2, 50)
    assert dan.out_if_keep == pytest.approx(float(keep)) and dan.out_if_swap == pytest.approx(float(swap))
    assert dan.call == "keep" and dan.action == "swap" and dan.mistake
    assert dan.cost == pytest.approx(float(swap - keep))
    assert dan.against_the_odds


@pytest.mark.parametrize(("received", "given_away"), [("7d", "Qs"), ("Ah", "3h"), ("2c", "Ac"),
                                                      ("Kc", "5d"), ("3s", "3d")])
@pytest.mark.parametrize("action", ["keep", "swap"])
def test_the_last_players_odds_are_exact_over_every_deal_it_cannot_see(
        received: str, given_away: str, action: str) -> None:
    """Four players; Cat swaps with Dan, so Dan knows two cards. Every deal of the other two
    (Bob's and Ann's, 50 x 49) is played on the engine: the share in which Dan is knocked out is
    exactly the review's figure."""
    known = {Card.parse(received), Card.parse(given_away)}
    rest = [c for c in pack(52) if c not in known]
    out = total = 0
    for bob in rest:
        for ann in rest:
            if ann is bob:
                continue
            game = _round_one(4, [bob, received, given_away, ann], ["keep", "swap", action])
            out += not game.alive[3]
            total += 1
    assert total == 50 * 49
    game = _round_one(4, [rest[0], received, given_away, rest[1]], ["keep", "swap"])
    obs = game.observation(3)
    assert obs["cards"][3] == received and obs["cards"][2] == given_away
    odds = exchange_odds(obs)
    assert (odds.keep if action == "keep" else odds.swap) == pytest.approx(out / total, abs=1e-12)


@pytest.mark.parametrize(("received", "given_away"), [("5h", "Kd"), ("9c", "2c"), ("Ad", "7s"),
                                                      ("7h", "6h")])
@pytest.mark.parametrize("action", ["keep", "swap"])
def test_a_middle_players_odds_are_exact_with_the_default_bot_after_it(
        received: str, given_away: str, action: str) -> None:
    """Four players; Bob swaps with Cat, so Cat knows two cards; Dan, still to act after her,
    exchanges as the default bot. Every deal of Dan's and Ann's cards (50 x 49) is played on the
    engine: the share in which Cat is knocked out is exactly the review's figure."""
    known = {Card.parse(received), Card.parse(given_away)}
    rest = [c for c in pack(52) if c not in known]
    bot, rng = OddsBot(), random.Random(0)
    out = total = 0
    for dan in rest:
        for ann in rest:
            if ann is dan:
                continue
            game = _round_one(4, [received, given_away, dan, ann], ["swap", action])
            if game.round == 1 and not game.over:
                game.act(bot.choose(game.observation(3), game.legal_actions(), rng))
            out += not game.alive[2]
            total += 1
    assert total == 50 * 49
    game = _round_one(4, [received, given_away, rest[0], rest[1]], ["swap"])
    obs = game.observation(2)
    assert obs["cards"][2] == received and obs["cards"][1] == given_away
    odds = exchange_odds(obs)
    assert (odds.keep if action == "keep" else odds.swap) == pytest.approx(out / total, abs=1e-12)


@pytest.mark.parametrize(("players", "seat", "card"), [(6, 1, "5h"), (6, 3, "9c"), (8, 2, "Ad"),
                                                       (5, 1, "Jh")])
def test_earlier_players_odds_match_the_engine_with_the_default_bot_after_them(
        players: int, seat: int, card: str) -> None:
    """The players before ``seat`` keep whatever they hold, those after it exchange as the
    default bot; deals drawn at random (seeded) around ``seat``'s card: the share knocked out
    agrees with the exact figure within 4.5 standard errors."""
    rng = random.Random(seat * 100 + players)
    bot = OddsBot()
    place = seat - 1  # the deal starts at seat 1 (matador 0) and goes clockwise
    others = [c for c in pack(52) if c != Card.parse(card)]
    odds = None
    samples = 4000
    for action in ("keep", "swap"):
        out = 0
        for _ in range(samples):
            rng.shuffle(others)
            stack = [*others[:place], Card.parse(card), *others[place:]]
            game = AceChasingGame(players, stack=stack, seed=1)
            _to_exchanges(game)
            while game.to_act != seat:
                game.act("keep")
            if odds is None:
                odds = exchange_odds(game.observation(seat))
            game.act(action)
            while game.round == 1 and not game.over:
                s = game.to_act
                assert s is not None
                game.act(bot.choose(game.observation(s), game.legal_actions(), rng))
            out += not game.alive[seat]
        assert odds is not None
        p = odds.keep if action == "keep" else odds.swap
        error = math.sqrt(max(p * (1 - p), 1e-4) / samples)
        assert abs(out / samples - p) < 4.5 * error, (action, out / samples, p)


# --- what the seat knew, and nothing else -----------------------------------------------------------

def _play_round_one(players: int, deck: Sequence[Card], choices: Sequence[Any]) -> AceChasingGame:
    game = AceChasingGame(players, stack=deck, seed=7)
    for move in choices:
        game.act(move)
    return game


def _random_round(players: int, deck: Sequence[Card], rng: random.Random) -> list[Any]:
    """Random moves for round 1 (small bets, answers, keeps and swaps)."""
    game = AceChasingGame(players, stack=deck, seed=7)
    moves: list[Any] = []
    while game.round == 1 and not game.over:
        legal = game.legal_actions()
        if AceAction.OFFER in legal:
            move: Any = Offer(rng.choice([0, 0, 2, 5]))
        else:
            move = rng.choice(legal)
        moves.append(move)
        game.act(move)
    return moves


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(4, 12), pick=st.integers(0, 10**6))
def test_the_judgement_depends_on_the_seats_view_alone(seed: int, players: int, pick: int) -> None:
    """Every card the deciding seat has not seen is moved to another place in the pack (the other
    seats' cards and the stock); the same moves are replayed: its view is the same, the other
    seats' cards are not, and the review of the changed record judges the decision the same."""
    rng = random.Random(seed)
    deck = pack(52)
    rng.shuffle(deck)
    moves = _random_round(players, deck, rng)
    exchanges = [i for i, m in enumerate(moves) if m in (AceAction.KEEP, AceAction.SWAP)]
    k = exchanges[pick % len(exchanges)]
    game = _play_round_one(players, deck, moves[:k])
    seat = game.to_act
    assert seat is not None and game.phase == "exchanges"
    obs = game.observation(seat)
    seen = {Card.parse(c) for c in obs["cards"] if c is not None}
    hidden = [i for i, c in enumerate(deck) if c not in seen]
    changed = list(deck)
    for i, j in zip(hidden, hidden[1:] + hidden[:1]):  # every unseen card to another place
        changed[j] = deck[i]
    other = _play_round_one(players, changed, moves[:k])
    assert other.observation(seat) == obs
    assert [other.card(s) for s in game.order if s != seat] != [game.card(s) for s in game.order
                                                                  if s != seat]
    first = review_ace_chasing(_play_round_one(players, deck, moves).record()).decisions[k]
    again = review_ace_chasing(_play_round_one(players, changed, moves).record()).decisions[k]
    assert first.seat == seat and first.exchange
    assert first.to_dict() == again.to_dict()
    odds = exchange_odds(obs)
    assert (first.out_if_keep, first.out_if_swap) == (odds.keep, odds.swap)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(4, 10))
def test_costs_are_never_negative_and_the_best_call_costs_nothing(seed: int, players: int) -> None:
    game = AceChasingGame(players, seed=seed)
    bots = [cta.make_ace_chasing_bot("random") for _ in range(players)]
    cta.play_ace_chasing_game(game, bots, seed=seed)
    review = review_ace_chasing(json.loads(json.dumps(game.record())))
    swaps = _exchanges(review)
    assert swaps and review.complete
    for d in swaps:
        assert d.out_if_keep is not None and d.out_if_swap is not None
        assert 0 <= d.out_if_keep <= 1 and 0 <= d.out_if_swap <= 1
        chosen = d.out_if_keep if d.action == "keep" else d.out_if_swap
        assert d.cost >= 0 and d.cost == pytest.approx(chosen - min(d.out_if_keep, d.out_if_swap))
        assert (d.cost == 0) == (d.action == d.best) or d.out_if_keep == d.out_if_swap
        assert d.mistake == (d.cost > MISTAKE)
        assert d.call in ("keep", "swap", "either") and (d.call == "either") == (
            abs(d.out_if_keep - d.out_if_swap) <= MISTAKE)
        odds = ExchangeOdds(d.out_if_keep, d.out_if_swap)
        assert odds.cost(odds.best) == 0 and odds.cost(d.action) == d.cost


# --- bots that follow the best call, or not ---------------------------------------------------------

class _ByTheOdds:
    """Bets as the default bot; keeps or swaps by the review's best call (or its opposite)."""

    def __init__(self, contrary: bool = False) -> None:
        self.odds = OddsBot()
        self.contrary = contrary

    def choose(self, observation: Any, legal: Sequence[AceAction], rng: random.Random) -> Any:
        if AceAction.KEEP not in legal:
            return self.odds.choose(observation, legal, rng)
        best = exchange_odds(observation).best
        if self.contrary:
            best = "keep" if best == "swap" else "swap"
        return AceAction(best)


@pytest.mark.parametrize("seed", range(1, 5))
def test_the_best_call_gives_nothing_away_and_its_opposite_does(seed: int) -> None:
    players = 8
    contrary = {1, 4, 6}
    game = AceChasingGame(players, seed=seed)
    cta.play_ace_chasing_game(game, [_ByTheOdds(s in contrary) for s in range(players)], seed=seed)
    review = review_ace_chasing(game.record())
    summary = review.summary()
    for s in range(players):
        mine = [d for d in _exchanges(review) if d.seat == s]
        if s not in contrary:
            assert all(d.cost == 0 and not d.mistake for d in mine)
            assert summary[s]["exchange_mistakes"] == 0 and summary[s]["knockouts_given_away"] == 0
        else:
            assert all(d.action != d.best for d in mine)
    bad = [d for d in _exchanges(review) if d.seat in contrary]
    assert bad and sum(d.mistake for d in bad) > 0
    given = sum(summary[s]["knockouts_given_away"] for s in contrary)
    assert given > 0 and given == pytest.approx(sum(d.cost for d in bad if d.mistake), abs=1e-5)
    assert sum(summary[s]["mistakes"] for s in contrary) >= sum(d.mistake for d in bad)


# --- the command line and the documented JSON -------------------------------------------------------

def _run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[
        int, str, str]:
    from chasetheace import cli

    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def _ace_schema() -> dict[str, Any]:
    block = re.search(r"```json schema ace-chasing\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    assert block, "docs/review.md must hold the Ace Chasing schema in a ```json schema ace-chasing block"
    schema: dict[str, Any] = json.loads(block.group(1))
    return schema


def test_the_command_line_review_judges_the_exchanges(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("rich")
    game = _round_one(4, ["Kd", "5c", "As", "9h"], ["keep", "keep", "keep"])
    cta.play_ace_chasing_game(game, [cta.make_ace_chasing_bot("random") for _ in range(4)], seed=3)
    path = tmp_path / "ace.json"
    path.write_text(json.dumps(game.record()))
    status, out, err = _run(monkeypatch, capsys, ["review", str(path)])
    assert status == 0, err
    line = next(x for x in out.splitlines() if x.strip().startswith("Dan (exchanger, holding As)"))
    assert "keep; knocked out 94.1% if it keeps, 23.5% if it swaps; call: swap - MISTAKE: gives away " \
           "0.706 of a knockout" in line
    assert "knockouts given away" in out
    status, out, err = _run(monkeypatch, capsys, ["review", str(path), "--json"])
    assert status == 0, err
    data = json.loads(out)
    check_schema(data, _ace_schema())
    first = next(d for d in data["decisions"] if d["role"] == "exchanger" and d["seat"] == 3)
    assert first["call"] == "swap" and first["mistake"] and first["cost_unit"] == "knockout chance"
    assert first["cost"] == pytest.approx(36 / 51, abs=1e-6)
    swaps = [d for d in data["decisions"] if d["role"] == "exchanger"]
    for s in data["summary"]:
        mine = [d for d in swaps if d["seat"] == s["seat"]]
        assert s["exchanges_judged"] == len(mine)
        assert s["exchange_mistakes"] == sum(d["mistake"] for d in mine)
        assert s["mistakes"] == sum(d["mistake"] for d in data["decisions"] if d["seat"] == s["seat"])
    status, out, err = _run(monkeypatch, capsys, ["review", str(path), "--json", "--seat", "3"])
    assert status == 0, err
    data = json.loads(out)
    check_schema(data, _ace_schema())
    assert {d["seat"] for d in data["decisions"]} == {3} and [s["seat"] for s in data["summary"]] == [3]
    assert data["summary"][0]["exchange_mistakes"] >= 1


def test_the_documented_schema_rejects_what_it_does_not_describe() -> None:
    game = _round_one(4, ["Kd", "5c", "As", "9h"], ["keep", "keep", "keep"])
    data = review_ace_chasing(game.record()).to_dict()
    schema = _ace_schema()
    check_schema(data, schema)
    with pytest.raises(AssertionError):
        check_schema({**data, "surprise": 1}, schema)
    with pytest.raises(AssertionError):
        check_schema({**data, "decisions": [{**data["decisions"][-1], "call": "maybe"}]}, schema)
