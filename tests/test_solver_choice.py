"""``solve(method="auto")`` follows one table of player counts (``chasetheace.solver.solutions.choice.AUTO``):
for each row, hands that the row decides, checked on the choice and on what ``solve`` then runs (the
methods themselves are stubbed out: no long solves)."""

from __future__ import annotations

from typing import Any

import pytest

import chasetheace as cta
from chasetheace.solver.model.hand import Hand
from chasetheace.solver.solutions import choice, solving
from chasetheace.solver.uses.advice import MAX_HINT_PLAYERS

LE_HER = cta.Rules.preset("le-her")
PAIRING = cta.Rules(pairing=True)
JERK = cta.Rules(kings_jerk=True)

ROWS: list[tuple[int, str, list[tuple[cta.Rules, int, bool | None]]]] = [
    (0, "lp", [(LE_HER, 2, None), (LE_HER, 2, False)]),
    (1, "dcfr", [(cta.Rules(), 2, None), (cta.Rules(), 3, None), (cta.Rules(), 5, False), (PAIRING, 5, None),
                 (JERK, 4, True)]),
    (2, "dcfr", [(cta.Rules(), 6, None), (cta.Rules(), 6, True)]),
    (3, "iid", [(cta.Rules(), 6, False), (cta.Rules(), 7, None), (cta.Rules(), 9, None)]),
    (4, "sampled", [(PAIRING, 6, None), (JERK, 6, None), (JERK, 8, False), (cta.Rules(), 10, None),
                    (cta.Rules(), 21, None)]),
]
"""Per row of :data:`~chasetheace.solver.solutions.choice.AUTO`: its method, and hands it decides."""


def test_no_row_takes_a_table_above_the_sampled_limit() -> None:
    with pytest.raises(ValueError, match=r"no method solves 22 players: the solver handles 2\.\.21"):
        choice.auto_choice(Hand(cta.Rules(), 22))
    with pytest.raises(ValueError, match="no method solves 51"):
        cta.solve(cta.Rules(), 51)


def test_the_rows_here_are_the_rows_of_the_table() -> None:
    assert [(choice.AUTO[i].method, i) for i, _, _ in ROWS] == [(method, i) for i, method, _ in ROWS]
    assert len(ROWS) == len(choice.AUTO)


@pytest.mark.parametrize(("row", "method", "rules", "players", "exact_check"),
                         [(i, m, r, n, e) for i, m, cases in ROWS for r, n, e in cases])
def test_auto_follows_the_row(monkeypatch: pytest.MonkeyPatch, row: int, method: str, rules: cta.Rules,
                              players: int, exact_check: bool | None) -> None:
    assert choice.auto_choice(Hand(rules, players), exact_check) is choice.AUTO[row]
    ran: list[str] = []

    def stub(name: str) -> Any:
        def run(hand: Hand, *args: Any) -> None:
            ran.append(args[0] if name == "cfr" else name)  # _from_cfr's first argument: the CFR method

        return run

    for name in ("cfr", "parts", "iid", "sampled", "lp"):
        monkeypatch.setattr(solving, f"_from_{name}", stub(name))
    if method == "lp":
        monkeypatch.setattr("chasetheace.solver.methods.lp.solve_zero_sum", lambda hand: None)
    solving.solve(rules, players, method="auto", exact_check=exact_check)
    assert ran == [method]


def test_every_player_count_has_a_row_whatever_the_rules() -> None:
    for rules in (cta.Rules(), PAIRING, JERK, LE_HER):
        for players in range(2, choice.MAX_TABLE_PLAYERS + 1):
            for exact_check in (None, True, False):
                assert choice.auto_choice(Hand(rules, players), exact_check).method in choice.METHODS


def test_the_limits_quoted_elsewhere_come_from_the_table() -> None:
    assert choice.AUTO_EXACT_PLAYERS == 6  # the exact tree: at 6 without pairing or kings_jerk
    assert choice.QUICK_EXACT_PLAYERS == 5  # the exact tree whatever the rules: seconds
    assert choice.AUTO_IID_PLAYERS == choice.MAX_IID_PLAYERS == 9
    assert MAX_HINT_PLAYERS == choice.QUICK_EXACT_PLAYERS
    assert cta.solver.AUTO_EXACT_PLAYERS == choice.AUTO_EXACT_PLAYERS
