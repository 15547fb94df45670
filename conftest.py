"""Collection for the whole repository: the modules of an optional extra that is not installed are
not imported for their doctests (their tests skip themselves with ``pytest.importorskip``)."""

from __future__ import annotations

collect_ignore_glob: list[str] = []
try:
    import numba  # noqa: F401 (the [fast] extra)
except ImportError:
    collect_ignore_glob.append("src/chasetheace/fast/*.py")
