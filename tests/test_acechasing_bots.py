"""Ace Chasing bots: the knockout chance, each role's decision, specs."""

from __future__ import annotations

import itertools
import math
import random

import pytest

import chasetheace as cta
from chasetheace.acechasing.bots import knockout_chance
from chasetheace.acechasing.game import AceAction
from chasetheace.cards import Card, pack
from test_acechasing_properties import referee_out

RNG = random.Random(0)


def matador_view(card: str) -> dict[str, object]:
    """What the matador (seat 0) sees when seat 1 has offered 5; the others hold 5s, 6s, 8s."""
    game = cta.AceChasingGame(4, stack=["5s", "6s", "8s", card])
    game.act(cta.Offer(5))
    return game.observation(0)


@pytest.mark.parametrize(("card", "safe"), [("2c", 47), ("Ac", 39), ("Kd", 3), ("7h", 7 * 4 - 1)])
def test_the_matadors_chance_counts_safe_cards(card: str, safe: int) -> None:
    """With nobody exchanging again (threshold 1: keep everything) the matador keeps its card."""
    obs = {"order": [1, 2, 3, 0], "matador": 0, "cards": [card, None, None, None]}
    assert knockout_chance(obs, threshold=1) == pytest.approx(math.comb(safe, 3) / math.comb(51, 3))


def test_a_bettors_chance_agrees_with_enumerating_every_deal() -> None:
    """Nobody exchanging again (threshold 1), every deal of the three cards Bob cannot see."""
    mine = Card.parse("7s")
    rest = [c for c in pack(52) if c != mine]
    out = total = 0
    for top in rest:
        others = [c for c in rest if c != top]
        for a, b in itertools.combinations(others, 2):
            total += 1
            out += referee_out({1: mine, 2: a, 3: b, 0: top}, 0) == (0,)
    obs = {"order": [1, 2, 3, 0], "matador": 0, "cards": [None, "7s", None, None]}
    assert knockout_chance(obs, threshold=1) == pytest.approx(out / total)


def test_the_matador_accepts_good_bets_only() -> None:
    bot = cta.OddsBot()
    # the exchanges to come pass the matador the first card below 7 the others hold, so an ace
    # (a club passed on saves it) is its best card and a 6 one of its worst
    strong = matador_view("Ac")
    weak = matador_view("6c")
    assert knockout_chance(strong) < 0.13 and knockout_chance(weak) > 0.7
    assert bot.choose(strong, [AceAction.ACCEPT, AceAction.DECLINE], RNG) == AceAction.ACCEPT
    assert bot.choose(weak, [AceAction.ACCEPT, AceAction.DECLINE], RNG) == AceAction.DECLINE
    picky = cta.OddsBot(margin=1.0)
    assert picky.choose(strong, [AceAction.ACCEPT, AceAction.DECLINE], RNG) == AceAction.DECLINE


def test_the_bettor_offers_in_proportion_and_halves_after_a_decline() -> None:
    game = cta.AceChasingGame(4, stack=["Ks", "5d", "6d", "9c"])
    bot = cta.OddsBot(stake=40)
    obs = game.observation(1)
    first = round(40 * knockout_chance(obs, bot.threshold))
    assert first > 0 and bot.choose(obs, [AceAction.OFFER], RNG) == cta.Offer(first)
    game.act(cta.Offer(first))
    game.act("decline")
    assert bot.choose(game.observation(1), [AceAction.OFFER], RNG) == cta.Offer(first // 2)
    low = cta.AceChasingGame(4, stack=["Ac", "5d", "6d", "9c"]).observation(1)
    assert knockout_chance(low) < knockout_chance(obs)


def test_exchanges_by_threshold() -> None:
    game = cta.AceChasingGame(4, stack=["8h", "7h", "Kd", "9c"])
    for _ in range(3):
        game.act(cta.Offer(0))
    bot = cta.OddsBot(threshold=8)
    assert bot.choose(game.observation(1), game.legal_actions(), RNG) == AceAction.KEEP
    game.act("keep")
    assert bot.choose(game.observation(2), game.legal_actions(), RNG) == AceAction.SWAP


def test_the_threshold_bot_never_bets() -> None:
    game = cta.AceChasingGame(4, seed=1)
    assert cta.make_ace_chasing_bot("threshold:9").choose(game.observation(1), game.legal_actions(),
                                                         RNG) == cta.Offer(0)


def test_the_random_bot_makes_legal_choices() -> None:
    game = cta.AceChasingGame(5, seed=8)
    bot = cta.RandomAceChasingBot(stake=3)
    rng = random.Random(8)
    while not game.over:
        action = bot.choose(game.observation(game.to_act), game.legal_actions(), rng)
        assert game.can_act(action)
        game.act(action)


@pytest.mark.parametrize(("spec", "words"), [
    ("nope", "unknown Ace Chasing bot 'nope'"),
    ("odds:colour=red", "bad bot option 'colour=red'"),
    ("odds:stake=-2", "bad stake -2"),
    ("odds:stake=lots", "bad stake 'lots'"),
    ("odds:margin=big", "bad margin 'big'"),
    ("odds:threshold=Z", "not a rank"),
    ("odds:stake=1,stake=2", "each once"),
])
def test_bad_specs(spec: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        cta.make_ace_chasing_bot(spec)


def test_play_needs_one_bot_per_seat() -> None:
    with pytest.raises(ValueError, match="need 4 bots"):
        cta.play_ace_chasing_game(cta.AceChasingGame(4), [cta.OddsBot()], seed=1)


def test_bots_are_deterministic_given_the_seeds() -> None:
    def money(seed: int) -> list[int]:
        game = cta.AceChasingGame(6, seed=seed)
        bots = [cta.make_ace_chasing_bot(s) for s in ("random", "odds") * 3]
        cta.play_ace_chasing_game(game, bots, seed=seed)
        return game.money
    assert money(11) == money(11)
