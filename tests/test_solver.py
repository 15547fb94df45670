"""The public solver API: exact two-player solutions, the bot in the engine, the command."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from typing import Any

import pytest

pytest.importorskip("numpy")
pytest.importorskip("scipy")

import chasetheace as cta
from chasetheace.cli.solve import main
from chasetheace.events import KingJerk, LivesLost
from chasetheace.solver import Solution, SolvedBot, cached_solve
from chasetheace.solver.model import brute
from chasetheace.solver.model.hand import Hand, infoset_of
from chasetheace.solver.uses.bot import SolvedBot as BotModuleSolvedBot


@pytest.fixture(scope="module")
def le_her() -> Solution:
    return cta.solve(cta.Rules.preset("le-her"), players=2)


@pytest.fixture(scope="module")
def three() -> Solution:
    return cta.solve(cta.Rules(), players=3)


def test_le_her_is_an_exact_equilibrium(le_her: Solution) -> None:
    assert le_her.method == "lp" and le_her.value == Fraction(10773, 22100)
    assert le_her.exact_keep is not None
    keep = dict(zip(le_her.infosets, le_her.exact_keep))
    hand = Hand(le_her.rules, 2)
    ev = brute.evaluate(hand, lambda key: keep[key], exact=True)
    # no pure deviation at any information set gains anything, in exact arithmetic
    assert ev.gain(lambda key: keep[key]) == [0, 0]
    assert ev.lives[0] == le_her.value and ev.lives[1] == 1 - le_her.value
    mixed = {k: p for k, p in keep.items() if 0 < p < 1}
    assert mixed == {(0, (), 6, -1): Fraction(5, 8), (1, ("k",), 7, -1): Fraction(3, 8)}


def test_loss_tables_and_nash_conv(three: Solution) -> None:
    assert three.nash_conv <= 1e-4
    assert sum(three.gains) == pytest.approx(three.nash_conv)
    assert len(three.loss_probabilities) == 3
    # standard rules: exactly the holders of the lowest card lose, one life each
    assert three.expected_lives_lost == pytest.approx(three.loss_probabilities)
    assert 1 <= sum(three.loss_probabilities) < 1.5


def test_ace_pays_double_changes_lives_not_losses() -> None:
    sol = cta.solve(cta.Rules(ace_pays_double=True), players=3)
    assert all(lv > p for lv, p in zip(sol.expected_lives_lost, sol.loss_probabilities))


def _one_hand(sol: Solution, bot: cta.Bot, seed: int) -> list[int]:
    """Play the first hand of a game; the losing positions (0 eldest)."""
    game = cta.Game(sol.rules, players=sol.players, seed=seed)
    rng = random.Random(seed)
    order = list(game.observation(None)["order"])
    while game.hand == 1 and game.to_act is not None:
        seat = game.to_act
        game.act(bot.choose(game.observation(seat), game.legal_actions(), rng))
    for ev in reversed(game.events):
        if isinstance(ev, LivesLost):
            return [order.index(s) for s, _ in ev.payments]
    raise AssertionError("the first hand did not end")


def test_simulated_losses_match_the_solution(three: Solution) -> None:
    bot = SolvedBot.of(three)
    hands = 6000
    counts = [0] * 3
    for seed in range(hands):
        for pos in _one_hand(three, bot, seed):
            counts[pos] += 1
    for pos, p in enumerate(three.loss_probabilities):
        sd = (p * (1 - p) / hands) ** 0.5
        assert abs(counts[pos] / hands - p) < 4.5 * sd


def test_action_probabilities_read_only_the_observation(three: Solution) -> None:
    deck = three.deck
    checked = 0
    for seed in range(300):
        game = cta.Game(three.rules, players=3, seed=seed)
        while game.hand == 1 and game.to_act is not None:
            seat = game.to_act
            obs = game.observation(seat)
            key = infoset_of(obs, deck)
            card = game.card(seat)
            assert card is not None and key[2] == deck.strength_of_rank(card.rank)
            probs = three.action_probabilities(obs)
            assert probs["keep"] + probs["swap"] == pytest.approx(1)
            checked += key[3] >= 0
            game.act("swap")
    assert checked > 0  # some seats were swapped with and knew the card they gave


def test_bot_plays_whole_games_and_is_registered() -> None:
    bot = cta.make_bot("solved", cta.Rules(), 3)
    game = cta.Game(cta.Rules(), players=3, seed=5)
    cta.play_game(game, [bot] * 3, seed=5)
    assert game.over


def test_solution_round_trips_and_loads_as_a_bot(three: Solution, tmp_path: object) -> None:
    again = Solution.from_dict(json.loads(json.dumps(three.to_dict())))
    assert again.keep == three.keep and again.loss_probabilities == three.loss_probabilities
    path = f"{tmp_path}/sol.json"
    three.save(path)
    assert cta.make_bot(f"solved:{path}", cta.Rules(), 3) is not None
    with pytest.raises(ValueError, match="other rules"):
        cta.make_bot(f"solved:{path}", cta.Rules(ties="eldest-loses"), 3)


@pytest.mark.parametrize("changes", [{"pairing": True}, {"pairing": True, "kings_jerk": True}])
def test_pairing_is_solved_and_matches_the_engine(changes: dict[str, object]) -> None:
    sol = cta.solve(cta.Rules().replace(**changes), players=3)
    assert sol.method == "dcfr" and sol.nash_conv <= 1e-4
    bot = SolvedBot.of(sol)
    hands = 4000
    counts = [0] * 3
    for seed in range(hands):
        for pos in _one_hand(sol, bot, seed):
            counts[pos] += 1
    for pos, p in enumerate(sol.loss_probabilities):
        sd = (p * (1 - p) / hands) ** 0.5
        assert abs(counts[pos] / hands - p) < 4.5 * sd
    assert bot.fallbacks == 0


def test_kings_jerk_is_solved_and_the_bot_reads_the_shown_kings() -> None:
    sol = cta.solve(cta.Rules(kings_jerk=True), players=3)
    assert sol.method == "dcfr" and sol.nash_conv <= 1e-4
    assert sum(p for _, p in Hand(sol.rules, 3).jerk_patterns()) == 1
    assert all(key[1][0].startswith("J") for key in sol.infosets)
    jerked = 0
    for seed in range(200):
        game = cta.Game(sol.rules, players=3, seed=seed)
        shown = [ev.seat for ev in game.events if isinstance(ev, KingJerk)]
        order = list(game.observation(None)["order"])
        while game.hand == 1 and game.to_act is not None:
            seat = game.to_act
            key = infoset_of(game.observation(seat), sol.deck, kings_jerk=True)
            assert key[1][0] == "J" + "".join("1" if s in shown else "0" for s in order)
            probs = sol.action_probabilities(game.observation(seat))  # every such situation was solved
            assert probs["keep"] + probs["swap"] == pytest.approx(1)
            game.act("keep")
        jerked += bool(shown)
    assert jerked > 0


@pytest.mark.parametrize("kwargs, message", [
    ({"players": 1}, "players"), ({"players": 60}, "2..51"), ({"method": "magic"}, "method"),
    ({"method": "dcfr", "players": 10}, "sampled"), ({"workers": 0}, "workers"),
    ({"method": "lp", "players": 3}, "two players"),
    ({"iterations": 0}, "iterations"),
])
def test_bad_input_is_one_clear_error(kwargs: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {"rules": cta.Rules(), "players": 3, **kwargs}
    with pytest.raises(ValueError, match=message):
        cta.solve(**args)


def test_command_prints_the_strategy(capsys: pytest.CaptureFixture[str], tmp_path: object) -> None:
    pytest.importorskip("matplotlib")
    png = f"{tmp_path}/s.png"
    assert main(["--players", "2", "--preset", "le-her", "--plot", png]) == 0
    out = capsys.readouterr().out
    assert "10773/22100" in out and "keep 7 with p=0.625" in out
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert main(["--players", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["players"] == 3 and data["nash_conv"] <= 1e-4


@pytest.mark.parametrize("argv", [["--players", "3", "--rule", "ties"], ["--preset", "nope"],
                                  ["--players", "40"]])
def test_command_bad_input_exits_2_with_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("chase-the-ace: error: ")


def test_bot_lives_in_its_own_module_and_is_re_exported() -> None:
    assert SolvedBot is BotModuleSolvedBot
    sol = cached_solve(cta.Rules.preset("le-her"), 2)
    assert cached_solve(cta.Rules.preset("le-her"), 2) is sol
    assert isinstance(SolvedBot.of(sol), SolvedBot)


def test_advice_says_always_swap_where_no_keepable_card_is_held(three: Solution) -> None:
    from chasetheace.solver.uses.explain import rules_of_thumb

    rules = {(r.position, r.history, r.given): r for r in rules_of_thumb(three)}
    seven = three.deck.strength_of_rank(7)
    gave_seven = rules[(1, ("s",), seven)]  # 2nd: the eldest swapped with you and took your 7
    assert gave_seven.text(three.deck, 3).endswith("always swap (you hold A to 6 here)")
    first = rules[(0, (), -1)]
    assert first.text(three.deck, 3).endswith("keep 7 or better")
