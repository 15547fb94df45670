"""Tables read and replayed off the event loop: one worker thread with its own read-only
connection to the database."""

from __future__ import annotations

import concurrent.futures
import contextlib

from .botkinds import WebBots
from .ids import table_id_ok
from .store import Store, TableStore
from .tables import Table

__all__ = ["Loader"]


class Loader:
    """One worker thread with its own read-only connection to the database: it reads a table's
    log and replays its game, so a long game never stalls the event loop (the replay is pure
    Python, but the loop gets the interpreter back every few milliseconds)."""

    def __init__(self, store: TableStore) -> None:
        self.source = store
        self.executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="cta-loader")
        self._store: TableStore | None = None

    def restore(self, table_id: str, store: TableStore, bots: WebBots) -> Table | None:
        """In the worker thread: the table rebuilt from its log (bound to the server's ``store``
        for its writes), or None if there is no such table."""
        if not table_id_ok(table_id):
            return None
        if self._store is None:
            self._store = self.source.reader()
        saved = self._store.load_table(table_id)
        return None if saved is None else Table.restore(saved, store, bots)

    def rebuild(self, table: Table) -> Table | None:
        """In the worker thread: a fresh copy of a table in memory (:meth:`.Table.rebuilt`)."""
        if self._store is None:
            self._store = self.source.reader()
        return table.rebuilt(self._store)

    def close(self) -> None:
        """Stop the thread and close its connection."""
        def shut() -> None:
            if isinstance(self._store, Store):
                self._store.db.close()
            self._store = None
        with contextlib.suppress(RuntimeError):
            self.executor.submit(shut).result(10)
        self.executor.shutdown(wait=True)
