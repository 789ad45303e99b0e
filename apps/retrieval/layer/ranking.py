"""Cross-resource ranking (SPEC R-8, S-4): relevance by words and meaning, status, recency and type.

Design notes: docs/design.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

# SPEC R-8 (home)
LEXICAL = 0.60
STATUS = 0.2
RECENCY = 0.05
TYPE = 0.5
HALF_LIFE_DAYS = 30.0
WORDS = 1.0  # a record the words matched ranks above every record only meaning found (SPEC S-4)


@dataclass
class Candidate:
    ref: str
    resource_type: str
    record_id: int
    lexical: float  # the keyword score; 0 when only the meaning matched
    status_boost: float = 0.0
    changed_at: datetime | None = None
    type_weight: float = 0.0
    rank: float = 0.0
    similarity: float | None = None  # the meaning similarity, when it matched by meaning


def rank(candidates: list[Candidate], *, now: datetime, top: float | None = None,
         top_similarity: float | None = None) -> list[Candidate]:
    """De-duplicated by ref (best kept) and ordered best first.

    ``top`` and ``top_similarity`` count as 1.0 (by default the best of ``candidates``).
    """
    best: dict[str, Candidate] = {}
    for c in candidates:
        if c.ref not in best or c.lexical > best[c.ref].lexical:
            best[c.ref] = c
    if top is None:
        top = max((c.lexical for c in best.values()), default=0.0)
    if top_similarity is None:
        top_similarity = max((c.similarity for c in best.values() if c.similarity is not None), default=0.0)
    top = top or 1.0
    for c in best.values():
        # Within each tier, relevance is the keyword score and the similarity, each relative to the best;
        # status, recency and type then order records of like relevance (an open todo above its done twin).
        relevance = c.lexical / top
        if top_similarity:
            relevance = (relevance + (c.similarity or 0.0) / top_similarity) / 2 if c.lexical else (
                (c.similarity or 0.0) / top_similarity)
        age_days = max((now - c.changed_at).total_seconds() / 86400, 0.0) if c.changed_at else None
        recency = 0.5 ** (age_days / HALF_LIFE_DAYS) if age_days is not None else 0.0
        c.rank = round((WORDS if c.lexical else 0.0) + LEXICAL * relevance + STATUS * c.status_boost
                       + RECENCY * recency + TYPE * c.type_weight, 6)
    return sorted(best.values(), key=lambda c: (-c.rank, c.resource_type, c.record_id))
