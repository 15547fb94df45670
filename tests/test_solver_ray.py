"""The exact tree's parts through Ray: on a local Ray cluster of two nodes started here, the parts
(and a whole pass) come back equal, bit for bit, to those of the local process pool at 5 to 7
players; a part whose node dies is run again with the same result; a bad or unreachable cluster is
one clear error before any work."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import missing_extra

pytest.importorskip("numpy")
pytest.importorskip("scipy")

pytestmark = pytest.mark.slow  # the exact tree in parts: pytest -m "not slow" leaves it out

ray = pytest.importorskip("ray", reason=missing_extra("Ray", "cluster"))

import numpy as np  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

import chasetheace as cta  # noqa: E402
from chasetheace.cli.solve import main as solve_main  # noqa: E402
from chasetheace.solver.methods.cluster import RayRunner, check_address, part_memory  # noqa: E402
from chasetheace.solver.methods.parts import Got, LocalRunner, PartsEngine, parts_of  # noqa: E402
from chasetheace.solver.model.hand import Hand, InfoKey  # noqa: E402
from chasetheace.solver.model.tree import Tree  # noqa: E402

SRC = str(Path(cta.__file__).resolve().parents[1])
MB = 2**20


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[Cluster, str]]:
    """A Ray cluster of two nodes on this machine (one CPU, 80 MB of object store and 1.5 GB of
    declared memory each), with a Ray Client server on the head; its workers import this package."""
    saved = {key: os.environ.get(key) for key in ("PYTHONPATH", "RAY_ADDRESS")}
    os.environ["PYTHONPATH"] = SRC + os.pathsep + os.environ.get("PYTHONPATH", "")
    client_port = _free_port()
    node: dict[str, Any] = dict(num_cpus=1, object_store_memory=80 * MB, memory=1536 * MB)
    made = Cluster(initialize_head=True, head_node_args={**node, "ray_client_server_port": client_port})
    try:
        made.add_node(**node)
        made.wait_for_nodes()
        os.environ["RAY_ADDRESS"] = made.address  # what "auto" finds
        yield made, f"ray://127.0.0.1:{client_port}"
    finally:
        if ray.is_initialized():
            ray.shutdown()
        made.shutdown()  # type: ignore[no-untyped-call]
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _sigma(n: int, seed: int) -> Any:
    keep = np.random.default_rng(seed).random(n)
    return keep


def _collect(runner: Any, parts: list[tuple[int, ...]], keep: Any) -> dict[int, Got]:
    got = dict(runner.run(parts, keep))
    assert sorted(got) == list(range(len(parts)))
    return got


def _equal(a: Got, b: Got) -> None:
    if a is None or b is None:
        assert a is None and b is None
        return
    (ia, pa), (ib, pb) = a, b
    assert np.array_equal(ia, ib)
    for name in ("cfv", "cfp", "reach", "lives", "losses"):
        assert np.array_equal(getattr(pa, name), getattr(pb, name)), name
    assert pa.nodes == pb.nodes


def _collect_locally(hand: Hand, keys: list[InfoKey], parts: list[tuple[int, ...]],
                     keep: Any) -> dict[int, Got]:
    """The parts' results through the local process pool (two workers)."""
    local = LocalRunner(2)
    local.start(hand, keys)
    try:
        return _collect(local, parts, keep)
    finally:
        local.close()


@pytest.mark.parametrize("players", [5, 6, 7])
def test_parts_through_ray_equal_the_local_processes(cluster: tuple[Cluster, str], players: int) -> None:
    hand = Hand(cta.Rules(), players)
    keys = Tree(hand, card_removal=False).infosets
    keep = _sigma(len(keys), players)
    every = parts_of(hand)
    # a few parts only at 7 players (each takes seconds): the largest, the ends and the middle
    chosen: list[tuple[int, ...]] = [(0, 0, 0), (0, 1, 2), (6, 6, 6), (11, 11, 12)]
    parts = every[::10] if players < 7 else chosen
    assert all(part in every for part in parts)
    want = _collect_locally(hand, keys, parts, keep)
    through = RayRunner("auto")
    try:
        through.start(hand, keys)
        got = _collect(through, parts, keep)
    finally:
        through.disconnect()
    for i in range(len(parts)):
        _equal(got[i], want[i])
    assert sum(g is not None for g in got.values()) >= len(parts) - 1


def test_a_whole_pass_through_the_ray_client_equals_the_local_one(cluster: tuple[Cluster, str]) -> None:
    hand = Hand(cta.Rules(deck=32), 5)
    keys = Tree(hand, card_removal=False).infosets
    keep = _sigma(len(keys), 1)
    sigma = np.c_[keep, 1 - keep]
    with PartsEngine(hand, keys, workers=2) as local:
        want = local.evaluate(sigma)
    runner = RayRunner(cluster[1])  # ray://127.0.0.1:port: the Ray Client
    try:
        with PartsEngine(hand, keys, runner=runner) as engine:
            got = engine.evaluate(sigma)
            assert engine.computed == len(parts_of(hand))
    finally:
        runner.disconnect()
    for name in ("cfv", "cfp", "info_reach", "lives", "losses", "present"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name


def test_a_part_whose_node_dies_runs_again_with_the_same_result(cluster: tuple[Cluster, str]) -> None:
    made, _ = cluster
    hand = Hand(cta.Rules(), 6)
    keys = Tree(hand, card_removal=False).infosets
    keep = _sigma(len(keys), 2)
    parts = parts_of(hand)[:24]
    want = _collect_locally(hand, keys, parts, keep)
    worker = next(node for node in made.worker_nodes)
    runner = RayRunner("auto")
    try:
        runner.start(hand, keys)
        got: dict[int, Got] = {}
        for i, part in runner.run(parts, keep):
            if not got:  # the first part is back: the other node dies with its parts under way
                made.remove_node(worker, allow_graceful=False)
            got[i] = part
    finally:
        runner.disconnect()
        made.add_node(num_cpus=1, object_store_memory=80 * MB, memory=1536 * MB)
        made.wait_for_nodes()
    assert sorted(got) == list(range(len(parts)))
    for i in range(len(parts)):
        _equal(got[i], want[i])


def test_each_part_declares_its_measured_memory() -> None:
    assert part_memory(7) > 547 * MB and part_memory(8) > 1592 * MB and part_memory(9) > 4748 * MB
    assert part_memory(8) < 4096 * MB  # a 4 GB worker takes one part at 8 players
    assert part_memory(10) > 2.5 * part_memory(9) * 0.99  # not measured: the rule of thumb
    assert part_memory(4) == part_memory(5)


def test_a_bad_or_unreachable_cluster_is_one_error_before_any_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("ray://", "http://host:10001", "ray://host", "ray://host:99999", "local"):
        with pytest.raises(ValueError, match="bad cluster"):
            check_address(bad)
    assert check_address("ray://head.example:10001") == "ray://head.example:10001"
    closed = _free_port()
    with pytest.raises(ValueError, match=f"cannot reach the Ray cluster at ray://127.0.0.1:{closed}"):
        RayRunner(f"ray://127.0.0.1:{closed}")
    folder = tmp_path / "ck"
    code = solve_main(["--players", "7", "--method", "dcfr", "--cluster", f"ray://127.0.0.1:{closed}",
                       "--checkpoint", str(folder)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("chase-the-ace: error: cannot reach")
    assert not folder.exists()  # nothing was done
    assert solve_main(["--players", "7", "--cluster", "somewhere"]) == 2
    assert "bad cluster 'somewhere'" in capsys.readouterr().err
    # a table whose solve has no parts: said, not ignored
    assert solve_main(["--players", "4", "--cluster", "auto"]) == 2
    assert "cluster runs the parts of the exact tree" in capsys.readouterr().err
