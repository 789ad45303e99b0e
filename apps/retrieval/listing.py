"""The rows a search's scope holds, listed again only when the database's stamps say they may have changed
(SPEC S-4, R-5, R-7): what the kept vectors (``vectors``) and the kept texts (``backends.kept_texts``) are
brought up to date by.

Design notes: docs/performance.md (How the hot paths are built).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np

from apps.common.memo import BoundedMemo

# A scope's rows as last listed, under the stamps the database gave with them: (stamps, ids, row stamps).
# Keyed by the scope's own statement (owner, types, readable fields, the records' rule with its values,
# model), so another caller's scope is never answered from it. 64 scopes of 20,000 rows are 20 MB.
_listed = BoundedMemo(64)


@dataclass(frozen=True)
class Listed:
    """A scope's rows (ids and change stamps, int64) and, when stamps prove it, the version they are of:
    ``(the scope's statement, the stamps)``, equal for every search that lists the same rows (None: unknown)."""

    ids: np.ndarray
    stamps: np.ndarray
    version: tuple | None = None


def scope_rows(backend, cursor, built: tuple[str, list], *, owner_id: int, scopes: Sequence) -> Listed:
    """``backend.vector_scope``'s answer to ``built`` (``vector_scope_sql``), listed again only when the
    stamps moved.

    The stamps change in the transaction of every write to what the scope reads, whichever process writes,
    so a list kept under them never shows a row that left the scope, nor misses one that entered it."""
    stamp = backend.scope_stamp_sql(owner_id=owner_id, scopes=scopes)
    key = (backend.using, built[0], tuple(built[1]), *((stamp[0], tuple(stamp[1])) if stamp else ()))
    if stamp is None or not _hashable(key):
        return Listed(*backend.vector_scope(cursor, *built))
    known = _listed.get(key)
    # The stamps alone first: while they stand, the statement listing the rows is neither run nor planned.
    if known is not None and _stamps_now(backend, cursor, stamp) == known[0]:
        return Listed(known[1], known[2], (key, known[0]))
    now, listed = backend.vector_scope_stamped(cursor, built, stamp)
    if None in now:  # a source without a stamp yet: nothing proves the next list unchanged
        return Listed(*listed)
    for array in listed:
        array.flags.writeable = False  # shared by every search that finds the stamps unchanged
    _listed.put(key, (now, *listed))
    return Listed(listed[0], listed[1], (key, now))


# Within ``one_reading``: each stamp's value as first read, by (database, its SQL, its parameters).
_read: ContextVar[dict | None] = ContextVar("stamps_read", default=None)


@contextmanager
def one_reading() -> Iterator[None]:
    """Within it, each stamp is read once: the scopes of one search (its texts, its vectors) are listed as of
    the same reading, one statement fewer, and each stays exact for the stamp it was listed under."""
    token = _read.set({})
    try:
        yield
    finally:
        _read.reset(token)


def _stamps_now(backend, cursor, stamp: tuple[str, list]) -> tuple:
    read = _read.get()
    if read is None:
        return backend.stamps_now(cursor, stamp)
    key = (backend.using, stamp[0], tuple(stamp[1]))
    if key not in read:
        read[key] = backend.stamps_now(cursor, stamp)
    return read[key]


def _hashable(key: tuple) -> bool:
    try:
        hash(key)
    except TypeError:
        return False
    return True


def forget() -> None:
    """Drop every kept list (a restored database reuses row ids and times, as test rollbacks do)."""
    with _listed.lock:
        _listed.entries.clear()
