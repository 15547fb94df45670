"""What each seat knows (RULES.md A4), and the bots that use it."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import chasetheace as cta
from chasetheace.events import HandStarted, LivesLost
from helpers import stacked


def test_a_seat_knows_where_the_cards_it_held_went() -> None:
    # seat 0 swaps its 2c for 9d; seat 1 then passes the 2c on to seat 2
    g = stacked("2c 9d 8h Qc 5s", players=4)
    g.act("swap")
    g.act("swap")
    assert g.observation(0)["cards"] == ["9d", None, "2c", None]  # seat 0 follows its 2c
    assert g.observation(1)["cards"] == ["9d", "8h", "2c", None]
    assert g.observation(2)["cards"] == [None, "8h", "2c", None]
    assert g.observation(3)["cards"] == [None, None, None, "Qc"]


def test_dealer_alone_sees_the_draw_and_the_set_aside_card() -> None:
    g = stacked("9c 9d 8h 2c 5s", players=4)
    for _ in range(3):
        g.act("keep")
    before = len(g.observation(0)["history"])
    g.act("swap")
    dealer_view = [e for e in g.observation(3)["history"] if e["type"] == "dealer_exchange"]
    other_view = [e for e in g.observation(0)["history"] if e["type"] == "dealer_exchange"]
    assert dealer_view[0]["drawn"] == "5s" and dealer_view[0]["given"] == "2c"
    assert "drawn" not in other_view[0] and "given" not in other_view[0]
    assert len(g.observation(0)["history"]) > before


def test_spectators_see_only_public_facts() -> None:
    g = stacked("2c 9d 8h Qc 5s", players=4)
    g.act("swap")
    spectator = g.observation(None)
    assert spectator["card"] is None and spectator["cards"] == [None] * 4
    assert all("given" not in e for e in spectator["history"])
    dealt = next(e for e in spectator["history"] if e["type"] == "dealt")
    assert dealt["cards"] == []


def test_to_bottom_history_shows_the_order_of_cards_under_the_stock() -> None:
    g = stacked("9c 9d 8h 2c 5s", players=4, between_hands="to-bottom")
    for _ in range(3):
        g.act("keep")
    g.act("swap")
    collected = next(e for e in g.observation(0)["history"] if e["type"] == "collected")
    assert collected["cards"] == ["9c", "9d", "8h", "5s", None]  # the set-aside card is unseen
    dealer_side = next(e for e in g.observation(3)["history"] if e["type"] == "collected")
    assert dealer_side["cards"][-1] == "2c"


def test_threshold_bot() -> None:
    obs = stacked("7h 2c 3d").observation(0)  # seat 0 holds the 7h
    rng = random.Random(0)
    both = [cta.Action.KEEP, cta.Action.SWAP]
    assert cta.ThresholdBot(8).choose(obs, both, rng) is cta.Action.SWAP
    assert cta.ThresholdBot("7").choose(obs, both, rng) is cta.Action.KEEP
    obs = stacked("Ah 2c 3d", ranking="ace-high").observation(0)
    assert cta.ThresholdBot("K").choose(obs, both, rng) is cta.Action.KEEP


def test_counting_bot_swaps_into_a_known_better_card_and_keeps_when_someone_is_known_lower() -> None:
    # seat 0 gave its 2c to seat 1 and knows seat 1 holds it; seat 0 now holds 9d
    g = stacked("2c 9d 8h 5h Qc 6s", players=5)
    g.act("swap")
    bot = cta.CountingBot()
    rng = random.Random(0)
    # seat 1 holds the 2c, knows seat 0 holds 9d: swapping with seat 2 (unknown) is its only hope
    assert bot.choose(g.observation(1), g.legal_actions(), rng) is cta.Action.SWAP
    g.act("swap")  # seat 1 passes the 2c to seat 2; seat 2 now knows seat 1 holds 8h
    # seat 2 holds the 2c and knows the 8h is at seat 1: it must swap
    assert cta.CountingBot().choose(g.observation(2), g.legal_actions(), rng) is cta.Action.SWAP
    g.act("swap")  # seat 2 gives the 2c to seat 3, takes the 5h
    # seat 3 holds 2c; the dealer knows nothing
    obs = g.observation(4)
    assert obs["card"] == "Qc"
    # seat 0 swaps its 5h for seat 1's 3c: seat 1 knows someone is lower, so it keeps its 5h
    g = stacked("5h 3c 9d Qc 6s", players=4)
    g.act("swap")
    obs = g.observation(1)
    assert obs["card"] == "5h" and obs["cards"][0] == "3c"
    keep, swap = _estimates(obs)
    assert keep == 0.0 < swap
    assert cta.CountingBot().choose(obs, g.legal_actions(), rng) is cta.Action.KEEP


def _estimates(obs: Any) -> tuple[float, float]:
    """CountingBot's two loss estimates (keep, swap) for an observation."""
    bot = cta.CountingBot()
    bot.choose(obs, [cta.Action.KEEP, cta.Action.SWAP], random.Random(0))
    assert bot._tracker is not None
    return bot._tracker.loss_estimates(obs)


def _loss_rate(rules: cta.Rules, kinds: list[str], games: int, seed: int) -> dict[str, float]:
    lost: Counter[str] = Counter()
    played: Counter[str] = Counter()
    rng = random.Random(seed)
    for i in range(games):
        game = cta.Game(rules, len(kinds), seed=rng.randrange(2**32))
        cta.play_game(game, [cta.make_bot(k, rules, len(kinds)) for k in kinds], seed=i)
        for e in game.events:
            if isinstance(e, HandStarted):
                played.update(kinds[s] for s in e.order)
            if isinstance(e, LivesLost):
                lost.update(kinds[s] for s, _ in e.payments)
    return {k: lost[k] / played[k] for k in played}


def test_counting_bot_beats_threshold_bot_where_the_stock_order_is_known() -> None:
    """With to-bottom the order of the cards under the stock is public; CountingBot uses it."""
    rules = cta.Rules.preset("chase-the-ace").replace(deck=32, lives=5)
    rates = _loss_rate(rules, ["counting", "threshold:8", "counting", "threshold:8", "threshold:8"],
                       games=300, seed=2)
    assert rates["counting"] < rates["threshold:8"] - 0.02, rates
