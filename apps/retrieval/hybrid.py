"""Search by words and by meaning, fused into one deterministic order (SPEC S-3, S-4, R-5).

Design notes: docs/design.md.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

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


def query_vector(query: str):
    """(embedder name, the query's unit vector), or None when meaning is off or unavailable."""
    from apps.retrieval.embeddings import EmbeddingUnavailable, get_embedder

    embedder = get_embedder()
    if embedder is None:
        return None
    try:
        return embedder.name, embedder.embed([normalize(query)])[0]
    except EmbeddingUnavailable as exc:
        log.warning("searching by words alone: %s", exc)
        return None


def meaning_hits(backend: BaseSearchBackend, *, owner_id: int, query: str,
                 scopes: Sequence[SearchScope], limit: int = DEPTH) -> list[MeaningHit]:
    """The records whose readable fields are closest in meaning to ``query``, best first."""
    from apps.retrieval.vectors import similarities

    found = query_vector(query)
    if found is None:
        return []
    model, vector = found
    best: dict[tuple[str, int], tuple[float, str, int]] = {}
    for row_id, kind, record_id, path, score in similarities(backend, owner_id=owner_id, scopes=scopes,
                                                             model=model, query=vector):
        key, score = (kind, record_id), round(score, ROUND)
        if key not in best or (score, path) > best[key][:2]:  # ties: the same field every time
            best[key] = (score, path, row_id)
    if not best:
        return []
    top = max(score for score, _, _ in best.values())
    keep = [MeaningHit(row_id, kind, record_id, path, score)
            for (kind, record_id), (score, path, row_id) in best.items()
            if score >= FLOOR and score >= top - MARGIN]
    keep.sort(key=lambda h: (-h.similarity, h.resource_type, h.record_id))
    return keep[:limit]


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
