"""Issue 23, the first hour's last rough edges: hints and reviews where the solver is not installed,
save files, flags that do not apply, and the words players see."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from chasetheace import extras
from helpers import cli_run as run

NEEDS = "need the solver, which is not installed here (numpy is missing): run "


@pytest.fixture
def no_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in a light install (`make play`): numpy and scipy missing."""
    monkeypatch.setattr(extras, "solver_missing", lambda: "numpy")

    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("the solver was started")

    import chasetheace.solver.uses.advice as advice

    monkeypatch.setattr(advice, "hint_for", refuse)


def test_without_the_solver_the_game_says_once_how_to_add_hints(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], no_solver: None) -> None:
    status, out, err = run(monkeypatch, capsys, ["play", "--seed", "1", "--delay", "0"],
                           stdin="h\nq\n")
    assert status == 0, err
    start = out[:out.index("Hints")]
    assert "h[/] hint" not in start and " h hint" not in start and "r rules" in start
    assert out.count("Hints " + NEEDS) == 2  # at the start, and when asked
    assert "solving" not in out + err


def test_without_the_solver_hints_flag_is_said_once(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], no_solver: None) -> None:
    status, out, _ = run(monkeypatch, capsys, ["play", "--seed", "1", "--delay", "0", "--hints"],
                         stdin="k\n" * 3 + "q\n")
    assert status == 0 and out.count(NEEDS) == 1


def test_review_without_the_solver_is_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        no_solver: None) -> None:
    record = tmp_path / "game.json"
    status, _, err = run(monkeypatch, capsys, ["simulate", "--games", "1", "--save", str(record)])
    assert status == 0, err
    for argv in (["review", str(record)], ["review", str(record), "--json"]):
        status, out, err = run(monkeypatch, capsys, argv)
        assert status == 2 and out == ""
        assert err.startswith("chase-the-ace: error: A review of Chase the Ace needs the solver")
        assert err.count("\n") == 1 and "Traceback" not in err


def test_an_ace_chasing_review_needs_no_solver(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        no_solver: None) -> None:
    import chasetheace as cta

    game = cta.AceChasingGame(5, seed=2)
    cta.play_ace_chasing_game(game, [cta.make_ace_chasing_bot("odds")] * 5, seed=2)
    record = tmp_path / "ace.json"
    record.write_text(json.dumps(game.record()))
    status, out, err = run(monkeypatch, capsys, ["review", str(record), "--json"])
    assert status == 0, err
    assert json.loads(out)["game"] == "ace-chasing"


def test_the_command_named_is_the_one_that_works_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "prefix", str(extras.ROOT / ".venv"))
    assert extras.install_command("solve") == "make hints"
    monkeypatch.setattr(sys, "prefix", "/somewhere/else")
    assert extras.install_command("solve") == f"{sys.executable} -m pip install -e '{extras.ROOT}[solve]'"
    monkeypatch.setattr(extras, "ROOT", Path("/no/checkout"))
    assert extras.install_command("solve") == "pip install 'chase-the-ace[solve]'"


@pytest.mark.parametrize("argv", [["play"], ["play", "--game", "ace-chasing"], ["ace-chasing", "play"]])
def test_save_never_overwrites_a_saved_game(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                            argv: list[str]) -> None:
    saved = tmp_path / "game.json"
    saved.write_text('{"a finished": "record"}\n')
    status, out, err = run(monkeypatch, capsys, [*argv, "--seed", "1", "--delay", "0", "--save",
                                                 str(saved)], stdin="k\n" * 50)
    assert status == 2 and out == ""
    assert err.startswith(f"chase-the-ace: error: {saved} already exists") and err.count("\n") == 1
    assert str(tmp_path / "game-2.json") in err
    assert saved.read_text() == '{"a finished": "record"}\n'


def test_a_sessions_next_record_skips_an_earlier_sessions_file(tmp_path: Path) -> None:
    from chasetheace.cli.play import record_path

    base = str(tmp_path / "game.json")
    assert record_path(base, 2) == str(tmp_path / "game-2.json")
    (tmp_path / "game-2.json").write_text("{}")
    (tmp_path / "game-3.json").write_text("{}")
    assert record_path(base, 2) == str(tmp_path / "game-4.json")
    assert record_path(None, 2) is None


def test_ace_chasing_hints_tell_the_odds(monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str], no_solver: None) -> None:
    """--hints is not ignored at Ace Chasing: the odds before each decision, and h at any question
    (no solver needed)."""
    status, out, _ = run(monkeypatch, capsys, ["ace-chasing", "play", "--seed", "3", "--delay", "0",
                                               "--matador", "1", "--hints"], stdin="h\n0\nq\n")
    assert status == 0
    assert "The odds take the cards you have not seen" in out
    assert out.count("Odds: Bob (the matador) is knocked out 49.0% of the time") == 2
    status, out, _ = run(monkeypatch, capsys, ["play", "--game", "ace-chasing", "--seed", "3",
                                               "--delay", "0"], stdin="h\nq\n")
    assert status == 0 and "Odds: " in out and NEEDS not in out


def test_ace_chasing_money_once_and_a_heading_for_game_two(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from rich.console import Console

    again = ["y", "n"]

    def answer(self: Console, prompt: str = "", **kwargs: object) -> str:
        reply = (again.pop(0) if "Another game" in prompt else "0" if "Bet how much" in prompt
                 else "a" if "Accept" in prompt else "k" if "Keep" in prompt
                 else "s" if "Watch" in prompt else "")
        self.print(prompt + reply, markup=False)
        return reply

    monkeypatch.setattr(Console, "input", answer)
    status, out, _ = run(monkeypatch, capsys, ["ace-chasing", "play", "--seed", "5", "--delay", "0"])
    assert status == 0
    assert "Money after 1 game:" in out and "Money after 2 games:" in out
    assert "\nMoney: " not in out and not out.startswith("Money: ")
    assert "Game 2" in out and out.index("Money after 1 game:") < out.index("Game 2")
    assert "Game 1" not in out


def test_replay_speaks_to_you_as_you(monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import chasetheace as cta

    game = cta.AceChasingGame(["You", "Bob", "Cat", "Dan"], seed=4)
    cta.play_ace_chasing_game(game, [cta.make_ace_chasing_bot("odds")] * 4, seed=4)
    record = tmp_path / "ace.json"
    record.write_text(json.dumps(game.record()))
    status, out, _ = run(monkeypatch, capsys, ["replay", str(record)])
    assert status == 0
    assert "You are the matador" in out and "You is" not in out


def test_le_her_is_a_game_for_two(monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(monkeypatch, capsys, ["play", "--preset", "le-her", "--players", "3"],
                           stdin="k\n" * 10)
    assert status == 2 and out == ""
    assert err.startswith("chase-the-ace: error: Le Her is a game for 2 players, not 3")
    assert err.count("\n") == 1
    status, out, err = run(monkeypatch, capsys, ["simulate", "--preset", "le-her", "--players", "3",
                                                 "--games", "5"])
    assert status == 0 and err == ("chase-the-ace: note: Le Her is a game for 2 players; simulating "
                                   "its rules at 3\n")
    status, out, err = run(monkeypatch, capsys, ["simulate", "--preset", "le-her", "--games", "5"])
    assert status == 0 and err == ""


def test_version(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import chasetheace

    status, out, err = run(monkeypatch, capsys, ["--version"])
    assert status == 0 and out == f"chase-the-ace {chasetheace.__version__}\n" and err == ""


def test_the_dealer_is_asked_what_it_may_do(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """At two players you deal every other hand: the dealer's question and prompt both say cut,
    and c cuts."""
    from chasetheace.cli.play import parse_answer, prompt_of

    assert prompt_of({"seat": 2, "dealer": 2, "rules": {"dealer_exchange": "top"}}) == "keep or take? [k/t]"
    assert parse_answer("cut") == parse_answer("c") == parse_answer("t") == "swap"
    status, out, _ = run(monkeypatch, capsys, ["play", "--players", "2", "--seed", "1", "--delay", "0",
                                               "--bot", "threshold:8"], stdin="c\n" * 40)
    assert status == 0
    for line in out.splitlines():
        if "cut the stock for a new card?" in line:
            break
    else:
        pytest.fail("you never dealt")
    assert "keep or cut? [k/c]" in out
    asked = [line for line in out.splitlines() if "keep or " in line]
    assert all("keep or swap?" not in a for a in asked if "cut" in a)


@pytest.mark.parametrize(("height", "recaps"), [(24, True), (200, False)])
def test_the_last_hands_result_stays_in_view_on_a_small_terminal(
        monkeypatch: pytest.MonkeyPatch, height: int, recaps: bool) -> None:
    """Eight players on an 80x24 terminal: so much is told between the last hand's result and
    your next decision that it would have scrolled off; it is said again just above the table.
    On a tall screen it is still in view, and not repeated."""
    import io
    import random

    from rich.console import Console

    import chasetheace as cta
    from chasetheace.cli import play

    game = cta.Game(cta.Rules(), players=8, seed=3)
    screen = io.StringIO()
    console = Console(file=screen, width=80, height=height)
    monkeypatch.setattr(sys, "stdin", io.StringIO("k\n" * 200))
    bots = [None, *(cta.ThresholdBot(8) for _ in range(7))]
    play.run_table(console, game, bots, 0, random.Random(1))
    text = screen.getvalue()
    if not recaps:
        assert "Last hand:" not in text
        return
    first = text.index("Last hand:")
    assert text.index("Showdown:") < text.index("Hand 2: ") < first
    recap = text[first:text.index("╭", first)]
    assert "You: Stand." in recap and "Showdown:" in recap and "Lowest:" in recap


def test_ace_chasing_hints_against_bots_that_play_otherwise(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Against `random` bots the exact odds are not the table's: the hint adds the table's own
    figure, sampled against its bots (the same on every run); against `odds` bots it does not."""
    argv = ["ace-chasing", "play", "--seed", "3", "--delay", "0", "--matador", "1"]
    status, out, _ = run(monkeypatch, capsys, [*argv, "--bot", "random"], stdin="h\nq\n")
    assert status == 0
    line = next(x for x in out.splitlines() if "Against these bots" in x)
    assert "sampled, 1000 rounds" in line and "the matador is knocked out" in line
    _, again, _ = run(monkeypatch, capsys, [*argv, "--bot", "random"], stdin="h\nq\n")
    assert line in again
    _, plain, _ = run(monkeypatch, capsys, argv, stdin="h\nq\n")
    assert "Odds: " in plain and "Against these bots" not in plain
