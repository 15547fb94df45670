"""The compile notice of the fast engine: said when numba compiles, and only then (numba's own
``numba:compile`` event and its dispatcher's cache statistics tell, not a timer); and the rate
``simulate`` prints: over the work it timed, with the clock it names, and the time in all."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import cast

import pytest

pytest.importorskip("numba")

from numba import njit

from chasetheace.fast import sim as fast_sim


def test_a_compile_is_told_once_when_it_starts_and_a_compiled_function_is_not() -> None:
    said: list[str] = []

    def twice(x: int) -> int:
        return 2 * x

    fresh = cast(Callable[[int], int], njit(twice))  # no disk cache: the first call compiles
    with fast_sim.watching_compiles(said.append) as watch:
        assert fresh(3) == 6
        assert fresh(4) == 8  # compiled already: nothing more to say
    assert watch.compiled and len(said) == 1
    assert said[0].startswith("compiling the fast engine") and "s of CPU time" in said[0]
    with fast_sim.watching_compiles(said.append) as again:
        assert fresh(5) == 10
    assert not again.compiled and len(said) == 1


WARM = """
import json
from chasetheace.fast import kernel as K
from chasetheace.fast.sim import warm_up
said = []
done = warm_up(notice=said.append)
stats = K.run.stats
print(json.dumps({"said": said, "compiled": done.compiled, "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values())}))
"""


def test_a_run_that_loads_the_kernel_from_numbas_cache_says_nothing() -> None:
    fast_sim.warm_up()  # compiled here if it had to be, and so on disk for the next process
    out = subprocess.run([sys.executable, "-c", WARM], capture_output=True, text=True, check=True,
                         timeout=600)
    seen = json.loads(out.stdout.splitlines()[-1])
    assert seen["hits"] >= 1 and seen["misses"] == 0  # numba's own word: loaded, not compiled
    assert seen["said"] == [] and seen["compiled"] is False


def test_the_estimate_comes_from_the_measured_cpu_time_and_the_load(tmp_path: Path) -> None:
    cpu = fast_sim.COMPILE_CPU_SECONDS  # nothing measured on this machine yet: the release's figure
    assert cpu > 0
    assert fast_sim.compile_estimate(load=0.0, cores=2, folder=tmp_path) == (
        f"about {cpu:.0f} s of CPU time as measured for this release")
    busy = fast_sim.compile_estimate(load=7.0, cores=2, folder=tmp_path)  # a quarter of a core
    assert busy == (f"about {cpu:.0f} s of CPU time as measured for this release, about {cpu * 4:.0f} s "
                    "at this machine's load (7.0 on 2 cores)")


def test_the_estimate_is_the_last_compile_measured_on_this_machine(tmp_path: Path) -> None:
    fast_sim.record_compile(fast_sim.WarmUp(True, 250.0, 98.4), tmp_path)
    assert fast_sim.last_compile(tmp_path) == 98.4
    assert fast_sim.compile_estimate(load=3.0, cores=2, folder=tmp_path) == (
        "about 98 s of CPU time as the last compile here took, about 197 s at this machine's load "
        "(3.0 on 2 cores)")
    (tmp_path / fast_sim.COMPILE_RECORD).write_text("not a record")  # unreadable: the release's figure
    assert fast_sim.last_compile(tmp_path) is None
    estimate = fast_sim.compile_estimate(load=0.0, cores=2, folder=tmp_path)
    assert estimate.endswith("as measured for this release")
    fast_sim.record_compile(fast_sim.WarmUp(True, 1.0, 1.0), tmp_path / "new")  # the folder made
    assert fast_sim.last_compile(tmp_path / "new") == 1.0


def test_simulate_gives_a_rate_only_over_enough_work_and_says_the_time_in_all(
        capsys: pytest.CaptureFixture[str]) -> None:
    from chasetheace import cli

    assert cli.main(["simulate", "--games", "20", "--players", "3", "--seed", "1"]) == 0
    said = " ".join(capsys.readouterr().out.split())  # the last line, as wrapped to the terminal
    assert "s of wall-clock time (the fast kernel, 1 worker): too little work to time hands per " \
           "second" in said and said.endswith(" s in all, with loading the engine and its bots.")


def test_the_rate_is_over_the_work_timed_when_there_is_enough_of_it() -> None:
    from chasetheace.cli.command import rate_line
    from chasetheace.rules import Rules
    from chasetheace.sim import SimConfig, SimResult, Tally

    config = SimConfig(Rules(), bots=("threshold:8",) * 5, hands=3_000_000)
    result = SimResult(config, Tally(5, hands=3_000_000), 2.0, 2, engine="fast")
    assert rate_line(result, 3.31) == (
        "3,000,000 hands in 2.00 s of wall-clock time (the fast kernel, 2 workers): 1,500,000 hands per "
        "second. 3.3 s in all, with loading the engine and its bots.")


def test_machine_code_cached_for_other_sources_of_the_kernel_is_dropped(tmp_path: Path) -> None:
    """numba keys a function's disk cache on its own file only: after an edit of ``chance.py`` (or
    an upgrade), the kernel's cached code, which inlines it, would run the old generator. A stamp of
    every kernel source beside the cache drops it then, and only then."""
    from chasetheace.fast import layout

    stale = tmp_path / "stale"
    stale.mkdir()
    for name in ("kernel.run-900.py311.nbi", "kernel.run-900.py311.1.nbc"):
        (stale / name).write_bytes(b"machine code of older sources")
    (stale / layout.STAMP).write_text("the sources of an older version")
    layout.drop_stale_cache(stale)
    assert sorted(p.name for p in stale.iterdir()) == [layout.STAMP]
    assert (stale / layout.STAMP).read_text() == layout.sources_stamp()

    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "kernel.run-900.py311.nbi").write_bytes(b"machine code of these sources")
    (fresh / layout.STAMP).write_text(layout.sources_stamp())
    layout.drop_stale_cache(fresh)
    assert (fresh / "kernel.run-900.py311.nbi").exists()

    unstamped = tmp_path / "unstamped"  # a cache written before the stamps: not known to be fresh
    unstamped.mkdir()
    (unstamped / "chance._below-23.py311.nbi").write_bytes(b"?")
    layout.drop_stale_cache(unstamped)
    assert not (unstamped / "chance._below-23.py311.nbi").exists()

    beside = Path(layout.__file__).parent / "__pycache__" / layout.STAMP  # the package's own, at import
    if beside.exists():
        assert beside.read_text() == layout.sources_stamp()
