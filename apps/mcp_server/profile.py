"""What an assistant reads: the visible fact set, its version, summary and pages.

SPEC M-3 … M-7, C-8. Everything here is computed from ONE query — the
visibility selector of SPEC C-1 — so the cost of a call does not grow in
queries with the number of facts. The functions below that take a
``ProfileSnapshot`` are pure.

Decisions (also in docs/mcp.md):

- ``version`` is the SHA-256 (64 lowercase hex) of the canonical JSON of the
  whole visible set: a list, ordered by fact id, of objects with the keys
  ``category``, ``id`` (string), ``label``, ``updated_at``, ``value`` and
  ``version`` (the fact's integer version); keys sorted, separators ``,`` and
  ``:``, no ASCII escaping, UTF-8. Everything an assistant is shown about a
  fact is in it, so any change to what is visible changes the version.
- ``summary`` holds only counts per category of the visible facts and a
  fixed sentence on how to page; it never reads anything else (SPEC M-5).
- A page holds at most ``PAGE_MAX_FACTS`` facts and its compact UTF-8 JSON is
  at most ``RESULT_MAX_BYTES``; facts are taken in order until either limit,
  and the rest is announced by ``has_more`` / ``next_offset`` / ``next_uri``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from apps.consent.models import Connection
from apps.consent.selectors import visible_fact_values
from apps.memory.models import Category

PAGE_MAX_FACTS = 50  # SPEC M-6
RESULT_MAX_BYTES = 16_384  # SPEC M-6: compact UTF-8 JSON of one result's structured content

PAGE_URI_PREFIX = "lifeos://profile/page/"
PAGE_URI_TEMPLATE = PAGE_URI_PREFIX + "{version}/{offset}"
SUMMARY_URI = "lifeos://profile/summary"

_PAGING_HINT = (
    "When has_more is true, read the rest with read_user_context_page(offset=next_offset, version=version) "
    "or the resource at next_uri. A version_conflict means the shared facts changed: call get_user_context again."
)


def canonical_json(value: Any) -> str:
    """The one serialization used for hashing and for measuring size."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def json_size(value: Any) -> int:
    return len(canonical_json(value).encode("utf-8"))


def _timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class VisibleFact:
    id: int
    category: str
    label: str
    value: str
    version: int
    updated_at: str

    def public(self) -> dict[str, str]:
        """The fact as an assistant sees it (SPEC M-2): never evidence or anything else."""
        return {
            "id": str(self.id),
            "category": self.category,
            "label": self.label,
            "value": self.value,
            "updated_at": self.updated_at,
        }

    def canonical(self) -> dict[str, Any]:
        return {**self.public(), "version": self.version}


@dataclass(frozen=True)
class ProfileSnapshot:
    facts: tuple[VisibleFact, ...]
    version: str
    updated_at: str | None


def profile_snapshot(*, connection: Connection) -> ProfileSnapshot:
    """The connection's visible facts right now, read with a single query (SPEC C-1)."""
    rows = visible_fact_values(connection=connection, fields=("id", "category", "label", "value", "version", "updated_at"))
    facts = tuple(
        VisibleFact(id=fid, category=category, label=label, value=value, version=version,
                    updated_at=_timestamp(updated_at))
        for fid, category, label, value, version, updated_at in rows
    )
    return snapshot_of(facts)


def snapshot_of(facts: tuple[VisibleFact, ...]) -> ProfileSnapshot:
    ordered = tuple(sorted(facts, key=lambda fact: fact.id))
    digest = hashlib.sha256(canonical_json([fact.canonical() for fact in ordered]).encode("utf-8")).hexdigest()
    latest = max((fact.updated_at for fact in ordered), default=None)  # ISO UTC strings sort by time
    return ProfileSnapshot(facts=ordered, version=digest, updated_at=latest)


def page_uri(version: str, offset: int) -> str:
    return f"{PAGE_URI_PREFIX}{version}/{offset}"


def summarize(snapshot: ProfileSnapshot) -> dict[str, Any]:
    """Counts per category of the visible facts, nothing else (SPEC M-5)."""
    counts: dict[str, int] = {}
    for fact in snapshot.facts:
        counts[fact.category] = counts.get(fact.category, 0) + 1
    categories = [{"category": code, "count": counts[code]} for code in Category.values if code in counts]
    total = len(snapshot.facts)
    listing = ", ".join(f"{entry['category']} {entry['count']}" for entry in categories)
    text = f"{total} fact{'s' if total != 1 else ''} shared with you" + (f" ({listing})." if listing else ".")
    return {"fact_count": total, "categories": categories, "text": f"{text} {_PAGING_HINT}"}


def overview(snapshot: ProfileSnapshot) -> dict[str, Any]:
    """``get_user_context`` and ``lifeos://profile/summary``: summary plus the first page."""
    return _page(snapshot, 0, summary=summarize(snapshot))


def page(snapshot: ProfileSnapshot, offset: int) -> dict[str, Any]:
    """One page from ``offset``; the caller has checked the version and the offset."""
    return _page(snapshot, offset, summary=None)


def _page(snapshot: ProfileSnapshot, offset: int, *, summary: dict[str, Any] | None) -> dict[str, Any]:
    total = len(snapshot.facts)

    def envelope(facts: list[dict[str, str]], next_offset: int | None) -> dict[str, Any]:
        body: dict[str, Any] = {} if summary is None else {"summary": summary}
        body.update(
            facts=facts,
            version=snapshot.version,
            updated_at=snapshot.updated_at,
            offset=offset,
            has_more=next_offset is not None,
            next_offset=next_offset,
            next_uri=None if next_offset is None else page_uri(snapshot.version, next_offset),
        )
        return body

    # The largest the envelope can get: "has_more": false is longer than true,
    # and no next_offset can be larger than the number of facts.
    worst = envelope([], total)
    worst["has_more"] = False
    taken = fit(worst, snapshot.facts[offset : offset + PAGE_MAX_FACTS])
    end = offset + len(taken)
    return envelope(taken, end if end < total else None)


def fit(worst_envelope: dict[str, Any], candidates) -> list[dict[str, str]]:
    """The leading ``candidates`` (as shown to assistants) that fit into one result with the envelope.

    ``worst_envelope`` is the result without facts at its largest, so what
    fits here fits in the final result (SPEC M-6).
    """
    budget = RESULT_MAX_BYTES - json_size(worst_envelope)
    taken: list[dict[str, str]] = []
    used = 0
    for fact in candidates:
        public = fact.public()
        cost = json_size(public) + (1 if taken else 0)  # the comma between facts
        if used + cost > budget:
            break
        taken.append(public)
        used += cost
    if candidates and not taken:  # cannot happen with the field limits of SPEC D-1
        raise RuntimeError("a single fact does not fit into one result")
    return taken
