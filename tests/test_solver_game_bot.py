"""The whole-game equilibrium as a bot kind (``solved-game``): made by the registry, played by the
CLI, solved once and cached on disk, and refused in one line where the whole-game solver does not
reach."""

from __future__ import annotations

import io
import json
import random
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy")
pytest.importorskip("scipy")

import chasetheace as cta
from chasetheace import cli
from chasetheace.solver.methods.whole_game import GameBot, GameSolution, solve_game
from chasetheace.solver.solutions import game_cache

RULES = cta.Rules(deck=32, lives=2)  # the piquet pack: quick to solve


def test_the_kind_is_registered_and_plays_whole_games(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHASE_THE_ACE_CACHE", str(tmp_path))
    monkeypatch.setattr(game_cache, "_MEMORY", {})
    assert "solved-game" in cta.bot_kinds()
    bot = cta.make_bot("solved-game", RULES, 3)
    assert isinstance(bot, GameBot) and bot.solution.players == 3 and bot.solution.lives == 2
    for seed in range(3):
        game = cta.Game(RULES, players=3, seed=seed)
        cta.play_game(game, [bot, cta.make_bot("threshold:8"), bot], rng=random.Random(seed))
        assert game.over
    assert bot.fallbacks == 0  # every situation met was solved
    # cached on disk: a new process (here: an empty memory) reads it instead of solving again
    path = game_cache.game_cache_path(RULES, 3, 2, folder=tmp_path)
    assert path.is_file()
    monkeypatch.setattr(game_cache, "_MEMORY", {})
    monkeypatch.setattr("chasetheace.solver.methods.whole_game.solve_game", _no_solving)
    again = cta.make_bot("solved-game", RULES, 3)
    assert isinstance(again, GameBot)
    assert {s: v.keep.tolist() for s, v in again.solution.states.items()} == \
        {s: v.keep.tolist() for s, v in bot.solution.states.items()}


def _no_solving(*args: object, **kwargs: object) -> object:
    raise AssertionError("solved again although the solution was cached")


def test_a_solution_round_trips_and_loads_as_a_bot(tmp_path: Path) -> None:
    sol = solve_game(RULES, 2, lives=2)
    again = GameSolution.from_dict(json.loads(json.dumps(sol.to_dict())))
    assert again.states.keys() == sol.states.keys()
    for state, s in sol.states.items():
        assert again.states[state].keep.tolist() == s.keep.tolist()
        assert again.states[state].value == s.value
    key = sol.infosets(2)[7]
    assert again.keep_probability((2, 1), key) == sol.keep_probability((2, 1), key)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(sol.to_dict()))
    assert isinstance(cta.make_bot(f"solved-game:{path}", RULES, 2), GameBot)
    with pytest.raises(ValueError, match="other rules or fewer players"):
        cta.make_bot(f"solved-game:{path}", RULES, 3)
    with pytest.raises(ValueError, match="other rules"):
        cta.make_bot(f"solved-game:{path}", RULES.replace(ties="eldest-loses"), 2)
    (tmp_path / "bad.json").write_text('{"format": "something else"}')
    with pytest.raises(ValueError, match="not a chase-the-ace whole-game solution"):
        cta.make_bot(f"solved-game:{tmp_path / 'bad.json'}", RULES, 2)


@pytest.mark.parametrize("rules, players, message", [
    (cta.Rules(), 6, "bad number of players 6: the whole game is solved for 2..5"),
    (cta.Rules(pairing=True), 5, "2..4 under pairing"),
    (cta.Rules(lives=4), 5, "bad lives 4: the whole game is solved for 1..3 lives at 5 players"),
    (cta.Rules(lives=5), 3, "bad lives 5: the whole game is solved for 1..4 lives at 3 players"),
    (cta.Rules(last_chance=True), 3, "last_chance is not modelled"),
])
def test_a_table_out_of_reach_is_one_clear_error(rules: cta.Rules, players: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        cta.make_bot("solved-game", rules, players)


def test_the_command_line_plays_it_and_refuses_in_one_line(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    status = cli.main(["simulate", "--players", "3", "--rule", "deck=32", "--rule", "lives=2",
                       "--games", "20", "--seed", "1",
                       "--bot", "solved-game", "--bot", "threshold:8", "--bot", "solved"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "solved-game" in out
    status = cli.main(["simulate", "--players", "6", "--bot", "solved-game", "--games", "5"])
    out, err = capsys.readouterr()
    assert status == 2
    assert err.strip().splitlines() == ["chase-the-ace: error: bad number of players 6: the whole game is "
                                        "solved for 2..5"]


def test_play_seats_the_bot(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                            tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("k\ns\n" * 100))
    status = cli.main(["play", "--seed", "3", "--players", "2", "--rule", "deck=32", "--rule", "lives=2",
                       "--bot", "solved-game", "--save", str(record)])
    _, err = capsys.readouterr()
    assert status == 0, err
    game = cta.Game.from_record(json.loads(record.read_text()))
    assert game.over and game.winner is not None


def test_without_numpy_it_says_which_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)  # ``import numpy`` now fails
    from chasetheace.extras import install_command

    with pytest.raises(ValueError, match="needs the solver") as refused:
        cta.make_bot("solved-game", RULES, 3)
    assert str(refused.value).endswith("run " + install_command("solve"))
