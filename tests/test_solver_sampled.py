"""The sampled method against the exact tree on three players; and its use for many players."""

from __future__ import annotations

from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("scipy")

import chasetheace as cta  # noqa: E402
from chasetheace.solver import SolvedBot  # noqa: E402
from chasetheace.solver.methods.cfr import Engine  # noqa: E402
from chasetheace.solver.model.hand import Hand  # noqa: E402
from chasetheace.solver.model.tree import Tree  # noqa: E402


@pytest.mark.parametrize("changes", [{}, {"pairing": True}, {"kings_jerk": True},
                                     {"pairing": True, "kings_jerk": True, "blocker": "none"}])
def test_sampled_estimates_bracket_the_exact_nash_conv(changes: dict[str, object]) -> None:
    from chasetheace.solver.methods.sampled import SampledSolver

    rules = cta.Rules().replace(**changes)
    solver = SampledSolver(Hand(rules, 3), seed=3)
    solver.train(40)
    keys = solver.infosets()
    keep_of = dict(zip(keys, solver.sigma(np.arange(len(keys)), average=True).tolist()))
    est = solver.estimate(20_000)
    engine = Engine(Tree(Hand(rules, 3)))
    assert set(keys) <= set(engine.tree.infosets)  # the same information sets, as the exact tree names them
    keep = np.array([keep_of.get(k, 0.5) for k in engine.tree.infosets])
    sigma = np.c_[keep, 1 - keep]
    passes = engine.evaluate(sigma, table=True)
    exact = float(engine.gains(sigma, passes.cfv).sum())
    # the plain estimate is biased upwards, the cross-fitted one downwards (both in expectation)
    assert exact < 0.02
    assert est.nash_conv_low - 5 * est.nash_conv_error <= exact <= est.nash_conv + 5 * est.nash_conv_error
    assert est.nash_conv_low <= est.nash_conv
    for p, q, err in zip(est.losses, passes.losses, est.losses_error):
        assert abs(p - q) < 5 * err + 1e-9


def test_sampled_solution_is_measured_exactly_where_the_tree_fits() -> None:
    rules = cta.Rules()
    sol = cta.solve(rules, 3, method="sampled", iterations=40, seed=3)
    assert sol.nash_conv_error is None and sol.nash_conv_low is None
    engine = Engine(Tree(Hand(rules, 3)))
    keep = np.array([sol.played_keep(k) for k in engine.tree.infosets])
    sigma = np.c_[keep, 1 - keep]
    passes = engine.evaluate(sigma, table=True)
    assert sol.nash_conv == pytest.approx(float(engine.gains(sigma, passes.cfv).sum()), abs=1e-12)
    assert sol.loss_probabilities == pytest.approx(passes.losses.tolist(), abs=1e-12)
    assert 0 < sol.nash_conv < 0.02
    from chasetheace.solver.uses.explain import nash_conv_text

    assert sol.nash_conv_kind == "exact" and "exact, a best response in the true game" in nash_conv_text(sol)


def test_many_players_solve_and_play() -> None:
    sol = cta.solve(cta.Rules.preset("chase-the-ace"), 9, method="sampled", iterations=3, seed=1)
    assert sol.players == 9 and len(sol.loss_probabilities) == 9
    assert 1 <= sum(sol.loss_probabilities) < 2
    from chasetheace.solver.uses.explain import nash_conv_text

    # the solve's words say which figure is which: an estimate here, not exact, not a bound
    assert sol.nash_conv_kind == "estimate" and sol.to_dict()["nash_conv_kind"] == "estimate"
    assert "neither exact nor a proved bound" in nash_conv_text(sol)
    game = cta.Game(sol.rules, players=9, seed=4)
    bot = SolvedBot.of(sol)
    rng = __import__("random").Random(4)
    while game.hand == 1 and game.to_act is not None:
        game.act(bot.choose(game.observation(game.to_act), game.legal_actions(), rng))
    assert game.hand > 1 or game.over


def test_sampled_is_deterministic_given_the_seed() -> None:
    a = cta.solve(cta.Rules(), 4, method="sampled", iterations=2, seed=9)
    b = cta.solve(cta.Rules(), 4, method="sampled", iterations=2, seed=9)
    assert a.keep == b.keep and a.loss_probabilities == b.loss_probabilities


@pytest.mark.parametrize("changes", [{"pairing": True}, {"ties": "latest-loses"}])
def test_sampled_showdown_agrees_with_the_rules(changes: dict[str, object]) -> None:
    from chasetheace.solver.methods.sampled import SampledSolver

    hand = Hand(cta.Rules(deck=32).replace(**changes), 7)
    solver = SampledSolver(hand, seed=5)
    state = solver.deal(3000)
    state.special[::2] = 3  # the dealer is immune in every other hand
    _, lost = solver.showdown(state)
    for row in range(len(lost)):
        immune = hand.players - 1 if state.special[row] == 3 else None
        losers = hand.showdown(state.cards[row].tolist(), immune)
        assert np.flatnonzero(lost[row]).tolist() == losers


def test_sampled_kings_jerk_keys_name_the_shown_kings() -> None:
    rules = cta.Rules(kings_jerk=True)
    sol = cta.solve(rules, 7, method="sampled", iterations=2, seed=2)
    assert all(key[1][0].startswith("J") and len(key[1][0]) == 8 for key in sol.infosets)
    assert any("1" in key[1][0] for key in sol.infosets)
    game = cta.Game(rules, players=7, seed=4)
    bot = SolvedBot.of(sol)
    rng = __import__("random").Random(4)
    while game.hand == 1 and game.to_act is not None:
        game.act(bot.choose(game.observation(game.to_act), game.legal_actions(), rng))
    assert game.hand > 1 or game.over


def _busy_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sampled method's clock, as on a machine so loaded that each batch takes 1,000 s."""
    import itertools
    import types

    from chasetheace.solver.methods import sampled

    ticks = itertools.count(0, 1000.0)
    monkeypatch.setattr(sampled, "time", types.SimpleNamespace(perf_counter=lambda: next(ticks)))


def test_sampled_trains_by_batches_never_by_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    quiet = cta.solve(cta.Rules(), 4, method="sampled", iterations=3, seed=9, exact_check=False)
    _busy_clock(monkeypatch)
    busy = cta.solve(cta.Rules(), 4, method="sampled", iterations=3, seed=9, exact_check=False)
    assert busy.iterations == quiet.iterations == 3
    assert busy.infosets == quiet.infosets and busy.keep == quiet.keep
    assert busy.nash_conv == quiet.nash_conv and busy.values == quiet.values


def test_the_cache_solves_the_same_sampled_strategy_at_any_load(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chasetheace.solver.solutions import cache, choice, solving

    assert choice.sampled_batches(12) == 84 and choice.sampled_batches(2) == 2000
    monkeypatch.setattr(solving, "sampled_batches", lambda players: 2)  # a small budget, for speed
    rules = cta.Rules(pairing=True)  # from 6 players the cache solves these rules by the sampled method
    quiet = cache.solution_for(rules, 6, folder=tmp_path / "quiet")
    _busy_clock(monkeypatch)
    cache._MEMORY.clear()
    busy = cache.solution_for(rules, 6, folder=tmp_path / "busy")
    assert busy.method == quiet.method == "sampled" and busy.iterations == quiet.iterations == 2
    assert busy.keep == quiet.keep and busy.nash_conv == quiet.nash_conv


def test_the_sampled_method_moves_the_progress_bar_after_each_batch() -> None:
    from chasetheace.solver.solutions.cache import _cfr_progress

    heard: list[tuple[str, float]] = []
    bar = _cfr_progress(lambda text, done: heard.append((text, done)), 1e-4, "sampled")
    cta.solve(cta.Rules(), 9, method="sampled", iterations=3, exact_check=False, on_check=bar)
    hands = 3 * 2000 + 20_000  # the training's, then the estimate's (in batches of 5,000)
    want = [2000 * k for k in (1, 2, 3)] + [6000 + 5000 * k for k in (1, 2, 3, 4)]
    assert [done for _, done in heard[:-1]] == pytest.approx([0.95 * h / hands for h in want])
    assert heard[2][0] == "training, batch 3 of 3"
    assert heard[-2][0] == "estimating its figures, 20,000 of 20,000 hands"
    text, done = heard[-1]  # then the solution's tables are built (the bar says so, not "solved")
    assert text.startswith("building the tables of ") and text.endswith(" situations") and done == 0.95


def test_at_the_table_8_players_are_sampled_and_ahead_solved_without_card_removal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chasetheace.solver.solutions import cache

    class Asked(Exception):
        pass

    methods: list[str] = []

    def solve(rules: cta.Rules, players: int, **options: object) -> None:
        methods.append(str(options["method"]))
        raise Asked

    monkeypatch.setattr(cache, "solve", solve)
    monkeypatch.setattr(cache, "_MEMORY", {})
    rules = cta.Rules(ties="eldest-loses")  # not shipped
    for iid_players in (cache.TABLE_IID_PLAYERS, cache.AHEAD_IID_PLAYERS):
        with pytest.raises(Asked):
            cache.solution_for(rules, 8, folder=tmp_path, iid_players=iid_players)
    with pytest.raises(Asked):
        cache.solution_for(rules, 7, folder=tmp_path)
    assert methods == ["sampled", "auto", "auto"]  # "auto": iid, the rules allowing it


def test_each_situation_is_numbered_by_its_own_key() -> None:
    from chasetheace.solver.methods.sampled import SampledSolver

    solver = SampledSolver(Hand(cta.Rules(kings_jerk=True, announce_low=True), 12), seed=2)
    solver.train(2)
    state = solver.deal(500)
    for t in range(solver.n):
        rows = solver.deciding(t, state)
        ids = solver.infoset_ids(t, state, rows, grow=False)
        for row, i in zip(rows.tolist(), ids.tolist()):
            key = (t, int(state.hist[row]), int(state.jerk[row]), int(state.cards[row, t]),
                   int(state.given[row]))
            assert i == solver.index.get(key, -1) and (i < 0 or solver.keys[i] == key)
        solver.act(t, state, rows, np.full(len(rows), t % 2 == 1))


def test_the_summary_counts_tokens_and_tells_apart_what_follows_a_swap() -> None:
    from chasetheace.solver.methods.sampled import TOKENS, summary_code

    def code(tokens: str, pairs: bool = True) -> int:
        hist = 0
        for token in tokens.split():
            hist = hist * 8 + TOKENS[token]
        return int(summary_code(np.array([hist], dtype=np.int64), pairs)[0])

    assert code("") == 0
    assert code("k s k", pairs=False) == code("k k s", pairs=False) == code("s k k", pairs=False)
    assert code("k k s") != code("k s k")      # a keeper after a swap holds the card swapped away
    assert code("k s b K") == code("k b s K")  # the counts, not the order, otherwise
    assert code("s s") != code("s k") != code("k s")
    assert code("k " * 20) != code("k " * 19)  # 5 bits a kind: 20 turns fit


@pytest.mark.parametrize("pairs", [False, True])
def test_the_summary_solver_plays_its_summaries_in_the_full_game(pairs: bool) -> None:
    from chasetheace.solver.methods.sampled import SampledSolver, SummarySolver

    hand = Hand(cta.Rules(announce_low=True), 7)
    solver = SummarySolver(hand, seed=1, pairs=pairs)
    solver.train(5, batch=500)
    again = SummarySolver(hand, seed=1, pairs=pairs)
    again.train(5, batch=500)
    assert again.keys == solver.keys and np.array_equal(again.avg, solver.avg)  # by the seed alone
    full = SampledSolver(hand, seed=2)
    state = full.deal(300)
    checked = 0
    for t in range(hand.players):
        rows = full.deciding(t, state)
        fine = full.infoset_ids(t, state, rows, grow=True)
        coarse = solver.infoset_ids(t, state, rows, grow=False)
        want = solver.sigma(coarse, average=True)
        got = [solver.keep_at(full.info_key(i)) for i in fine.tolist()]
        assert got == pytest.approx(want.tolist(), abs=1e-12)
        checked += int((coarse >= 0).sum())
        full.act(t, state, rows, full.rng.random(len(rows)) < 0.5)
    assert checked > 1000  # most situations met in training


@pytest.mark.parametrize("pairs, common", [(False, False), (True, True)])
def test_the_summary_solver_is_close_to_an_equilibrium_where_its_summary_loses_little(
        pairs: bool, common: bool) -> None:
    from chasetheace.solver.methods.sampled import SummarySolver

    # two earlier turns at most: the counts lose only the order of a keep and a shown king (a
    # swap just before shows in the card given); with ``pairs`` nothing
    hand = Hand(cta.Rules(), 3)
    solver = SummarySolver(hand, seed=3, pairs=pairs, common=common)
    solver.train(40)
    engine = Engine(Tree(hand))
    keep = np.array([solver.keep_at(k) for k in engine.tree.infosets])
    sigma = np.c_[keep, 1 - keep]
    passes = engine.evaluate(sigma, table=True)
    assert float(engine.gains(sigma, passes.cfv).sum()) < 0.02


def test_a_summary_key_is_one_for_every_order_of_the_same_turns() -> None:
    from chasetheace.solver.methods.sampled import SummarySolver, summary_key

    hand = Hand(cta.Rules(kings_jerk=True), 6)
    solver = SummarySolver(hand, seed=4)
    solver.train(3, batch=300)
    for i in range(len(solver.keys)):
        key = solver.info_key(i)
        assert summary_key(key) == key  # the learner's own keys are canonical
        t, history, card, given = key
        turned = (t, tuple(reversed(history[1:])) + history[:1], card, given)  # any order of them
        assert summary_key(turned) == key
        assert solver.keep_at(turned) == solver.keep_at(key)


def test_the_summary_method_solves_a_solution_looked_up_by_summaries(tmp_path: Path) -> None:
    """``solve(method="summary")``: its situations are the summaries, and the solution (in memory,
    and read back from the compact file that ships) plays each situation of the full game by its
    summary, as the learner does."""
    from chasetheace.solver.methods.sampled import SampledSolver, SummarySolver
    from chasetheace.solver.solutions.packed import write_npz
    from chasetheace.solver.solutions.solution import Solution

    rules = cta.Rules(announce_low=True)
    sol = cta.solve(rules, 8, method="summary", iterations=4, exact_check=False)
    solver = SummarySolver(Hand(rules, 8), seed=0)
    solver.train(4)
    assert sol.method == "summary" and sol.iterations == 4 and len(sol.infosets) == len(solver.keys)
    write_npz(sol, str(tmp_path / "s.npz"), compact=True)
    read = Solution.load(str(tmp_path / "s.npz"))
    full = SampledSolver(Hand(rules, 8), seed=5)
    state = full.deal(200)
    for t in range(8):
        rows = full.deciding(t, state)
        for i in full.infoset_ids(t, state, rows, grow=True).tolist():
            key = full.info_key(i)
            want = solver.keep_at(key)
            assert sol.played_keep(key) == pytest.approx(want, abs=1e-12) or not sol.knows(key)
            assert read.played_keep(key) == pytest.approx(sol.played_keep(key), abs=1e-6)
            assert read.knows(key) == sol.knows(key)
            if sol.knows(key):
                assert read.figures(key).values == pytest.approx(sol.figures(key).values, abs=1e-5)
        full.act(t, state, rows, full.rng.random(len(rows)) < 0.5)
    game = cta.Game(rules, players=8, seed=3)  # the solved bot plays it at the table
    bot = SolvedBot.of(read)
    rng = __import__("random").Random(4)
    while game.hand == 1 and game.to_act is not None:
        game.act(bot.choose(game.observation(game.to_act), game.legal_actions(), rng))
    assert (game.hand > 1 or game.over) and bot.fallbacks == 0


def test_a_learner_stopped_and_resumed_from_its_checkpoint_learns_the_same(tmp_path: Path) -> None:
    from chasetheace.solver.methods.sampled import SummarySolver
    from chasetheace.solver.solutions import solving

    hand = Hand(cta.Rules(), 9)
    whole = SummarySolver(hand, seed=2)
    whole.train(7, batch=400)
    half = SummarySolver(hand, seed=2)
    half.train(3, batch=400)
    resumed = SummarySolver(hand, seed=2)
    resumed.restore(half.state())
    assert resumed.train(7, batch=400) == 7
    assert resumed.keys == whole.keys
    assert np.array_equal(resumed.avg, whole.avg) and np.array_equal(resumed.regret, whole.regret)
    with pytest.raises(ValueError, match="another table size"):
        SummarySolver(Hand(cta.Rules(), 10)).restore(half.state())
    # through solve: killed after the state of batch 10 was written (the 11th and 12th lost)
    kept = tmp_path / "kept"

    class Stop(Exception):
        pass

    def stop(progress: object) -> None:
        if getattr(progress, "done", 0) == 12 * solving.BATCH:
            raise Stop

    with pytest.raises(Stop):
        cta.solve(cta.Rules(), 10, method="summary", iterations=15, exact_check=False, checkpoint=kept,
                  on_check=stop)
    assert (kept / solving.LEARNER).is_file()
    again = cta.solve(cta.Rules(), 10, method="summary", iterations=15, exact_check=False, checkpoint=kept)
    once = cta.solve(cta.Rules(), 10, method="summary", iterations=15, exact_check=False)
    assert again.keep == once.keep and again.infosets == once.infosets and again.nash_conv == once.nash_conv
    with pytest.raises(ValueError, match="another solve"):
        cta.solve(cta.Rules(), 10, method="summary", iterations=15, seed=1, exact_check=False,
                  checkpoint=kept)
    with pytest.raises(ValueError, match="clock"):
        cta.solve(cta.Rules(), 10, method="summary", time_limit=5, checkpoint=tmp_path / "t")


def test_the_average_weighting_changes_the_average_only_and_resumes_bit_for_bit() -> None:
    """``weighting``: the average strategy weighs mini-batch ``i`` by ``i ** weighting``; the regrets,
    the situations met and the random numbers are those of the linear average (1, the default), and
    a learner stopped and resumed from its state learns the same bit for bit."""
    from chasetheace.solver.methods.sampled import SummarySolver

    hand = Hand(cta.Rules(), 9)
    linear = SummarySolver(hand, seed=2)
    linear.train(6, batch=300)
    whole = SummarySolver(hand, seed=2, weighting=2)
    whole.train(6, batch=300)
    assert whole.keys == linear.keys and np.array_equal(whole.regret, linear.regret)
    assert not np.array_equal(whole.avg, linear.avg)
    half = SummarySolver(hand, seed=2, weighting=2)
    half.train(2, batch=300)
    resumed = SummarySolver(hand, seed=2, weighting=2)
    resumed.restore(half.state())
    assert resumed.train(6, batch=300) == 6
    assert resumed.keys == whole.keys
    assert np.array_equal(resumed.avg, whole.avg) and np.array_equal(resumed.regret, whole.regret)
    # the weights, by hand: batch i's strategy counted i**2 times, where the linear average counts it i times
    again = SummarySolver(hand, seed=2, weighting=2)
    again.restore(half.state())
    assert again.train(3, batch=300) == 3
    check = SummarySolver(hand, seed=2)
    check.restore({**half.state(), "weighting": np.array(1.0), "avg": half.avg * 0})
    check.train(3, batch=300)  # the linear learner's third batch alone, weighted 3
    assert np.allclose(again.avg - half.avg, 3 * check.avg, rtol=1e-12, atol=0)
    with pytest.raises(ValueError, match="another weighting"):
        SummarySolver(hand, seed=2).restore(half.state())
    for bad in (-1, 5, float("nan"), "2", True):
        with pytest.raises(ValueError, match="bad weighting"):
            SummarySolver(hand, weighting=bad)  # type: ignore[arg-type]


def test_the_summary_learner_is_deterministic_for_a_seed_at_any_weighting() -> None:
    from chasetheace.solver.methods.sampled import SummarySolver

    hand = Hand(cta.Rules.preset("chase-the-ace"), 10)
    a, b = SummarySolver(hand, seed=7, weighting=2), SummarySolver(hand, seed=7, weighting=2)
    a.train(3, batch=300)
    b.train(3, batch=300)
    assert a.keys == b.keys and np.array_equal(a.avg, b.avg) and np.array_equal(a.regret, b.regret)


def test_a_refinement_pass_is_seeded_resumable_and_brings_the_strategy_nearer_an_equilibrium() -> None:
    """``SummarySolver.refine``: after training, each pass moves the summaries whose sampled
    keep-minus-swap difference is sure toward the better action. Measured here by an exact best
    response in the true game (3 players): the NashConv falls; the same seed gives the same passes,
    and a pass after a restored state is the same bit for bit."""
    from chasetheace.solver.methods.sampled import SummarySolver

    hand = Hand(cta.Rules(), 3)
    engine = Engine(Tree(hand))

    def exact(solver: SummarySolver) -> float:
        keep = np.array([solver.keep_at(k) for k in engine.tree.infosets])
        sigma = np.c_[keep, 1 - keep]
        return float(engine.gains(sigma, engine.evaluate(sigma, table=True).cfv).sum())

    solver = SummarySolver(hand, seed=3)
    solver.train(10, batch=500)
    before = exact(solver)
    saved = {name: np.copy(a) for name, a in solver.state().items()}  # as a checkpoint writes it
    moved = solver.refine(20_000)
    assert moved > 0 and solver.refined == 1
    after = exact(solver)
    assert after < before
    again = SummarySolver(hand, seed=3)
    again.restore(saved)
    assert again.refine(20_000) == moved
    assert np.array_equal(again.avg, solver.avg) and again.keys == solver.keys
    assert again.state()["refined"] == 1
    with pytest.raises(ValueError, match="bad step"):
        solver.refine(100, step=0)
    with pytest.raises(ValueError, match="bad hands"):
        solver.refine(0)
