"""The person's facts as one connection reads them: the visible set (SPEC C-1), its version (M-4),
summary (M-5), pages (M-6, M-7) and the matches of a search (S-1, S-2).

The one read path of the profile: ``get_user_context``, ``read_user_context_page``, the profile resources
and ``search_user_context`` are thin handlers over ``profile_overview``, ``profile_page`` and
``profile_search``. Design notes: docs/performance.md (How the hot paths are built).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from apps.common.canonical import canonical_json, json_size
from apps.common.errors import INVALID_ARGUMENT, VERSION_CONFLICT, CodedError
from apps.common.memo import BoundedMemo
from apps.consent.models import Connection
from apps.consent.selectors.visible_set import (
    CategoryDigest,
    VisibleSetRead,
    visible_ids,
    visible_set_read,
    visible_set_stamp,
)
from apps.memory.models import Category
from apps.retrieval.layer.searching import RESULT_MAX_BYTES  # SPEC M-6
from apps.retrieval.selectors import LIMIT_MAX, search_visible_matches


class ProfileError(CodedError):
    """A read the rules refuse: ``version_conflict`` (a page of a set that changed) or ``invalid_argument``."""


@dataclass(frozen=True)
class ProfileRead:
    """One answer of the read path and the facts it carries, ``(id, version)`` each (recorded: SPEC M-11)."""

    payload: dict[str, Any]
    sent: tuple[tuple[int, int], ...]


PAGE_MAX_FACTS = 50  # SPEC M-6

PAGE_URI_PREFIX = "lifeos://profile/page/"
PAGE_URI_TEMPLATE = PAGE_URI_PREFIX + "{version}/{offset}"
SUMMARY_URI = "lifeos://profile/summary"

_PAGING_HINT = (
    "When has_more is true, read the rest with read_user_context_page(offset=next_offset, version=version) "
    "or the resource at next_uri. A version_conflict means the shared facts changed: call get_user_context again."
)


@dataclass(frozen=True)
class VisibleFact:
    id: int
    category: str
    label: str
    value: str
    version: int
    updated_at: str

    # SPEC C-8 (home)
    def public(self) -> dict[str, str]:
        """The fact as an assistant sees it (SPEC M-2): never evidence or anything else."""
        return {
            "id": str(self.id),
            "category": self.category,
            "label": self.label,
            "value": self.value,
            "updated_at": self.updated_at,
        }


@dataclass(frozen=True)
class ProfileSnapshot:
    """The visible set as one call sees it: counts, ``version`` and ``updated_at`` of the whole set.

    ``facts``: only those the call read, a window from ``offset`` or the visible ones among asked ids.
    """

    version: str
    updated_at: str | None
    fact_count: int
    categories: tuple[tuple[str, int], ...]
    offset: int
    facts: tuple[VisibleFact, ...]


def profile_snapshot(*, connection: Connection, offset: int = 0, ids: Sequence[int] | None = None) -> ProfileSnapshot:
    """The connection's visible set right now (SPEC C-1): one statement, two when its version is not known yet."""
    read = visible_set_read(connection=connection, offset=offset, limit=PAGE_MAX_FACTS, ids=ids)
    version = _known_versions.get(_digest_key(read.categories))
    if version is None:
        whole = visible_set_read(connection=connection, limit=None)  # digest and every row, one snapshot
        version = set_version(whole.rows)
        _known_versions.put(_digest_key(whole.categories), version)
        if whole.categories != read.categories:  # the set changed between the reads: answer from the later one
            read = _window(whole, offset, ids)
    return _snapshot(read, offset, version)


# SPEC M-4 (home)
def set_version(rows: Sequence[tuple[Any, ...]]) -> str:
    """SPEC M-4 for the whole set's rows, as ``visible_set_read`` gives them (``updated_at`` as shown)."""
    document = sorted(
        ({"category": category, "id": str(fid), "label": label, "updated_at": updated_at,
          "value": value, "version": version}
         for fid, category, label, value, version, updated_at in rows),
        key=lambda fact: int(fact["id"]),
    )
    return hashlib.sha256(canonical_json(document).encode("utf-8")).hexdigest()


def _window(whole: VisibleSetRead, offset: int, ids: Sequence[int] | None) -> VisibleSetRead:
    """What ``visible_set_read`` with this offset or these ids returns, cut from a read of the whole set."""
    if ids is not None:
        wanted = set(ids)
        rows = tuple(row for row in whole.rows if row[0] in wanted)
    else:
        rows = whole.rows[offset : offset + PAGE_MAX_FACTS]
    return VisibleSetRead(categories=whole.categories, rows=rows)


def _digest_key(categories: Sequence[CategoryDigest]) -> tuple[tuple[str, int, str], ...]:
    return tuple((digest.category, digest.count, digest.fingerprint) for digest in categories)


_known_versions = BoundedMemo(4096)


def _snapshot(read: VisibleSetRead, offset: int, version: str) -> ProfileSnapshot:
    facts = tuple(
        VisibleFact(id=fid, category=category, label=label, value=value, version=version,
                    updated_at=updated_at)
        for fid, category, label, value, version, updated_at in read.rows
    )
    counts = {digest.category: digest.count for digest in read.categories}
    latest = read.latest
    return ProfileSnapshot(
        version=version,
        updated_at=latest,
        fact_count=read.count,
        categories=tuple((code, counts[code]) for code in Category.values if code in counts),
        offset=offset,
        facts=facts,
    )


def page_uri(version: str, offset: int) -> str:
    return f"{PAGE_URI_PREFIX}{version}/{offset}"


# SPEC M-5 (home)
def summarize(snapshot: ProfileSnapshot) -> dict[str, Any]:
    """Counts per category of the visible facts, nothing else (SPEC M-5)."""
    categories = [{"category": code, "count": count} for code, count in snapshot.categories]
    total = snapshot.fact_count
    listing = ", ".join(f"{entry['category']} {entry['count']}" for entry in categories)
    text = f"{total} fact{'s' if total != 1 else ''} shared with you" + (f" ({listing})." if listing else ".")
    return {"fact_count": total, "categories": categories, "text": f"{text} {_PAGING_HINT}"}


def overview(snapshot: ProfileSnapshot) -> dict[str, Any]:
    """``get_user_context`` and ``lifeos://profile/summary``: summary plus the first page."""
    return _page(snapshot, summary=summarize(snapshot))


def page(snapshot: ProfileSnapshot) -> dict[str, Any]:
    """The page from the snapshot's offset; the caller has checked the version and the offset."""
    return _page(snapshot, summary=None)


def _page(snapshot: ProfileSnapshot, *, summary: dict[str, Any] | None) -> dict[str, Any]:
    total, offset = snapshot.fact_count, snapshot.offset

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
    taken = fit(worst, snapshot.facts[:PAGE_MAX_FACTS])
    end = offset + len(taken)
    return envelope(taken, end if end < total else None)


def fit(worst_envelope: dict[str, Any], candidates: Sequence[VisibleFact]) -> list[dict[str, str]]:
    """The leading ``candidates`` that fit into one result with its envelope at its largest (SPEC M-6).

    When the whole list fits (the usual case) one measurement decides; otherwise facts are measured one by one.
    """
    budget = RESULT_MAX_BYTES - json_size(worst_envelope)
    shown = [fact.public() for fact in candidates]
    if json_size(shown) - 2 <= budget:
        return shown
    taken: list[dict[str, str]] = []
    used = 0
    for public in shown:
        cost = json_size(public) + (1 if taken else 0)  # the comma between facts
        if used + cost > budget:
            break
        taken.append(public)
        used += cost
    if not taken:  # cannot happen with the field limits of SPEC D-1
        raise RuntimeError("a single fact does not fit into one result")
    return taken


# SPEC M-7 (home)
def checked_page(snapshot: ProfileSnapshot, *, version: str) -> dict[str, Any]:
    """SPEC M-7: a page only of the set the client was told about, from the snapshot's offset."""
    if version != snapshot.version:
        raise ProfileError(
            VERSION_CONFLICT,
            "the shared facts changed since this version was issued; call get_user_context again "
            "and page with the version it returns",
        )
    if snapshot.offset > snapshot.fact_count:
        raise ProfileError(INVALID_ARGUMENT,
                        f"field 'offset' is too large: at most {snapshot.fact_count} for this version")
    return page(snapshot)


def _read(snapshot: ProfileSnapshot, result: dict[str, Any]) -> ProfileRead:
    carried = snapshot.facts[: len(result["facts"])]  # the page is the leading facts read
    return ProfileRead(result, tuple((fact.id, fact.version) for fact in carried))


def profile_overview(*, connection: Connection) -> ProfileRead:
    """``get_user_context`` and ``lifeos://profile/summary``: the summary and the first page."""
    snapshot = profile_snapshot(connection=connection)
    return _read(snapshot, overview(snapshot))


def profile_page(*, connection: Connection, offset: int, version: str) -> ProfileRead:
    """The page from ``offset`` of the set ``version`` names (SPEC M-7); ``ProfileError`` otherwise."""
    snapshot = profile_snapshot(connection=connection, offset=offset)
    return _read(snapshot, checked_page(snapshot, version=version))


ONLY_MATCHES = "These are only the shared facts that matched the query, not the whole profile."
NARROW = " More facts match than a search can page through: narrow the query to reach the rest."


def profile_search(*, connection: Connection, query: str, offset: int = 0, limit: int = LIMIT_MAX) -> ProfileRead:
    """The visible facts matching ``query``, best first, never the whole profile (SPEC S-1, S-2, M-6).

    Bad query, offset or limit: ``retrieval.selectors.SearchError`` (``invalid_argument``)."""
    found = search_visible_matches(
        owner_id=connection.user_id,
        visible=visible_ids(connection=connection),
        visible_stamp=visible_set_stamp(connection=connection),
        query=query,
        offset=offset,
        limit=limit,
    )
    snapshot = profile_snapshot(connection=connection, ids=found.ids)
    # In rank order; a match no longer visible by the time of the read is left out.
    current = {fact.id: fact for fact in snapshot.facts}
    matched = [current[fid] for fid in found.ids if fid in current]
    result: dict[str, Any] = {
        "facts": [],
        "version": snapshot.version,
        "offset": offset,
        "next_offset": found.next_offset,
        "has_more": found.has_more,
        "window_exhausted": found.window_exhausted,
        "message": ONLY_MATCHES + (NARROW if found.window_exhausted else ""),
    }
    # At its largest: false is longer than true, and no next_offset reaches a million.
    worst = {**result, "next_offset": 999_999, "has_more": False, "window_exhausted": False}
    result["facts"] = fit(worst, matched)
    kept = matched[: len(result["facts"])]
    if len(kept) < len(matched):  # cut by the byte budget (SPEC M-6): the rest is on the next page
        result.update(next_offset=offset + len(kept), has_more=True, window_exhausted=False, message=ONLY_MATCHES)
    return ProfileRead(result, tuple((fact.id, fact.version) for fact in kept))
