"""The simulation: exact values it must find, seeds that fix it, workers that do not change it."""

from __future__ import annotations

import csv
import json
import sys
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import chasetheace as cta
from chasetheace import cli
from chasetheace.extras import install_command
from chasetheace.sim import SimConfig, Tally, simulate, wilson

TIMING = ("hands_per_second", "seconds", "workers")


def exact_lowest(players: int, ranking: str = "king-high") -> Fraction:
    """P(a given player's card is among the lowest), one card each from a shuffled 52-card pack.

    The player's rank has strength s (4 cards of each rank); it is among the lowest when the other
    players' cards all come from the 4 * (13 - s) stronger cards or the 3 other cards of its rank.
    """
    assert sorted(cta.rules.STRENGTH[ranking].values()) == list(range(1, 14))
    others = players - 1
    return sum((Fraction(4, 52) * Fraction(comb(4 * (13 - s) + 3, others), comb(51, others))
                for s in range(1, 14)), Fraction(0))


def simulate_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    assert cli.main(["simulate", "--json", *argv]) == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("players", [3, 6])
def test_everyone_keeps_dealer_loses_at_the_exact_rate(capsys: pytest.CaptureFixture[str],
                                                       players: int) -> None:
    # threshold:A keeps everything under king-high (no card is weaker than the ace's strength... the
    # ace is the weakest, so nothing is below it); blocker=none; lives large enough that nobody
    # leaves, so every hand has the full table.
    data = simulate_json(capsys, ["--hands", "3000", "--players", str(players), "--bot", "threshold:A",
                                  "--rule", "blocker=none", "--rule", "lives=10000", "--seed", "7"])
    assert data["hands"] == 3000 and data["games"] == 0
    assert list(data["loss_rate_by_players_in"]) == [str(players)]
    rows = data["loss_rate_by_position"]
    assert isinstance(rows, list) and rows[-1]["position"] == "dealer"
    dealer = rows[-1]
    exact = float(exact_lowest(players))
    lo, hi = dealer["ci95"]
    assert lo <= exact <= hi, (exact, dealer)
    assert dealer["losses"] / dealer["hands"] == pytest.approx(dealer["rate"], abs=1e-6)
    # everyone keeps, so every place has the same chance: the average over places is close too
    mean = sum(r["rate"] for r in rows) / len(rows)
    assert abs(mean - exact) < 0.02


def test_exact_formula_by_enumeration() -> None:
    """The formula agrees with brute force over every deal of 3 cards, and with simple cases."""
    strength = cta.rules.STRENGTH["king-high"]
    ranks = [c.rank for c in cta.pack(52)]
    lowest = total = 0
    for i, mine in enumerate(ranks):
        for j, a in enumerate(ranks):
            if j == i:
                continue
            for k, b in enumerate(ranks):
                if k in (i, j):
                    continue
                total += 1
                lowest += strength[mine] <= min(strength[a], strength[b])
    assert exact_lowest(3) == Fraction(lowest, total)
    assert exact_lowest(52) == Fraction(1, 13)  # everyone dealt in: you lose holding an ace


def test_same_seed_same_numbers_and_workers_do_not_matter(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--games", "30", "--bot", "threshold:8", "--bot", "random", "--bot", "counting", "--seed", "3"]
    one = simulate_json(capsys, [*argv, "--workers", "1"])
    again = simulate_json(capsys, [*argv, "--workers", "1"])
    two = simulate_json(capsys, [*argv, "--workers", "2"])
    for d in (one, again, two):
        for key in TIMING:
            d.pop(key)
    assert one == again == two
    assert one["games"] == 30
    other_seed = simulate_json(capsys, [*argv[:-1], "4"])
    assert other_seed["loss_rate_by_position"] != one["loss_rate_by_position"]


def test_hands_mode_is_exact_and_worker_independent() -> None:
    config = SimConfig(rules=cta.Rules.preset("chase-the-ace"), bots=("threshold:9",) * 4, seed=5,
                       hands=450)
    a, b = simulate(config, workers=1), simulate(config, workers=3)
    assert a.tally == b.tally
    assert a.tally.hands == 450
    assert sum(r["hands"] for r in a.loss_rate_by_rank_dealt()) == 450 * 4 - sum(
        size_rows[0]["hands"] * (4 - int(size)) for size, size_rows in a.loss_rate_by_players_in().items())


def test_json_has_the_promised_keys(capsys: pytest.CaptureFixture[str]) -> None:
    data = simulate_json(capsys, ["--games", "5"])
    for key in ("hands", "games", "loss_rate_by_position", "win_rate_by_seat", "hands_per_second"):
        assert key in data
    wins = data["win_rate_by_seat"]
    assert isinstance(wins, list) and len(wins) == 5
    assert sum(w["wins"] for w in wins) + data["games_without_sole_winner"] == 5


def test_tally_accounts_for_every_hand() -> None:
    config = SimConfig(rules=cta.Rules(), bots=("random",) * 5, seed=2, games=30)
    result = simulate(config)
    t = result.tally
    assert t.games == 30
    losses = sum(t.position_losses.values())
    assert losses >= t.hands  # every hand has at least one loser
    by_place = result.loss_rate_by_position()
    assert by_place[0]["hands"] == t.hands == by_place[-1]["hands"]  # every hand has an eldest, a dealer
    assert sum(r["losses"] for r in by_place) == losses


def test_table_output_csv_and_plot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    table, plot = tmp_path / "rates.csv", tmp_path / "rates.png"
    assert cli.main(["simulate", "--games", "20", "--csv", str(table), "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "Loss rate per hand by position" in out and "Win rate per game by seat" in out
    assert "hands per second" in out
    rows = list(csv.reader(table.open()))
    assert rows[0] == ["table", "key", "trials", "count", "rate", "ci95_low", "ci95_high"]
    assert {r[0] for r in rows[1:]} >= {"loss_by_position", "loss_by_rank_dealt", "win_by_seat"}
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert cli.main(["simulate", "--games", "2", "--plot", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert err == (f"chase-the-ace: error: --plot needs matplotlib (the plot extra), which is not installed "
                   f"here: run {install_command('plot')}\n")


def test_config_checks() -> None:
    with pytest.raises(ValueError, match="not both"):
        SimConfig(rules=cta.Rules(), bots=("random",) * 3, games=1, hands=1)
    with pytest.raises(ValueError, match="unknown bot"):
        SimConfig(rules=cta.Rules(), bots=("nobody",) * 3, games=1)
    with pytest.raises(ValueError, match="workers"):
        simulate(SimConfig(rules=cta.Rules(), bots=("random",) * 3, games=1), workers=0)


@given(st.integers(0, 500), st.integers(0, 500))
def test_wilson_interval_holds_the_estimate(k: int, extra: int) -> None:
    n = k + extra
    lo, hi = wilson(k, n)
    assert 0.0 <= lo <= hi <= 1.0
    if n:
        assert lo - 1e-12 <= k / n <= hi + 1e-12


def test_tally_merge_adds() -> None:
    a, b = Tally(2, hands=1, games=1, wins=[1, 0]), Tally(2, hands=2, games=1, wins=[0, 1])
    a.position_hands[2, 0] += 1
    b.position_hands[2, 0] += 2
    a.merge(b)
    assert (a.hands, a.games, a.wins, a.position_hands[2, 0]) == (3, 2, [1, 1], 3)
