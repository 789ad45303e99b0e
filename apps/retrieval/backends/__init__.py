"""Search backends: one per database, chosen from ``connection.vendor`` (SPEC R-7)."""

from __future__ import annotations

from django.db import connections

from apps.retrieval.backends.base import BaseSearchBackend, SearchHit, SearchScope

_BACKENDS = {
    "postgresql": "apps.retrieval.backends.postgres.PostgresSearchBackend",
    "sqlite": "apps.retrieval.backends.sqlite.SQLiteSearchBackend",
}


def get_search_backend(using: str = "default") -> BaseSearchBackend:
    """The search backend for this database connection's vendor."""
    from django.utils.module_loading import import_string

    vendor = connections[using].vendor
    if vendor not in _BACKENDS:
        raise NotImplementedError(f"no search backend for the {vendor!r} database")
    return import_string(_BACKENDS[vendor])(using)


__all__ = ["BaseSearchBackend", "SearchHit", "SearchScope", "get_search_backend"]
