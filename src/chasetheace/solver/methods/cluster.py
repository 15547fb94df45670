"""The parts of the exact tree on a Ray cluster: for users who outgrow one machine.

``cta.solve(..., cluster="auto")`` (``chase-the-ace solve --cluster auto``) sends the parts of each
pass over the exact tree (:mod:`.parts`: 364 to 455 parts from 7 players) to the Ray cluster this machine
belongs to (``ray.init(address="auto")``: started with ``ray start``, or named by ``RAY_ADDRESS``);
``cluster="ray://host:port"`` to a remote one through the Ray Client. Each part is one Ray task
(:func:`ray_part`, doing what a local worker does: :func:`.parts.run_part`) declaring

- ``memory``: its peak memory, measured (:data:`PART_MEMORY_MB`), so that Ray's scheduler starts
  a part only on a node with room for it;
- ``max_retries``: a part whose worker or node dies is run again (:data:`MAX_RETRIES` times), on
  whatever node has room; a part is a pure function of the rules, the players, its weakest cards
  and the strategy, so its result is the same.

The parts come back in any order and are summed in one fixed order (see :class:`.parts.PartsEngine`),
each computed with numpy's BLAS on one thread (:data:`.parts.ONE_THREAD`, as in the local workers):
the figures through Ray are those of the local processes, bit for bit, where the nodes run the
same numpy on the same kind of processor (BLAS picks its kernels by processor: across kinds the
figures may differ in their last bits, about 1e-16 of them, never more). Every node needs this
package, its ``solve`` and ``fast`` extras and Ray, of the same versions as the machine that
starts the solve. Ray is the optional extra ``cluster`` (``make add-cluster`` in a checkout),
imported only here, when a cluster is asked for.
"""

from __future__ import annotations

import contextlib
import logging
import re
import socket
from collections.abc import Iterator
from typing import Any

from ...extras import needs_extra_text
from ..model.hand import Hand, InfoKey
from .parts import ONE_THREAD, Got

__all__ = ["MAX_RETRIES", "PART_MEMORY_MB", "PART_SECONDS", "RayRunner", "check_address", "part_memory",
           "ray_part"]

Array = Any

PART_MEMORY_MB: dict[int, int] = {5: 110, 6: 199, 7: 547, 8: 1592, 9: 4748}
"""The peak resident memory (MB) of a process evaluating parts of the exact tree, per players,
standard rules, the compiled loops (numba) loaded: the interpreter, numpy and numba take about
165 MB of it. At 5 and 6 players the largest part alone in a fresh process
(``benchmarks/part_cost.py``); from 7 a worker's peak over a whole pass, which is larger (a worker
that has run many parts holds more than one fresh process running the largest: at 9 players
2,054 MB for the part (0, 1, 2) alone, 4,748 MB the largest worker over the 9-player solve of
docs/strategy.md; 8 players 413 and 1,592 MB; 7 players 224 and 547 MB). Ray runs many parts in
one worker process too. Each part declares this times :data:`MARGIN` to Ray. Above 9 players (not
measured here) the largest figure is taken 2.5 times per player more: a tree has about ten times
the nodes per player, and from 10 players each player adds a weakest card to the parts' names
(:func:`~..model.dealing.low_size`), which divides the largest part about fourfold."""
PART_SECONDS: dict[int, float] = {5: 0.2, 6: 1.7, 7: 1.7, 8: 4.7, 9: 40.0}
"""The seconds of one part's evaluation (its tree built included) on one core, measured with the
memory above on a lightly loaded machine (at 5 players the first part loads the compiled loops)."""
MARGIN = 1.25
"""What a part declares to Ray over its measured peak: rules other than the standard (a part's
size depends on them) and the worker's own growth."""
MAX_RETRIES = 3
"""How many times Ray runs a part again whose worker or node died."""


def part_memory(players: int) -> int:
    """The memory (bytes) a part of the exact tree of ``players`` declares to Ray (see
    :data:`PART_MEMORY_MB`)."""
    top = max(PART_MEMORY_MB)
    mb = PART_MEMORY_MB.get(players) or (PART_MEMORY_MB[top] * 2.5 ** (players - top) if players > top
                                         else PART_MEMORY_MB[min(PART_MEMORY_MB)])
    return int(mb * MARGIN * 2**20)


ADDRESS = re.compile(r"ray://(?P<host>\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):(?P<port>\d{1,5})")


def check_address(address: str) -> str:
    """``address`` if it names a cluster this module can use (``auto``, or ``ray://host:port``);
    ValueError otherwise."""
    if not isinstance(address, str):
        raise ValueError(f"bad cluster {address!r}: 'auto' or 'ray://host:port'")
    if address == "auto":
        return address
    match = ADDRESS.fullmatch(address)
    if match is None or not 0 < int(match["port"]) < 65536:
        raise ValueError(f"bad cluster {address!r}: 'auto' (the running Ray cluster) or "
                         "'ray://host:port' (a remote one, through the Ray Client)")
    return address


class RayRunner:
    """Runs the parts of a pass (:class:`.parts.Runner`) as Ray tasks on the cluster at ``address``.

    Made, it has checked the address and connected (so a bad or unreachable cluster is a
    ValueError before any work); :meth:`disconnect` lets go of the cluster (which keeps running).
    ``memory``: the bytes each part declares (default :func:`part_memory` of the table size)."""

    def __init__(self, address: str, *, memory: int | None = None, max_retries: int = MAX_RETRIES,
                 connect_timeout: float = 5.0) -> None:
        check_address(address)
        try:
            import ray
        except ImportError:
            raise ValueError(needs_extra_text("a cluster", "cluster", missing="ray")) from None
        self.address = address
        self.memory = memory
        self.max_retries = max_retries
        self._ray = ray
        self._keys: Any = None
        self._job: tuple[dict[str, Any], int, str] | None = None
        self._declared = 0
        match = ADDRESS.fullmatch(address)
        if match is not None:  # the Ray Client retries for 30 s: a closed port is said at once
            host = match["host"].strip("[]")
            try:
                socket.create_connection((host, int(match["port"])), timeout=connect_timeout).close()
            except OSError as exc:
                raise ValueError(f"cannot reach the Ray cluster at {address}: {exc}") from None
        self._ours = not ray.is_initialized()
        if self._ours:
            for attempt in range(2):
                try:
                    if address == "auto":
                        ray.init(address="auto", logging_level=logging.WARNING, log_to_driver=False)
                    else:
                        ray.init(address=address)
                    break
                except Exception as exc:  # ConnectionError, RuntimeError, a client's own errors
                    with contextlib.suppress(Exception):  # a half-made connection would spoil the next try
                        ray.shutdown()
                    # the Ray Client's server may fail to start the process that serves this
                    # connection on a busy head ("Initialization failure from server"): once more
                    if attempt == 0 and isinstance(exc, ConnectionAbortedError):
                        continue
                    said = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                    raise ValueError(f"cannot reach the Ray cluster at {address}: {said}") from None
        self._task = ray.remote(ray_part)

    def start(self, hand: Hand, keys: list[InfoKey]) -> None:
        import numpy as np

        from .checkpoint import digest

        self._keys = self._ray.put(keys)
        tag = digest(np.frombuffer(repr((hand.rules.to_dict(), hand.players, keys)).encode(), dtype=np.uint8))
        self._job = (hand.rules.to_dict(), hand.players, tag)
        self._declared = part_memory(hand.players) if self.memory is None else self.memory

    def run(self, parts: list[tuple[int, ...]], keep: Array) -> Iterator[tuple[int, Got]]:
        assert self._job is not None, "start first"
        ray = self._ray
        rules, players, tag = self._job
        keep_ref = ray.put(keep)
        task = self._task.options(memory=self._declared, max_retries=self.max_retries, num_cpus=1,
                                  runtime_env={"env_vars": ONE_THREAD})
        # the keys inside a list: Ray hands the reference over unresolved, and a worker fetches the
        # keys only for the first part of a solve it runs
        at = {task.remote(rules, players, tag, [self._keys], dealt, keep_ref): i
              for i, dealt in enumerate(parts)}
        pending = list(at)
        try:
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                yield at[ready[0]], ray.get(ready[0])
        finally:
            for ref in pending:
                ray.cancel(ref)

    def close(self) -> None:
        self._keys = None
        self._job = None

    def disconnect(self) -> None:
        """Let go of the cluster (if this runner connected to it)."""
        self.close()
        if self._ours and self._ray.is_initialized():
            self._ray.shutdown()


_CACHE: dict[str, tuple[Hand, dict[InfoKey, int]]] = {}


def ray_part(rules: dict[str, Any], players: int, tag: str, keys: list[Any], dealt: tuple[int, ...],
             keep: Array) -> Got:
    """In a Ray worker: one part (:func:`.parts.run_part`). The hand and the keys' index are kept
    from one part to the next of the same solve (``tag`` names it); ``keys`` is ``[reference]``
    to the keys in Ray's object store."""
    from ...rules import Rules
    from .parts import run_part

    if tag not in _CACHE:
        import ray

        _CACHE.clear()
        _CACHE[tag] = (Hand(Rules.from_dict(rules), players),
                       {key: i for i, key in enumerate(ray.get(keys[0]))})
    hand, index = _CACHE[tag]
    return run_part(hand, index, tuple(dealt), keep)
