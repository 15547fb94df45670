"""A :class:`~.solution.Solution` as compact binary: numpy arrays indexed by situation, in one ``.npz``.

The JSON of :meth:`Solution.to_dict` spells every situation and figure out (81 MB at 9 players);
this form keeps the same tables as arrays, compressed (``numpy.savez_compressed``), readable with
numpy alone (``numpy.load(path)``, no pickles). The solution cache, ``solve --save FILE.npz`` and
``serve --solutions DIR`` use it; ``solve --save FILE.json`` still writes the readable JSON.

The arrays (``N`` situations, in the solution's order):

- ``meta``: one text, JSON: ``format`` (:data:`BINARY_FORMAT`), ``version`` (:data:`BINARY_VERSION`),
  the rules, players, method and every figure that is not per situation (losses, NashConv...);
- ``tokens``: the history tokens' names (``"k"``, ``"s"``, ``"J0101"``...); ``history_tokens`` and
  ``history_lengths``: every distinct public history, as token numbers one after another;
- ``position``, ``history`` (a number in that table), ``card``, ``given``: the situation's key;
- ``keep``, ``reach``, ``values`` and, where they differ from the values, ``chances`` (``N x 2``,
  keep then swap): float64, so a solution reads back exactly as it was written.

A file of another format or version is refused with ValueError (the cache then solves again):
it is never read as something it is not.
"""

from __future__ import annotations

import json
import zipfile
from fractions import Fraction
from typing import IO, Any

from ...rules import Rules
from ..model.hand import InfoKey

__all__ = ["BINARY_FORMAT", "BINARY_VERSION", "figures_of", "is_binary", "read_npz", "write_npz"]

BINARY_FORMAT = "chase-the-ace solution npz"
BINARY_VERSION = 1
"""Bumped whenever the arrays' meaning changes; a file of another version is not read."""


def is_binary(path: str) -> bool:
    """Whether the file at ``path`` is a zip (an ``.npz``), not JSON (OSError if it cannot be read)."""
    with open(path, "rb") as f:
        return f.read(2) == b"PK"


def _meta(sol: Any) -> dict[str, Any]:
    data: dict[str, Any] = sol.to_dict(tables=False)
    data.update(format=BINARY_FORMAT, version=BINARY_VERSION)
    return data


def write_npz(sol: Any, target: str | IO[bytes]) -> None:
    """Write ``sol`` (a :class:`~.solution.Solution`) as a compressed ``.npz`` to a path or file."""
    import numpy as np

    tokens: dict[str, int] = {}
    histories: dict[tuple[str, ...], int] = {}
    flat: list[int] = []
    lengths: list[int] = []
    hist = np.empty(len(sol.infosets), dtype=np.int32)
    for i, key in enumerate(sol.infosets):
        h = histories.get(key[1])
        if h is None:
            h = histories[key[1]] = len(histories)
            flat.extend(tokens.setdefault(t, len(tokens)) for t in key[1])
            lengths.append(len(key[1]))
        hist[i] = h
    values = np.asarray(sol.values, dtype=np.float64).reshape(-1, 2)
    arrays: dict[str, Any] = {
        "meta": np.array(json.dumps(_meta(sol))),
        "tokens": np.array(list(tokens), dtype=str),
        "history_tokens": np.array(flat, dtype=np.int16),
        "history_lengths": np.array(lengths, dtype=np.int16),
        "position": np.array([k[0] for k in sol.infosets], dtype=np.int8),
        "history": hist,
        "card": np.array([k[2] for k in sol.infosets], dtype=np.int8),
        "given": np.array([k[3] for k in sol.infosets], dtype=np.int8),
        "keep": np.asarray(sol.keep, dtype=np.float64),
        "reach": np.asarray(sol.reach, dtype=np.float64),
        "values": values,
    }
    if sol.chances is not None:
        chances = np.asarray(sol.chances, dtype=np.float64).reshape(-1, 2)
        if not np.array_equal(chances, values):
            arrays["chances"] = chances
        arrays["meta"] = np.array(json.dumps({**_meta(sol), "chances": "values"
                                               if "chances" not in arrays else "array"}))
    np.savez_compressed(target, **arrays)


def read_npz(cls: Any, path: str) -> Any:
    """The solution (of class ``cls``) in the ``.npz`` at ``path``; ValueError if it is not one
    of :data:`BINARY_FORMAT` version :data:`BINARY_VERSION`."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"][()]))
            if not isinstance(meta, dict) or meta.get("format") != BINARY_FORMAT:
                raise ValueError(f"not a chase-the-ace solution (format {BINARY_FORMAT!r})")
            if meta.get("version") != BINARY_VERSION:
                raise ValueError(f"a solution of format version {meta.get('version')!r}, this version reads "
                                 f"{BINARY_VERSION} only: solve again")
            names = [str(t) for t in z["tokens"].tolist()]
            flat = z["history_tokens"].tolist()
            histories: list[tuple[str, ...]] = []
            at = 0
            for n in z["history_lengths"].tolist():
                histories.append(tuple(names[t] for t in flat[at:at + n]))
                at += n
            infosets: list[InfoKey] = [(p, histories[h], c, g) for p, h, c, g in zip(
                z["position"].tolist(), z["history"].tolist(), z["card"].tolist(), z["given"].tolist())]
            values = z["values"]
            chances = None
            if meta.get("chances") == "values":
                chances = values
            elif meta.get("chances") == "array":
                chances = z["chances"]
            keep, reach = z["keep"].tolist(), z["reach"].tolist()
    except (KeyError, IndexError, TypeError, json.JSONDecodeError, zipfile.BadZipFile, EOFError) as exc:
        raise ValueError(f"bad solution file: {exc}") from None
    if not (len(keep) == len(reach) == len(values) == len(infosets)):
        raise ValueError("bad solution file: its tables differ in length")
    pairs = [tuple(v) for v in values.tolist()]
    try:
        return cls(
            rules=Rules.from_dict(meta["rules"]), players=int(meta["players"]), method=str(meta["method"]),
            infosets=infosets, keep=keep, reach=reach, values=pairs,
            chances=None if chances is None else (pairs if chances is values
                                                  else [tuple(v) for v in chances.tolist()]),
            **figures_of(meta))
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
    )
