"""Elimination, the final tie rules, the pot and sessions (RULES.md A3 step 6)."""

from __future__ import annotations

from typing import Any

import pytest

import chasetheace as cta
from chasetheace.events import DealerChosen, DealerDraw
from chasetheace.rules import FirstDealerRule
from helpers import of, stacked


def _tie(final_tie: str, **options: Any) -> cta.Game:
    g = stacked("3c 3d 9h", players=2, lives=1, final_tie=final_tie, **options)
    g.act("keep")
    g.act("keep")
    return g


def test_final_tie_replay_cancels_the_losses_and_play_goes_on() -> None:
    g = _tie("replay")
    assert of(g, "final_tie")[0].seats == (0, 1)
    assert g.lives == [1, 1] and g.kitty == 0 and not g.over and g.hand == 2


def test_final_tie_split_shares_the_pot_in_whole_units() -> None:
    g = _tie("split", ante=3)
    assert g.over and g.winners == (0, 1) and g.winner is None
    assert g.money == [0, 0] and g.pot == 0
    s = cta.Session(cta.Rules(lives=1, final_tie="split", ante=1), players=3, seed=0)
    game = s.new_game(stack=["3c", "3d", "3h", "9s"], dealer=2)
    for _ in range(3):
        game.act("keep")
    assert game.winners == (0, 1, 2) and game.pot == 0
    s2 = cta.Session(cta.Rules(lives=1, final_tie="split", ante=1), players=3, seed=0)
    s2_game = s2.new_game(stack=["3c", "3d", "9h", "9s"], dealer=2)
    for _ in range(3):
        s2_game.act("keep")
    # only two tie here (3c, 3d) and are out together, but seat 2 is left: no final tie
    assert s2_game.winners == (2,)


def test_split_remainder_stays_in_the_pot_for_the_next_game() -> None:
    s = cta.Session(cta.Rules(lives=1, final_tie="split", ante=1, between_hands="to-bottom"),
                    players=3, seed=0)
    # hand 1: seat 2 loses with the 2; hand 2 deals 3c and 3d to the last two, who tie
    game = s.new_game(stack=["9c", "9d", "2h", "3c", "3d"], dealer=2)
    for _ in range(3):
        game.act("keep")
    assert game.players_in == [0, 1]
    game.act("keep")
    game.act("keep")
    assert sorted(game.winners) == [0, 1]
    assert game.pot == 1 and s.carry == 1 and game.money == [0, 0, -1]
    assert sum(s.money) + s.pot == 0
    assert s.new_game().pot == 4


def test_final_tie_cut_gives_the_pot_to_the_strongest_cut() -> None:
    g = _tie("cut")
    assert g.over and g.winner in (0, 1)
    cuts = of(g, "cut_draw")
    assert cuts and cuts[-1].draws[0][1].rank != cuts[-1].draws[1][1].rank
    assert g.money[g.winner] == 1


def test_final_tie_no_winner_carries_the_pot_over() -> None:
    s = cta.Session(cta.Rules(lives=1, final_tie="no-winner", ante=2), players=2, seed=0)
    g = s.new_game(stack=["3c", "3d", "9h"], dealer=1)
    g.act("keep")
    g.act("keep")
    assert g.over and g.winners == () and g.pot == 4
    assert s.carry == 4 and s.money == [-2, -2]
    g2 = s.new_game()
    assert g2.pot == 8  # the carry-over and every player's new ante
    cta.play_game(g2, [cta.ThresholdBot(8)] * 2, seed=1)
    assert sum(s.money) + s.pot == 0


def test_session_refuses_a_new_game_while_one_is_running() -> None:
    s = cta.Session(cta.Rules(), players=3, seed=1)
    s.new_game()
    with pytest.raises(ValueError, match="not over"):
        s.new_game()


def test_winner_takes_the_pot() -> None:
    g = stacked("2c 9d 8h", players=2, lives=1, ante=5)
    g.act("keep")
    g.act("keep")
    assert g.winner == 1 and g.money == [-5, 5] and g.pot == 0
    assert g.legal_actions() == [] and g.to_act is None


def test_last_chance_final_tie() -> None:
    g = stacked("3c 3d 9h 3h 3s 8c", players=2, lives=1, last_chance=True, final_tie="cut",
                between_hands="to-bottom")
    g.act("keep")
    g.act("keep")
    assert g.lives == [0, 0] and not g.over  # both on the bum
    assert g.hand == 2


@pytest.mark.parametrize("method", ["random", "high-card", "first-jack"])
def test_first_dealer(method: FirstDealerRule) -> None:
    g = cta.Game(cta.Rules(first_dealer=method), players=6, seed=3)
    (chosen,) = [e for e in g.events if isinstance(e, DealerChosen)]
    assert chosen.method == method and g.dealer == chosen.dealer
    if method == "high-card":
        draws = [e for e in g.events if isinstance(e, DealerDraw)][-1].draws
        best = max(g.rules.strength(c) for _, c in draws)
        assert [s for s, c in draws if g.rules.strength(c) == best] == [g.dealer]
    if method == "first-jack":
        (draw,) = [e for e in g.events if isinstance(e, DealerDraw)]
        assert draw.draws[-1][1].rank == 11 and draw.draws[-1][0] == g.dealer
        assert all(c.rank != 11 for _, c in draw.draws[:-1])


@pytest.mark.parametrize("preset", [p.name for p in cta.PRESETS])
def test_every_preset_plays_to_the_end(preset: str) -> None:
    info = cta.preset_info(preset)
    players = info.players or 5
    for seed in range(3):
        g = cta.Game(cta.Rules.preset(preset), players=players, seed=seed)
        cta.play_game(g, [cta.make_bot(b) for b in ("counting", "threshold:8", "random",
                                                      "threshold:T", "counting")[:players]], seed=seed)
        assert g.over
        assert sum(g.lives) + g.kitty == g.rules.lives * players + 0  # chips conserved
        assert sum(g.money) + g.pot == 0
