"""Ace Chasing at the command line: play with scripted replies, simulate, the plug-in parser."""

from __future__ import annotations

import argparse
import io
import itertools
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import chasetheace as cta
from chasetheace.acechasing.render import narrate
from chasetheace.acechasing.sim import simulate_ace_chasing
from chasetheace.cli.acechasing import play_ace_chasing, register, replay_ace_chasing
from chasetheace.cli.play import QuitGame
from chasetheace.render import card_text
from helpers import cli_run
from test_acechasing_properties import knowable

CARD = re.compile(r"(?:10|[AKQJ2-9])[♣♦♥♠]")


def scripted(replies: list[str]) -> tuple[list[str], list[str], Callable[[str], str]]:
    """Replies given in turn (cycled), and the prompts and lines printed, for play_ace_chasing."""
    feed = itertools.cycle(replies)
    prompts: list[str] = []
    lines: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return next(feed)
    return prompts, lines, ask


def test_a_whole_game_with_every_kind_of_reply(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    prompts, lines, ask = scripted(["7", "a", "s", "maybe", "d", "n", "k", "0", "yes", "keep"])
    game = play_ace_chasing(players=5, seed=4, bots=["odds"], save=str(save), ask=ask,
                            say=lines.append)
    assert game.over
    again = cta.AceChasingGame.from_record(json.loads(save.read_text()))
    assert again.events == game.events
    text = "\n".join(lines)
    assert "Round 1: You are the matador." in text
    assert re.search(r"(You|\w+) wins? the game\.", text)
    assert any(p.startswith("Accept or decline?") for p in prompts)
    assert "Answer" in text  # "maybe" got the help line
    shown = set(CARD.findall(text))
    assert shown <= {card_text(c) for c in knowable(game, 0)}  # nothing the player may not know


def test_leaving_the_table_keeps_the_record(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    _, lines, ask = scripted(["q"])
    with pytest.raises(QuitGame):
        play_ace_chasing(players=4, seed=1, matador=1, save=str(save), ask=ask, say=lines.append)
    game = cta.AceChasingGame.from_record(json.loads(save.read_text()))
    assert game.to_act == 0 and not game.over


def test_play_rejects_a_bad_table() -> None:
    with pytest.raises(ValueError, match="got 2 --bot options for 3 bot seats"):
        play_ace_chasing(players=4, bots=["odds", "random"], ask=lambda p: "q", say=print)
    with pytest.raises(ValueError, match="unknown Ace Chasing bot"):
        play_ace_chasing(players=4, bots=["clever"], ask=lambda p: "q", say=print)
    with pytest.raises(ValueError, match="bad number of players 3"):
        play_ace_chasing(players=3, ask=lambda p: "q", say=print)


def test_narration_says_only_what_the_view_holds() -> None:
    names = ["Ann", "Bob", "Cat", "Dan"]
    game = cta.AceChasingGame(names, stack=["9c", "Ah", "7h", "2c"])
    for _ in range(3):
        game.act(cta.Offer(2))
        game.act("accept")
    game.act("swap")
    game.act("keep")
    game.act("keep")
    told = [line for view in game.observation(3)["history"] for line in narrate(view, names, 3)]
    assert "Bob: Swap with Cat." in told
    assert "The matador, Ann, shows 2♣." in told
    assert "Lower than the matador: Bob shows A♥." in told
    assert "Of a face-up ace's suit: You show 7♥." in told
    assert "Ann survives and collects 6." in told
    assert "You and Bob are out." in told
    mine = [line for view in game.observation(1)["history"] for line in narrate(view, names, 1)]
    assert "You: Swap with Cat. You gave 9♣ and got A♥." in mine


def stable(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k not in ("seconds", "rounds_per_second")}


def test_simulate_is_deterministic_and_adds_up() -> None:
    a = simulate_ace_chasing(players=6, bots=["odds", "random"] * 3, games=30, seed=5)
    b = simulate_ace_chasing(players=6, bots=["odds", "random"] * 3, games=30, seed=5)
    assert stable(a) == stable(b)
    assert stable(a) != stable(simulate_ace_chasing(players=6, bots=["odds", "random"] * 3, games=30,
                                                    seed=6))
    assert sum(row["wins"] for row in a["win_rate_by_seat"]) == 30
    assert sum(a["money_by_seat"]) == 0
    assert a["matador_survival"]["rounds"] == a["rounds"]
    matador = next(r for r in a["knocked_out_by_place"] if r["place"] == "matador")
    assert matador["out"] == a["rounds"] - a["matador_survival"]["survived"]
    json.dumps(a)


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"games": 0}, "bad number of games 0"),
    ({"players": 60}, "bad number of players 60"),
    ({"bots": ["odds:stake=x"]}, "bad stake 'x'"),
])
def test_simulate_rejects_bad_arguments(kwargs: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        simulate_ace_chasing(**kwargs)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="chase-the-ace")
    register(top.add_subparsers(dest="command"))
    return top


def test_the_plug_in_simulates(capsys: pytest.CaptureFixture[str]) -> None:
    args = parser().parse_args(["ace-chasing", "simulate", "--games", "5", "--players", "4", "--json"])
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 5 and out["players"] == 4
    args = parser().parse_args(["ace-chasing", "simulate", "--games", "5", "--bot", "threshold:9"])
    assert args.func(args) == 0
    assert "rounds per second" in capsys.readouterr().out


def test_the_plug_in_plays(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                           tmp_path: Path) -> None:
    save = tmp_path / "g.json"
    monkeypatch.setenv("COLUMNS", "200")  # the path on one line
    monkeypatch.setattr(sys, "stdin", io.StringIO("3\na\nk\n" * 200))
    args = parser().parse_args(["ace-chasing", "play", "--seed", "2", "--bot", "random", "--save", str(save)])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "wins the game" in out or "win the game" in out
    assert f"The game record is in {save}" in out
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    args = parser().parse_args(["ace-chasing", "play", "--seed", "2"])
    assert args.func(args) == 0
    assert "You leave the table" in capsys.readouterr().out


def test_replay_tells_a_saved_game_and_checks_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    save = tmp_path / "g.json"
    _, _, ask = scripted(["2", "d", "k"])
    game = play_ace_chasing(players=4, seed=7, save=str(save), ask=ask, say=lambda line: None)
    args = parser().parse_args(["ace-chasing", "replay", str(save)])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "Dealt: Ann " not in out and "Dealt: You " in out  # every card, seat 0 is "You"
    assert f"won by {game.names[game.winners[0]]}" in out
    args = parser().parse_args(["ace-chasing", "replay", "--check", str(save)])
    assert args.func(args) == 0
    assert capsys.readouterr().out.count("\n") == 1


def test_replay_names_the_file_and_the_bad_event(tmp_path: Path) -> None:
    game = cta.AceChasingGame(4, seed=3)
    game.act(cta.Offer(2))
    record = game.record()
    record["events"][3]["amount"] = -2
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    with pytest.raises(cta.RecordError, match=rf"{re.escape(str(path))}: event 3: bad offer -2"):
        replay_ace_chasing(str(path))
    path.write_text("{nope")
    with pytest.raises(cta.RecordError, match="is not JSON"):
        replay_ace_chasing(str(path))
    with pytest.raises(OSError):
        replay_ace_chasing(str(tmp_path / "missing.json"))


# --- through chase-the-ace itself: play --game ace-chasing, simulate --game ace-chasing ----------


def test_play_game_ace_chasing(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                               tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    status, out, err = cli_run(monkeypatch, capsys, [
        "play", "--game", "ace-chasing", "--seed", "4", "--players", "4", "--bot", "odds",
        "--save", str(save)], stdin="huh\n3\na\nk\n" * 60)
    assert (status, err) == (0, "")
    game = cta.AceChasingGame.from_record(json.loads(save.read_text()))
    assert game.over
    assert "Round 1: You are the matador." in out and "the game." in out
    assert "Answer a to accept the bet" in out  # "huh" was explained
    assert f"The game record is in {save}" in out


def test_play_game_ace_chasing_rules_help_and_leaving(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = cli_run(monkeypatch, capsys, ["play", "--game", "ace-chasing", "--rules-help"])
    assert status == 0 and "matador" in out and "lives" not in out
    status, out, err = cli_run(monkeypatch, capsys, ["play", "--game", "ace-chasing", "--seed", "1"],
                               stdin="q\n")
    assert status == 0 and "You leave the table" in err
    status, out, err = cli_run(monkeypatch, capsys, ["play", "--game", "ace-chasing", "--seed", "1"])
    assert status == 0 and "You leave the table" in err  # end of input


@pytest.mark.parametrize(("argv", "words"), [
    (["play", "--game", "ace-chasing", "--rule", "lives=2"], "Ace Chasing has no rule options"),
    (["play", "--game", "ace-chasing", "--players", "3"], "bad number of players 3"),
    (["play", "--game", "ace-chasing", "--bot", "counting"], "unknown Ace Chasing bot 'counting'"),
    (["simulate", "--game", "ace-chasing", "--hands", "5"], "--hands is not available for Ace Chasing"),
    (["simulate", "--game", "ace-chasing", "--plot", "x.png"], "--plot is not available for Ace Chasing"),
    (["simulate", "--game", "ace-chasing", "--preset", "cuckoo"], "Ace Chasing has no rule options"),
    (["simulate", "--game", "ace-chasing", "--players", "5", "--bot", "odds", "--bot", "random"],
     "got 2 --bot options for 5 seats"),
    (["ace-chasing", "simulate", "--games", "0"], "bad number of games 0"),
])
def test_mistakes_are_one_line_exit_2(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                      argv: list[str], words: str) -> None:
    status, _, err = cli_run(monkeypatch, capsys, argv)
    assert status == 2
    assert err.count("\n") == 1 and words in err and "Traceback" not in err


def test_simulate_game_ace_chasing(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                   tmp_path: Path) -> None:
    argv = ["simulate", "--game", "ace-chasing", "--games", "25", "--players", "6", "--seed", "3", "--json"]
    status, out, err = cli_run(monkeypatch, capsys, [*argv, "--csv", str(tmp_path / "r.csv")])
    assert (status, err) == (0, "")
    first = json.loads(out)
    assert first["games"] == 25 and first["players"] == 6 and first["bots"] == ["odds"] * 6
    rows = (tmp_path / "r.csv").read_text().splitlines()
    assert rows[0].startswith("table,key,trials") and rows[1].startswith("matador_survival,matador,")
    _, again, _ = cli_run(monkeypatch, capsys, argv)
    assert stable(json.loads(again)) == stable(first)
    status, out, _ = cli_run(monkeypatch, capsys, ["simulate", "--game", "ace-chasing", "--games", "10"])
    assert status == 0 and "The matador survives" in out and "rounds per second" in out


def test_a_bad_player_count_is_one_line_before_anything_is_said(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = cli_run(monkeypatch, capsys, ["play", "--game", "ace-chasing", "--hints",
                                                     "--players", "3"])
    assert status == 2 and out == ""
    assert err == "chase-the-ace: error: bad number of players 3: Ace Chasing takes 4..52\n"
