"""Cross-resource ranking (SPEC R-8): lexical score, status, recency and type, deterministically.

Each backend score is made relative to the best candidate of the same search
(so 1.0 is the best lexical match whatever the database), then

    rank = 0.60 × lexical + status boost + 0.15 × recency + type weight

where the status boost comes from the adapter (open todos up, done and
cancelled ones down, cancelled events down), recency halves every 30 days
since the record last changed, and the type weight from the declaration.
Ties go to the smaller ref, so the same data always ranks the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

LEXICAL = 0.60
RECENCY = 0.15
HALF_LIFE_DAYS = 30.0


@dataclass
class Candidate:
    ref: str
    resource_type: str
    record_id: int
    lexical: float
    status_boost: float = 0.0
    changed_at: datetime | None = None
    type_weight: float = 0.0
    rank: float = 0.0


def rank(candidates: list[Candidate], *, now: datetime, top: float | None = None) -> list[Candidate]:
    """De-duplicated by ref (best kept) and ordered best first.

    ``top`` is the lexical score that counts as 1.0; by default the best of
    ``candidates``. A caller that ranks candidates before confirming all of
    them passes the best confirmed one's, so the order is the same as ranking
    the confirmed candidates alone.
    """
    best: dict[str, Candidate] = {}
    for c in candidates:
        if c.ref not in best or c.lexical > best[c.ref].lexical:
            best[c.ref] = c
    if top is None:
        top = max((c.lexical for c in best.values()), default=0.0)
    top = top or 1.0
    for c in best.values():
        age_days = max((now - c.changed_at).total_seconds() / 86400, 0.0) if c.changed_at else None
        recency = 0.5 ** (age_days / HALF_LIFE_DAYS) if age_days is not None else 0.0
        c.rank = round(LEXICAL * (c.lexical / top) + c.status_boost + RECENCY * recency + c.type_weight, 6)
    return sorted(best.values(), key=lambda c: (-c.rank, c.resource_type, c.record_id))
