"""Search by words and by meaning, fused into one deterministic order (SPEC S-3, S-4, R-5).

Design notes: docs/design.md.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass

import numpy as np

from apps.common.memo import BoundedMemo
from apps.retrieval.backends import BaseSearchBackend, SearchHit, SearchScope
from apps.retrieval.indexing import normalize

log = logging.getLogger(__name__)

# SPEC S-4 (home)
K = 2  # reciprocal-rank constant: small, so the first places of each list count most (docs/search.md)
DEPTH = 50  # records fused from the top of each list; also the most that match by meaning alone
FLOOR = 0.30  # least similarity that counts as a match by meaning (docs/search.md)
MARGIN = 0.20  # and no further than this below the best record's
ROUND = 4  # similarities equal to this many places are ties


@dataclass(frozen=True)
class MeaningHit:
    row_id: int  # the projection row whose vector matched
    resource_type: str
    record_id: int
    field: str  # the readable field whose meaning was closest
    similarity: float


@dataclass(frozen=True)
class FusedHit:
    resource_type: str
    record_id: int
    score: float  # fused reciprocal-rank score
    keyword: float | None  # the keyword score, when the words matched
    similarity: float | None  # the meaning similarity, when it matched by meaning
    field: str | None  # the field of the meaning match


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
        return [] if vector is None else _best(compare(vector), limit)

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
    """The ``limit`` best records of ``scored`` (``vectors.Scored``) that pass the floor and the margin."""
    from apps.retrieval.vectors import name_of

    if scored.row_ids.shape[0] == 0:
        return []
    rounded = np.round(scored.similarities.astype(np.float64), ROUND)
    # A record scores its best field, so it passes the floor and the margin exactly when one of its rows
    # does: only those rows are ordered.
    passing = np.flatnonzero(rounded >= max(FLOOR, float(rounded.max()) - MARGIN))
    kinds, fields = scored.kinds[passing], scored.fields[passing]
    kind_order = _name_order(kinds, name_of)
    field_order = _name_order(fields, name_of)
    # Best first, then resource type and record id; within a record, ties go to the greater field path
    # (the same field every time). The first row seen of each record is then its best.
    order = np.lexsort((-field_order, scored.records[passing], kind_order, -rounded[passing]))
    keep: list[MeaningHit] = []
    seen: set[tuple[int, int]] = set()
    for at in passing[order].tolist():
        key = (int(scored.kinds[at]), int(scored.records[at]))
        if key in seen:
            continue
        seen.add(key)
        keep.append(MeaningHit(int(scored.row_ids[at]), name_of(key[0]), key[1],
                               name_of(int(scored.fields[at])), float(rounded[at])))
        if len(keep) == limit:
            break
    return keep


def _name_order(codes: np.ndarray, name_of) -> np.ndarray:
    """Each code's place in the alphabetical order of the names present."""
    present = np.unique(codes)
    ranks = np.empty(int(present.max()) + 1 if present.shape[0] else 0, dtype=np.int64)
    ranks[present] = np.argsort(np.argsort([name_of(int(c)) for c in present], kind="stable"), kind="stable")
    return ranks[codes]


def _ranks(scores: list[float]) -> list[int]:
    """1-based competition ranks of a list sorted best first: equal scores share a rank."""
    ranks, previous = [], None
    for place, score in enumerate(scores, start=1):
        ranks.append(ranks[-1] if score == previous else place)
        previous = score
    return ranks


def fuse(keyword: Sequence[SearchHit], meaning: Sequence[MeaningHit], *, depth: int = DEPTH) -> list[FusedHit]:
    """One order from the two lists (each best first); see the module's description."""
    fused: dict[tuple[str, int], dict] = {}
    for hit, rank in zip(keyword[:depth], _ranks([h.score for h in keyword[:depth]]), strict=True):
        entry = fused.setdefault((hit.resource_type, hit.record_id), {"score": 0.0, "sim": None, "field": None})
        entry["score"] += 1.0 / (K + rank)
        entry["kw"] = hit.score
    for match, rank in zip(meaning[:depth], _ranks([h.similarity for h in meaning[:depth]]), strict=True):
        entry = fused.setdefault((match.resource_type, match.record_id), {"score": 0.0, "kw": None})
        entry["score"] += 1.0 / (K + rank)
        entry["sim"], entry["field"] = match.similarity, match.field
    keyword_scores = {(h.resource_type, h.record_id): h.score for h in keyword}
    for key, entry in fused.items():  # a meaning match deeper in the keyword list keeps its words' score
        entry["kw"] = keyword_scores.get(key, entry.get("kw"))
    head = sorted(fused.items(), key=lambda item: (
        -round(item[1]["score"], 9), item[1]["kw"] is None or item[1]["sim"] is None,
        -(item[1]["sim"] or 0.0), item[0]))
    order = [FusedHit(kind, record_id, round(e["score"], 9), e["kw"], e["sim"], e["field"])
             for (kind, record_id), e in head]
    order += [FusedHit(h.resource_type, h.record_id, 0.0, h.score, None, None)
              for h in keyword[depth:] if (h.resource_type, h.record_id) not in fused]
    return order
