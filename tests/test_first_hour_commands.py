"""Issue 15, the commands: outputs checked before a run, errors that name the file, solve's output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import chasetheace as cta
from chasetheace import files
from helpers import cli_run as run


def test_simulate_plot_refuses_a_file_name_before_simulating(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    import chasetheace.sim as sim

    def no_run(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the simulation ran before the file name was checked")

    monkeypatch.setattr(sim, "simulate", no_run)
    status, out, err = run(monkeypatch, capsys, ["simulate", "--games", "50", "--plot",
                                                 str(tmp_path / "x.txt")])
    assert status == 2 and out == ""
    assert err.startswith("chase-the-ace: error: cannot draw") and "x.txt" in err and ".png" in err
    assert err.count("\n") == 1
    assert not (tmp_path / "x.txt").exists()


def test_simulate_plot_is_titled_with_the_preset(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    titles: list[str] = []
    saved = Figure.savefig

    def spy(self: Figure, *args: Any, **kwargs: Any) -> None:
        titles.append(self.get_suptitle())
        saved(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", spy)
    path = tmp_path / "sim.png"
    status, _, err = run(monkeypatch, capsys, ["simulate", "--games", "20", "--preset", "cuckoo",
                                               "--plot", str(path)])
    assert status == 0, err
    assert path.stat().st_size > 0
    assert len(titles) == 1 and titles[0].startswith("chase-the-ace, cuckoo, 5 players")
    assert "rank dealt" not in titles[0]


def test_play_refuses_a_save_file_before_the_first_deal(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "g.json"
    for game in ("chase-the-ace", "ace-chasing"):
        status, out, err = run(monkeypatch, capsys, ["play", "--game", game, "--seed", "1",
                                                     "--save", str(target)], stdin="k\n" * 20)
        assert status == 2, game
        assert out == "", game  # no header, no deal
        assert err == f"chase-the-ace: error: cannot write {target}: there is no folder {target.parent}\n"


def test_replay_of_a_binary_file_names_the_file(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_bytes(bytes(range(256)) * 4)
    for argv in (["replay", str(path)], ["ace-chasing", "replay", str(path)]):
        status, out, err = run(monkeypatch, capsys, argv)
        assert status == 2 and out == ""
        assert err == (f"chase-the-ace: error: {path} is not a game record: "
                       "it is not text (a record is JSON)\n")
        assert "codec" not in err


def test_replay_tells_an_ace_chasing_record(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    game = cta.AceChasingGame(4, seed=5)
    cta.play_ace_chasing_game(game, [cta.make_ace_chasing_bot("odds")] * 4, seed=5)
    path = tmp_path / "ace.json"
    path.write_text(json.dumps(game.record()))
    status, out, err = run(monkeypatch, capsys, ["replay", str(path)])
    assert status == 0, err
    assert "is the matador" in out
    assert f"won by {game.names[game.winners[0]]}" in out
    status, out, _ = run(monkeypatch, capsys, ["replay", "--check", str(path)])
    assert status == 0 and out.count("\n") == 1 and out.startswith("The record is valid")


def test_ace_chasing_replay_of_a_chase_the_ace_record_says_which_command(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    game = cta.Game(cta.Rules(), players=3, seed=1)
    path = tmp_path / "g.json"
    path.write_text(json.dumps(game.record()))
    status, out, err = run(monkeypatch, capsys, ["ace-chasing", "replay", str(path)])
    assert status == 2 and out == ""
    assert f"use chase-the-ace replay {path}" in err and err.startswith("chase-the-ace: error:")


def test_check_plot_file_accepts_image_formats(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    files.check_plot_file(str(tmp_path / "a.png"))
    files.check_plot_file(str(tmp_path / "a.SVG"))
    with pytest.raises(ValueError, match="no suffix is not an image format"):
        files.check_plot_file(str(tmp_path / "plot"))
    with pytest.raises(ValueError, match="it is a folder"):
        files.check_plot_file(str(tmp_path))


# --- solve --------------------------------------------------------------------------------------

def test_solve_prints_the_rules_in_words_and_ten_as_10(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("scipy")
    status, out, err = run(monkeypatch, capsys, ["solve", "--players", "2", "--preset", "le-her"])
    assert status == 0, err
    head = out.splitlines()[0]
    assert head == "Le Her, one hand, 2 players, rules: le-her (lives=1, dealer_draws_blocker=void, " \
        "ties=eldest-loses)"
    assert "{" not in out and "'" not in head
    status, out, err = run(monkeypatch, capsys, ["solve", "--players", "3", "--situations", "40"])
    assert status == 0, err
    assert "rules: standard" in out.splitlines()[0]
    words = out.replace(",", " ").replace(":", " ").split()
    assert "10" in words and "T" not in words


def test_solve_errors_have_the_error_prefix(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("scipy")
    for argv, words in ((["solve", "--players", "1"], "bad number of players 1"),
                        (["solve", "--rule", "lifes=2"], "unknown rule 'lifes'"),
                        (["solve", "--players", "3", "--save", str(tmp_path / "no" / "s.json")],
                         "cannot write")):
        status, out, err = run(monkeypatch, capsys, argv)
        assert status == 2 and out == ""
        assert err.startswith("chase-the-ace: error: ") and words in err and err.count("\n") == 1


def test_solve_checks_its_output_files_before_solving(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("scipy")
    pytest.importorskip("matplotlib")
    import chasetheace.solver.solutions.solving as solution

    def no_solve(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("solved before checking the output file")

    monkeypatch.setattr(solution, "solve", no_solve)
    status, _, err = run(monkeypatch, capsys, ["solve", "--players", "6", "--plot", str(tmp_path / "s.txt")])
    assert status == 2 and "cannot draw" in err


def test_solve_shows_its_progress_unless_quiet(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("scipy")
    import chasetheace.solver.solutions.solving as solution
    from chasetheace.cli.solve import StatusLine

    given: list[Any] = []

    def fake_solve(*args: Any, **kwargs: Any) -> Any:
        given.append(kwargs.get("progress"))
        raise ValueError("stop here")

    monkeypatch.setattr(solution, "solve", fake_solve)
    run(monkeypatch, capsys, ["solve", "--players", "6", "--time-limit", "5"])
    assert isinstance(given[-1], StatusLine)  # the solver's own reports, on stderr
    run(monkeypatch, capsys, ["solve", "--players", "6", "--quiet"])
    assert given[-1] is None

def test_ace_chasing_simulate_checks_its_csv_before_the_run(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import chasetheace.cli.acechasing as command

    def no_run(**kwargs: Any) -> Any:
        raise AssertionError("simulated before checking the CSV file")

    monkeypatch.setattr(command, "simulate_ace_chasing", no_run)
    target = tmp_path / "no" / "x.csv"
    status, out, err = run(monkeypatch, capsys, ["simulate", "--game", "ace-chasing", "--csv", str(target)])
    assert status == 2 and out == ""
    assert err == f"chase-the-ace: error: cannot write {target}: there is no folder {target.parent}\n"


def test_serve_errors_have_the_error_prefix(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    for argv in (["serve", "--port", "70000"], ["serve", "--db", str(tmp_path / "no" / "x.sqlite3")]):
        status, out, err = run(monkeypatch, capsys, argv)
        assert status == 2 and out == ""
        assert err.startswith("chase-the-ace: error: ") and err.count("\n") == 1, argv
