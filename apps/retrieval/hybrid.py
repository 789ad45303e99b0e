"""Search by words and by meaning, side by side (SPEC S-3, S-4, R-5); ``layer.searching.ranked`` orders them.

Design notes: docs/design.md.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, replace

import numpy as np

from apps.common.memo import BoundedMemo
from apps.retrieval import calibration, listing
from apps.retrieval.backends import BaseSearchBackend, SearchHit, SearchScope
from apps.retrieval.indexing import normalize
from apps.retrieval.registry import name_fields

log = logging.getLogger(__name__)

DEPTH = 50  # the most records that match by meaning
# A field matches by meaning when its similarity is at least FLOOR, stands STANDING standard deviations above
# the query's background, is at least as close to the query as its closest nonsense string and, unless the
# query is about someone, at most -GENERAL below its closest general-knowledge topic in the field's script, at
# least AMOUNT above it when the query asks an amount, or WORLD when it is phrased as a question about the world
# (``calibration``); a field of names, only when spelt alike too (``calibration.spelt_alike``). Chosen on the
# evaluation's tuning half and its development questions (docs/search.md "Calibrated relevance").
FLOOR = 0.25
STANDING = 2.5
GENERAL = -0.05
AMOUNT = 0.0
WORLD = 0.1
ROUND = 4  # similarities equal to this many places are ties


@dataclass(frozen=True)
class MeaningHit:
    row_id: int  # the projection row whose vector matched
    resource_type: str
    record_id: int
    field: str  # the readable field whose meaning was closest
    similarity: float


# A local model's query vector is a pure function of the embedder (built once per process and configuration)
# and the normalized text: a query asked again (the next page, a retry) skips the encoder. 1,024 vectors are
# about 2 MB. A remote service's answers are not kept: while it is down, search is by words (SPEC S-4).
_asked = BoundedMemo(1_024)


def query_vector(query: str):
    """(embedder name, the query's unit vector), or None when meaning is off or unavailable."""
    from apps.retrieval.embeddings import get_embedder

    embedder = get_embedder()
    if embedder is None:
        return None
    vector = _encode(embedder, query)
    return None if vector is None else (embedder.name, vector)


def _encode(embedder, query: str):
    """The query's unit vector by ``embedder``, or None when it is unavailable."""
    from apps.retrieval.embeddings import EmbeddingUnavailable

    text = normalize(query)
    vector = _asked.get((id(embedder), text)) if embedder.local else None
    if vector is None:
        try:
            vector = embedder.embed([text])[0]
        except EmbeddingUnavailable as exc:
            log.warning("searching by words alone: %s", exc)
            return None
        if embedder.local:
            vector.flags.writeable = False  # shared by every search that asks it again
            _asked.put((id(embedder), text), vector)
    return vector


def meaning_hits(backend: BaseSearchBackend, *, owner_id: int, query: str,
                 scopes: Sequence[SearchScope], limit: int = DEPTH) -> list[MeaningHit]:
    """The records whose readable fields are closest in meaning to ``query``, best first."""
    meaning = _meaning(backend, owner_id=owner_id, query=query, scopes=scopes, limit=limit)
    return meaning() if meaning else []


def search_both(backend: BaseSearchBackend, *, owner_id: int, query: str, scopes: Sequence[SearchScope],
                keyword_limit: int) -> tuple[list[SearchHit], list[MeaningHit]]:
    """The ``keyword_limit`` best keyword matches and ``meaning_hits``.

    The statements run on this thread, which holds the database connection; the query's encoding and the
    comparisons run on another while the database answers the keyword statement (docs/search.md "Speed").
    """
    with listing.one_reading():  # the vectors and the texts listed under one reading of the scope's stamps
        meaning = _meaning(backend, owner_id=owner_id, query=query, scopes=scopes, limit=DEPTH)
        pending = _workers().submit(meaning) if meaning else None
        try:
            keyword = backend.search(owner_id=owner_id, query=query, scopes=scopes, offset=0, limit=keyword_limit)
        except BaseException:
            if pending:
                wait([pending])  # the arithmetic ends before the statement's error goes on
            raise
    return keyword, pending.result() if pending else []


def _meaning(backend: BaseSearchBackend, *, owner_id: int, query: str, scopes: Sequence[SearchScope],
             limit: int) -> Callable[[], list[MeaningHit]] | None:
    """The database's part of ``meaning_hits`` (None: meaning is off); the rest, returned, reads no table."""
    from apps.retrieval.embeddings import get_embedder
    from apps.retrieval.vectors import in_scope

    embedder = get_embedder()
    if embedder is None:
        return None
    compare = in_scope(backend, owner_id=owner_id, scopes=scopes, model=embedder.name, dim=embedder.dim)

    def rest() -> list[MeaningHit]:
        vector = _encode(embedder, query)
        if vector is None:
            return []
        scored = compare(vector)
        return _best(replace(scored, background=calibration.background(embedder, vector, query)), limit)

    return rest


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _workers() -> ThreadPoolExecutor:
    """The process's threads for meaning's arithmetic, started on first use (after a server forks its workers)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 2, thread_name_prefix="meaning")
        return _pool


def _best(scored, limit: int) -> list[MeaningHit]:
    """The ``limit`` best records of ``scored`` (``vectors.Scored``) whose best field stands out from the query's
    background: ``scored.background`` and the similarities of ``scored`` (no background: those alone)."""
    from apps.retrieval.vectors import name_of

    if scored.row_ids.shape[0] == 0:
        return []
    rounded = np.round(scored.similarities.astype(np.float64), ROUND)
    background = scored.background
    standing = np.round(calibration.standardized(scored.similarities,
                                                 background.everyday if background else None), ROUND)
    least = max(FLOOR, round(background.nonsense, ROUND)) if background else FLOOR
    # A record scores its best field, so it passes exactly when one of its rows does: only those are ordered.
    passing = np.flatnonzero((rounded >= least) & (standing >= STANDING))
    if background and background.general is not None:  # a question about the world, not about someone
        margin = WORLD if background.world else AMOUNT if background.amount else GENERAL
        bars = np.round(background.general + margin, ROUND)
        passing = passing[rounded[passing] >= bars[scored.scripts[passing]]]  # each field: its script's topics
    kinds, fields = scored.kinds[passing], scored.fields[passing]
    # A field of names stands for its record only where no other field passes: its match holds only if spelt
    # alike (``layer.searching.ranked``), and the record's other fields must not fall with it.
    named = _of_names(kinds, fields, name_of)
    otherwise = set(zip(kinds[~named].tolist(), scored.records[passing][~named].tolist(), strict=True))
    kind_order = _name_order(kinds, name_of)
    field_order = _name_order(fields, name_of)
    # Best first, then resource type and record id; within a record, ties go to the greater field path
    # (the same field every time). The first row seen of each record is then its best.
    order = np.lexsort((-field_order, scored.records[passing], kind_order, -rounded[passing]))
    keep: list[MeaningHit] = []
    seen: set[tuple[int, int]] = set()
    for at, of_names in zip(passing[order].tolist(), named[order].tolist(), strict=True):
        key = (int(scored.kinds[at]), int(scored.records[at]))
        if key in seen or (of_names and key in otherwise):
            continue
        seen.add(key)
        keep.append(MeaningHit(int(scored.row_ids[at]), name_of(key[0]), key[1],
                               name_of(int(scored.fields[at])), float(rounded[at])))
        if len(keep) == limit:
            break
    return keep


def _of_names(kinds: np.ndarray, fields: np.ndarray, name_of) -> np.ndarray:
    """Whether each row, by its type and field codes, is of a field of names (``SearchableField.name``)."""
    names = name_fields()
    pairs = list(zip(kinds.tolist(), fields.tolist(), strict=True))
    named = {pair: (name_of(pair[0]), name_of(pair[1])) in names for pair in set(pairs)}
    return np.fromiter((named[pair] for pair in pairs), dtype=bool, count=len(pairs))


def _name_order(codes: np.ndarray, name_of) -> np.ndarray:
    """Each code's place in the alphabetical order of the names present."""
    present = np.unique(codes)
    ranks = np.empty(int(present.max()) + 1 if present.shape[0] else 0, dtype=np.int64)
    ranks[present] = np.argsort(np.argsort([name_of(int(c)) for c in present], kind="stable"), kind="stable")
    return ranks[codes]
