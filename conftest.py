"""Collection for the whole repository: any set of extras runs its share of the tests.

- README.md is doctested block by block, in order, in one namespace (as a reader would type it).
  A block that needs a package that is not installed is skipped, naming it: either the block
  imports it, or an HTML comment just above the block says ``<!-- requires: numpy scipy -->``.
- ``--doctest-modules`` imports every module under ``src/``; a module whose optional dependency
  is missing (``pyspiel`` for the OpenSpiel adapter, say) is not collected, rather than failing
  collection. A missing module of this package itself is still an error.
- The doctests of a part that imports its extra only when it runs (the solver imports numpy to
  solve) are skipped without it, as :data:`RUN_TIME_EXTRAS` declares.
- Every test run keeps solved solutions in a fresh temporary folder, never the user's cache.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parent
SRC = ROOT / "src"
FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
REQUIRES = re.compile(r"<!--\s*requires:\s*([\w\s.-]+?)\s*-->\s*$")
IMPORT = re.compile(r"^\s*(?:>>>|\.\.\.)\s+(?:import|from)\s+([\w.]+)", re.MULTILINE)


CACHE_ENV = "CHASE_THE_ACE_CACHE"  # chasetheace.solver.solutions.cache.CACHE_ENV (the solver is optional)

RUN_TIME_EXTRAS = {"chasetheace.solver": ("numpy", "scipy"), "chasetheace.fast": ("numba", "numpy")}
"""Packages whose doctests need these modules, though importing the package does not."""


def _missing(module: str) -> str | None:
    """The name of the package ``module`` needs that is not installed, or None."""
    try:
        if module.split(".")[0] == "chasetheace":
            importlib.import_module(module)
        elif importlib.util.find_spec(module.split(".")[0]) is None:
            return module.split(".")[0]
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] != "chasetheace":
            return exc.name.split(".")[0]
        raise
    return None


class ReadmeFile(pytest.File):
    """README.md, one test per ```python block."""

    def collect(self) -> Iterator[ReadmeBlock]:
        text = self.path.read_text(encoding="utf-8")
        self.namespace: dict[str, Any] = {}
        for number, match in enumerate(FENCE.finditer(text), 1):
            line = text.count("\n", 0, match.start(1))
            before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            marker = REQUIRES.search(before)
            needs = (marker.group(1).split() if marker else []) + IMPORT.findall(match.group(1))
            yield ReadmeBlock.from_parent(self, name=f"block {number} (line {line + 1})",
                                          source=match.group(1), line=line, needs=needs)


class ReadmeBlock(pytest.Item):
    """One ```python block of README.md, run as a doctest in the file's shared namespace."""

    def __init__(self, *, source: str, line: int, needs: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.source, self.line, self.needs = source, line, needs

    def runtest(self) -> None:
        for module in self.needs:
            missing = _missing(module)
            if missing is not None:
                pytest.skip(f"needs {missing}, which is not installed")
        parent = self.parent
        assert isinstance(parent, ReadmeFile)
        test = doctest.DocTestParser().get_doctest(self.source, parent.namespace, self.name,
                                                   str(self.path), self.line)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        failures: list[str] = []
        runner.run(test, out=failures.append, clear_globs=False)
        parent.namespace.update(test.globs)  # a DocTest runs in a copy: later blocks see these names
        if runner.failures:
            raise AssertionError("".join(failures))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        if isinstance(excinfo.value, AssertionError):
            return str(excinfo.value)  # the doctest's own report: expected and got
        return str(super().repr_failure(excinfo, style=style))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.line, self.name


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    if file_path == ROOT / "README.md":
        return ReadmeFile.from_parent(parent, path=file_path)
    return None


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Leave out a source module whose optional dependency is not installed."""
    if (collection_path.suffix != ".py" or collection_path.name == "__main__.py"
            or SRC not in collection_path.parents):
        return None
    parts = collection_path.relative_to(SRC).with_suffix("").parts
    module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return True if _missing(module) is not None else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the doctests of a part whose run-time extra is not installed."""
    for item in items:
        if not isinstance(item, pytest.DoctestItem):
            continue
        for package, needs in RUN_TIME_EXTRAS.items():
            if item.name == package or item.name.startswith(package + "."):
                missing = [m for m in needs if importlib.util.find_spec(m) is None]
                if missing:
                    item.add_marker(pytest.mark.skip(reason=f"needs {', '.join(missing)}"))


def pytest_configure(config: pytest.Config) -> None:
    folder = tempfile.mkdtemp(prefix="cta-solutions-")
    os.environ[CACHE_ENV] = folder  # subprocesses (the CLI under test) inherit it
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
