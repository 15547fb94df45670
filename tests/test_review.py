"""The solver at the table: hints from a seat's view alone, reviews of whole games, the disk cache."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numpy")
pytest.importorskip("scipy")

import chasetheace as cta
from chasetheace import cli
from chasetheace.cards import pack
from chasetheace.solver import Solution, SolvedBot, solve
from chasetheace.solver.solutions.cache import cache_path, solution_for
from chasetheace.solver.uses.advice import MISTAKE, hint, review
from helpers import check_schema, stacked
from helpers import cli_run as _run

DOCS = Path(__file__).resolve().parent.parent / "docs" / "review.md"
RULES = cta.Rules().replace(dealer_exchange="top")  # as helpers.stacked plays: the dealer takes the top card


@pytest.fixture(scope="module")
def solutions() -> dict[int, Solution]:
    return {n: solve(RULES, n) for n in (2, 3, 4)}


def _provider(solutions: dict[int, Solution]) -> Any:
    def get(rules: cta.Rules, players: int) -> Solution:
        assert rules == solutions[players].rules
        return solutions[players]
    return get


def _play(game: cta.Game, bots: list[Any], seed: int) -> cta.Game:
    rng = random.Random(seed)
    while game.to_act is not None:
        seat = game.to_act
        game.act(bots[seat].choose(game.observation(seat), game.legal_actions(), rng))
    return game


# --- forced calls on stacked packs --------------------------------------------------------------

def test_the_lowest_card_with_a_king_to_the_left(solutions: dict[int, Solution]) -> None:
    """The eldest holds the ace (the lowest card): keeping it loses for sure, so the solver swaps;
    the king to its left blocks the swap, and the review still calls the swap the best choice."""
    game = stacked("Ac Kd 5h")
    h = hint(game.observation(0), solutions[3])
    assert h.call == "swap" and h.best == "swap"
    assert h.lose_if_keep == pytest.approx(1.0)
    assert h.lose_if_swap < 0.5
    assert "Solver: swap" in h.text()
    game.act("swap")   # blocked by the king
    game.act("keep")   # the dealer keeps 5h: the eldest's ace loses
    rec = review(game.record(), solutions=_provider(solutions))
    first = rec.decisions[0]
    assert (first.seat, first.action, first.hint.call) == (0, "swap", "swap")
    assert (first.cost, first.mistake) == (0.0, False)


def test_a_solution_measured_only_without_card_removal_is_not_marked_exact(
        solutions: dict[int, Solution]) -> None:
    import dataclasses

    model_only = dataclasses.replace(solutions[3], method="iid", measured="abstract")
    game = stacked("Ac Kd 5h")
    game.act("keep")
    game.act("keep")
    data = review(game.record(), solutions=lambda rules, players: model_only).to_dict()
    [entry] = data["solutions"]
    assert (entry["method"], entry["exact"], entry["nash_conv_kind"]) == ("iid", False, "model-only")
    assert all(d["call"] for d in data["decisions"])
    exact = review(game.record(), solutions=_provider(solutions)).to_dict()["solutions"][0]
    assert (exact["exact"], exact["nash_conv_kind"]) == (True, "exact")
    assert hint(stacked("Ac Kd 5h").observation(0), model_only).nash_conv_kind == "model-only"


def test_the_hint_follows_the_bot_and_claims_no_certainty_the_strategy_denies(
        solutions: dict[int, Solution]) -> None:
    """An approximate strategy that keeps the ace 84% of the time where its own figures say keeping
    loses for sure: the hint's call is what the solved bot mostly plays (never its opposite), says
    its figures disagree, and writes no sampled 0 or 1 as a certainty."""
    import dataclasses

    from chasetheace.solver import SolvedBot
    from chasetheace.solver.model.hand import infoset_of

    game = stacked("Ac Kd 5h")
    view = game.observation(0)
    exact = solutions[3]
    key = infoset_of(view, exact.deck, kings_jerk=False)
    i = exact.index_of(key)
    assert i is not None
    keep, values, chances = list(exact.keep), list(exact.values), list(exact.chances or [])
    keep[i], values[i], chances[i] = 0.84, (1.0, 0.0), (1.0, 0.0)  # sampled figures: 1 and 0 exactly
    rough = dataclasses.replace(exact, method="sampled", measured="sampled", keep=keep, values=values,
                                chances=chances)
    h = hint(view, rough)
    assert h.disagrees and h.best == "swap" and h.call == "keep"
    bot = SolvedBot.of(rough)
    assert bot.solution(3).action_probabilities(view)["keep"] == pytest.approx(0.84)
    text = h.text()
    assert "Solver: keep" in text and "figures favour swap by 1.000 lives" in text
    assert "about 100%" in text and "about 0%" in text and "0.0%" not in text and "100.0%" not in text
    # the web table shows the chances the hint's JSON words (app.js), the same as the text's
    data = h.to_dict()
    assert (data["lose_if_keep_text"], data["lose_if_swap_text"]) == ("about 100%", "about 0%")
    game.act("keep")
    game.act("keep")
    rec = review(game.record(), solutions=lambda rules, players: rough)
    first = rec.decisions[0]
    assert first.cost == pytest.approx(1.0) and not first.mistake  # played as the bot plays
    assert rec.to_dict()["decisions"][0]["disagrees"] is True
    # the exact solution itself: no disagreement, and its sure figures may say 100%
    h = hint(view, exact)
    assert not h.disagrees and h.call == "swap"
    assert "lose this hand 100%" in h.text() or "lose this hand over 99.9%" in h.text()


def test_keeping_the_lowest_card_is_a_mistake_with_its_cost(solutions: dict[int, Solution]) -> None:
    game = stacked("Ac Kd 5h")
    game.act("keep")
    game.act("keep")
    rec = review(game.record(), solutions=_provider(solutions))
    first = rec.decisions[0]
    assert first.mistake and first.hint.best == "swap"
    assert first.cost == pytest.approx(first.hint.lives_if_keep - first.hint.lives_if_swap)
    assert first.cost > 0.4
    eldest = rec.summary()[0]
    assert eldest.mistakes == 1 and eldest.lives_given_away == pytest.approx(first.cost)
    assert eldest.accuracy == 0.0


def test_a_queen_is_kept(solutions: dict[int, Solution]) -> None:
    game = stacked("Qc 3d 5h")
    h = hint(game.observation(0), solutions[3])
    assert h.call == "keep" and h.lose_if_keep < 0.1 < h.lose_if_swap


def test_the_dealer_with_the_lowest_card_after_all_kept_draws(solutions: dict[int, Solution]) -> None:
    game = stacked("Qc Jd 2h")
    game.act("keep")
    game.act("keep")
    h = hint(game.observation(2), solutions[3])
    assert h.dealer and h.call == "swap"
    assert "draw" in h.text()


# --- the hint uses the observation only -------------------------------------------------------------

@pytest.mark.parametrize("seed", range(8))
def test_hidden_cards_and_the_stock_do_not_change_the_hint(solutions: dict[int, Solution], seed: int) -> None:
    """Two deals that differ only in what the seat cannot see give equal observations and equal hints."""
    rng = random.Random(seed)
    cards = [str(c) for c in pack(52) if c.rank != 13]  # no blocker: every turn is a decision
    mine = rng.choice(cards)
    hints, views = [], []
    for _ in range(2):
        rest = [c for c in cards if c != mine]
        rng.shuffle(rest)
        # seat 1 is the 2nd: it sees its own card and that the eldest kept, nothing else
        game = cta.Game(RULES, players=4, stack=[rest[0], mine, *rest[1:]], dealer=3)
        game.act("keep")
        obs = game.observation(1)
        frozen = json.dumps(obs, sort_keys=True)
        views.append(frozen)
        hints.append(hint(obs, solutions[4]))
        assert json.dumps(obs, sort_keys=True) == frozen  # the hint changes nothing
    assert views[0] == views[1]
    assert hints[0] == hints[1]


def test_the_hint_reads_only_the_observation(solutions: dict[int, Solution]) -> None:
    """A hint needs nothing but the observation: a deep copy, cut off from any game, gives the same."""
    game = stacked("7c 4d 5h")
    obs = game.observation(0)
    alone = json.loads(json.dumps(obs))
    assert hint(alone, solutions[3]) == hint(obs, solutions[3])
    with pytest.raises(ValueError, match="own view"):
        hint(game.observation(None), solutions[3])
    with pytest.raises(ValueError, match="for 4 players"):
        hint(obs, solutions[4])


# --- reviews of whole games --------------------------------------------------------------------------

def test_the_equilibrium_gives_nothing_away(solutions: dict[int, Solution]) -> None:
    rules = RULES
    for seed in range(3):
        bot = SolvedBot(rules, solutions)
        game = _play(cta.Game(rules, players=3, seed=seed), [bot] * 3, seed)
        rec = review(game.record(), solutions=_provider(solutions))
        assert rec.complete and len(rec.decisions) > 5
        for s in rec.summary():
            assert (s.mistakes, s.lives_given_away, s.accuracy) == (0, 0.0, 100.0), (seed, s)
        assert all(d.cost <= MISTAKE for d in rec.decisions)


def test_threshold_bots_make_mistakes_with_a_cost(solutions: dict[int, Solution]) -> None:
    rules = RULES
    bots = [cta.make_bot("threshold:2", rules, 3) for _ in range(3)]
    game = _play(cta.Game(rules, players=3, seed=4), bots, 4)
    rec = review(game.record(), solutions=_provider(solutions))
    mistakes = [d for d in rec.decisions if d.mistake]
    assert mistakes and all(d.cost > MISTAKE for d in mistakes)
    assert all(d.action != d.hint.best for d in mistakes)
    assert sum(s.lives_given_away for s in rec.summary()) == pytest.approx(sum(d.cost for d in mistakes))
    assert sum(s.decisions for s in rec.summary()) == len(rec.decisions)


def test_a_review_speaks_about_each_player_never_to_them(solutions: dict[int, Solution]) -> None:
    # a review is read by anyone: "nobody swapped with you" about a bot's decision spoke to the bot
    rules = RULES
    bots = [cta.make_bot("threshold:2", rules, 3) for _ in range(3)]
    rec = review(_play(cta.Game(rules, players=3, seed=4), bots, 4).record(), solutions=_provider(solutions))
    said = [d["knew"] for d in rec.to_dict()["decisions"]] + [d.hint.text() for d in rec.decisions]
    assert said and not [s for s in said if re.search(r"\byou\b", s)], said
    assert any("nobody swapped with them" in s or "they are first to act" in s for s in said)


def test_an_unfinished_record_is_reviewed_up_to_its_end(solutions: dict[int, Solution]) -> None:
    game = stacked("Ac Kd 5h")
    game.act("swap")
    rec = review(game.record(), solutions=_provider(solutions))
    assert not rec.complete and len(rec.decisions) == 1


def test_one_seat(solutions: dict[int, Solution]) -> None:
    rules = RULES
    bots = [cta.make_bot("threshold:8", rules, 3) for _ in range(3)]
    rec = review(_play(cta.Game(rules, players=3, seed=2), bots, 2).record(), solutions=_provider(solutions))
    data = rec.to_dict(seat=1)
    assert {d["seat"] for d in data["decisions"]} == {1}
    assert [s["seat"] for s in data["summary"]] == [1]
    with pytest.raises(ValueError, match="bad seat"):
        rec.for_seat(7)


# --- the JSON schema of docs/review.md --------------------------------------------------------------

def _schema() -> dict[str, Any]:
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(r"```json schema\n(.*?)```", text, re.S)
    assert block, "docs/review.md must hold the schema in a ```json schema block"
    schema: dict[str, Any] = json.loads(block.group(1))
    return schema


_check = check_schema  # (tests/test_web_advice.py imports it from here)


def test_the_review_json_follows_the_documented_schema(solutions: dict[int, Solution]) -> None:
    schema = _schema()
    rules = RULES
    bots = [cta.make_bot("threshold:2", rules, 3) for _ in range(3)]
    data = review(_play(cta.Game(rules, players=3, seed=4), bots, 4).record(),
                  solutions=_provider(solutions)).to_dict()
    data = json.loads(json.dumps(data))
    _check(data, schema)
    assert data["decisions"] and any(d["mistake"] for d in data["decisions"])
    with pytest.raises(AssertionError):  # the checker does check
        _check({**data, "surprise": 1}, schema)
    # every field the schema names is described in the prose as well
    text = DOCS.read_text(encoding="utf-8")
    for name in (*schema["properties"], *schema["properties"]["decisions"]["items"]["properties"],
                 *schema["properties"]["summary"]["items"]["properties"]):
        assert f"`{name}`" in text.split("```json schema")[0], name


# --- the cache on disk ----------------------------------------------------------------------------

def test_a_solution_is_solved_once_then_read_from_disk(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from chasetheace.solver.solutions import cache

    rules = cta.Rules.preset("le-her").replace(announce_low=True)  # not shipped: solved here
    monkeypatch.setattr(cache, "_MEMORY", {})  # nothing solved by earlier tests in this process
    heard: list[tuple[str, float]] = []
    sol = solution_for(rules, 2, folder=tmp_path, progress=lambda t, f: heard.append((t, f)))
    path = cache_path(rules, 2, folder=tmp_path)
    assert path.is_file() and path.parent == tmp_path
    assert heard and heard[0][0].startswith("solving 2 players") and heard[-1][1] == 1.0
    monkeypatch.setattr(cache, "_MEMORY", {})
    monkeypatch.setattr(cache, "solve", lambda *a, **k: pytest.fail("solved again"))
    heard.clear()
    again = solution_for(rules, 2, folder=tmp_path, progress=lambda t, f: heard.append((t, f)))
    assert heard == [] and again.to_dict() == sol.to_dict()
    assert cache_path(rules, 3, folder=tmp_path) != path
    assert cache_path(rules.replace(ties="all-lose"), 2, folder=tmp_path) != path
    assert cache_path(rules.replace(lives=5), 2, folder=tmp_path) == path  # the same hands: one file


def test_the_tests_never_use_the_users_cache() -> None:
    import os

    from chasetheace.solver.solutions.cache import CACHE_ENV, cache_folder

    assert os.environ.get(CACHE_ENV) and cache_folder() == Path(os.environ[CACHE_ENV])


# --- the command line ----------------------------------------------------------------------------


def test_simulate_save_then_review(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                   tmp_path: Path) -> None:
    record = tmp_path / "sim.json"
    status, _, err = _run(monkeypatch, capsys, ["simulate", "--players", "3", "--bot", "threshold:2",
                                                "--games", "2", "--save", str(record), "--json"])
    assert status == 0, err
    game = cta.Game.from_record(json.loads(record.read_text()))
    assert game.over
    status, out, err = _run(monkeypatch, capsys, ["review", str(record), "--json"])
    assert status == 0, err
    data = json.loads(out)
    _check(data, _schema())
    assert len(data["decisions"]) == sum(s["decisions"] for s in data["summary"]) > 0
    status, out, _ = _run(monkeypatch, capsys, ["review", str(record), "--seat", "2"])
    assert status == 0
    assert "accuracy" in out and "Ann " not in out.split("accuracy")[1]


@pytest.mark.parametrize("argv, message", [
    (["review", "{missing}"], "No such file"),
    (["review", "{notjson}"], "is not JSON"),
    (["review", "{record}", "--seat", "9"], "bad seat 9"),
    (["review", "{other}"], "not a game record"),
    (["review", "{binary}"], "binary.json is not a game record: it is not text"),
])
def test_review_mistakes_are_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                      tmp_path: Path, argv: list[str], message: str) -> None:
    game = stacked("Ac Kd 5h")
    game.act("swap")
    files = {"missing": tmp_path / "none.json", "notjson": tmp_path / "bad.json",
             "record": tmp_path / "rec.json", "other": tmp_path / "other.json",
             "binary": tmp_path / "binary.json"}
    files["notjson"].write_text("{oops")
    files["binary"].write_bytes(bytes(range(256)))
    files["record"].write_text(json.dumps(game.record()))
    files["other"].write_text(json.dumps({"format": "something else"}))
    names = {k: str(v) for k, v in files.items()}
    status, out, err = _run(monkeypatch, capsys, [a.format(**names) for a in argv])
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("chase-the-ace: error: ") and message in err


def test_play_with_hints(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                         tmp_path: Path) -> None:
    status, out, err = _run(monkeypatch, capsys, ["play", "--players", "3", "--seed", "5", "--hints",
                                                  "--bot", "threshold:8"], stdin="k\n" * 60)
    assert status == 0, err
    hints = re.findall(r"Hint: (.*)", out)
    assert hints and all("Keep: you lose this hand" in h and "Solver:" in h for h in hints)
    assert sum(out.count(q) for q in ("keep or swap?", "keep or cut?", "keep or take?")) == len(hints)


def test_h_asks_for_a_hint(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main is not None
    from chasetheace.cli.play import parse_answer

    assert parse_answer("h") == "hint" and parse_answer("hint") == "hint" and parse_answer("?") == "help"
    status, out, _ = _run(monkeypatch, capsys, ["play", "--players", "3", "--seed", "5",
                                                "--bot", "threshold:8"], stdin="h\nq\n")
    assert status == 0
    assert out.count("Hint: ") == 1


# --- Ace Chasing: the bets against the odds (the exchanges: tests/test_review_ace.py) -------------

@pytest.mark.parametrize("seed", range(1, 6))
def test_ace_chasing_bets_are_judged_by_the_odds(seed: int) -> None:
    from chasetheace.acechasing.bots import knockout_chance
    from chasetheace.acechasing.review import review_ace_chasing

    game = cta.AceChasingGame(5, seed=seed)
    bots = [cta.make_ace_chasing_bot(s) for s in ("odds", "random", "random", "threshold:9", "odds")]
    cta.play_ace_chasing_game(game, bots, seed=seed)
    rec = review_ace_chasing(json.loads(json.dumps(game.record())))
    assert rec.complete
    seen: list[float] = []
    replay = cta.AceChasingGame.from_record(
        game.record(), visit=lambda g, m: seen.append(knockout_chance(g.observation(g.to_act))))
    assert replay.over and [d.knockout_chance for d in rec.decisions] == seen
    for i, d in enumerate(rec.decisions):
        p = d.knockout_chance
        if d.action == "offer" and d.amount > 0:
            assert d.against_the_odds == (p < 0.5)
            accepted = rec.decisions[i + 1].action == "accept"
            assert d.cost == pytest.approx(d.amount * (1 - 2 * p) if accepted and p < 0.5 else 0.0)
        elif d.action == "accept":
            assert d.against_the_odds == (p > 0.5)
            assert d.cost == pytest.approx(max(0.0, d.amount * (2 * p - 1)))
        elif d.exchange:  # judged by the chance of being knocked out (tests/test_review_ace.py)
            assert d.judged and d.cost >= 0 and d.out_if_keep is not None
        else:
            assert not d.judged and d.cost == 0.0 and not d.against_the_odds
    total = sum(s["money_given_away"] for s in rec.summary())
    assert total == pytest.approx(sum(d.cost for d in rec.decisions if not d.exchange), abs=1e-5)


def test_the_random_bettors_give_money_away_and_the_cli_says_so(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    game = cta.AceChasingGame(5, seed=1)
    bots = [cta.make_ace_chasing_bot(s) for s in ("odds", "random", "random", "threshold:9", "odds")]
    cta.play_ace_chasing_game(game, bots, seed=1)
    path = tmp_path / "ace.json"
    path.write_text(json.dumps(game.record()))
    status, out, err = _run(monkeypatch, capsys, ["review", str(path), "--json"])
    assert status == 0, err
    data = json.loads(out)
    assert data["game"] == "ace-chasing"
    assert sum(s["money_given_away"] for s in data["summary"]) > 0
    bad = [d for d in data["decisions"] if d["against_the_odds"] and d["cost"] > 0]
    assert bad and {d["role"] for d in bad} <= {"bettor", "matador"}
    status, out, err = _run(monkeypatch, capsys, ["review", str(path), "--seat", "1"])
    assert status == 0 and "money given away" in out
    status, _, err = _run(monkeypatch, capsys, ["review", str(path), "--seat", "5"])
    assert status == 2 and "bad seat 5" in err


def test_beyond_five_players_the_best_available_solution_says_how_good_it_is(tmp_path: Path) -> None:
    heard: list[str] = []
    rules = cta.Rules(ties="eldest-loses")  # not a table shipped solved: solved here
    sol = solution_for(rules, 6, folder=tmp_path, progress=lambda t, f: heard.append(t))
    assert sol.method in ("iid", "sampled") and sol.nash_conv > 0  # not the exact tree: approximate
    assert "approximately" in heard[0] and "perfect play" in heard[-1]
    game = cta.Game(rules, players=6, seed=1)
    h = hint(game.observation(game.to_act), sol)
    if sol.method == "iid":  # the model's figure is no distance in the true game: not given as one
        assert "approximate: distance from perfect play not measured in the true game" in h.text()
        assert "within" not in h.text()
    else:
        assert "approximate: about 0." in h.text() and "lives from perfect play" in h.text()
    assert "NashConv" not in h.text()


def test_situations_a_solution_never_met_are_judged_by_similar_ones(solutions: dict[int, Solution]) -> None:
    data = solutions[3].to_dict()
    keep = [i for i, key in enumerate(data["infosets"]) if key[0] != 2]  # forget the dealer's situations
    for name in ("infosets", "keep", "reach", "values", "chances"):
        data[name] = [data[name][i] for i in keep]
    partial = Solution.from_dict(data)
    bots = [cta.make_bot("threshold:8", RULES, 3) for _ in range(3)]
    game = _play(cta.Game(RULES, players=3, seed=2), bots, 2)
    full = review(game.record(), solutions=_provider(solutions))
    rec = review(game.record(), solutions=_provider({**solutions, 3: partial}))
    dealer_3 = [d.index for d in full.decisions if d.hint.players == 3 and d.hint.dealer]
    assert dealer_3 and rec.unjudged == 0 and len(rec.decisions) == len(full.decisions)
    assert [d.index for d in rec.decisions if d.hint.generalised] == dealer_3
    assert rec.generalised == len(dealer_3) and rec.to_dict()["generalised"] == len(dealer_3)
    assert "judged by the figures of similar situations" in rec.text()
    for d in rec.decisions:
        if d.hint.generalised:
            assert "never met" in d.hint.text() and d.to_dict()["generalised"] is True
            assert 0 <= d.hint.lose_if_keep <= 1 and 0 <= d.hint.lose_if_swap <= 1


def test_a_solution_in_memory_and_read_from_its_file_see_the_same_similar_situations(tmp_path: Path) -> None:
    import numpy as np

    # the features of similar situations (the history's last token, its swaps), worked out per
    # history in memory and over the history tree in a file, per situation alike
    sol = solve(cta.Rules(ties="eldest-loses"), 7, method="sampled", iterations=2, exact_check=False)
    sol.save(str(tmp_path / "s.npz"))
    read = Solution.load(str(tmp_path / "s.npz"))
    mine, theirs = sol._columns(), read._columns()
    assert read.infosets == sol.infosets and len(mine["last"]) == len(sol.infosets)
    assert [k[1][-1] if k[1] else "" for k in sol.infosets] == [
        mine["names"][i] if i >= 0 else "" for i in mine["last"].tolist()] == [
        theirs["names"][i] if i >= 0 else "" for i in theirs["last"].tolist()]
    assert mine["swaps"].tolist() == theirs["swaps"].tolist() == [
        sum(1 for x in k[1] if x.startswith("s")) for k in sol.infosets]
    bare = sol._columns(features=False)  # what keep_by_card needs: the rest alike
    assert "last" not in bare and all(np.array_equal(bare[k], mine[k]) for k in bare)
    np.testing.assert_array_equal(sol.keep_by_card(), read.keep_by_card())
