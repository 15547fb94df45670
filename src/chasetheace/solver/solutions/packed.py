"""A :class:`~.solution.Solution` as compact binary: numpy arrays indexed by situation, in one ``.npz``.

The JSON of :meth:`Solution.to_dict` spells every situation and figure out (81 MB at 9 players);
this form keeps the same tables as arrays, compressed (``numpy.savez_compressed``), readable with
numpy alone (``numpy.load(path)``, no pickles). The solution cache, ``solve --save FILE.npz`` and
``serve --solutions DIR`` use it; ``solve --save FILE.json`` still writes the readable JSON.

The arrays (``N`` situations, in the solution's order):

- ``meta``: one text, JSON: ``format`` (:data:`BINARY_FORMAT`), ``version`` (:data:`BINARY_VERSION`),
  the rules, players, method and every figure that is not per situation (losses, NashConv...);
- ``tokens``: the history tokens' names (``"k"``, ``"s"``, ``"J0101"``...); ``history_back`` and
  ``history_token``: every public history as a tree, each row one token longer than an earlier row,
  its parent, ``history_back`` rows before it (row 0 is the empty history; the rows run depth
  first, so a parent is near and the numbers are small), and ``history_token`` the token added;
- ``position``, ``history_step`` (the row of the situation's history, as the difference from the
  previous situation's row), ``card``, ``given``: the situation's key;
- ``keep``, ``reach``, ``values`` and, where they differ from the values, ``chances`` (``N x 2``,
  keep then swap): float64, so a solution reads back exactly as it was written; or, written
  ``compact`` (the solutions shipped with the package), float32 with the situations sorted by
  history and the zip compressed by LZMA (``numpy.load`` reads it all the same), which shrinks the
  files about threefold (the figures keep 7 significant digits).

A file of another format or version is refused with ValueError (the cache then solves again):
it is never read as something it is not.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Collection
from fractions import Fraction
from typing import IO, Any

from ...rules import Rules
from ..model.hand import InfoKey

__all__ = ["BINARY_FORMAT", "BINARY_VERSION", "Tables", "figures_of", "is_binary", "read_npz", "write_npz"]

BINARY_FORMAT = "chase-the-ace solution npz"
BINARY_VERSION = 2
"""Bumped whenever the arrays' meaning changes; a file of another version is not read (2: the
histories as a tree, optionally compact)."""


def is_binary(path: str) -> bool:
    """Whether the file at ``path`` is a zip (an ``.npz``), not JSON (OSError if it cannot be read)."""
    with open(path, "rb") as f:
        return f.read(2) == b"PK"


def _meta(sol: Any) -> dict[str, Any]:
    data: dict[str, Any] = sol.to_dict(tables=False)
    data.update(format=BINARY_FORMAT, version=BINARY_VERSION)
    return data


def _history_tree(histories: Collection[tuple[str, ...]]) -> dict[tuple[str, ...], int]:
    """Every history of ``histories`` and each of its prefixes, numbered depth first (a history's
    prefixes before it, the empty history 0)."""
    every: set[tuple[str, ...]] = {()}
    for h in histories:
        while h not in every:
            every.add(h)
            h = h[:-1]
    return {h: i for i, h in enumerate(sorted(every))}


def write_npz(sol: Any, target: str | IO[bytes], *, compact: bool = False) -> None:
    """Write ``sol`` (a :class:`~.solution.Solution`) as a compressed ``.npz`` to a path or file;
    ``compact``: its figures as float32, the situations sorted by history (about a third of the
    size; read back, the order differs and the figures keep 7 significant digits)."""
    import numpy as np

    order = list(range(len(sol.infosets)))
    if compact:
        order.sort(key=lambda i: (sol.infosets[i][1], sol.infosets[i][0], sol.infosets[i][2],
                                  sol.infosets[i][3]))
    keys = [sol.infosets[i] for i in order]
    rows = _history_tree({key[1] for key in keys})
    tokens: dict[str, int] = {}
    back = np.zeros(len(rows), dtype=np.int32)
    token = np.full(len(rows), -1, dtype=np.int16)
    for h, row in rows.items():
        if h:
            back[row] = row - rows[h[:-1]]
            token[row] = tokens.setdefault(h[-1], len(tokens))
    hist = np.array([rows[key[1]] for key in keys], dtype=np.int32)
    real = np.float32 if compact else np.float64
    values = np.asarray(sol.values, dtype=np.float64).reshape(-1, 2)[order]
    arrays: dict[str, Any] = {
        "tokens": np.array(list(tokens), dtype=str),
        "history_back": back,
        "history_token": token,
        "position": np.array([k[0] for k in keys], dtype=np.int8),
        "history_step": np.diff(hist, prepend=0).astype(np.int32),
        "card": np.array([k[2] for k in keys], dtype=np.int8),
        "given": np.array([k[3] for k in keys], dtype=np.int8),
        "keep": np.asarray(sol.keep, dtype=np.float64)[order].astype(real),
        "reach": np.asarray(sol.reach, dtype=np.float64)[order].astype(real),
        "values": values.astype(real),
    }
    meta = _meta(sol)
    if sol.chances is not None:
        chances = np.asarray(sol.chances, dtype=np.float64).reshape(-1, 2)[order]
        if not np.array_equal(chances, values):
            arrays["chances"] = chances.astype(real)
        meta["chances"] = "values" if "chances" not in arrays else "array"
    arrays = {"meta": np.array(json.dumps(meta)), **arrays}
    if not compact:
        np.savez_compressed(target, **arrays)
        return
    from numpy.lib import format as npy

    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_LZMA) as z:  # a fifth smaller than zlib
        for name, array in arrays.items():
            with z.open(f"{name}.npy", "w", force_zip64=True) as f:
                npy.write_array(f, np.asanyarray(array), allow_pickle=False)


class Tables:
    """A solution's per-situation tables as read from a file, kept as the file's numpy arrays: a
    situation is looked up by a binary search over the history tree (its rows run in the sorted
    order of the histories) and a search among the situations of that history, so reading a file
    builds no Python object per situation (500,493 situations at 20 players); :meth:`column`
    spells a whole table out as the lists of :class:`~.solution.Solution` when asked."""

    def __init__(self, names: list[str], back: Any, token: Any, position: Any, rows: Any, card: Any,
                 given: Any, keep: Any, reach: Any, values: Any, chances: Any) -> None:
        import numpy as np

        self.names, self.back, self.token = names, back, token
        self.position, self.rows, self.card, self.given = position, rows, card, given
        self.keep, self.reach, self.values, self.chances = keep, reach, values, chances
        self._by_history: Any = None if bool(np.all(np.diff(rows) >= 0)) else np.argsort(rows, kind="stable")
        self._histories: list[tuple[str, ...]] | None = None

    def __len__(self) -> int:
        return len(self.rows)

    def history(self, row: int) -> tuple[str, ...]:
        """The public history of the tree's row ``row``."""
        tokens = []
        while row:
            tokens.append(self.names[int(self.token[row])])
            row -= int(self.back[row])
        return tuple(reversed(tokens))

    def _history_row(self, history: tuple[str, ...]) -> int | None:
        lo, hi = 0, len(self.back)
        while lo < hi:  # the rows run in the histories' sorted order (write_npz)
            mid = (lo + hi) // 2
            if self.history(mid) < history:
                lo = mid + 1
            else:
                hi = mid
        return lo if lo < len(self.back) and self.history(lo) == history else None

    def find(self, key: InfoKey) -> int | None:
        """The index of the situation ``key`` in the tables, or None if they have none for it."""
        import numpy as np

        position, history, card, given = key
        row = self._history_row(tuple(history))
        if row is None:
            return None
        rows = self.rows if self._by_history is None else self.rows[self._by_history]
        lo, hi = int(np.searchsorted(rows, row, "left")), int(np.searchsorted(rows, row, "right"))
        at = np.arange(lo, hi) if self._by_history is None else self._by_history[lo:hi]
        hit = at[(self.position[at] == position) & (self.card[at] == card) & (self.given[at] == given)]
        return int(hit[0]) if len(hit) else None

    def infosets(self) -> list[InfoKey]:
        """Every situation's key, in the tables' order."""
        histories = self._all_histories()
        return list(zip(self.position.tolist(), [histories[h] for h in self.rows.tolist()],
                        self.card.tolist(), self.given.tolist()))

    def _all_histories(self) -> list[tuple[str, ...]]:
        if self._histories is None:
            histories: list[tuple[str, ...]] = [()]
            pairs = zip(self.back.tolist()[1:], self.token.tolist()[1:])
            for row, (back, token) in enumerate(pairs, start=1):
                histories.append((*histories[row - back], self.names[token]))
            self._histories = histories
        return self._histories

    def column(self, name: str) -> Any:
        """A table as :class:`~.solution.Solution` holds it: ``infosets``, ``keep``, ``reach``
        (lists), ``values`` or ``chances`` (lists of pairs; ``chances`` None if the file has none)."""
        import numpy as np

        if name == "infosets":
            return self.infosets()
        if name in ("keep", "reach"):
            return getattr(self, name).astype(np.float64).tolist()
        table = getattr(self, name)
        return None if table is None else list(map(tuple, table.astype(np.float64).tolist()))

    def features(self) -> tuple[Any, Any, list[str]]:
        """Per situation, the index in the returned names of its history's last token (-1: none)
        and how many swaps its history holds (:func:`~.solution.similar_features`)."""
        import numpy as np

        swap = np.array([name.startswith("s") for name in self.names] + [False], dtype=np.int64)
        parent = np.arange(len(self.back)) - self.back
        parent[0] = 0
        own = swap[self.token.astype(np.int64)]  # the root's token -1: the False at the end
        own[0] = 0
        swaps = own.copy()
        while True:  # each round adds one more generation of ancestors: as many rounds as the depth
            longer = own + swaps[parent]
            longer[0] = 0
            if np.array_equal(longer, swaps):
                break
            swaps = longer
        return self.token.astype(np.int64)[self.rows], swaps[self.rows], list(self.names)


def read_npz(cls: Any, path: str) -> Any:
    """The solution (of class ``cls``) in the ``.npz`` at ``path``; ValueError if it is not one
    of :data:`BINARY_FORMAT` version :data:`BINARY_VERSION`. Its per-situation tables stay numpy
    arrays (:class:`Tables`: ``cls.from_tables``), spelled out as lists only when asked."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"][()]))
            if not isinstance(meta, dict) or meta.get("format") != BINARY_FORMAT:
                raise ValueError(f"not a chase-the-ace solution (format {BINARY_FORMAT!r})")
            if meta.get("version") != BINARY_VERSION:
                raise ValueError(f"a solution of format version {meta.get('version')!r}, this version reads "
                                 f"{BINARY_VERSION} only: solve again")
            values = z["values"]
            chances = None
            if meta.get("chances") == "values":
                chances = values
            elif meta.get("chances") == "array":
                chances = z["chances"]
            tables = Tables([str(t) for t in z["tokens"].tolist()], z["history_back"], z["history_token"],
                            z["position"], np.cumsum(z["history_step"], dtype=np.int64), z["card"],
                            z["given"], z["keep"], z["reach"], values, chances)
            back = tables.back
            if (len(back) < 1 or np.any(back[1:] < 1) or np.any(back > np.arange(len(back)))
                    or np.any(tables.rows < 0) or np.any(tables.rows >= len(back))
                    or np.any(tables.token[1:] < 0) or np.any(tables.token >= len(tables.names))):
                raise ValueError("bad solution file: its history tree is broken")
    except (KeyError, IndexError, TypeError, json.JSONDecodeError, zipfile.BadZipFile, EOFError) as exc:
        raise ValueError(f"bad solution file: {exc}") from None
    n = len(tables)
    if not (len(tables.keep) == len(tables.reach) == len(tables.values) == len(tables.position)
            == len(tables.card) == len(tables.given) == n) or (chances is not None and len(chances) != n):
        raise ValueError("bad solution file: its tables differ in length")
    try:
        return cls.from_tables(
            tables, rules=Rules.from_dict(meta["rules"]), players=int(meta["players"]),
            method=str(meta["method"]), **figures_of(meta))
    except (KeyError, TypeError) as exc:
        raise ValueError(f"bad solution file: {exc}") from None


def figures_of(data: dict[str, Any]) -> dict[str, Any]:
    """The figures of a solution that are not per situation, from its JSON form."""
    def opt(name: str) -> float | None:
        return None if data.get(name) is None else float(data[name])

    return dict(
        loss_probabilities=[float(x) for x in data["loss_probabilities"]],
        expected_lives_lost=[float(x) for x in data["expected_lives_lost"]],
        nash_conv=float(data["nash_conv"]), gains=[float(x) for x in data["gains"]],
        iterations=int(data["iterations"]), seconds=float(data["seconds"]),
        value=None if data["value"] is None else Fraction(data["value"]),
        exact_keep=None if data["exact_keep"] is None else [Fraction(x) for x in data["exact_keep"]],
        trace=[(int(a), float(b), float(c)) for a, b, c in data["trace"]],
        nash_conv_error=opt("nash_conv_error"),
        loss_errors=None if data.get("loss_errors") is None else [float(x) for x in data["loss_errors"]],
        nash_conv_low=opt("nash_conv_low"),
        measured=str(data.get("measured", "exact" if data.get("nash_conv_error") is None else "sampled")),
        refined=None if data.get("refined") is None else (int(data["refined"][0]), int(data["refined"][1])),
    )
