"""One person's stored vectors, kept per process between searches (SPEC S-4; docs/search.md "Speed").

Also SPEC R-5. Design notes: docs/performance.md (How the hot paths are built).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
from django.db import connections

from apps.retrieval.embeddings.codec import HEADER

MAX_ROWS = 100_000
FETCH = 2_000  # vectors per statement


class _Kept:
    """One person's vectors of one model: row id → (updated_at, position in ``matrix``)."""

    def __init__(self, dim: int) -> None:
        self.lock = threading.Lock()  # one search at a time reads or grows it
        self.at: dict[int, tuple[object, int]] = {}
        self.matrix = np.empty((0, dim), dtype=np.int8)
        self.scales = np.empty(0, dtype=np.float32)

    def add(self, rows: list[tuple[int, object, bytes]]) -> None:
        dim = self.matrix.shape[1]
        rows = [row for row in rows if len(row[2]) == HEADER + dim]
        if not rows:
            return
        raw = np.frombuffer(b"".join(bytes(row[2]) for row in rows), dtype=np.uint8).reshape(len(rows), HEADER + dim)
        if self.matrix.shape[0] > 2 * len(self.at) + 1_000:  # mostly replaced vectors: drop the old ones
            live = sorted(self.at.items(), key=lambda item: item[1][1])
            positions = np.fromiter((position for _, (_, position) in live), dtype=np.int64, count=len(live))
            self.matrix, self.scales = self.matrix[positions], self.scales[positions]
            self.at = {row_id: (updated_at, i) for i, (row_id, (updated_at, _)) in enumerate(live)}
        start = self.matrix.shape[0]
        self.matrix = np.concatenate([self.matrix, raw[:, HEADER:].view(np.int8)])
        self.scales = np.concatenate([self.scales, raw[:, :HEADER].copy().view(np.float32).reshape(-1)])
        for offset, (row_id, updated_at, _) in enumerate(rows):
            self.at[row_id] = (updated_at, start + offset)


_lock = threading.Lock()
_kept: OrderedDict[tuple, _Kept] = OrderedDict()


def _entry(key: tuple, dim: int) -> _Kept:
    with _lock:
        kept = _kept.pop(key, None)
        if kept is None or kept.matrix.shape[1] != dim:
            kept = _Kept(dim)
        _kept[key] = kept
        while sum(k.matrix.shape[0] for k in _kept.values()) > MAX_ROWS and len(_kept) > 1:
            _kept.popitem(last=False)
        return kept


def similarities(backend, *, owner_id: int, scopes: Sequence, model: str,
                 query: np.ndarray) -> list[tuple[int, str, int, str, float]]:
    """(row id, resource type, record id, field, similarity) of every row in scope that has a vector."""
    built = backend.vector_sql(owner_id=owner_id, scopes=scopes, model=model)
    if built is None:
        return []
    with connections[backend.using].cursor() as cursor:
        cursor.execute(*built)
        rows = cursor.fetchall()
        if not rows:
            return []
        kept = _entry((backend.using, owner_id, model), query.shape[0])
        with kept.lock:
            wanted = [row[0] for row in rows if kept.at.get(row[0], (None,))[0] != row[4]]
            for at in range(0, len(wanted), FETCH):
                chunk = wanted[at:at + FETCH]
                cursor.execute(f"SELECT id, updated_at, vector FROM {backend.table} WHERE id IN "
                               f"({', '.join(['%s'] * len(chunk))}) AND vector_model = %s", [*chunk, model])
                kept.add(cursor.fetchall())
            present = [(row, kept.at[row[0]][1]) for row in rows if row[0] in kept.at]
            if not present:
                return []
            positions = np.fromiter((position for _, position in present), dtype=np.int64, count=len(present))
            matrix, scales = kept.matrix[positions], kept.scales[positions]
    scores = (matrix.astype(np.float32) @ query.astype(np.float32)) * scales
    return [
        (row[0], row[1], int(row[2]), row[3], score)
        for (row, _), score in zip(present, scores.tolist(), strict=True)
    ]


def forget() -> None:
    """Drop every kept vector (a restored database reuses row ids and times, as test rollbacks do)."""
    with _lock:
        _kept.clear()
