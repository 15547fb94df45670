"""Solves that survive interruption: a solve killed (SIGKILL) mid-pass resumes from its checkpoint to
the same solution, bit for bit; a checkpoint of another solve is refused, never mixed in."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numpy")
pytest.importorskip("scipy")

import numpy as np

import chasetheace as cta
from chasetheace.cli.solve import main as solve_main
from chasetheace.solver.methods.cfr import Engine, Progress, run_cfr
from chasetheace.solver.methods.checkpoint import SOLVER, Checkpoint
from chasetheace.solver.methods.parts import PartsEngine, parts_of
from chasetheace.solver.model.hand import Hand
from chasetheace.solver.model.tree import Tree
from chasetheace.solver.solutions.solving import _from_parts, open_checkpoint

pytestmark = pytest.mark.slow  # the exact tree in parts: pytest -m "not slow" leaves it out

SRC = str(Path(cta.__file__).resolve().parents[1])

# the exact tree in parts forced on a small table (4 players, a 32-card pack: 36 parts a pass), as
# solve() runs it from 7 players; 3 iterations of DCFR and one check: 4 passes
SMALL = cta.Rules(deck=32)
PLAYERS, ITERATIONS, CHECK = 4, 3, 3

CHILD = f"""
import json, sys
import chasetheace as cta
from chasetheace.solver.model.hand import Hand
from chasetheace.solver.solutions.solving import _from_parts, open_checkpoint

if __name__ == "__main__":
    hand = Hand(cta.Rules.from_dict({SMALL.to_dict()!r}), {PLAYERS})
    store = open_checkpoint(sys.argv[1], hand, "dcfr", iterations={ITERATIONS}, tolerance=0.0,
                            check_every={CHECK})
    sol = _from_parts(hand, "dcfr", {ITERATIONS}, 0.0, {CHECK}, 0.0, 2, checkpoint=store)
    print(json.dumps(sol.to_dict()))
"""


def _same(a: dict[str, Any], b: dict[str, Any]) -> None:
    """Two solutions' figures are equal, bit for bit (floats compared exactly); only the times differ."""
    assert set(a) == set(b)
    for key in a:
        if key == "seconds":
            continue
        if key == "trace":  # (iteration, seconds, NashConv) per check
            assert [(i, nc) for i, _, nc in a[key]] == [(i, nc) for i, _, nc in b[key]]
            continue
        assert a[key] == b[key], key


def _open(folder: Path, hand: Hand, **changes: Any) -> Checkpoint:
    parameters: dict[str, Any] = dict(iterations=ITERATIONS, tolerance=0.0, check_every=CHECK)
    parameters.update(changes)
    method = parameters.pop("method", "dcfr")
    return open_checkpoint(folder, hand, method, **parameters)


def _group(pgid: int) -> list[int]:
    """The live (not zombie) processes of the process group ``pgid`` (Linux: from /proc)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                alive.append(int(stat.parent.name))
    return alive


def _parts(folder: Path) -> list[Path]:
    return sorted(folder.glob("passes/*/part-*.npz"))


def test_a_solve_killed_mid_pass_resumes_to_the_same_solution(tmp_path: Path) -> None:
    hand = Hand(SMALL, PLAYERS)
    folder = tmp_path / "ck"
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(folder)], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while not _parts(folder) and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)  # polling for a condition: the first finished part on disk
        assert _parts(folder), f"no part was written (the solve ended {child.poll()})"
        os.kill(child.pid, signal.SIGKILL)  # kill -9 of the solve, mid-pass
        assert child.wait() == -signal.SIGKILL
        if Path("/proc").is_dir():  # its workers end on their own, their parent gone
            while _group(child.pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not _group(child.pid), "the killed solve's workers are still running"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    # what the killed run left: the manifest, the warm start, some parts; not a finished solve
    assert (folder / "manifest.json").exists() and (folder / "warm.npz").exists()
    state = Checkpoint(folder, json.loads((folder / "manifest.json").read_text())).load_iterate()
    assert state is None or not bool(state["done"])
    left = len(_parts(folder))
    assert left >= 1

    resumed = _from_parts(hand, "dcfr", ITERATIONS, 0.0, CHECK, 0.0, 2, checkpoint=_open(folder, hand))
    whole = _from_parts(hand, "dcfr", ITERATIONS, 0.0, CHECK, 0.0, 2)
    _same(resumed.to_dict(), whole.to_dict())
    assert resumed.iterations == ITERATIONS and resumed.nash_conv > 0
    # run again once finished: the same solution at once, from the checkpoint alone
    again = _from_parts(hand, "dcfr", ITERATIONS, 0.0, CHECK, 0.0, 2, checkpoint=_open(folder, hand))
    _same(again.to_dict(), whole.to_dict())
    # the passes of earlier iterations were removed; the last iteration's stay
    assert 1 <= len(list((folder / "passes").iterdir())) <= 2


def test_a_pass_takes_its_finished_parts_from_the_checkpoint(tmp_path: Path) -> None:
    hand = Hand(SMALL, PLAYERS)
    keys = Tree(hand, card_removal=False).infosets
    rng = np.random.default_rng(7)
    keep = rng.random(len(keys))
    sigma = np.c_[keep, 1 - keep]
    with PartsEngine(hand, keys, workers=2) as plain:
        want = plain.evaluate(sigma)
    store = _open(tmp_path, hand)
    with PartsEngine(hand, keys, workers=2, checkpoint=store) as first:
        got = first.evaluate(sigma)
        assert first.computed == len(parts_of(hand))
    files = _parts(tmp_path)
    assert len(files) == len(parts_of(hand))
    for name in ("cfv", "cfp", "info_reach", "lives", "losses", "present"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
    files[0].unlink()
    files[5].unlink()
    with PartsEngine(hand, keys, workers=1, checkpoint=_open(tmp_path, hand)) as second:
        again = second.evaluate(sigma)
        assert second.computed == 2  # only the two parts missing
        # another strategy is another pass: nothing of the first is reused for it
        second.evaluate(np.c_[1 - keep, keep])
        assert second.computed == 2 + len(parts_of(hand))
    for name in ("cfv", "cfp", "info_reach", "lives", "losses", "present"):
        assert np.array_equal(getattr(again, name), getattr(want, name)), name
    # a damaged part is one clear error, naming the file
    _parts(tmp_path)[0].write_bytes(b"not an npz")
    with PartsEngine(hand, keys, workers=1, checkpoint=_open(tmp_path, hand)) as third, \
            pytest.raises(ValueError, match=r"broken file passes/.*part-"):
        third.evaluate(sigma)


def test_a_checkpoint_of_another_solve_is_refused(tmp_path: Path) -> None:
    hand = Hand(SMALL, PLAYERS)
    _open(tmp_path, hand)
    manifest = (tmp_path / "manifest.json").read_text()
    bigger = Hand(SMALL, PLAYERS + 1)
    for other, said in ((bigger, "players 4 there, 5 here"),
                        # the rule that differs, named, not both rule sets cut short
                        (Hand(dataclasses.replace(SMALL, ace_pays_double=True), PLAYERS),
                         r"\(rules\.ace_pays_double false there, true here\)"),
                        (hand, "method")):
        with pytest.raises(ValueError, match=rf"another solve.*{said}"):
            _open(tmp_path, other, method="cfr+" if said == "method" else "dcfr")
    with pytest.raises(ValueError, match=r"iterations 3 there, 4 here"):
        _open(tmp_path, hand, iterations=4)
    later = SOLVER + 1
    with pytest.raises(ValueError, match=rf"solver {SOLVER} there, {later} here"):
        Checkpoint(tmp_path, {**json.loads(manifest), "solver": later})
    assert (tmp_path / "manifest.json").read_text() == manifest  # unchanged
    # a folder holding something else, a file in its place, a broken manifest
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match=r"other files and no manifest\.json"):
        _open(tmp_path / "other", hand)
    with pytest.raises(ValueError, match="not a folder"):
        _open(tmp_path / "other" / "notes.txt", hand)
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "manifest.json").write_text("{")
    with pytest.raises(ValueError, match=r"unreadable manifest\.json"):
        _open(tmp_path / "broken", hand)
    with pytest.raises(ValueError, match=r"checkpoint keeps CFR's iterates"):
        cta.solve(cta.Rules.preset("le-her"), 2, method="lp", checkpoint=tmp_path / "lp")
    assert not (tmp_path / "lp").exists()


def test_the_command_resumes_from_its_checkpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = str(tmp_path / "ck")
    args = ["--players", "3", "--method", "dcfr", "--tolerance", "0", "--iterations", "12", "--quiet",
            "--json", "--checkpoint", folder]
    assert solve_main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert solve_main(args) == 0  # finished: the same solution from the checkpoint
    second = json.loads(capsys.readouterr().out)
    _same(first, second)
    # another table in the same folder: one error line, exit 2
    assert solve_main(["--players", "4", *args[2:]]) == 2
    err = capsys.readouterr().err
    assert err.startswith("chase-the-ace: error: checkpoint") and "players 3 there, 4 here" in err
    assert err.count("\n") == 1


def test_cfr_interrupted_after_an_iterate_goes_on_from_it(tmp_path: Path) -> None:
    hand = Hand(cta.Rules(), 3)
    engine = Engine(Tree(hand))
    want, record = run_cfr(engine, iterations=12, tolerance=0.0, check_every=3)

    class Stop(Exception):
        pass

    def stop(p: Progress) -> None:
        if p.iterations == 9:  # before the 9th iterate is written
            raise Stop

    store = _open(tmp_path, hand, iterations=12, check_every=3)
    with pytest.raises(Stop):
        run_cfr(engine, iterations=12, tolerance=0.0, check_every=3, callback=stop, checkpoint=store)
    state = store.load_iterate()
    assert state is not None and int(state["t"]) == 8 and not bool(state["done"])
    got, again = run_cfr(engine, iterations=12, tolerance=0.0, check_every=3, checkpoint=_open(tmp_path, hand,
                         iterations=12, check_every=3))
    assert np.array_equal(got, want)
    assert [(i, nc) for i, _, nc in again.trace] == [(i, nc) for i, _, nc in record.trace]
    assert again.iterations == 12 and again.nash_conv == record.nash_conv


def test_iid_keeps_its_iterates_too(tmp_path: Path) -> None:
    rules = cta.Rules()
    want = cta.solve(rules, 4, method="iid", iterations=30, tolerance=0.0)
    first = cta.solve(rules, 4, method="iid", iterations=30, tolerance=0.0, checkpoint=tmp_path)
    again = cta.solve(rules, 4, method="iid", iterations=30, tolerance=0.0, checkpoint=tmp_path)
    _same(first.to_dict(), want.to_dict())
    _same(again.to_dict(), want.to_dict())
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["method"] == "iid" and manifest["exact_check"] is True and manifest["players"] == 4
    with pytest.raises(ValueError, match=r"exact_check true there, false here"):
        cta.solve(rules, 4, method="iid", iterations=30, tolerance=0.0, checkpoint=tmp_path,
                  exact_check=False)


class _NoStart:
    """A runner that fails if it is ever started: nothing is left to compute."""

    def start(self, hand: Hand, keys: list[Any]) -> None:
        raise AssertionError("the runner started for a solve whose every pass is in the checkpoint")

    def run(self, parts: list[tuple[int, ...]], keep: Any) -> Any:
        raise AssertionError("a part was computed again")

    def close(self) -> None:
        pass


def test_a_finished_solve_run_again_starts_no_worker(tmp_path: Path) -> None:
    hand = Hand(SMALL, PLAYERS)
    first = _from_parts(hand, "dcfr", ITERATIONS, 0.0, CHECK, 0.0, 1, checkpoint=_open(tmp_path, hand))
    again = _from_parts(hand, "dcfr", ITERATIONS, 0.0, CHECK, 0.0, 1, checkpoint=_open(tmp_path, hand),
                        runner=_NoStart())
    _same(again.to_dict(), first.to_dict())


def test_a_finished_solve_run_again_returns_its_solution_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chasetheace.solver.model import tree

    rules = cta.Rules()
    first = cta.solve(rules, 3, method="dcfr", iterations=4, tolerance=0.0, checkpoint=tmp_path)
    with monkeypatch.context() as patch:
        patch.setattr(tree.Tree, "__init__", lambda *a, **k: pytest.fail("built a tree again"))
        again = cta.solve(rules, 3, method="dcfr", iterations=4, tolerance=0.0, checkpoint=tmp_path)
    _same(again.to_dict(), first.to_dict())
    (tmp_path / "solution.npz").write_bytes(b"damaged")
    with pytest.raises(ValueError, match=r"broken file solution\.npz"):
        cta.solve(rules, 3, method="dcfr", iterations=4, tolerance=0.0, checkpoint=tmp_path)


def test_an_exact_measure_with_one_worker_keeps_its_parts(tmp_path: Path) -> None:
    from chasetheace.solver.methods.measure import measure

    hand = Hand(SMALL, PLAYERS)

    def keep(key: Any) -> float:
        return 1.0 if key[2] >= 4 else 0.0

    first = measure(hand, keep, split=True, checkpoint=_open(tmp_path, hand))
    assert len(_parts(tmp_path)) == len(parts_of(hand))  # kept, with one worker too
    again = measure(hand, keep, split=True, checkpoint=_open(tmp_path, hand), runner=_NoStart())
    assert again.nash_conv == first.nash_conv and again.values == first.values


def test_a_damaged_file_is_found_before_any_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chasetheace.solver.model import tree

    rules = cta.Rules()
    cta.solve(rules, 3, method="dcfr", iterations=4, tolerance=0.0, checkpoint=tmp_path)
    for name in ("warm.npz", "iterate.npz"):
        saved = (tmp_path / name).read_bytes()
        (tmp_path / name).write_bytes(saved[: len(saved) // 2])  # damaged after it was written

        def no_tree(*args: object, **kwargs: object) -> None:
            raise AssertionError("a tree was built before the damaged file was found")

        with monkeypatch.context() as patch:
            patch.setattr(tree.Tree, "__init__", no_tree)
            with pytest.raises(ValueError, match=rf"broken file {name}"):
                cta.solve(rules, 3, method="dcfr", iterations=4, tolerance=0.0, checkpoint=tmp_path)
        (tmp_path / name).write_bytes(saved)


def test_the_command_checks_as_often_as_asked(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--players", "3", "--method", "dcfr", "--tolerance", "0", "--iterations", "8", "--quiet",
            "--json"]
    assert solve_main([*args, "--check-every", "4"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [int(row[0]) for row in got["trace"]] == [4, 8]
    for bad in ("0", "-1"):
        assert solve_main([*args, "--check-every", bad]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and ("check_every" in err or "check-every" in err)
