"""Which store a ``--db`` names: a ``postgresql://`` URL is PostgreSQL (:mod:`.pgstore`, the
``postgres`` extra, shared by several server processes), anything else a SQLite file
(:mod:`.store`, one server process)."""

from __future__ import annotations

from .store import Store, TableStore, is_url

__all__ = ["open_store", "is_url"]


def open_store(db: str) -> TableStore:
    """The store ``db`` names. ValueError (the URL's password masked) if it cannot be opened;
    ImportError naming the extra if the driver is missing."""
    if is_url(db):
        from .pgstore import PgStore

        return PgStore(db)
    return Store(db)
