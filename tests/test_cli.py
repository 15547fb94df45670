"""The chase-the-ace command, driven end to end: play, rules, replay, and every kind of mistake."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

import chasetheace as cta
from chasetheace import cli
from chasetheace.cli import command as cli_main
from chasetheace.extras import install_command
from chasetheace.registry import GAMES
from chasetheace.render import card_text
from chasetheace.rules import rules_from_args
from helpers import cli_run as run


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rich wraps at COLUMNS when not on a terminal; wide lines keep each event on one line."""
    monkeypatch.setenv("COLUMNS", "200")



# --- play -----------------------------------------------------------------------------------

def test_a_whole_game_to_the_end(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                 tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    status, out, err = run(monkeypatch, capsys, [
        "play", "--seed", "3", "--players", "4", "--bot", "threshold:8", "--name", "Zed",
        "--save", str(record)], stdin="k\ns\n" * 100)
    assert status == 0, err
    assert err == ""
    game = cta.Game.from_record(json.loads(record.read_text()))
    assert game.over and game.winner is not None
    winner = game.names[game.winner]
    winner_line = "You win the game" if winner == "Zed" else f"{winner} wins the game"
    assert winner_line in out
    assert "Game over" in out and "winner" in out
    for word in ("Hand 1", "Showdown:", "Lowest:", "Stand.", "Change!", "kitty", "pot"):
        assert word in out
    assert "You hold" in out and "Keep it, or swap with Bob?" in out


def test_another_game_in_the_same_session(monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    argv = ["play", "--seed", "4", "--players", "3", "--bot", "threshold:8", "--rule", "lives=2",
            "--save", str(record)]
    _, once, _ = run(monkeypatch, capsys, argv, stdin="k\n" * 100)
    # every line read before "Another game?": decisions, Enter after a hand sat out, watch or skip
    decisions = sum(once.count(q) for q in ("keep or swap?", "keep or cut?", "keep or take?",
                                            "Press Enter", "Watch the rest"))
    assert "Money after 1 game:" in once and "Another game?" in once
    record.unlink()  # --save never overwrites a saved game
    status, out, err = run(monkeypatch, capsys, argv, stdin="k\n" * decisions + "y\n" + "k\n" * 100)
    assert status == 0 and err == ""
    assert "Money after 1 game:" in out and "Money after 2 games:" in out
    assert out.index("Money after 1 game:") < out.index("Game 2") < out.index("Money after 2 games:")
    first = cta.Game.from_record(json.loads(record.read_text()))
    second = cta.Game.from_record(json.loads((tmp_path / "game-2.json").read_text()))
    assert first.over and second.over and first.events != second.events
    assert sum(first.money) + sum(second.money) + second.pot == 0


def test_short_and_long_answers_and_help(monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(monkeypatch, capsys, ["play", "--seed", "5", "--players", "3"],
                           stdin="maybe\nr\nStand\nchange\n")
    assert status == 0
    assert "Answer k (keep, stand) or s (swap, change)" in out
    assert "Suits do not matter" in out  # r printed the rules
    assert "You: Stand." in out
    assert err.count("\n") == 1 and "left unfinished" in err


@pytest.mark.parametrize("stdin", ["", "k\n", "q\n", "s\nquit\n"])
def test_quitting_midway_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                     stdin: str) -> None:
    status, out, err = run(monkeypatch, capsys, ["play", "--seed", "8"], stdin=stdin)
    assert status == 0
    assert err.splitlines() == ["You leave the table; the game is left unfinished."]
    assert "Traceback" not in out + err


def test_a_game_left_midway_is_saved_so_far(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = tmp_path / "left.json"
    status, _, _ = run(monkeypatch, capsys, ["play", "--seed", "8", "--save", str(record)], stdin="s\nk\n")
    assert status == 0
    status, out, _ = run(monkeypatch, capsys, ["replay", "--check", str(record)])
    assert status == 0 and "it stops in hand" in out and "with You to act" in out


class _CtrlC:
    """A standard input on which the player presses Ctrl-C (``input()`` reads by ``readline``)."""

    def readline(self, size: int = -1, /) -> str:
        raise KeyboardInterrupt


def test_ctrl_c_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", _CtrlC())
    status = cli.main(["play", "--seed", "8"])
    err = capsys.readouterr().err
    assert status == 130
    assert len(err.strip().splitlines()) == 1 and "Interrupted" in err


def test_play_shows_only_what_you_may_know(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Before each showdown the screen names no card that seat 0 has not legitimately seen."""
    record = tmp_path / "g.json"
    status, out, _ = run(monkeypatch, capsys, ["play", "--seed", "11", "--bot", "random",
                                               "--save", str(record)], stdin="s\nk\n" * 100)
    assert status == 0
    game = cta.Game.from_record(json.loads(record.read_text()))
    segments = re.split(r"─ Hand \d+: ", out)[1:]
    hands = _hidden_cards_by_hand(game, seat=0)
    assert len(segments) == len(hands) >= 2
    for text, hidden in zip(segments, hands):
        before = text.split("Showdown:")[0]
        leaked = [c for c in hidden if card_text(c) in before]
        assert not leaked, (leaked, before)


def _hidden_cards_by_hand(game: cta.Game, seat: int) -> list[set[str]]:
    """For each hand, the cards held by others or drawn by the dealer that ``seat`` never saw."""
    hands: list[set[str]] = []
    seen: set[str] = set()
    for ev in game.events:
        d = ev.to_dict()
        kind = d["type"]
        if kind == "hand_started":
            hands.append(set())
            seen = set()
        elif kind == "dealt":
            for s, c in d["cards"]:
                (seen.add(c) if s == seat else hands[-1].add(c))
        elif kind == "swap" and seat in (d["seat"], d["neighbour"]):
            seen.update((d["given"], d["received"]))
        elif kind in ("show_blocker", "blocked", "king_jerk", "dealer_drew_blocker"):
            seen.add(d["card"])
        elif kind == "dealer_exchange":
            hands[-1].add(d["drawn"])
            if d["seat"] == seat:
                seen.update((d["given"], d["drawn"]))
        if hands:
            hands[-1] -= seen
    return hands


def test_play_rules_help(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(monkeypatch, capsys, ["play", "--preset", "cuckoo", "--rules-help"])
    assert status == 0
    assert "A King blocks" in out and "share the pot" in out and "dealer_draws_blocker=void" in out


def test_le_her_seats_two(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(monkeypatch, capsys, ["play", "--preset", "le-her", "--seed", "1"],
                         stdin="k\n" * 20)
    assert status == 0
    assert "2 players" in out and "wins the game" in out


def test_one_bot_per_seat(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(monkeypatch, capsys, ["play", "--seed", "2", "--bot", "random",
                                               "--bot", "counting"], stdin="")
    assert status == 0
    assert "Bob (random), Cat (counting)" in out


# --- mistakes -------------------------------------------------------------------------------

@pytest.fixture
def broken_record(tmp_path: Path) -> Path:
    game = cta.Game(cta.Rules(), players=3, seed=4)
    cta.play_game(game, [cta.ThresholdBot(8)] * 3, seed=4)
    data = game.record()
    keep = next(i for i, e in enumerate(data["events"]) if e["type"] == "keep")
    data["events"][keep]["seat"] = (data["events"][keep]["seat"] + 1) % 3
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data))
    return path


MISTAKES = [
    (["play", "--preset", "nope"], "unknown preset 'nope'"),
    (["play", "--rule", "colour=red"], "unknown rule 'colour'"),
    (["play", "--rule", "lives=zero"], "bad value 'zero' for rule 'lives'"),
    (["play", "--rule", "lives"], "write KEY=VALUE"),
    (["simulate", "--rule", "ranking=queen-high"], "bad value 'queen-high' for rule 'ranking'"),
    (["play", "--players", "1"], "bad number of players 1"),
    (["play", "--players", "52"], "bad number of players 52"),
    (["simulate", "--players", "40", "--rule", "deck=32"], "bad number of players 40"),
    (["play", "--bot", "genius"], "unknown bot 'genius'"),
    (["play", "--players", "5", "--bot", "random", "--bot", "counting"], "2 --bot options for 4"),
    (["play", "--game", "poker"], "unknown game 'poker'"),
    (["simulate", "--game", "poker"], "unknown game 'poker'"),
    (["play", "--players", "three"], "invalid int value"),
    (["simulate", "--games", "0"], "must be at least 1"),
    (["simulate", "--games", "3", "--hands", "3"], "not allowed with argument"),
    (["play", "--save", "/no/such/dir/game.json"], "there is no folder /no/such/dir"),
    (["simulate", "--games", "1", "--csv", "/no/such/dir/x.csv"], "cannot write /no/such/dir/x.csv"),
    (["simulate", "--games", "1", "--plot", "/"], "cannot write /"),
    (["replay", "/no/such/record.json"], "/no/such/record.json: No such file or directory"),
    (["rules", "nope"], "unknown preset 'nope'"),
    (["frobnicate"], "invalid choice"),
]


@pytest.mark.parametrize(("argv", "message"), MISTAKES)
def test_each_mistake_is_one_line_and_status_2(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str],
                                               argv: list[str], message: str) -> None:
    status, out, err = run(monkeypatch, capsys, argv, stdin="k\n")
    assert status == 2
    assert len(err.splitlines()) == 1, err
    assert err.startswith("chase-the-ace") and ": error: " in err
    assert message in err
    assert "Traceback" not in out + err


def test_broken_records(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                        tmp_path: Path, broken_record: Path) -> None:
    not_json = tmp_path / "notjson.json"
    not_json.write_text("{ this is not json")
    not_a_record = tmp_path / "list.json"
    not_a_record.write_text("[1, 2, 3]")
    for path, message in ((broken_record, "event "), (not_json, "is not JSON"),
                          (not_a_record, "must be a JSON object")):
        status, _, err = run(monkeypatch, capsys, ["replay", str(path)])
        assert status == 2
        assert err.startswith(f"chase-the-ace: error: {path}")
        assert message in err and len(err.splitlines()) == 1


def test_mistakes_through_a_real_process(tmp_path: Path) -> None:
    for argv in (["play", "--preset", "nope"], ["replay", str(tmp_path / "missing.json")]):
        proc = subprocess.run([sys.executable, "-m", "chasetheace", *argv], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 2
        assert proc.stdout == "" and len(proc.stderr.splitlines()) == 1


def test_play_through_a_real_process(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    proc = subprocess.run(
        [sys.executable, "-m", "chasetheace", "play", "--seed", "6", "--players", "3",
         "--bot", "threshold:9", "--save", str(record)],
        input="k\n" * 60, capture_output=True, text=True, timeout=60, encoding="utf-8")
    assert proc.returncode == 0, proc.stderr
    assert "wins the game" in proc.stdout
    replayed = subprocess.run([sys.executable, "-m", "chasetheace", "replay", str(record)],
                              capture_output=True, text=True, timeout=60, encoding="utf-8")
    assert replayed.returncode == 0
    assert "The record is valid" in replayed.stdout and "Dealt:" in replayed.stdout


# --- rules and replay -----------------------------------------------------------------------

def test_rules_lists_presets(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(monkeypatch, capsys, ["rules"])
    assert status == 0
    for preset in cta.PRESETS:
        assert preset.name in out


def test_rules_shows_every_option(monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(monkeypatch, capsys, ["rules", "cuckoo", "--rule", "lives=4"])
    assert status == 0
    for key in cta.OPTIONS:
        assert key in out
    row = next(line for line in out.splitlines() if "dealer_draws_blocker" in line)
    assert "void" in row
    assert re.search(r"lives\s+4\b", out)


def test_replay_tells_every_card(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                 tmp_path: Path) -> None:
    game = cta.Game(cta.Rules.preset("cuckoo"), players=["Ann", "Bob", "Cat"], seed=9)
    cta.play_game(game, [cta.RandomBot()] * 3, seed=9)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(game.record()))
    status, out, _ = run(monkeypatch, capsys, ["replay", str(path)])
    assert status == 0
    assert out.count("Showdown:") == sum(e.type == "showdown" for e in game.events)
    dealt = next(e for e in game.events if e.type == "dealt").to_dict()["cards"]
    assert all(card_text(c) in out for _, c in dealt)
    status, out, _ = run(monkeypatch, capsys, ["replay", "--check", str(path)])
    assert out.strip().startswith("The record is valid") and len(out.splitlines()) == 1


def test_replay_of_an_unfinished_game(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    game = cta.Game(cta.Rules(), players=3, seed=1)
    game.act("keep")
    path = tmp_path / "u.json"
    path.write_text(json.dumps(game.record()))
    status, out, _ = run(monkeypatch, capsys, ["replay", "--check", str(path)])
    assert status == 0 and "stops in hand 1" in out


# --- the command itself ---------------------------------------------------------------------

def test_no_command_prints_help(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(monkeypatch, capsys, [])
    assert status == 0 and "simulate" in out and "replay" in out


def test_help_exits_zero(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(monkeypatch, capsys, ["play", "--help"])
    assert status == 0 and "--rules-help" in out
    for kind in cta.bot_kinds():
        assert kind in out


def test_command_modules_add_subcommands(monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    plugin = types.ModuleType("fake_plugin_command")

    def register(subparsers: Any) -> None:  # as the package's command modules declare it
        parser = subparsers.add_parser("hello", help="say hello")
        cli_main.add_rules_arguments(parser)

        def hello(args: argparse.Namespace) -> int:
            rules = rules_from_args(args.preset, args.rule)
            print(f"hello, {rules.lives} lives")
            if rules.lives == 9:
                raise ValueError("nine lives is too many")
            return 0

        parser.set_defaults(func=hello)

    vars(plugin).update(register=register)
    monkeypatch.setattr(cli_main, "COMMANDS", (*cli_main.COMMANDS, plugin))
    status, out, _ = run(monkeypatch, capsys, ["hello", "--preset", "hoffmann-1891"])
    assert status == 0 and out == "hello, 4 lives\n"
    status, out, err = run(monkeypatch, capsys, ["hello", "--rule", "lives=9"])
    assert status == 2 and err == "chase-the-ace: error: nine lives is too many\n"


def test_without_rich_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    for name in [m for m in sys.modules if m == "rich" or m.startswith("rich.")]:
        monkeypatch.setitem(sys.modules, name, None)
    status, _, err = run(monkeypatch, capsys, ["rules"])
    assert status == 2
    assert err == (f"chase-the-ace: error: this command needs rich (the cli extra), which is not installed "
                   f"here: run {install_command('cli')}\n")


def test_rules_from_args() -> None:
    rules = rules_from_args("standard", ["lives=2", "king-stops-play=yes", "ranking = ace-high"])
    assert (rules.lives, rules.king_stops_play, rules.ranking) == (2, True, "ace-high")
    with pytest.raises(ValueError, match="KEY=VALUE"):
        rules_from_args("standard", ["=3"])


def test_every_game_can_be_played_and_simulated(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from chasetheace.cli.fronts import Terminal, terminal_of

    assert all(isinstance(terminal_of(kind), Terminal) for kind in GAMES.values())
    for game in GAMES:
        status, out, _ = run(monkeypatch, capsys, ["simulate", "--game", game, "--games", "3", "--json"])
        assert status == 0 and json.loads(out)["games"] == 3


def test_own_commands_are_always_listed(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(monkeypatch, capsys, ["--help"])
    assert status == 0
    for command in ("play", "simulate", "rules", "replay", "solve", "serve", "ace-chasing"):
        assert command in out

