"""The package's imports go one way: no cycles, and no module imports from a layer above its own.

Every import counts, at the top of a module or inside a function, and under ``TYPE_CHECKING``
too: a cycle hidden in a function is still a cycle for the reader. Each folder (sub-package) is
one layer as a whole: :data:`LAYERS` names top-level modules and folders only, so no file can be
placed above the rest of its folder.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).parent.parent / "src"

LAYERS: list[tuple[str, ...]] = [
    ("seats", "errors", "extras", "cards", "sources", "files", "rates", "moved"),
    ("rules", "events"),
    ("observation", "record"),
    ("game",),
    ("session", "bots", "render"),
    ("kinds",),
    ("acechasing",),
    ("solver",),
    ("registry",),
    ("sim",),
    ("fast",),
    ("adapters", "web"),
    ("cli",),
    ("__main__",),
]
"""Lowest first; a name stands for the module or the folder and everything under it. The
package's ``__init__`` (the facade) sits above them all. The games' own folders (``acechasing``)
sit below the registry that lists them; every command-line front end lives in ``cli``, above
everything it runs."""

MOVED: dict[str, str] = {
    "chasetheace.acechasing.command": "chasetheace.cli.acechasing",
    "chasetheace.acechasing.view": "chasetheace.cli.ace_view",
    "chasetheace.web.command": "chasetheace.cli.serve",
    "chasetheace.solver.command": "chasetheace.cli.solve",
    "chasetheace.solver.solution": "chasetheace.solver.solutions.solving",
    "chasetheace.solver.hand": "chasetheace.solver.model.hand",
    "chasetheace.solver.words": "chasetheace.solver.model.words",
    "chasetheace.solver.game_limits": "chasetheace.solver.methods.game_limits",
    "chasetheace.solver.whole": "chasetheace.solver.methods.whole_game",
    "chasetheace.solver.docs": "chasetheace.solver.guide.docs",
    "chasetheace.solver.docs_game": "chasetheace.solver.guide.docs_game",
    "chasetheace.solver.advice_ace": "chasetheace.acechasing.review",
    "chasetheace.solver.advice": "chasetheace.solver.uses.advice",
    "chasetheace.solver.game_cache": "chasetheace.solver.solutions.game_cache",
    "chasetheace.solver.cache": "chasetheace.solver.solutions.cache",
}
"""Old import paths of modules that moved (front ends into ``cli``, the solver's modules into its
rooms): each still answers until :data:`chasetheace.moved.REMOVAL`, by forwarding names at run
time with a DeprecationWarning (no import from above, and no module under two names)."""


def layer_of(module: str) -> int:
    """The layer of ``chasetheace.X``: the longest matching name wins."""
    name = module.removeprefix("chasetheace").removeprefix(".")
    if not name:
        return len(LAYERS)
    best, level = -1, -1
    for i, names in enumerate(LAYERS):
        for prefix in names:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best:
                best, level = len(prefix), i
    assert level >= 0, f"{module} has no layer: add it to LAYERS"
    return level


def modules(src: Path = SRC) -> dict[str, tuple[Path, bool]]:
    """Every module of the package: its file, and whether it is a package's ``__init__``."""
    found = {}
    for path in sorted((src / "chasetheace").rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def import_graph(src: Path = SRC) -> dict[str, set[str]]:
    """Which modules of the package each module imports (every import statement)."""
    mods = modules(src)
    graph: dict[str, set[str]] = {}
    for name, (path, is_package) in mods.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    here = name.split(".") if is_package else name.split(".")[:-1]
                    here = here[:len(here) - node.level + 1]
                    base = ".".join(here + ([node.module] if node.module else []))
                targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
            for target in targets:
                while target and target not in mods:
                    target = target.rpartition(".")[0]
                if target and target != name and target.startswith("chasetheace"):
                    deps.add(target)
                    break
        graph[name] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def upward_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Imports from a module to one of a higher layer."""
    return sorted((a, b) for a, deps in graph.items() for b in deps if layer_of(b) > layer_of(a))


def test_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


def test_imports_go_down_the_layers() -> None:
    assert upward_imports(import_graph()) == []


def test_every_module_has_a_layer() -> None:
    for module in modules():
        layer_of(module)


def test_each_folder_is_one_layer() -> None:
    assert all("." not in name for names in LAYERS for name in names)
    folders = {name.split(".")[1] for name, (_, is_package) in modules().items()
               if is_package and "." in name}
    placed = {name for names in LAYERS for name in names}
    assert folders <= placed


def folder_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The import graph with each folder drawn as one node (``chasetheace.web.app`` -> ``web``)."""
    def top(module: str) -> str:
        parts = module.split(".")
        return parts[1] if len(parts) > 1 else "__init__"

    found: dict[str, set[str]] = {}
    for a, deps in graph.items():
        found.setdefault(top(a), set()).update(top(b) for b in deps if top(b) != top(a))
    return found


def test_folders_have_no_cycles() -> None:
    assert cycles(folder_graph(import_graph())) == []


def test_moved_modules_answer_from_their_old_paths_with_a_warning() -> None:
    import importlib
    import warnings

    from chasetheace.moved import REMOVAL

    for old, new in MOVED.items():
        target = importlib.import_module(new)
        name = next(n for n in target.__all__ if not n.startswith("_"))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert getattr(importlib.import_module(old), name) is getattr(target, name)
        assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message)
                   and REMOVAL in str(w.message) for w in caught), old


def test_every_old_path_is_listed_and_nothing_uses_one() -> None:
    root = SRC.parent
    forwarders = {name for name, (path, _) in modules().items()
                  if re.search(r"^__getattr__ = forward\(__name__", path.read_text(encoding="utf-8"), re.M)}
    assert forwarders == set(MOVED)
    ways = [rf"(?:from|import) {re.escape(old)}\b" for old in MOVED]
    ways += [rf"from {re.escape(parent)} import .*\b{leaf}\b"
             for parent, _, leaf in (old.rpartition(".") for old in MOVED)]
    used = re.compile(rf"^\s*(?:>>> )?({'|'.join(ways)})", re.MULTILINE)
    files = [*SRC.rglob("*.py"), *(root / "tests").rglob("*.py"), *(root / "docs").glob("*.md"),
             root / "README.md", root / "conftest.py", *(root / "examples").rglob("*.py"),
             *(root / "benchmarks").rglob("*.py")]
    assert [f"{path}: {match.group(1)}" for path in files
            for match in used.finditer(path.read_text(encoding="utf-8"))] == []


SOLVER_ROOMS: list[str] = ["model", "methods", "solutions", "uses", "guide"]
"""The solver's rooms, lowest first: each imports only from its own room and those below it
(the solver's face, ``solver/__init__.py``, and the old paths beside the rooms sit above them all)."""


def test_the_solver_rooms_import_down() -> None:
    def room(module: str) -> int:
        parts = module.split(".")
        if len(parts) > 2 and parts[1] == "solver" and parts[2] in SOLVER_ROOMS:
            return SOLVER_ROOMS.index(parts[2])
        return len(SOLVER_ROOMS)  # the face and the old paths

    graph = import_graph()
    rooms = {name.split(".")[2] for name, (_, is_package) in modules().items()
             if is_package and name.startswith("chasetheace.solver.")}
    assert rooms == set(SOLVER_ROOMS)  # a new room is placed in the order
    upward = sorted((a, b) for a, deps in graph.items() if a.startswith("chasetheace.solver.")
                    for b in deps if b.startswith("chasetheace.solver.") and room(b) > room(a))
    assert upward == []


def test_the_graph_sees_relative_and_lazy_imports() -> None:
    graph = import_graph()
    assert "chasetheace.record" in graph["chasetheace.game"]  # from .record import ...
    assert "chasetheace.cli.command" in graph["chasetheace.cli"]  # inside a function
    assert "chasetheace.rules" in graph["chasetheace.solver.model.hand"]  # from ..rules import ...


def test_only_a_games_own_folder_and_front_end_name_it() -> None:
    # the interfaces ask a game's kind (chasetheace.kinds.GameKind), never which game it is
    own = ("chasetheace/acechasing/", "chasetheace/cli/acechasing.py")
    named = [f"{path.relative_to(SRC)}:{n}" for path in sorted(SRC.rglob("*.py"))
             if not any(part in path.as_posix() for part in own)
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if '"ace-chasing"' in line]
    assert named == []
