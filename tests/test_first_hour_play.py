"""Issue 15, playing: a human pace, nothing scrolls past unread, the game named, the rules explained."""

from __future__ import annotations

import io
import random
import sys
import time
from pathlib import Path

import pytest

import chasetheace as cta
from chasetheace import cli
from chasetheace.cards import pack
from chasetheace.cli import play
from chasetheace.cli.pacing import NEXT_HAND_PROMPT, WATCH_PROMPT, Pace
from chasetheace.render import Narrator, explain_rules

pytest.importorskip("rich")


@pytest.fixture(autouse=True)
def no_real_sleep(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every pause is recorded, none is waited for."""
    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)
    monkeypatch.setenv("COLUMNS", "200")
    return slept


def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str],
        stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_delay_pauses_before_each_bot_move(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str],
                                           no_real_sleep: list[float]) -> None:
    argv = ["play", "--seed", "3", "--players", "4", "--bot", "threshold:8"]
    status, out, err = run(monkeypatch, capsys, [*argv, "--delay", "0.3"], stdin="k\n" * 200)
    assert status == 0, err
    bot_moves = sum(out.count(f"{name}: {call}") for name in ("Bob", "Cat", "Dan")
                    for call in ("Stand.", "Change!"))
    assert bot_moves > 3
    assert no_real_sleep == [0.3] * len(no_real_sleep) and len(no_real_sleep) >= bot_moves
    no_real_sleep.clear()
    run(monkeypatch, capsys, [*argv, "--delay", "0"], stdin="k\n" * 200)
    assert no_real_sleep == []
    run(monkeypatch, capsys, argv, stdin="k\n" * 200)  # the output is not a terminal: no pauses
    assert no_real_sleep == []


def test_a_bad_delay_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(monkeypatch, capsys, ["play", "--delay", "-2"])
    assert status == 2 and out == ""
    assert "--delay: seconds from 0 (no pause) to 10, got '-2'" in err and err.count("\n") == 1


def _stacked_game(first: list[str]) -> cta.Game:
    rest = [str(c) for c in pack() if str(c) not in first]
    return cta.Game(cta.Rules(), ["You", "Bob", "Cat"], stack=[*first, *rest], dealer=2, seed=1)


def test_enter_after_a_hand_with_nothing_to_decide(monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.console import Console

    game = _stacked_game(["Kc", "5d", "9h"])  # you are eldest and hold a king: no decision
    screen = io.StringIO()
    console = Console(file=screen, width=200)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n" + "k\n" * 100))
    bots = [None, cta.ThresholdBot(8), cta.ThresholdBot(8)]
    pace = Pace(delay=0, ask=lambda prompt: console.input(prompt))
    play.run_table(console, game, bots, 0, random.Random(1), pace=pace)
    text = screen.getvalue()
    first_showdown = text.index("Showdown:")
    assert text.index(NEXT_HAND_PROMPT) > first_showdown
    assert text.index(NEXT_HAND_PROMPT) < text.index("Hand 2")
    assert "You: King!" in text[:first_showdown] and "keep or swap?" not in text[:first_showdown]


def test_no_enter_after_a_hand_you_played(monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.console import Console

    game = _stacked_game(["5c", "9d", "8h"])
    screen = io.StringIO()
    console = Console(file=screen, width=200)
    monkeypatch.setattr(sys, "stdin", io.StringIO("k\n" * 100))
    pace = Pace(delay=0, ask=lambda prompt: console.input(prompt))
    play.run_table(console, game, [None, cta.ThresholdBot(8), cta.ThresholdBot(8)], 0,
                   random.Random(1), pace=pace)
    text = screen.getvalue()
    assert text.index("keep or swap?") < text.index("Hand 2")
    assert NEXT_HAND_PROMPT not in text[:text.index("Hand 2")]


def answering(monkeypatch: pytest.MonkeyPatch, watch: str) -> list[str]:
    """Answer each question at the table by what it asks (``watch`` to watch-or-skip); the prompts."""
    from rich.console import Console

    asked: list[str] = []

    def answer(self: Console, prompt: str = "", **kwargs: object) -> str:
        self.print(prompt, end="")
        asked.append(prompt)
        reply = watch if "Watch the rest" in prompt else "s" if "keep or " in prompt else ""
        self.print(reply)
        return reply

    monkeypatch.setattr(Console, "input", answer)
    return asked


def test_out_then_watch_or_skip(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for seed in range(60):  # one life and always swapping: find a game you leave early
        argv = ["play", "--seed", str(seed), "--players", "5", "--rule", "lives=1", "--bot", "threshold:8"]
        answering(monkeypatch, "w")
        status, watched, _ = run(monkeypatch, capsys, argv)
        after = watched.split(WATCH_PROMPT.strip())
        if len(after) == 2 and after[1].count("Showdown:") >= 2:
            break
    else:
        raise AssertionError("no seed put you out with two hands left to play")
    assert status == 0
    assert "You are out." in after[0]
    assert NEXT_HAND_PROMPT.strip() in after[1]  # watching: Enter between the hands you sit out
    asked = answering(monkeypatch, "s")
    status, skipped, err = run(monkeypatch, capsys, argv)
    assert status == 0, err
    before, rest = skipped.split(WATCH_PROMPT.strip())
    assert before == after[0]
    assert "Skipping to the end of the game." in rest
    assert "Showdown:" not in rest and NEXT_HAND_PROMPT.strip() not in rest
    winner = next(line for line in after[1].splitlines() if "wins the game" in line)
    assert winner in rest and "Game over" in rest
    assert len([p for p in asked if "Watch the rest" in p]) == 1


def test_the_heading_names_the_game(monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    for argv, heading in ((["--preset", "cuckoo"], "Cuckoo · 5 players"),
                          (["--preset", "le-her"], "Le Her · 2 players"),
                          (["--preset", "standard", "--rule", "lives=2"],
                           "Chase the Ace (standard rules with lives=2) · 5 players"),
                          ([], "Chase the Ace · 5 players")):
        _, out, _ = run(monkeypatch, capsys, ["play", "--seed", "1", *argv], stdin="q\n")
        assert out.splitlines()[0] == f"{heading} · seed 1", argv


def test_the_rules_explain_the_kitty_and_the_pot(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    words = " ".join(explain_rules(cta.Rules()))
    assert "pays a chip into the kitty" in words and "the winner of the game takes it" in words
    _, out, _ = run(monkeypatch, capsys, ["play", "--rules-help"])
    assert "kitty, the pile of lost chips" in out


@pytest.mark.parametrize(("exchange", "words"), [
    ("cut", "Bob: Change! Bob sets a card aside face down and cuts a new one from the stock."),
    ("top", "Bob: Change! Bob sets a card aside face down and takes the top card of the stock.")])
def test_a_bot_dealers_draw_in_words(exchange: str, words: str) -> None:
    narrator = Narrator(["Ann", "Bob", "Cat"], cta.Rules().replace(dealer_exchange=exchange), viewer=0)
    assert narrator.tell({"type": "dealer_exchange", "seat": 1, "position": 0}) == [words]


def test_a_dealers_draw_seen_in_a_real_game(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _, out, _ = run(monkeypatch, capsys, ["play", "--seed", "2", "--players", "3", "--bot", "threshold:Q"],
                    stdin="k\n" * 200)
    assert "sets a card aside face down and cuts a new one from the stock." in out
    assert "(cuts the stock)" not in out
