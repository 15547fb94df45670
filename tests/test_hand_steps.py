"""Example tests for the steps of a hand (RULES.md A3), each edge case with a stacked pack."""

from __future__ import annotations

import pytest

import chasetheace as cta
from helpers import event_types, of, stacked


def test_keep_all_lowest_loses_and_chips_go_to_kitty() -> None:
    g = stacked("7c 5d 9h Qc 3s", players=4)
    assert g.to_act == 0 and g.dealer == 3 and g.eldest == 0
    for _ in range(4):
        g.act("keep")
    (show,) = of(g, "showdown")
    assert show.losers == (1,)
    assert g.lives == [3, 2, 3, 3] and g.kitty == 1
    assert g.hand == 2 and g.dealer == 0  # the deal passes left


def test_swap_exchanges_with_left_neighbour_and_neighbour_still_takes_its_turn() -> None:
    g = stacked("2c 9d 8h Qc 3s", players=4)
    g.act("swap")
    assert g.card(0) == cta.Card.parse("9d") and g.card(1) == cta.Card.parse("2c")
    assert g.to_act == 1  # an exchange it did not ask for is not its turn
    obs0, obs1 = g.observation(0), g.observation(1)
    assert obs0["cards"][1] == "2c" and obs1["cards"][0] == "9d"
    assert g.observation(2)["cards"][0] is None and g.observation(2)["cards"][1] is None


def test_blocked_swap_skips_the_neighbour() -> None:
    g = stacked("2c Kd 8h Qc 3s", players=4)
    g.act("swap")
    (blocked,) = of(g, "blocked")
    assert (blocked.seat, blocked.neighbour, str(blocked.card)) == (0, 1, "Kd")
    assert g.card(0) == cta.Card.parse("2c")
    assert g.to_act == 2  # the neighbour's turn is done too
    assert g.observation(3)["cards"][1] == "Kd"  # a shown blocker is public


def test_blocker_holder_shows_it_on_its_turn() -> None:
    g = stacked("Kc 9d 8h Qc 3s", players=4)
    assert event_types(of(g, "show_blocker")) == ["show_blocker"]
    assert g.to_act == 1


def test_asking_the_dealer_who_holds_the_blocker_ends_the_turns() -> None:
    g = stacked("9c 9d 2h Kc 3s", players=4)
    g.act("keep")
    g.act("keep")
    g.act("swap")  # seat 2 asks the dealer, who shows the king: the dealer's turn is done
    assert of(g, "blocked")[0].neighbour == 3
    assert of(g, "showdown")[0].losers == (2,)


def test_dealer_holding_the_blocker_shows_it() -> None:
    g = stacked("9c 9d 2h Kc 3s", players=4)
    for _ in range(3):
        g.act("keep")
    assert of(g, "show_blocker")[0].seat == 3
    assert of(g, "showdown")[0].losers == (2,)


@pytest.mark.parametrize("blocker,blocked", [("top", True), ("king", True), ("none", False)])
def test_blocker_option(blocker: str, blocked: bool) -> None:
    g = stacked("2c Kd 8h Qc 3s", players=4, blocker=blocker)
    g.act("swap")
    assert bool(of(g, "blocked")) is blocked


def test_top_blocker_under_ace_high_is_the_ace_and_king_blocker_is_always_the_king() -> None:
    g = stacked("2c Ad 8h Qc 3s", players=4, ranking="ace-high")
    g.act("swap")
    assert of(g, "blocked")
    g = stacked("2c Ad 8h Qc 3s", players=4, ranking="ace-high", blocker="king")
    g.act("swap")
    assert of(g, "swap")


def test_dealer_exchange_top_takes_the_top_card_and_sets_the_old_one_aside() -> None:
    g = stacked("9c 9d 8h 2c 5s", players=4)
    for _ in range(3):
        g.act("keep")
    g.act("swap")
    (ex,) = of(g, "dealer_exchange")
    assert (ex.position, str(ex.given), str(ex.drawn)) == (0, "2c", "5s")
    assert of(g, "showdown")[0].losers == (3,)


def test_dealer_cut_draws_at_a_recorded_random_position() -> None:
    g = stacked("9c 9d 8h 2c 5s", players=4, dealer_exchange="cut")
    for _ in range(3):
        g.act("keep")
    g.act("swap")
    (pick,) = of(g, "pick")
    (ex,) = of(g, "dealer_exchange")
    assert pick.bound == 48 and ex.position == pick.value


@pytest.mark.parametrize("rule", ["allowed", "void", "dealer-loses"])
def test_dealer_draws_the_blocker(rule: str) -> None:
    g = stacked("9c 9d 8h 2c Ks", players=4, dealer_draws_blocker=rule)
    for _ in range(3):
        g.act("keep")
    g.act("swap")
    if rule == "allowed":
        assert not of(g, "dealer_drew_blocker")
        assert of(g, "showdown")[0].losers == (2,)  # the dealer kept the king; 8h is lowest
    elif rule == "void":
        (ev,) = of(g, "dealer_drew_blocker")
        assert str(ev.card) == "Ks"
        assert of(g, "showdown")[0].losers == (3,)  # the dealer keeps the 2
    else:
        assert not of(g, "showdown")
        assert of(g, "lives_lost")[0].payments == ((3, 1),)
        assert g.lives == [3, 3, 3, 2]


def test_void_blocker_goes_back_where_it_came_from() -> None:
    rules = cta.Rules(dealer_exchange="cut", dealer_draws_blocker="void", between_hands="to-bottom")
    # find a cut that draws the king: play the same stacked hand with a seed until the cut hits it
    for seed in range(200):
        g = cta.Game(rules, players=4, stack=["9c", "9d", "8h", "2c", "5s", "Ks"], dealer=3, seed=seed)
        for _ in range(3):
            g.act("keep")
        before = list(g.stock)
        g.act("swap")
        if of(g, "dealer_drew_blocker"):
            break
    else:
        pytest.fail("no cut drew the king")
    assert of(g, "showdown")[0].losers == (3,)
    collected = of(g, "collected")[0].cards
    assert [str(c) for c in collected] == ["9c", "9d", "8h", "2c"]
    # the stock was as before the cut, king included; then hand 2 was dealt from its top
    assert g.stock == before[4:] + list(collected)


@pytest.mark.parametrize("rule", ["dealer-wins", "dealer-immune"])
def test_dealer_same_rank(rule: str) -> None:
    g = stacked("9c 4d 8h 2c 2s", players=4, dealer_same_rank=rule)
    for _ in range(3):
        g.act("keep")
    g.act("swap")
    (ev,) = of(g, "dealer_same_rank")
    assert (str(ev.given), str(ev.drawn)) == ("2c", "2s")
    if rule == "dealer-wins":
        assert not of(g, "showdown")
        assert g.lives == [2, 2, 2, 3]
    else:
        assert of(g, "showdown")[0].losers == (1,)  # the dealer's 2 is out of the comparison


def test_dealer_same_rank_none_is_an_ordinary_exchange() -> None:
    g = stacked("9c 4d 8h 2c 2s", players=4)
    for _ in range(3):
        g.act("keep")
    g.act("swap")
    assert not of(g, "dealer_same_rank") and of(g, "showdown")[0].losers == (3,)


@pytest.mark.parametrize("ties,losers", [("all-lose", (0, 2)), ("eldest-loses", (0,)),
                                         ("latest-loses", (2,))])
def test_ties(ties: str, losers: tuple[int, ...]) -> None:
    g = stacked("3c 9d 3h Qc 5s", players=4, ties=ties)
    for _ in range(4):
        g.act("keep")
    assert of(g, "showdown")[0].losers == losers


def test_pairing_bigger_groups_beat_smaller_and_weakest_group_loses() -> None:
    # 9 9 | 3 | 5 5 | Q: the single 3 and the single Q are the groups of one; the 3 is weaker
    g = stacked("9c 9d 3h 5c 5s Qd 7h", players=6, pairing=True)
    for _ in range(6):
        g.act("keep")
    assert of(g, "showdown")[0].losers == (2,)
    # two pairs only: the weaker pair loses, both of its members
    g = stacked("9c 9d 3h 3c 7h", players=4, pairing=True)
    for _ in range(4):
        g.act("keep")
    assert of(g, "showdown")[0].losers == (2, 3)
    # a pair of aces beats a lone king
    g = stacked("Ac Ad Kh 7h", players=3, pairing=True, blocker="none")
    for _ in range(3):
        g.act("keep")
    assert of(g, "showdown")[0].losers == (2,)


def test_ace_pays_double() -> None:
    g = stacked("Ac 9d 8h Qc 5s", players=4, ace_pays_double=True)
    for _ in range(4):
        g.act("keep")
    assert of(g, "lives_lost")[0].payments == ((0, 2),)
    assert g.lives[0] == 1


def test_ace_pays_at_most_what_it_has() -> None:
    g = stacked("Ac 9d 8h Qc 5s", players=4, ace_pays_double=True, lives=1)
    for _ in range(4):
        g.act("keep")
    assert of(g, "lives_lost")[0].payments == ((0, 1),)
    assert of(g, "eliminated")[0].seats == (0,)


def test_last_chance_keeps_a_player_on_the_bum_until_the_next_loss() -> None:
    g = stacked("2c 9d 8h Qc 5s", players=4, lives=1, last_chance=True)
    for _ in range(4):
        g.act("keep")
    assert g.lives[0] == 0 and g.alive[0]
    assert not of(g, "eliminated")


def test_eliminated_player_leaves_the_table_and_neighbours_close_up() -> None:
    g = stacked("2c 9d 8h Qc 5s", players=4, lives=1)
    for _ in range(4):
        g.act("keep")
    assert not g.alive[0]
    assert g.dealer == 1 and g.eldest == 2  # the deal passes left, past the empty seat
    assert of(g, "hand_started", hand=2)[0].order == (2, 3, 1)


def test_king_stops_play() -> None:
    g = stacked("2c 9d Kh Qc 5s", players=4, king_stops_play=True)
    g.act("keep")
    g.act("keep")  # seat 2 shows its king: the turns end
    assert of(g, "show_blocker") and of(g, "showdown")[0].losers == (0,)
    g = stacked("2c Kd 8h Qc 5s", players=4, king_stops_play=True)
    g.act("swap")  # blocked: play stops
    assert of(g, "showdown")[0].losers == (0,)


def test_kings_jerk_takes_a_chip_only_when_the_kitty_has_one() -> None:
    g = stacked("Kc 9d 8h 2c 5s", players=4, kings_jerk=True, blocker="none")
    (jerk,) = of(g, "king_jerk")
    assert (jerk.seat, jerk.took) == (0, False)
    assert g.observation(2)["cards"][0] == "Kc"


def test_kings_jerk_under_ace_high_shows_aces() -> None:
    g = stacked("Ac 9d 8h 2c 5s", players=4, kings_jerk=True, ranking="ace-high", blocker="king")
    assert [str(e.card) for e in of(g, "king_jerk")] == ["Ac"]


def test_announce_low() -> None:
    g = stacked("9c 2d 8h Qc 5s", players=4, announce_low=True)
    g.act("swap")
    (swap,) = of(g, "swap")
    assert swap.announced == 2
    assert g.observation(3)["history"][-1]["announced"] == 2
    assert "given" not in g.observation(3)["history"][-1]


@pytest.mark.parametrize("cards,ranking,loser", [
    ("Ac 2d Qh 7c", "king-high", 0), ("Ac 2d Qh 7c", "ace-high", 1), ("Ac 2d Qh 7c", "reverse", 0),
    ("5c 2d Qh 7c", "reverse", 2), ("5c Kd Qh 7c", "reverse", 2),
])
def test_ranking(cards: str, ranking: str, loser: int) -> None:
    # reverse ranks K 2 3 .. Q A from strongest to weakest: avoid the highest card
    g = stacked(cards + " 5s", players=4, ranking=ranking, blocker="none")
    for _ in range(4):
        g.act("keep")
    assert of(g, "showdown")[0].losers == (loser,)


def test_to_bottom_collects_in_turn_order_then_the_set_aside_card() -> None:
    g = stacked("9c 9d 8h 2c 5s", players=4, between_hands="to-bottom")
    for _ in range(3):
        g.act("keep")
    g.act("swap")
    (col,) = of(g, "collected")
    assert [str(c) for c in col.cards] == ["9c", "9d", "8h", "5s", "2c"]
    assert [str(c) for c in g.stock[-5:]] == ["9c", "9d", "8h", "5s", "2c"]
    assert not of(g, "shuffle", hand=2)


def test_shuffle_between_hands() -> None:
    g = stacked("9c 9d 8h 2c 5s", players=4)
    for _ in range(4):
        g.act("keep")
    assert of(g, "shuffle", hand=2) or event_types(g.events).count("shuffle") == 1


def test_deck_32() -> None:
    g = cta.Game(cta.Rules(deck=32), players=31, seed=1)
    assert g.observation(0)["stock_size"] == 1
    with pytest.raises(ValueError, match=r"allowed 2\.\.31"):
        cta.Game(cta.Rules(deck=32), players=32)
    with pytest.raises(ValueError, match="not in the 32-card pack"):
        cta.Game(cta.Rules(deck=32), players=3, stack=["2c"])
