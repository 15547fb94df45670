"""Issue 15, stats across runs: `play` writes each finished game, `stats` sums them up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import chasetheace as cta
from chasetheace.cli.stats import ENV_VAR, StatsStore, default_path, stats_path
from chasetheace.events import FinalTie, HandStarted
from helpers import cli_run as run

pytest.importorskip("rich")



def _finished(seed: int, lives: int = 2) -> cta.Game:
    game = cta.Game(cta.Rules().replace(lives=lives), players=["You", "Bob", "Cat"], seed=seed)
    cta.play_game(game, [cta.ThresholdBot(8)] * 3, seed=seed)
    return game


def test_the_store_counts_games_wins_and_lives_by_position() -> None:
    store = StatsStore(":memory:")
    games = [_finished(seed) for seed in range(6)]
    for game in games:
        store.add(game, you=0, bots=["threshold:8", "threshold:8"], preset="standard")
    store.add(games[0], you=0, bots=["random", "counting"], preset="standard")
    s = store.summary()
    assert s.games == 7
    assert s.wins == sum(g.winners == (0,) for g in games) + (games[0].winners == (0,))
    lost = sum(row["lives_lost"] for row in s.by_position)
    assert lost == sum(2 - g.lives[0] for g in games) + (2 - games[0].lives[0])
    assert sum(row["hands"] for row in s.by_position) == sum(
        sum(1 for e in g.events if isinstance(e, HandStarted) and 0 in e.order) for g in [*games, games[0]])
    assert s.by_position[0]["position"] == "eldest"
    assert [row["position"] for row in s.by_position][-1] == "dealer"
    assert {row["bots"]: row["games"] for row in s.by_bots} == {"threshold:8 x2": 6, "counting, random": 1}


def test_lives_lost_agree_with_the_lives_left_even_after_a_replayed_final_tie() -> None:
    replayed = 0
    for seed in range(100):
        game = _finished(seed, lives=1)
        store = StatsStore(":memory:")
        store.add(game, you=0, bots=["threshold:8"] * 2, preset="standard")
        lost = sum(row["lives_lost"] for row in store.summary().by_position)
        assert lost == 1 - game.lives[0], seed
        replayed += any(isinstance(e, FinalTie) and 0 in e.seats for e in game.events)
    assert replayed  # the case is met


def test_an_unfinished_game_is_refused() -> None:
    game = cta.Game(cta.Rules(), players=3, seed=1)
    with pytest.raises(ValueError, match="only a finished game"):
        StatsStore(":memory:").add(game, you=0, bots=["random"] * 2, preset="standard")


def test_the_stats_file_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pytest.importorskip("platformdirs")
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert stats_path() == default_path() and default_path().name == "stats.sqlite3"
    assert "chase-the-ace" in default_path().parts
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "env.sqlite3"))
    assert stats_path() == tmp_path / "env.sqlite3"
    assert stats_path(str(tmp_path / "opt.sqlite3")) == tmp_path / "opt.sqlite3"


def test_play_writes_and_stats_reads(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                     tmp_path: Path) -> None:
    path = tmp_path / "mine.sqlite3"
    monkeypatch.setenv(ENV_VAR, str(path))
    status, out, _ = run(monkeypatch, capsys, ["stats"])
    assert status == 0 and "No games yet" in out and not path.exists()
    argv = ["play", "--seed", "4", "--players", "3", "--bot", "threshold:8", "--rule", "lives=1",
            "--save", str(tmp_path / "g.json")]
    status, _, err = run(monkeypatch, capsys, argv, stdin="k\n" * 100)
    assert status == 0, err
    run(monkeypatch, capsys, ["play", "--seed", "5", "--players", "3", "--bot", "random"],
        stdin="k\n" * 100)
    run(monkeypatch, capsys, ["play", "--seed", "6", "--players", "3"], stdin="q\n")  # left: not counted
    status, out, err = run(monkeypatch, capsys, ["stats", "--json"])
    assert status == 0, err
    data = json.loads(out)
    game = cta.Game.from_record(json.loads((tmp_path / "g.json").read_text()))
    assert data["games"] == 2 and data["file"] == str(path)
    assert {row["bots"] for row in data["by_bots"]} == {"threshold:8 x2", "random x2"}
    first = next(row for row in data["by_bots"] if row["bots"] == "threshold:8 x2")
    assert first["wins"] == int(game.winners == (0,))
    status, out, _ = run(monkeypatch, capsys, ["stats"])
    assert status == 0
    assert out.startswith("2 games,") and "Your lives lost per hand" in out and "Against" in out
    assert "threshold:8 x2" in out and "eldest" in out and "dealer" in out


def test_stats_option_and_bad_paths(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                    tmp_path: Path) -> None:
    path = tmp_path / "opt.sqlite3"
    status, _, err = run(monkeypatch, capsys, ["play", "--seed", "4", "--players", "3", "--rule", "lives=1",
                                               "--stats", str(path)], stdin="k\n" * 100)
    assert status == 0, err
    status, out, _ = run(monkeypatch, capsys, ["stats", "--stats", str(path)])
    assert out.startswith("1 game,")
    bad = tmp_path / "no" / "such" / "s.sqlite3"
    status, out, err = run(monkeypatch, capsys, ["play", "--stats", str(bad)], stdin="k\n")
    assert status == 2 and out == ""
    assert err == f"chase-the-ace: error: cannot keep stats in {bad}: there is no folder {bad.parent}\n"
    junk = tmp_path / "junk.sqlite3"
    junk.write_text("not a database at all, " * 100)
    status, out, err = run(monkeypatch, capsys, ["stats", "--stats", str(junk)])
    assert status == 2 and err.startswith("chase-the-ace: error: cannot use") and err.count("\n") == 1


def test_a_stats_file_that_fails_mid_session_is_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    from chasetheace.cli.stats import keep_game

    store = StatsStore(":memory:")
    store.close()  # any write now fails
    keep_game(store, _finished(1), you=0, bots=["threshold:8"] * 2, preset="standard")
    err = capsys.readouterr().err
    assert err.startswith("chase-the-ace: note: cannot write the stats to :memory:") and err.count("\n") == 1
    keep_game(None, _finished(1), you=0, bots=[], preset="standard")  # no store: nothing to do
    assert capsys.readouterr().err == ""


def _ace_game(seed: int) -> cta.AceChasingGame:
    game = cta.AceChasingGame(["You", "Bob", "Cat", "Dan"], seed=seed)
    cta.play_ace_chasing_game(game, [cta.make_ace_chasing_bot("odds")] * 4, seed=seed)
    return game


def test_the_store_counts_ace_chasing_games_money_rounds_and_matador() -> None:
    from chasetheace.acechasing.events import RoundStarted, Settled

    store = StatsStore(":memory:")
    games = [_ace_game(seed) for seed in range(5)]
    for game in games:
        store.add_ace(game, you=0, bots=["odds"] * 3)
    store.add_ace(games[0], you=0, bots=["random", "exact", "odds"])
    ace = store.summary().ace_chasing
    everything = [*games, games[0]]
    assert ace["games"] == 6 and store.summary().games == 0
    assert ace["wins"] == sum(g.winners == (0,) for g in everything)
    assert ace["money"] == sum(g.money[0] for g in everything)
    assert ace["rounds"] == sum(1 for g in everything for e in g.events
                                if isinstance(e, RoundStarted) and 0 in e.order)
    assert ace["matador"] == sum(1 for g in everything for e in g.events
                                 if isinstance(e, RoundStarted) and e.matador == 0)
    assert ace["survived"] == sum(1 for g in everything for e in g.events
                                  if isinstance(e, Settled) and e.matador == 0 and e.survived)
    assert ace["matador"] > 0 and ace["survived"] <= ace["matador"]
    assert {row["bots"]: row["games"] for row in ace["by_bots"]} == {"odds x3": 5, "exact, odds, random": 1}
    with pytest.raises(ValueError, match="only a finished game"):
        store.add_ace(cta.AceChasingGame(4, seed=1), you=0, bots=["odds"] * 3)


def test_play_ace_chasing_writes_and_stats_reads(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from rich.console import Console

    def answer(self: Console, prompt: str = "", **kwargs: object) -> str:
        reply = ("n" if "Another game" in prompt else "0" if "Bet how much" in prompt
                 else "a" if "Accept" in prompt else "k" if "Keep" in prompt
                 else "s" if "Watch" in prompt else "")
        self.print(prompt + reply, markup=False)
        return reply

    monkeypatch.setattr(Console, "input", answer)
    path = tmp_path / "mine.sqlite3"
    monkeypatch.setenv(ENV_VAR, str(path))
    save = tmp_path / "ace.json"
    status, _, err = run(monkeypatch, capsys, ["play", "--game", "ace-chasing", "--seed", "4", "--players",
                                               "4", "--delay", "0", "--save", str(save)])
    assert status == 0, err
    status, _, err = run(monkeypatch, capsys, ["ace-chasing", "play", "--seed", "5", "--players", "4",
                                               "--delay", "0", "--bot", "random"])
    assert status == 0, err
    status, out, _ = run(monkeypatch, capsys, ["stats", "--json"])
    data = json.loads(out)
    game = cta.AceChasingGame.from_record(json.loads(save.read_text()))
    ace = data["ace_chasing"]
    assert data["games"] == 0 and ace["games"] == 2
    assert {row["bots"] for row in ace["by_bots"]} == {"odds x3", "random x3"}
    first = next(row for row in ace["by_bots"] if row["bots"] == "odds x3")
    assert first["money"] == game.money[0] and first["wins"] == int(game.winners == (0,))
    status, out, _ = run(monkeypatch, capsys, ["stats"])
    assert status == 0 and "Ace Chasing: 2 games" in out and "as the matador" in out
    assert "Ace Chasing against" in out and "0 games," not in out
