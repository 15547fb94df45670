"""Issue 15, Ace Chasing brought level with the main game at the terminal."""

from __future__ import annotations

import io
import sys
import time
from collections.abc import Iterator

import pytest

import chasetheace as cta
from chasetheace import cli
from chasetheace.cli.ace_view import ace_table, left_neighbour
from chasetheace.cli.acechasing import RULES_SUMMARY, _status, parse_reply, play_ace_chasing

pytest.importorskip("rich")


@pytest.fixture(autouse=True)
def no_real_sleep(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)
    monkeypatch.setenv("COLUMNS", "120")
    return slept


def replies(monkeypatch: pytest.MonkeyPatch, again: Iterator[str], first: list[str] | None = None,
            watch: str = "w") -> list[str]:
    """Answer each question by what it asks: no bets, accept, keep, Enter, watch; ``again`` for
    "Another game?"; ``first`` are given before all that. Returns the prompts."""
    from rich.console import Console

    asked: list[str] = []
    queue = list(first or [])

    def answer(self: Console, prompt: str = "", **kwargs: object) -> str:
        self.print(prompt, end="")
        asked.append(prompt)
        if queue:
            reply = queue.pop(0)
        elif "Another game" in prompt:
            reply = next(again)
        else:
            reply = {"Bet how": "0", "Accept": "a", "Keep your": "k", "Watch": watch}.get(
                next((k for k in ("Bet how", "Accept", "Keep your", "Watch") if k in prompt), ""), "")
        self.print(reply)
        return reply

    monkeypatch.setattr(Console, "input", answer)
    return asked


def play(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    status = cli.main(["play", "--game", "ace-chasing", *argv])
    out, err = capsys.readouterr()
    assert status == 0 and err == "", err
    return out


def test_the_rich_table_another_game_and_the_money_over_games(monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    asked = replies(monkeypatch, iter(["y", "n"]))
    out = play(monkeypatch, capsys, ["--seed", "3", "--players", "4", "--delay", "0"])
    assert "╭" in out and "│ Player" in out and "Money" in out and "Game over" in out
    assert "Money after 1 game:" in out and "Money after 2 games:" in out
    assert sum("Another game" in p for p in asked) == 2
    assert out.count("Ace Chasing · 4 players") == 2


def test_players_who_are_out_stay_in_the_money_line() -> None:
    game = cta.AceChasingGame(["You", "Bob", "Cat", "Dan"], stack=["9c", "Ah", "7h", "2c"], matador=0)
    game.act(cta.Offer(4))
    game.act("accept")
    game.act(cta.Offer(0))
    game.act(cta.Offer(0))
    for _ in range(3):
        game.act("keep")
    obs = game.observation(0)
    assert not all(obs["in"])
    line = _status(obs)
    for seat, name in enumerate(["You", "Bob", "Cat", "Dan"]):
        assert f"{name} {obs['money'][seat]:+d}" + ("" if obs["in"][seat] else " (out)") in line
    from rich.console import Console

    screen = io.StringIO()
    Console(file=screen, width=100).print(ace_table(obs))
    table = screen.getvalue()
    for name in ("Bob", "Cat", "Dan"):
        assert name in table
    assert table.count(" out ") == sum(not alive for alive in obs["in"])


def test_the_exchange_prompt_names_the_left_neighbour() -> None:
    for matador, neighbour in ((3, "Bob?"), (1, "Bob, the matador?")):
        prompts: list[str] = []

        def ask(prompt: str, prompts: list[str] = prompts) -> str:
            prompts.append(prompt)
            return {"B": "0", "A": "a", "K": "k"}[prompt[0]]

        play_ace_chasing(players=4, seed=2, matador=matador, ask=ask, say=lambda line: None)
        first = next(p for p in prompts if p.startswith("Keep"))
        assert first == f"Keep your card or swap with {neighbour} [k/s] ", matador


def test_left_neighbour_wraps_to_the_matador() -> None:
    obs = {"order": [2, 3, 0, 1], "seat": 0}
    assert left_neighbour(obs) == 1
    assert left_neighbour({"order": [2, 3, 0, 1], "seat": 1}) == 2
    assert left_neighbour({"order": [], "seat": 0}) is None


def test_r_explains_the_rules_at_every_question(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    lines: list[str] = []
    seen: list[str] = []
    queue = ["r", "0"]  # at the first question (a bet: you are not the matador), then no bet

    def ask(prompt: str) -> str:
        seen.append(prompt)
        if queue:
            return queue.pop(0)
        return "q"

    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(cli_quit()):
        play_ace_chasing(players=4, seed=2, matador=3, ask=ask, say=lines.append)
    assert seen[0].startswith("Bet how much")
    told = " ".join(line.strip() for line in lines)
    assert all(rule in told for rule in RULES_SUMMARY)
    # broken between words to the terminal's width, not by the terminal in the middle of one
    rules = [line for line in lines if line.startswith("  ")]
    assert rules and all(len(line) < 80 for line in rules)
    assert " ".join(w for line in rules for w in line.split()) == " ".join(" ".join(RULES_SUMMARY).split())
    assert not any(line.startswith("Answer") for line in lines)  # r is not a mistake
    for legal in (["offer"], ["accept", "decline"], ["keep", "swap"]):
        assert parse_reply("r", legal) == "rules" and parse_reply("rules", legal) == "rules"


def cli_quit() -> type[Exception]:
    from chasetheace.cli.play import QuitGame

    return QuitGame


def test_pacing(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                no_real_sleep: list[float]) -> None:
    replies(monkeypatch, iter(["n"]))
    out = play(monkeypatch, capsys, ["--seed", "3", "--players", "5", "--delay", "0.4"])
    bot_moves = sum(out.count(f"{n}: ") + out.count(f"{n} offers") + out.count(f"{n} bets")
                    for n in ("Bob", "Cat", "Dan", "Eve"))
    assert bot_moves and set(no_real_sleep) == {0.4} and len(no_real_sleep) >= bot_moves // 2


def test_once_out_watch_or_skip(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for seed in range(40):
        replies(monkeypatch, iter(["n"]), watch="w")
        watched = play(monkeypatch, capsys, ["--seed", str(seed), "--players", "6", "--delay", "0"])
        parts = watched.split("Watch the rest")
        if len(parts) == 2 and parts[1].count("Round ") >= 4:
            break
    else:
        raise AssertionError("no seed put you out two rounds before the end")
    assert "Press Enter for the next round" in parts[1]
    replies(monkeypatch, iter(["n"]), watch="s")
    skipped = play(monkeypatch, capsys, ["--seed", str(seed), "--players", "6", "--delay", "0"])
    before, rest = skipped.split("Watch the rest")
    assert before == parts[0]
    assert "Skipping to the end of the game." in rest and "is the matador" not in rest
    winner = next(line for line in parts[1].splitlines() if "the game." in line and "win" in line)
    assert winner in rest


def test_the_matadors_own_words() -> None:
    from chasetheace.acechasing.render import narrate

    names = ["You", "Bob", "Cat", "Dan"]
    assert narrate({"type": "swap", "seat": 3, "neighbour": 0}, names, 0) == ["Dan: Swap with you."]
    assert narrate({"type": "shown", "step": 1, "cards": [[0, "5d"]]}, names, 0) == \
        ["You, the matador, show 5♦."]
    assert narrate({"type": "shown", "step": 1, "cards": [[1, "5d"]]}, names, 0) == \
        ["The matador, Bob, shows 5♦."]
    accepted = {"type": "bet_accepted", "seat": 1, "amount": 3}
    assert narrate(accepted, names, 0, matador=0) == ["You accepted Bob's offer of 3."]
    assert narrate(accepted, names, 2, matador=0) == ["The matador accepted Bob's offer of 3."]
    assert narrate({"type": "bet_declined", "seat": 0, "amount": 2}, names, 0, matador=3) == \
        ["The matador declined your offer of 2."]


def test_the_ace_chasing_play_subcommand_is_the_same_table(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    asked = replies(monkeypatch, iter(["n"]))
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert cli.main(["ace-chasing", "play", "--seed", "3", "--players", "4", "--delay", "0",
                     "--matador", "2"]) == 0
    out = capsys.readouterr().out
    assert "Round 1: Cat is the matador." in out
    assert "│ Player" in out and "Money after 1 game:" in out
    assert any("Another game" in p for p in asked)
