"""One run at a time for periodic jobs, across every worker and host (SPEC J-1)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connections


def _lock_key(name: str) -> int:
    # A stable signed 64-bit key: PostgreSQL advisory locks take a bigint.
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big", signed=True)


@contextmanager
def exclusive(name: str, *, using: str = "default") -> Iterator[bool]:
    """Try to hold the lock ``name`` for the block; yield whether it was acquired.

    A PostgreSQL session advisory lock, so a second concurrent run does nothing; on SQLite always ``True``.
    """
    connection = connections[using]
    if connection.vendor != "postgresql":
        yield True
        return
    key = _lock_key(name)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        acquired = bool(cursor.fetchone()[0])
    try:
        yield acquired
    finally:
        if acquired:
            try:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
            except Exception:
                # An aborted transaction cannot unlock; closing the session releases the lock.
                connection.close()
                raise
