"""Solutions on disk in the compact binary form: exact round trips, size, versions refused, users."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("numpy")
pytest.importorskip("scipy")

import numpy as np

import chasetheace as cta
from chasetheace import cli
from chasetheace.solver import Solution
from chasetheace.solver.model.hand import InfoKey
from chasetheace.solver.solutions import cache
from chasetheace.solver.solutions.packed import BINARY_FORMAT, BINARY_VERSION, is_binary
from chasetheace.web.botkinds import WebBots


@pytest.fixture(scope="module")
def four() -> Solution:
    return cta.solve(cta.Rules(), players=4)


@pytest.mark.parametrize("rules, players", [(cta.Rules.preset("le-her"), 2),
                                            (cta.Rules(kings_jerk=True, pairing=True), 3),
                                            (cta.Rules(announce_low=True), 3)])
def test_a_solution_reads_back_exactly_from_the_binary_form(rules: cta.Rules, players: int,
                                                              tmp_path: Path) -> None:
    sol = cta.solve(rules, players=players)
    path = tmp_path / "sol.npz"
    sol.save(str(path))
    assert is_binary(str(path))
    back = Solution.load(str(path))
    assert back.to_dict() == sol.to_dict()  # every figure, exact fractions and kings_jerk tokens too
    assert back.infosets == sol.infosets and back.value == sol.value


def test_the_binary_form_is_a_tenth_of_the_json_or_less(four: Solution, tmp_path: Path) -> None:
    sol = four
    sol.save(str(tmp_path / "four.json"))
    sol.save(str(tmp_path / "four.npz"))
    small, big = (tmp_path / "four.npz").stat().st_size, (tmp_path / "four.json").stat().st_size
    assert small * 10 <= big, (small, big)
    assert json.loads((tmp_path / "four.json").read_text())["format"] == "chase-the-ace solution 1"
    with np.load(tmp_path / "four.npz", allow_pickle=False) as z:  # numpy alone reads it
        assert len(z["keep"]) == len(sol.infosets) and z["values"].shape == (len(sol.infosets), 2)


def _with_version(source: Path, target: Path, version: object) -> None:
    """A copy of the binary solution ``source`` whose meta says another format version."""
    with np.load(source, allow_pickle=False) as z:
        arrays = {name: z[name] for name in z.files}
    meta = json.loads(str(arrays["meta"][()]))
    meta["version"] = version
    arrays["meta"] = np.array(json.dumps(meta))
    with open(target, "wb") as f:
        np.savez_compressed(f, **arrays)


def test_a_file_of_another_version_or_broken_is_refused(four: Solution, tmp_path: Path) -> None:
    good = tmp_path / "good.npz"
    four.save(str(good))
    _with_version(good, tmp_path / "old.npz", BINARY_VERSION - 1)
    with pytest.raises(ValueError, match=f"format version {BINARY_VERSION - 1}"):
        Solution.load(str(tmp_path / "old.npz"))
    (tmp_path / "cut.npz").write_bytes(good.read_bytes()[:5000])
    with pytest.raises(ValueError, match="bad solution file"):
        Solution.load(str(tmp_path / "cut.npz"))
    with zipfile.ZipFile(tmp_path / "other.npz", "w") as z:
        z.writestr("meta.npy", b"not numpy")
    with pytest.raises(ValueError):
        Solution.load(str(tmp_path / "other.npz"))
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="not a chase-the-ace solution"):
        Solution.load(str(tmp_path / "bad.json"))
    assert BINARY_FORMAT in str(np.load(good)["meta"][()])


def test_the_cache_writes_the_binary_form_and_solves_again_over_another_version(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = cta.Rules.preset("le-her").replace(announce_low=True)  # not shipped: solved here
    monkeypatch.setattr(cache, "_MEMORY", {})
    sol = cache.solution_for(rules, 2, folder=tmp_path)
    path = cache.cache_path(rules, 2, folder=tmp_path)
    assert path.suffix == ".npz" and is_binary(str(path))
    _with_version(path, path, BINARY_VERSION + 1)  # a file another version of the program wrote
    monkeypatch.setattr(cache, "_MEMORY", {})
    assert cache.cached(rules, 2, folder=tmp_path) is None  # never misread
    heard: list[str] = []
    again = cache.solution_for(rules, 2, folder=tmp_path, progress=lambda t, f: heard.append(t))
    assert heard and heard[0].startswith("solving") and again.keep == sol.keep
    assert Solution.load(str(path)).to_dict() == again.to_dict()  # rebuilt in this version


def test_an_old_json_cache_file_is_never_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = cta.Rules.preset("le-her").replace(announce_low=True)  # not shipped: solved here
    monkeypatch.setattr(cache, "_MEMORY", {})
    sol = cta.solve(rules, 2)
    for version in (cache.SOLVER_VERSION - 1, cache.SOLVER_VERSION):  # as earlier versions named them
        old = cache.cache_path(rules, 2, folder=tmp_path).with_name(
            f"v{version}-2p-{cache.cache_path(rules, 2, folder=tmp_path).stem.split('-')[-1]}.json")
        sol.save(str(old))
    assert cache.cached(rules, 2, folder=tmp_path) is None
    heard: list[str] = []
    cache.solution_for(rules, 2, folder=tmp_path, progress=lambda t, f: heard.append(t))
    assert heard and cache.cache_path(rules, 2, folder=tmp_path).is_file()


def test_solve_save_writes_binary_or_json_by_the_name(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("le-her.npz", "le-her.json"):
        assert cli.main(["solve", "--preset", "le-her", "--players", "2", "--quiet",
                         "--save", str(tmp_path / name)]) == 0
    assert is_binary(str(tmp_path / "le-her.npz")) and not is_binary(str(tmp_path / "le-her.json"))
    a, b = (Solution.load(str(tmp_path / name)) for name in ("le-her.npz", "le-her.json"))
    assert a.infosets == b.infosets and a.exact_keep == b.exact_keep and a.value == b.value


def test_a_solutions_file_of_another_version_or_rules_is_one_error_line(
        four: Solution, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "four.npz"
    four.save(str(good))
    _with_version(good, tmp_path / "old.npz", BINARY_VERSION - 1)
    for path, words in ((tmp_path / "old.npz", "format version"), (good, "other rules")):
        capsys.readouterr()
        preset = "standard" if path != good else "cuckoo"
        assert cli.main(["simulate", "--games", "2", "--players", "4", "--preset", preset,
                         "--bot", f"solved:{path}"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("chase-the-ace: error:") and words in err[0], err


def test_the_web_table_reads_binary_solutions_and_names_an_old_one(four: Solution, tmp_path: Path) -> None:
    folder = tmp_path / "solutions"
    folder.mkdir()
    four.save(str(folder / "standard-4.npz"))
    (folder / ".solving-x.npz").write_bytes(b"PK half")  # the cache still writing: not looked at
    bots = WebBots.from_folder(str(folder))
    assert set(bots.prepared(cta.Rules())) == {4}
    _with_version(folder / "standard-4.npz", folder / "old.npz", BINARY_VERSION - 1)
    with pytest.raises(ValueError, match=r"old\.npz.*format version"):
        WebBots.from_folder(str(folder))


# --- every situation has figures -------------------------------------------------------------------

@pytest.fixture(scope="module")
def twelve() -> Solution:
    """A sampled solution at 12 players, trained briefly: many situations never met."""
    return cta.solve(cta.Rules(), 12, method="sampled", iterations=2, seed=1)


def test_every_situation_at_a_big_table_gets_a_hint(twelve: Solution, tmp_path: Path) -> None:
    import math
    import random

    from chasetheace.solver.uses.advice import hint

    sol = Solution.load(_saved(twelve, tmp_path))  # as the cache gives it
    generalised = asked = 0
    for seed in range(12):
        game = cta.Game(sol.rules, players=12, seed=seed)
        choices = random.Random(seed)
        while not game.over and len(game.observation(0)["order"]) == 12:
            obs = game.observation(game.to_act)
            h = hint(obs, sol)
            asked += 1
            generalised += h.generalised
            assert all(math.isfinite(x) for x in (h.lives_if_keep, h.lives_if_swap, h.lose_if_keep,
                                                     h.lose_if_swap))
            assert h.call in ("keep", "swap", "either") and 0 <= h.keep_probability <= 1
            probs = sol.action_probabilities(obs)
            assert probs["keep"] == h.keep_probability
            game.act(choices.choice(["keep", "swap"]))
    assert asked > 100 and generalised > 0, (asked, generalised)


def _saved(sol: Solution, tmp_path: Path) -> str:
    path = str(tmp_path / f"{sol.players}.npz")
    sol.save(path)
    return path


def test_figures_of_a_situation_met_are_its_own_and_of_one_never_met_are_of_similar_ones(
        twelve: Solution) -> None:
    met = next(i for i, r in enumerate(twelve.reach) if r > 0)
    own = twelve.figures(twelve.infosets[met])
    assert not own.generalised and own.values == twelve.values[met] and own.situations == 1
    position, history, card, given = twelve.infosets[met]
    unseen = (position, (*history, "k", "k", "k"), card, given)  # a history no hand has
    assert not twelve.knows(unseen)
    far = twelve.figures(unseen)
    assert far.generalised and far.situations >= 1 and far.keep == twelve.played_keep(unseen)


def test_a_solution_read_from_a_file_answers_from_its_arrays_as_the_one_in_memory(
        twelve: Solution, tmp_path: Path) -> None:
    import random

    sol = Solution.load(_saved(twelve, tmp_path))
    choices = random.Random(3)
    keys = choices.sample(twelve.infosets, 200)
    for position, history, card, given in keys[:100]:  # and situations never met, or that cannot be
        keys += [(position, (*history, "k"), card, given), (position, history, (card + 5) % 13, given),
                 (position, history[:-1], card, -1), (position, (*history, "s9", "b"), card, given)]
    for key in keys:
        assert sol.knows(key) == twelve.knows(key)
        assert sol.played_keep(key) == twelve.played_keep(key)
        assert sol.figures(key) == twelve.figures(key)  # generalised ones too: the same sums
    np.testing.assert_array_equal(sol.keep_by_card(), twelve.keep_by_card())  # NaN: never met
    # the file's arrays answered: no table was spelled out as Python objects
    assert not {"infosets", "keep", "reach", "values"} & set(vars(sol))
    assert sol.infosets == twelve.infosets and sol.values == twelve.values  # spelled out when read
    assert sol.chances == twelve.chances and sol.keep == twelve.keep


# --- a table no method solves -------------------------------------------------------------------------

def test_the_sampled_limit_is_the_one_the_table_quotes() -> None:
    from chasetheace.solver.methods.sampled import MAX_PLAYERS
    from chasetheace.solver.solutions.choice import MAX_SAMPLED_PLAYERS, MAX_TABLE_PLAYERS, check_players

    assert MAX_SAMPLED_PLAYERS == MAX_PLAYERS == MAX_TABLE_PLAYERS
    check_players(cta.Rules(), MAX_TABLE_PLAYERS)
    with pytest.raises(ValueError, match="no method solves 22 players"):
        check_players(cta.Rules(), MAX_TABLE_PLAYERS + 1)


def test_a_table_too_large_is_one_error_line_before_any_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    monkeypatch.setattr(cache, "solve", lambda *a, **k: pytest.fail("solving started"))
    game = cta.Game(cta.Rules(), players=25, seed=1)
    rng = random.Random(1)
    while game.to_act is not None:
        game.act(rng.choice(["keep", "swap"]))
    record = tmp_path / "g25.json"
    record.write_text(json.dumps(game.record()))
    commands = (["solve", "--players", "25"], ["solve", "--players", "60"],
                ["solve", "--players", "12", "--method", "iid"],
                ["review", str(record)], ["simulate", "--players", "25", "--games", "1", "--bot", "solved"],
                ["play", "--players", "25", "--hints"])
    for argv in commands:
        capsys.readouterr()
        assert cli.main(argv) == 2, argv
        captured = capsys.readouterr()
        err = captured.err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("chase-the-ace: error:"), (argv, err)
        assert "Hand" not in captured.out, argv  # no game was dealt


# --- solutions shipped with the package ---------------------------------------------------------------

def test_the_shipped_solutions_are_those_of_this_version() -> None:
    from chasetheace.solver.guide.prepare import expected_files

    shipped = {p.name for p in cache.PREPARED.glob("*.npz")}
    assert shipped == expected_files(), "run: python -m chasetheace.solver.guide.prepare"
    total = sum(p.stat().st_size for p in cache.PREPARED.glob("*.npz"))
    assert total < 40e6  # the wheel stays small
    for n in (2, 6):
        sol = Solution.load(str(cache.prepared_path(cta.Rules(), n)))
        assert sol.rules == cta.Rules() and sol.players == n


def test_the_shipped_tables_at_the_edge_of_iid_are_solved_by_the_method_solving_ahead_chooses() -> None:
    """Up to AHEAD_IID_PLAYERS the shipped tables are ``iid`` where the rules allow it, above it the
    sampled method, and from SUMMARY_PLAYERS the summary learner for its budget: a file solved
    before a limit moved is solved again by ``prepare``."""
    from chasetheace.solver.guide import prepare
    from chasetheace.solver.solutions.choice import SUMMARY_PLAYERS, summary_batches

    edge = (cache.AHEAD_IID_PLAYERS, cache.AHEAD_IID_PLAYERS + 1, SUMMARY_PLAYERS)
    for preset, n in prepare.tables(players=edge):
        rules = cta.Rules.preset(preset)
        sol = Solution.load(str(cache.prepared_path(rules, n)))
        iid = n <= cache.AHEAD_IID_PLAYERS and not (rules.pairing or rules.kings_jerk)
        method = "summary" if n >= SUMMARY_PLAYERS else "iid" if iid else "sampled"
        if (preset, n) in prepare.TRUE_NOW:
            method = "dcfr"
        assert sol.method == method, (preset, n, sol.method)
        assert sol.iterations == summary_batches(n) or method != "summary"
        # shipped before the current refinement schedule or solving in the true game: prepare knows
        # to solve it again
        again = (preset, n) in prepare.REFINE_AGAIN | prepare.TRUE_AGAIN
        assert prepare._ships(cache.prepared_path(rules, n), rules, n) != again, (preset, n)
    assert not prepare._ships(cache.prepared_path(cta.Rules(), edge[0]), cta.Rules(), edge[1])
    ten = cache.prepared_path(cta.Rules(), SUMMARY_PLAYERS)
    assert not prepare._ships(ten, cta.Rules(), SUMMARY_PLAYERS - 1)
    for preset, n in prepare.tables(players=range(SUMMARY_PLAYERS, 21)):  # every big table, as said
        sol = Solution.load(str(cache.prepared_path(cta.Rules.preset(preset), n)))
        assert sol.method == "summary" and sol.iterations == summary_batches(n), (preset, n)
        assert (sol.refined == prepare._refinement(n)) == ((preset, n) in prepare.REFINED_NOW), (preset, n)
        assert ((preset, n) in prepare.REFINE_AGAIN) != ((preset, n) in prepare.REFINED_NOW), (preset, n)


def test_the_true_game_tables_are_solved_and_measured_in_the_true_game() -> None:
    """From 8 players the tables whose rules the exact tree can start from the ``iid`` strategy are
    solved by CFR on the exact tree in parts (``prepare.TRUE_GAME``): those shipped so
    (``prepare.TRUE_NOW``) carry an exact NashConv of the true game within the goal of a thousandth
    of a life, and their hints say so."""
    from chasetheace.solver.guide import prepare
    from chasetheace.solver.solutions.solution import perfect_play_text
    from chasetheace.solver.solutions.solving import disagreeing

    assert {("standard", 9), ("cuckoo", 9), ("chase-the-ace", 9)} <= prepare.TRUE_GAME
    assert prepare.TRUE_NOW <= prepare.TRUE_GAME and not prepare.TRUE_NOW & prepare.TRUE_AGAIN
    for preset, n in prepare.TRUE_GAME:
        rules = cta.Rules.preset(preset)
        assert not (rules.pairing or rules.kings_jerk) and n in prepare.TRUE_PLAYERS
        sol = Solution.load(str(cache.prepared_path(rules, n)))
        shipped = prepare._ships(cache.prepared_path(rules, n), rules, n)
        assert shipped == ((preset, n) in prepare.TRUE_NOW), (preset, n)
        if (preset, n) in prepare.TRUE_NOW:
            assert sol.method == "dcfr" and sol.measured == "exact", (preset, n)
            assert sol.iterations == prepare.TRUE_ITERATIONS
            assert 0 <= sol.nash_conv <= 1e-3, (preset, n, sol.nash_conv)
            assert abs(sum(sol.gains) - sol.nash_conv) < 1e-9
            assert "(exact)" in perfect_play_text(sol.nash_conv, sol.measured)
            # after the agree pass, the bot plays an action its own figures (the hint's) call worse
            # by more than a hundredth of a life in under a thousandth of the situations met
            wrong = disagreeing(sol, 0.01)
            assert sum(sol.reach[i] for i in wrong) < 1e-3 * sum(sol.reach), (preset, n, len(wrong))
        else:
            assert sol.method == "iid" and sol.measured == "abstract", (preset, n)


def test_the_summary_tables_look_a_situation_up_by_its_summary(tmp_path: Path) -> None:
    """A shipped table of the summary learner answers every situation of the full game by its
    summary: two histories with the same turns in another order get the same strategy and figures."""
    from chasetheace.solver.methods.sampled import summary_key
    from chasetheace.solver.solutions.choice import SUMMARY_PLAYERS

    sol = Solution.load(str(cache.prepared_path(cta.Rules(), SUMMARY_PLAYERS)))
    assert sol.method == "summary"
    met = 0
    for i, key in enumerate(sol.infosets[:3000]):
        assert summary_key(key) == key
        t, history, card, given = key
        if len(set(history)) > 1:
            turned = (t, tuple(reversed(history)), card, given)
            assert sol.played_keep(turned) == sol.keep[i] and sol.index_of(turned) == i
            if sol.has_figures(i):  # met in its estimate: its own figures
                assert sol.figures(turned).values == sol.figures(key).values
                met += 1
    assert met > 100


@pytest.mark.parametrize("preset", [p.name for p in cta.PRESETS])
def test_every_named_preset_ships_every_table_size(preset: str) -> None:
    """A first hint at a named preset reads a shipped solution (benchmarks/first_hint.py times it:
    within 5 s from a cold cache), at every size it is played at, 2 to 20 players."""
    from chasetheace.solver.guide.prepare import PENDING, PLAYERS

    info = cta.preset_info(preset)
    rules = info.rules
    sizes = PLAYERS if info.players is None else [info.players]
    pending = {(cache.hand_rules(cta.Rules.preset(p)), n) for p, n in PENDING}
    missing = [n for n in sizes if not cache.prepared_path(rules, n).is_file()
               and (cache.hand_rules(rules), n) not in pending]
    assert missing == [], "run: python -m chasetheace.solver.guide.prepare"


def test_presets_alike_in_their_hands_share_one_solution(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "_MEMORY", {})
    monkeypatch.setattr(cache, "solve", lambda *a, **k: pytest.fail("solved a shipped table"))
    standard = cta.Rules()
    for name in ("hoffmann-1891", "knockout", "hoyle", "screw-your-neighbour"):
        rules = cta.Rules.preset(name)
        assert rules != standard and cache.hand_rules(rules) == standard
        assert cache.cache_path(rules, 9, folder=tmp_path) == cache.cache_path(standard, 9, folder=tmp_path)
        sol = cache.solution_for(rules, 6, folder=tmp_path)
        assert sol.rules == rules and sol.players == 6  # it speaks of the rules asked for
    assert cache.solution_for(standard, 6, folder=tmp_path).rules == standard
    other = cta.Rules(ties="eldest-loses", lives=4)
    assert cache.cache_path(other, 9, folder=tmp_path) != cache.cache_path(standard, 9, folder=tmp_path)


def test_a_compact_solution_reads_back_in_another_order_to_7_digits(four: Solution, tmp_path: Path) -> None:
    from chasetheace.solver.solutions.packed import write_npz

    path = tmp_path / "compact.npz"
    write_npz(four, str(path), compact=True)
    back = Solution.load(str(path))
    assert sorted(back.infosets) == sorted(four.infosets) and back.infosets != four.infosets
    for key in four.infosets:
        i, j = four.index_of(key), back.index_of(key)
        assert i is not None and j is not None
        assert back.keep[j] == pytest.approx(four.keep[i], rel=1e-6, abs=1e-7)
        assert back.values[j] == pytest.approx(four.values[i], rel=1e-6, abs=1e-7)
    assert back.to_dict(tables=False) == four.to_dict(tables=False)
    write_npz(back, str(tmp_path / "again.npz"), compact=True)  # written again: the same solution
    assert Solution.load(str(tmp_path / "again.npz")).to_dict() == back.to_dict()


def test_a_shipped_solution_is_used_without_solving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chasetheace.solver.guide.prepare import PLAYERS

    monkeypatch.setattr(cache, "_MEMORY", {})
    monkeypatch.setattr(cache, "solve", lambda *a, **k: pytest.fail("solved a shipped table"))
    n = PLAYERS[-1]
    assert cache.is_cached(cta.Rules(), n, folder=tmp_path)
    heard: list[str] = []
    sol = cache.solution_for(cta.Rules(), n, folder=tmp_path, progress=lambda t, f: heard.append(t))
    assert sol.players == n and heard == [] and not list(tmp_path.iterdir())  # nothing copied
    assert not cache.is_cached(cta.Rules(ties="eldest-loses"), n, folder=tmp_path)  # other rules: solved


def test_prepare_again_solves_a_table_afresh_where_a_file_of_this_version_ships(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``--again`` a file of this version is kept as it is; with it the table is solved
    again, neither that file nor the solution cache's copy read (a change to the solve that keeps
    the version, such as the agree step, reaches the shipped files)."""
    from chasetheace.solver.guide import prepare

    monkeypatch.setattr(cache, "_MEMORY", {})
    folder, solved = tmp_path / "shipped", tmp_path / "cache"
    [path] = prepare.prepare(["standard"], [3], folder=folder, solved=str(solved))
    stale = Solution.load(str(path))
    stale.keep = [1.0 - k for k in stale.keep]  # a strategy no solve gives
    cache.save_solution(stale, path, compact=True)
    cache.save_solution(stale, cache.cache_path(cta.Rules(), 3, folder=solved))
    written = path.read_bytes()
    assert prepare.prepare(["standard"], [3], folder=folder, solved=str(solved)) == [path]
    assert path.read_bytes() == written  # kept: this version's file ships
    prepare.prepare(["standard"], [3], folder=folder, solved=str(solved), again=True)
    fresh = cta.solve(cta.Rules(), 3)
    in_cache = cache.cache_path(cta.Rules(), 3, folder=solved)
    def fresh_keep(key: InfoKey) -> float:
        at = fresh.index_of(key)
        assert at is not None
        return fresh.keep[at]

    for sol in (Solution.load(str(path)), Solution.load(str(in_cache))):
        assert sol.keep == pytest.approx([fresh_keep(k) for k in sol.infosets], abs=1e-6)
    asked: list[dict[str, object]] = []

    def record(*args: object, **options: object) -> list[object]:
        asked.append(options)
        return []

    monkeypatch.setattr(prepare, "prepare", record)
    assert prepare.main(["--preset", "standard", "--players", "3", "--again"]) == 0
    assert prepare.main(["--preset", "standard", "--players", "3"]) == 0
    assert [k["again"] for k in asked] == [True, False]


def test_prepare_refines_the_summary_learner_and_solves_a_table_again_when_its_refinement_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """From SUMMARY_PLAYERS ``prepare`` trains the summary learner, then refines it (here a budget
    made small), in a checkpoint folder named for the refinement; the file says how it was made, and
    a file made with another refinement than now's is solved again."""
    from chasetheace.solver.guide import prepare
    from chasetheace.solver.solutions.choice import SUMMARY_PLAYERS

    monkeypatch.setattr(prepare, "summary_batches", lambda n: 2)
    monkeypatch.setattr(prepare, "refine_passes", lambda n: 1)
    monkeypatch.setattr(prepare, "REFINE_HANDS", 3000)
    folder, solved = tmp_path / "shipped", tmp_path / "cache"
    n = SUMMARY_PLAYERS
    [path] = prepare.prepare(["standard"], [n], folder=folder, solved=str(solved))
    sol = Solution.load(str(path))
    assert sol.method == "summary" and sol.iterations == 2 and sol.refined == (1, 3000)
    assert sol.method_text == "summary (2 mini-batches of 2,000 hands, then 1 refinement pass of 3,000 hands)"
    assert (solved / f"prepare-{path.stem}-refine1x3000" / "learner.npz").is_file()
    assert prepare._ships(path, cta.Rules(), n)
    direct = cta.solve(cta.Rules(), n, method="summary", iterations=2, exact_check=False, refine=1,
                       refine_hands=3000)
    assert sorted(sol.infosets) == sorted(direct.infosets)  # the compact file sorts them by history
    assert sol.keep == pytest.approx([direct.keep_probability(k) for k in sol.infosets], abs=1e-6)
    monkeypatch.setattr(prepare, "refine_passes", lambda n: 2)
    assert not prepare._ships(path, cta.Rules(), n)  # another refinement now: solved again
    prepare.prepare(["standard"], [n], folder=folder, solved=str(solved))
    assert Solution.load(str(path)).refined == (2, 3000)
