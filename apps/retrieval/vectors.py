"""One person's stored vectors, kept per process between searches (SPEC S-4; docs/search.md "Speed").

Also SPEC R-5. Design notes: docs/performance.md (How the hot paths are built).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import connections

from apps.retrieval import listing
from apps.retrieval.embeddings.codec import HEADER

MAX_ROWS = 100_000
UNSEEN = 64  # searches of a person after which a row no scope held may be dropped
FETCH = 2_000  # vectors per statement
CHUNK = 256  # rows per product: small enough that OpenBLAS stays on one thread (docs/search.md "Speed")

_names_lock = threading.Lock()
_names: dict[str, int] = {}  # resource types and field paths, interned: the arrays hold small codes
_named: list[str] = []


def _code(name: str) -> int:
    code = _names.get(name)
    if code is None:
        with _names_lock:
            code = _names.setdefault(name, len(_named))
            if code == len(_named):
                _named.append(name)
    return code


def name_of(code: int) -> str:
    return _named[code]


@dataclass(frozen=True)
class Scored:
    """Every row in scope with a vector, as parallel arrays: its id, type and field codes, record, similarity and
    the script of its text (``indexing.script``)."""

    row_ids: np.ndarray
    kinds: np.ndarray  # codes: ``name_of``
    records: np.ndarray
    fields: np.ndarray  # codes: ``name_of``
    similarities: np.ndarray  # float32
    scripts: np.ndarray  # int8 flags
    background: Any = None  # the query's ``calibration.Background``, set by the search that compared


_NONE = np.empty(0, dtype=np.int64)
EMPTY = Scored(_NONE, _NONE, _NONE, _NONE, np.empty(0, dtype=np.float32), np.empty(0, dtype=np.int8))


class _Kept:
    """One person's vectors of one model, sorted by row id."""

    def __init__(self, dim: int) -> None:
        self.lock = threading.Lock()  # one search at a time reads or grows it
        self.ids = np.empty(0, dtype=np.int64)
        self.stamps = np.empty(0, dtype=np.int64)
        self.kinds = np.empty(0, dtype=np.int32)
        self.records = np.empty(0, dtype=np.int64)
        self.fields = np.empty(0, dtype=np.int32)
        self.scripts = np.empty(0, dtype=np.int8)
        self.scales = np.empty(0, dtype=np.float32)
        self.matrix = np.empty((0, dim), dtype=np.int8)
        self.searches = 0
        self.seen = np.empty(0, dtype=np.int64)  # the last search whose scope held each row

    def find(self, ids: np.ndarray) -> np.ndarray:
        """Each id's position, or -1 where it is not kept."""
        at = np.searchsorted(self.ids, ids)
        inside = at < self.ids.shape[0]
        found = np.zeros(ids.shape[0], dtype=bool)
        found[inside] = self.ids[at[inside]] == ids[inside]
        return np.where(found, at, -1)

    def merge(self, rows: list[tuple]) -> None:
        """Add ``rows`` (``backend.vector_rows``), replacing those ids. Rows no scope held in the last
        ``UNSEEN`` searches go when they are most of what is kept (deleted records, ended shares)."""
        dim = self.matrix.shape[1]
        rows = [row for row in rows if len(row[5]) == HEADER + dim]
        if not rows:
            return
        raw = np.frombuffer(b"".join(bytes(row[5]) for row in rows), dtype=np.uint8).reshape(len(rows), HEADER + dim)
        new_ids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
        old = self.seen > self.searches - UNSEEN
        if old.all() or old.sum() * 2 > old.shape[0]:
            old[:] = True
        replaced = self.find(new_ids)
        old[replaced[replaced >= 0]] = False
        order = np.argsort(np.concatenate([self.ids[old], new_ids]), kind="stable")
        self.ids = np.concatenate([self.ids[old], new_ids])[order]
        self.stamps = np.concatenate([self.stamps[old], np.fromiter(
            (row[1] for row in rows), dtype=np.int64, count=len(rows))])[order]
        self.kinds = np.concatenate([self.kinds[old], np.fromiter(
            (_code(row[2]) for row in rows), dtype=np.int32, count=len(rows))])[order]
        self.records = np.concatenate([self.records[old], np.fromiter(
            (row[3] for row in rows), dtype=np.int64, count=len(rows))])[order]
        self.fields = np.concatenate([self.fields[old], np.fromiter(
            (_code(row[4]) for row in rows), dtype=np.int32, count=len(rows))])[order]
        self.scripts = np.concatenate([self.scripts[old], np.fromiter(
            (row[6] for row in rows), dtype=np.int8, count=len(rows))])[order]
        self.scales = np.concatenate([self.scales[old], raw[:, :HEADER].copy().view(np.float32).reshape(-1)])[order]
        self.matrix = np.ascontiguousarray(np.concatenate([self.matrix[old], raw[:, HEADER:].view(np.int8)])[order])
        self.seen = np.concatenate([self.seen[old], np.full(len(rows), self.searches, dtype=np.int64)])[order]


_lock = threading.Lock()
_kept: OrderedDict[tuple, _Kept] = OrderedDict()
_scratch = threading.local()


def _entry(key: tuple, dim: int) -> _Kept:
    with _lock:
        kept = _kept.pop(key, None)
        if kept is None or kept.matrix.shape[1] != dim:
            kept = _Kept(dim)
        _kept[key] = kept
        while sum(k.matrix.shape[0] for k in _kept.values()) > MAX_ROWS and len(_kept) > 1:
            _kept.popitem(last=False)
        return kept


def products(matrix: np.ndarray, positions: np.ndarray | None, query: np.ndarray) -> np.ndarray:
    """``matrix[positions] · query`` (all rows when ``positions`` is None), a chunk at a time."""
    count = matrix.shape[0] if positions is None else positions.shape[0]
    out = np.empty(count, dtype=np.float32)
    buffer = getattr(_scratch, "buffer", None)
    if buffer is None or buffer.shape[1] != matrix.shape[1]:
        buffer = _scratch.buffer = np.empty((CHUNK, matrix.shape[1]), dtype=np.float32)
    for start in range(0, count, CHUNK):
        stop = min(start + CHUNK, count)
        part = matrix[start:stop] if positions is None else matrix[positions[start:stop]]
        np.copyto(buffer[:stop - start], part, casting="unsafe")
        np.matmul(buffer[:stop - start], query, out=out[start:stop])
    return out


def in_scope(backend, *, owner_id: int, scopes: Sequence, model: str, dim: int) -> Callable[[np.ndarray], Scored]:
    """Every row in scope that has a vector of ``model``: the rows listed and their kept vectors brought up to
    date (the database's part). It returns their similarities to a unit query, arithmetic only: another
    thread may run it."""
    built = backend.vector_scope_sql(owner_id=owner_id, scopes=scopes, model=model)
    if built is None:
        return _nothing
    with connections[backend.using].cursor() as cursor:
        listed = listing.scope_rows(backend, cursor, built, owner_id=owner_id, scopes=scopes)
        ids, stamps = listed.ids, listed.stamps
        if ids.shape[0] == 0:
            return _nothing
        kept = _entry((backend.using, owner_id, model), dim)
        with kept.lock:
            kept.searches += 1
            at = kept.find(ids)
            stale = at < 0
            stale[~stale] = kept.stamps[at[~stale]] != stamps[~stale]
            if stale.any():
                wanted = ids[stale].tolist()
                fetched = []
                for start in range(0, len(wanted), FETCH):
                    fetched += backend.vector_rows(cursor, wanted[start:start + FETCH], model)
                kept.seen[at[~stale]] = kept.searches
                kept.merge(fetched)
                at = kept.find(ids)
                # A row whose vector went between the two statements is left out, not compared by its old one.
                gone = np.setdiff1d(ids[stale], np.fromiter((row[0] for row in fetched), dtype=np.int64,
                                                            count=len(fetched)))
                if gone.shape[0]:
                    at[np.isin(ids, gone)] = -1
            at = at[at >= 0]
            kept.seen[at] = kept.searches
            if at.shape[0] == 0:
                return _nothing
            # The arrays as they are now: a later merge replaces them with new ones and never writes into these.
            whole = at.shape[0] == kept.ids.shape[0]  # every kept row in scope: positions are 0 … n-1
            return _Comparison(kept.matrix, None if whole else at, kept.scales, kept.ids, kept.kinds,
                               kept.records, kept.fields, kept.scripts)


def _nothing(query: np.ndarray) -> Scored:
    return EMPTY


@dataclass(frozen=True)
class _Comparison:
    """Kept rows (``positions`` of the arrays; None: all of them), to be compared with a query."""

    matrix: np.ndarray
    positions: np.ndarray | None
    scales: np.ndarray
    ids: np.ndarray
    kinds: np.ndarray
    records: np.ndarray
    fields: np.ndarray
    scripts: np.ndarray

    def __call__(self, query: np.ndarray) -> Scored:
        query = np.ascontiguousarray(query, dtype=np.float32)
        at = slice(None) if self.positions is None else self.positions
        scores = products(self.matrix, self.positions, query) * self.scales[at]
        return Scored(self.ids[at], self.kinds[at], self.records[at], self.fields[at], scores, self.scripts[at])


def forget() -> None:
    """Drop every kept vector and list (a restored database reuses row ids and times, as test rollbacks do)."""
    with _lock:
        _kept.clear()
    listing.forget()
