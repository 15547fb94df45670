"""The exact tree in parts, in worker processes: the same figures as the whole tree, and CFR on it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

pytest.importorskip("numpy")
pytest.importorskip("scipy")

import numpy as np
import numpy.typing as npt
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chasetheace as cta
from chasetheace.solver.methods.cfr import Engine, run_cfr
from chasetheace.solver.methods.measure import measure
from chasetheace.solver.methods.parts import PartsEngine, evaluate_part, parts_of
from chasetheace.solver.model.hand import Hand
from chasetheace.solver.model.tree import Tree
from chasetheace.solver.solutions.choice import MAX_PARTS_PLAYERS
from chasetheace.solver.solutions.solving import _from_parts
from test_properties import RULES

pytestmark = pytest.mark.slow  # the exact tree in parts: pytest -m "not slow" leaves it out


def _random_sigma(keys: Sequence[object], seed: int) -> npt.NDArray[np.float64]:
    rng = np.random.default_rng(seed)
    keep = rng.random(len(keys))
    sigma: npt.NDArray[np.float64] = np.c_[keep, 1 - keep]  # each infoset's keep and swap
    return sigma


def test_a_pass_over_the_parts_equals_the_whole_tree() -> None:
    hand = Hand(cta.Rules(deck=32), 4)
    keys = Tree(hand, card_removal=False).infosets
    sigma = _random_sigma(keys, 3)
    whole = Engine(Tree(hand))
    order = np.array([keys.index(k) for k in whole.tree.infosets])
    direct = whole.evaluate(sigma[order], table=True)
    with PartsEngine(hand, keys, workers=2) as engine:
        got = engine.evaluate(sigma)
        assert engine.passes == 1 and engine.last is got
        assert float(engine.gains(sigma, got.cfv).sum()) == pytest.approx(
            float(whole.gains(sigma[order], direct.cfv).sum()), abs=1e-12)
    assert np.allclose(got.cfv[order], direct.cfv, atol=1e-12)
    assert np.allclose(got.cfp[order], direct.cfp, atol=1e-12)
    assert np.allclose(got.info_reach[order], whole.info_reach(direct), atol=1e-12)
    assert np.allclose(got.lives, direct.lives, atol=1e-12)
    assert np.allclose(got.losses, direct.losses, atol=1e-12)
    # the situations only the model without card removal has never arise in the true game
    others = np.setdiff1d(np.arange(len(keys)), order)
    assert not got.info_reach[others].any() and not got.cfv[others].any()
    assert got.present[order].all() and not got.present[others].any()
    assert len(parts_of(hand)) == hand.rank_count * (hand.rank_count + 1) // 2


def test_the_weakest_cards_cut_the_tree_so_each_node_of_the_last_positions_is_built_once() -> None:
    hand = Hand(cta.Rules(deck=32), 6)
    whole = Tree(hand, closed_three=True)
    parts = [tree for p in parts_of(hand) if (tree := Tree(hand, low=p, closed_three=True)).node_count]
    last = hand.players - 3
    # the nodes of position n - 3 hold every card of the first n - 2 seats: one part each
    assert sum(len(t.levels[last].card) for t in parts) == len(whole.levels[last].card)
    # an earlier node may be in several parts, and one of them owns it (counts its reach)
    for j, level in enumerate(whole.levels):
        assert sum(int(t.levels[j].owned.sum()) for t in parts) == len(level.card)
    # so are the groups of the last three positions (the costly part of a pass: see .model.tail)

    def groups(tree: Tree) -> int:
        assert tree.tail is not None
        return len(tree.tail.k_hid) + len(tree.tail.s_hid)

    assert sum(groups(t) for t in parts) == groups(whole)
    # the pairs of the eldest's and the 2nd's cards evaluated a group once per pair among its cards
    pairs = [tree for a in range(hand.rank_count) for b in range(a, hand.rank_count)
             if (tree := Tree(hand, pair=(a, b), closed_three=True)).node_count]
    assert groups(whole) < 0.5 * sum(groups(t) for t in pairs)  # 0.44 here, 0.32 at 7 players
    with pytest.raises(ValueError, match="one of dealt, pair or low"):
        Tree(hand, dealt=(1,), pair=(1, 2))
    with pytest.raises(ValueError, match="bad low"):
        Tree(hand, low=(1, 2))
    with pytest.raises(ValueError, match="bad low"):
        Tree(hand, low=(3, 2, 1))


def test_the_parts_are_every_weakest_tuple_a_deal_makes() -> None:
    assert len(parts_of(Hand(cta.Rules(), 5))) == 455  # every ascending triple of 13 strengths
    assert len(parts_of(Hand(cta.Rules(), 9))) == 364  # 7 cards: the triples with room above them
    assert len(parts_of(Hand(cta.Rules(), 4))) == 91  # two cards: the pairs
    assert parts_of(Hand(cta.Rules(), 3)) == [(v,) for v in range(13)]
    tens = parts_of(Hand(cta.Rules(), 10))
    assert len(tens[0]) == 4 and (12, 12, 12, 12) not in tens
    with pytest.raises(ValueError, match="from 3 players"):
        parts_of(Hand(cta.Rules(), 2))


def test_measure_in_workers_equals_measure_in_one_piece() -> None:
    hand = Hand(cta.Rules(), 4)
    keys = Tree(hand, card_removal=False).infosets
    table = dict(zip(keys, _random_sigma(keys, 5)[:, 0].tolist()))
    one = measure(hand, table.__getitem__, split=False)
    side_by_side = measure(hand, table.__getitem__, split=True, workers=2)
    assert side_by_side.nash_conv == pytest.approx(one.nash_conv, abs=1e-12)
    assert side_by_side.loss_probabilities == pytest.approx(one.loss_probabilities, abs=1e-12)
    assert sorted(side_by_side.infosets) == sorted(one.infosets)
    # a situation a pure strategy never reaches is still measured (its values 0, its reach 0)
    pure = {key: float(p > 0.5) for key, p in table.items()}
    assert sorted(measure(hand, pure.__getitem__, split=True, workers=2).infosets) == sorted(
        measure(hand, pure.__getitem__, split=False).infosets)
    # the chance of each situation too: a node of the first positions is in several parts, and
    # counts in one
    in_parts = measure(hand, table.__getitem__, split=True)
    for got in (side_by_side, in_parts):
        reach = dict(zip(got.infosets, got.reach))
        values = dict(zip(got.infosets, got.values))
        for key, r, v in zip(one.infosets, one.reach, one.values):
            assert reach[key] == pytest.approx(r, abs=1e-12)
            assert values[key] == pytest.approx(v, abs=1e-9)


def test_cfr_over_the_parts_follows_cfr_on_the_whole_tree() -> None:
    hand = Hand(cta.Rules(), 4)
    keys = Tree(hand, card_removal=False).infosets
    whole = Engine(Tree(hand))
    order = [keys.index(k) for k in whole.tree.infosets]
    mine, record = run_cfr(whole, iterations=4, check_every=4, tolerance=0)
    with PartsEngine(hand, keys, workers=2) as engine:
        theirs, again = run_cfr(engine, iterations=4, check_every=4, tolerance=0)
    # the whole tree's iterations run in single precision, the parts' in double (and, with numba,
    # on trees whose last two positions are closed forms): a situation whose two actions are worth
    # the same may tip either way, elsewhere the iterates agree
    sigma = np.c_[np.full(len(keys), 0.5), np.full(len(keys), 0.5)]
    cfv = whole.evaluate(sigma[order], table=True).cfv
    clear = np.flatnonzero(np.abs(cfv[:, 0] - cfv[:, 1]) > 1e-9)
    assert len(clear) > len(order) / 2
    assert np.abs(mine[clear] - theirs[order][clear]).max() < 1e-6
    check = float(whole.gains(theirs[order], whole.evaluate(theirs[order]).cfv).sum())
    assert again.nash_conv == pytest.approx(check, abs=1e-12)
    assert again.nash_conv == pytest.approx(record.nash_conv, rel=0.05)


def test_a_solution_from_the_parts_reports_its_exact_nash_conv() -> None:
    hand = Hand(cta.Rules(), 4)
    sol = _from_parts(hand, "dcfr", 5, 0.0, 5, 0.0, 2)
    assert sol.method == "dcfr" and sol.measured == "exact" and sol.iterations == 5
    check = measure(hand, sol.keep_probability, split=False)
    assert sol.nash_conv == pytest.approx(check.nash_conv, abs=1e-12)
    assert sol.gains == pytest.approx(check.gains, abs=1e-12)
    assert sol.loss_probabilities == pytest.approx(check.loss_probabilities, abs=1e-12)
    assert sorted(sol.infosets) == sorted(check.infosets)
    assert sol.nash_conv < 1e-3  # five iterations from the strategy without card removal
    assert sol.chances is not None and all(0 <= k <= 1 and 0 <= s <= 1 for k, s in sol.chances)


def test_the_limits_of_the_parts_are_clear_errors() -> None:
    assert MAX_PARTS_PLAYERS == 9
    with pytest.raises(ValueError, match="9 in parts"):
        cta.solve(cta.Rules(), 10, method="dcfr")
    with pytest.raises(ValueError, match="pairing or kings_jerk"):
        cta.solve(cta.Rules(pairing=True), 7, method="dcfr")
    with pytest.raises(ValueError, match="kings_jerk"):
        PartsEngine(Hand(cta.Rules(kings_jerk=True), 4), [])
    with pytest.raises(ValueError, match="workers"):
        PartsEngine(Hand(cta.Rules(), 4), [], workers=0)


# --- the tree whose last two positions are evaluated in closed form ---------------------------------


def _both_ways(rules: cta.Rules, players: int, dealt: tuple[int, ...] = (), seed: int = 0,
               pair: tuple[int, int] | None = None) -> None:
    """Every figure of a random strategy, on the whole tree and on the closed one, agrees."""
    hand = Hand(rules, players)
    whole = Engine(Tree(hand, dealt=dealt, pair=pair))
    closed = Engine(Tree(hand, dealt=dealt, pair=pair, closed_dealer=True))
    assert set(closed.tree.infosets) == set(whole.tree.infosets)
    assert closed.tree.node_count < whole.tree.node_count or (players == 3 and dealt)
    rng = np.random.default_rng(seed)
    table = {k: float(rng.random()) for k in whole.tree.infosets}

    def sigma(engine: Engine) -> object:
        p = np.array([table[k] for k in engine.tree.infosets])
        return np.c_[p, 1 - p]

    a, b = whole.evaluate(sigma(whole), table=True), closed.evaluate(sigma(closed), table=True)
    at = np.array([whole.tree.infosets.index(k) for k in closed.tree.infosets])
    assert np.allclose(a.cfv[at], b.cfv, atol=1e-12) and np.allclose(a.cfp[at], b.cfp, atol=1e-12)
    assert np.allclose(whole.info_reach(a)[at], closed.info_reach(b), atol=1e-12)
    assert np.allclose(a.lives, b.lives, atol=1e-12) and np.allclose(a.losses, b.losses, atol=1e-12)
    if not dealt and pair is None:
        assert sum(b.losses) >= 1 - 1e-12  # somebody loses every hand


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(RULES.filter(lambda r: not (r.pairing or r.kings_jerk)), st.integers(0, 2**32 - 1))
def test_the_closed_dealer_equals_the_whole_tree_under_any_rules(rules: cta.Rules, seed: int) -> None:
    _both_ways(rules, 3, seed=seed)


def test_the_closed_dealer_on_larger_trees_and_parts() -> None:
    _both_ways(cta.Rules(deck=32), 4, seed=1)
    _both_ways(cta.Rules(), 4, dealt=(2, 5), seed=2)
    _both_ways(cta.Rules.preset("cuckoo"), 4, dealt=(0, 12), seed=3)
    _both_ways(cta.Rules(), 4, pair=(3, 3), seed=4)
    _both_ways(cta.Rules(), 5, pair=(2, 9), seed=5)
    # about a tenth of the nodes: the dealer's level was nine tenths of them
    hand = Hand(cta.Rules(), 5)
    assert Tree(hand, closed_dealer=True).node_count < Tree(hand).node_count / 9


def test_the_closed_dealer_refuses_what_it_does_not_model() -> None:
    for rules, players in ((cta.Rules(pairing=True), 4), (cta.Rules(kings_jerk=True), 4), (cta.Rules(), 2)):
        with pytest.raises(ValueError, match="closed_dealer"):
            Tree(Hand(rules, players), closed_dealer=True)
    with pytest.raises(ValueError, match="closed_dealer"):
        Tree(Hand(cta.Rules(), 4), card_removal=False, closed_dealer=True)
    engine = Engine(Tree(Hand(cta.Rules(), 3), closed_dealer=True))
    half = np.full((engine.n_info, 2), 0.5)
    with pytest.raises(ValueError, match="one belief"):
        engine.evaluate_beliefs(half, [None, None])


def _parts_sum_to_the_whole(rules: cta.Rules, players: int, seed: int) -> None:
    """Every figure of a random strategy summed over the parts equals the whole tree's, to 1e-12."""
    hand = Hand(rules, players)
    keys = Tree(hand, card_removal=False).infosets if not rules.pairing else Tree(hand).infosets
    table = dict(zip(keys, _random_sigma(keys, seed % 1000)[:, 0].tolist()))
    whole = evaluate_part(hand, None, table.__getitem__)
    assert whole is not None
    at = {key: i for i, key in enumerate(whole.keys)}
    sums = [np.zeros_like(whole.cfv), np.zeros_like(whole.cfp), np.zeros_like(whole.reach)]
    lives, losses = np.zeros_like(whole.lives), np.zeros_like(whole.losses)
    for part in parts_of(hand):
        got = evaluate_part(hand, part, table.__getitem__)
        if got is None:
            continue
        idx = np.array([at[key] for key in got.keys], dtype=np.int64)
        for total, mine in zip(sums, (got.cfv, got.cfp, got.reach)):
            np.add.at(total, idx, mine)
        lives += got.lives
        losses += got.losses
    for total, theirs in zip(sums, (whole.cfv, whole.cfp, whole.reach)):
        assert np.abs(total - theirs).max() <= 1e-12
    assert np.abs(lives - whole.lives).max() <= 1e-12
    assert np.abs(losses - whole.losses).max() <= 1e-12


@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(RULES.filter(lambda r: not r.kings_jerk).map(lambda r: cta.Rules.from_dict({**r.to_dict(),
                                                                                   "deck": 32})),
       st.sampled_from([3, 4, 5]),
       st.integers(0, 2**32 - 1))
def test_the_parts_sum_to_the_whole_tree_under_any_rules(rules: cta.Rules, players: int, seed: int) -> None:
    # every figure, whichever evaluation the rules allow (pairing: the whole part's tree)
    _parts_sum_to_the_whole(rules, players, seed)


def test_the_parts_sum_to_the_whole_tree_at_six_players() -> None:
    # the full pack, the last three positions in closed form where numba is: 455 parts
    _parts_sum_to_the_whole(cta.Rules.preset("cuckoo"), 6, 7)


def _cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of a process so far (Linux's /proc; 0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _command(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


ENDED_POOL = """
import gc, multiprocessing.queues, os, struct, sys, time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from pathlib import Path

from chasetheace.solver.methods.parts import end_workers


def half_a_result(flag: str) -> None:  # in the worker: the start of a long result, then nothing
    (queue,) = [o for o in gc.get_objects() if isinstance(o, multiprocessing.queues.SimpleQueue)]
    os.write(queue._writer.fileno(), struct.pack("!i", 1 << 20) + bytes(1000))
    Path(flag).write_text("sent")
    time.sleep(600)


def a_long_part(flag: str, keep: bytes) -> None:  # in the worker: a part that takes long
    Path(flag).write_text("started")
    time.sleep(600)


if __name__ == "__main__":
    flag, case, how = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    pool = ProcessPoolExecutor(1, mp_context=get_context("spawn"))
    if case == "half a result":
        running = [pool.submit(half_a_result, str(flag))]
    else:  # a pass left early: a part running, the calls queued behind it more than a pipe holds
        keep = bytes(1 << 20)  # the strategy each part is sent
        running = [pool.submit(a_long_part, str(flag), keep)]
        rest = [pool.submit(a_long_part, str(flag), keep) for _ in range(50)]
        time.sleep(0.5)
        for future in rest:  # what a pass does as it is left: the parts not started are cancelled
            future.cancel()
    while not flag.exists():
        time.sleep(0.01)
    time.sleep(0.3)  # the pool's manager thread waits for a result now (or reads the rest of one)
    if how == "terminate only":  # what the pool was left with before end_workers
        for process in pool._processes.values():
            process.terminate()
        time.sleep(0.5)
    else:
        end_workers(pool)
    pool.shutdown(cancel_futures=True)
    try:
        running[0].result(timeout=0)
    except BrokenProcessPool:
        print("broken, closed")
"""


@pytest.mark.parametrize("case", ["half a result", "cancelled calls"])
def test_a_pool_ended_while_its_workers_are_busy_closes_at_once(tmp_path: Path, case: str) -> None:
    """A pool whose workers are ended while a part runs (a Ctrl-C) is wound up as broken at once,
    and the process exits: neither when a worker was half-way through sending a result (the rest
    never comes), nor when parts not started were cancelled as the pass was left (the pool's
    manager thread once failed on them, and the exit then waited for a call that no one reads).
    Run in a process of its own, ended if it hangs (``terminate only`` as the last argument shows
    the hang of the pool as it was)."""
    script = tmp_path / "ended_pool.py"
    script.write_text(ENDED_POOL)
    path = os.pathsep.join([str(Path(__file__).parents[1] / "src"), os.environ.get("PYTHONPATH", "")])
    run = subprocess.Popen([sys.executable, str(script), str(tmp_path / "flag"), case, "end_workers"],
                           env={**os.environ, "PYTHONPATH": path}, text=True, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out = run.communicate(timeout=120)[0]
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        run.communicate()
        pytest.fail(f"{case}: the pool, or the exit after it, waited forever")
    assert run.returncode == 0 and out.strip() == "broken, closed", out


def test_ctrl_c_while_the_parts_are_solved_in_workers_is_one_line(tmp_path: Path) -> None:
    """Ctrl-C at a terminal reaches the whole process group, the parts' workers too: the solve
    leaves with status 130 and one line, no worker prints a traceback, none is left running (and
    the part a worker is in the middle of does not hold the exit up)."""
    from test_first_hour_third import AT_A_TERMINAL, ROOT, _children, ctrl_c_ends_in_one_line

    if not Path("/proc/self/task").is_dir():
        pytest.skip("needs Linux's /proc to see the worker processes")
    path = os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path, "CHASE_THE_ACE_CACHE": str(tmp_path / "cache")}
    command = ["solve", "--players", "7", "--method", "dcfr", "--iterations", "1", "--workers", "2"]
    solve = subprocess.Popen([*AT_A_TERMINAL, *command], env=env, text=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    assert solve.stderr is not None
    end = time.monotonic() + 600
    while True:  # both workers started, and one well into a part (importing takes about a second)
        workers = [pid for pid in _children(solve.pid) if b"spawn_main" in _command(pid)]
        if len(workers) == 2 and max(map(_cpu_seconds, workers)) > 3:
            break
        assert time.monotonic() < end and solve.poll() is None, "the parts never started"
        time.sleep(0.05)
    ctrl_c_ends_in_one_line(solve)


def test_agree_in_parts_plays_the_better_action_where_its_figures_say_so() -> None:
    """A strategy that mostly plays, in some situations, the action its own exact figures call
    worse (a solved 4-player table with its most reached situations turned round): one exact pass
    over the parts plays them by the better action, the NashConv falls, and the solution's figures
    are the exact ones of the strategy it returns (an exact best response in one piece agrees)."""
    from chasetheace.solver.methods.measure import measure
    from chasetheace.solver.solutions.solving import _measured, agree_in_parts, disagreeing

    hand = Hand(cta.Rules(), 4)
    solved = cta.solve(cta.Rules(), 4)
    index = {key: i for i, key in enumerate(solved.infosets)}
    worst = sorted(range(len(solved.keep)), key=lambda i: -solved.reach[i])[:12]
    turned = [1.0 - k if i in worst else k for i, k in enumerate(solved.keep)]
    bad = _measured(hand, "dcfr", measure(hand, lambda key: turned[index[key]]))
    wrong = disagreeing(bad)
    assert len(wrong) >= 6 and bad.nash_conv > 10 * solved.nash_conv

    agreed, counts = agree_in_parts(bad, 1, passes=1)
    assert counts == [len(wrong), len(disagreeing(agreed))] and counts[1] < counts[0]
    assert agreed.infosets == bad.infosets and agreed.nash_conv < bad.nash_conv
    for i in wrong:  # each played by the action the figures it was judged by call better
        kept, swapped = bad.values[i]
        assert agreed.keep[i] == (1.0 if kept <= swapped else 0.0)
    played = {key: k for key, k in zip(agreed.infosets, agreed.keep)}
    exact = measure(hand, lambda key: played[key])
    at = {key: i for i, key in enumerate(exact.infosets)}
    assert agreed.nash_conv == pytest.approx(exact.nash_conv, abs=1e-12)
    assert np.allclose(agreed.values, [exact.values[at[key]] for key in agreed.infosets], rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="bad passes 0"):
        agree_in_parts(bad, passes=0)
