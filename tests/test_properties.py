"""Property tests over random rule options, player counts and action sequences."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

import chasetheace as cta
from chasetheace.events import DealerSameRank, Showdown
from helpers import known_cards

CARD = re.compile(r'"([AKQJT2-9][cdhs])"')


def _option(key: str) -> st.SearchStrategy[Any]:
    opt = cta.OPTIONS[key]
    if opt.minimum is not None:
        return st.integers(opt.minimum, opt.minimum + 3)
    return st.sampled_from(opt.values)


RULES = st.builds(cta.Rules, **{key: _option(key) for key in cta.OPTIONS})


def check_invariants(game: cta.Game) -> None:
    rules, n = game.rules, game.players
    # every card is in exactly one place
    places = list(game.stock) + [c for c in (game.card(s) for s in range(n)) if c is not None]
    if game.set_aside is not None:
        places.append(game.set_aside)
    assert sorted(places) == sorted(cta.pack(rules.deck))
    # chips and money are conserved; lives never go negative
    assert sum(game.lives) + game.kitty == rules.lives * n
    assert sum(game.money) + game.pot == game.carry
    assert min(game.lives) >= 0
    # an observation never holds a card its seat may not know
    for seat in [*range(n), None]:
        obs = game.observation(seat)
        text = json.dumps(obs)
        assert set(CARD.findall(text)) <= known_cards(game.events, seat)
        for s, shown in enumerate(obs["cards"]):
            if shown is not None:
                assert shown == str(game.card(s))
        if seat is not None and game.card(seat) is not None:
            assert obs["card"] == str(game.card(seat))


def reference_losers(rules: cta.Rules, shown: list[tuple[int, cta.Card]]) -> set[int]:
    """RULES.md A3 step 5, written independently of the engine (for untouched showdowns)."""
    if rules.pairing:
        by_rank: dict[int, list[int]] = {}
        for s, c in shown:
            by_rank.setdefault(c.rank, []).append(s)
        groups = sorted(by_rank.items(), key=lambda kv: (len(kv[1]), rules.strength(kv[0])))
        return set(groups[0][1])
    ordered = sorted(shown, key=lambda sc: rules.strength(sc[1]))
    low = rules.strength(ordered[0][1])
    tied = [s for s, c in shown if rules.strength(c) == low]
    return {"all-lose": set(tied), "eldest-loses": {tied[0]}, "latest-loses": {tied[-1]}}[rules.ties]


def play_randomly(game: cta.Game, rng: random.Random, p_swap: float, check: bool = True) -> None:
    steps = 0
    while not game.over:
        if check:
            check_invariants(game)
        game.act("swap" if rng.random() < p_swap else "keep")
        steps += 1
        assert steps < 20_000, "the game does not end"


@given(rules=RULES, players=st.integers(2, 7), seed=st.integers(0, 2**32 - 1),
       action_seed=st.integers(0, 2**32 - 1), p_swap=st.floats(0, 1))
def test_random_games_keep_every_invariant(rules: cta.Rules, players: int, seed: int,
                                           action_seed: int, p_swap: float) -> None:
    game = cta.Game(rules, players, seed=seed)
    play_randomly(game, random.Random(action_seed), p_swap)
    check_invariants(game)
    assert game.over and game.to_act is None
    # the losers are exactly those step 5 names
    immune: int | None = None
    for e in game.events:
        if e.type == "hand_started":
            immune = None
        if isinstance(e, DealerSameRank) and e.rule == "dealer-immune":
            immune = e.seat
        if isinstance(e, Showdown):
            shown = [(s, c) for s, c in e.cards if s != immune]
            assert set(e.losers) == reference_losers(rules, shown)
    # replay of record() reproduces the game event for event
    again = cta.Game.from_record(json.loads(json.dumps(game.record())))
    assert again.events == game.events and again.winners == game.winners
    assert again.lives == game.lives and again.money == game.money


@given(rules=RULES, players=st.integers(2, 6), seed=st.integers(0, 2**32 - 1),
       cut=st.integers(0, 60))
def test_replay_mid_game_and_play_on(rules: cta.Rules, players: int, seed: int, cut: int) -> None:
    game = cta.Game(rules, players, seed=seed)
    rng = random.Random(seed)
    for _ in range(cut):
        if game.over:
            break
        game.act(rng.choice(["keep", "swap"]))
    again = cta.Game.from_record(game.record(), seed=5)
    assert again.events == game.events and again.to_act == game.to_act
    play_randomly(again, random.Random(1), 0.5, check=False)
    assert again.over


@given(rules=RULES, players=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_same_seed_same_game(rules: cta.Rules, players: int, seed: int) -> None:
    games = []
    for _ in range(2):
        g = cta.Game(rules, players, seed=seed)
        cta.play_game(g, [cta.CountingBot() if s % 2 else cta.RandomBot() for s in range(players)],
                      seed=seed)
        games.append(g)
    assert games[0].events == games[1].events
    assert json.dumps(games[0].record()) == json.dumps(games[1].record())


@given(rules=RULES, players=st.integers(2, 6), seed=st.integers(0, 2**32 - 1),
       pick=st.integers(0, 10**6))
def test_observation_ignores_hidden_cards(rules: cta.Rules, players: int, seed: int, pick: int) -> None:
    """Two deals that differ only in cards a seat cannot see give that seat the same view."""
    game = cta.Game(rules, players, seed=seed)
    seat = game.to_act
    assume(seat is not None and game.hand == 1)  # else no decision in hand 1 (a king stopped play)
    assert seat is not None
    obs = game.observation(seat)
    order = obs["order"]
    showing = {rules.blocker_rank, rules.top_rank}
    deck = [game.card(s) for s in order] + list(game.stock)
    hidden = [i for i, s in enumerate(order) if obs["cards"][s] is None]
    stock = [len(order) + k for k, c in enumerate(game.stock)]

    def unshown(card: cta.Card | None) -> bool:
        return card is not None and card.rank not in showing

    # exchange a hidden player's card with a stock card, neither of which would be shown
    pairs = [(i, j) for i in hidden for j in stock if unshown(deck[i]) and unshown(deck[j])]
    assume(pairs)
    i, j = pairs[pick % len(pairs)]
    deck[i], deck[j] = deck[j], deck[i]
    other = cta.Game(rules, players, stack=[str(c) for c in deck], dealer=game.dealer)
    assert other.to_act == seat
    a, b = game.observation(seat), other.observation(seat)
    assert [e for e in a["history"] if e["type"] not in ("shuffle", "pick", "dealer_draw",
                                                        "dealer_chosen")] == list(b["history"])
    assert {k: v for k, v in a.items() if k != "history"} == {k: v for k, v in b.items() if k != "history"}
