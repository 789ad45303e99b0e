"""The read model on its own: version, summary and page size (SPEC M-4, M-5, M-6)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.consent.services import connection_narrow
from apps.mcp_server.profile import (
    PAGE_MAX_FACTS,
    RESULT_MAX_BYTES,
    VisibleFact,
    overview,
    page,
    profile_snapshot,
    snapshot_of,
    summarize,
)
from apps.memory.services import fact_update
from tests.mcp_server.conftest import make_fact, share


def fact(fid: int, **fields) -> VisibleFact:
    values = {"category": "basic", "label": f"L{fid}", "value": f"V{fid}", "version": 1,
              "updated_at": "2026-06-01T09:00:00Z"}
    return VisibleFact(id=fid, **{**values, **fields})


def size(payload: dict) -> int:
    return len(json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def walk(snapshot) -> list[dict]:
    """Every page from the overview on, as a client following next_offset would."""
    pages = [overview(snapshot)]
    while pages[-1]["has_more"]:
        pages.append(page(snapshot, pages[-1]["next_offset"]))
    return pages


# SPEC M-4: 64 hex, the documented canonical form of the whole visible set.
def test_version_is_sha256_of_canonical_json():
    facts = (fact(2, label="咖啡"), fact(1))
    expected_document = [
        {"category": "basic", "id": "1", "label": "L1", "updated_at": "2026-06-01T09:00:00Z", "value": "V1",
         "version": 1},
        {"category": "basic", "id": "2", "label": "咖啡", "updated_at": "2026-06-01T09:00:00Z", "value": "V2",
         "version": 1},
    ]
    canonical = json.dumps(expected_document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    version = snapshot_of(facts).version
    assert version == hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    assert len(version) == 64 and version == version.lower()


# SPEC M-4: the same set gives the same version, whatever order it was read in.
def test_version_is_deterministic():
    facts = tuple(fact(i) for i in range(1, 6))
    assert snapshot_of(facts).version == snapshot_of(tuple(reversed(facts))).version


# SPEC M-4: any change to what is visible changes the version.
@pytest.mark.parametrize(
    "change",
    [
        {"label": "L1 "},
        {"value": "v1"},
        {"category": "goals"},
        {"updated_at": "2026-06-01T09:00:01Z"},
        {"version": 2},
        {"id": 9},
    ],
)
def test_version_changes_with_any_visible_field(change):
    facts = (fact(1), fact(2))
    changed = (replace(facts[0], **change), facts[1])
    assert snapshot_of(changed).version != snapshot_of(facts).version


def test_version_changes_when_a_fact_comes_or_goes():
    facts = (fact(1), fact(2))
    versions = {snapshot_of(facts).version, snapshot_of(facts[:1]).version, snapshot_of(()).version}
    assert len(versions) == 3


# SPEC M-4 through the database: sharing, editing and narrowing change it; the same set gives it back.
@pytest.mark.django_db
def test_version_follows_the_visible_set(user, connect):
    connection = connect()
    first, second = make_fact(user, 1), make_fact(user, 2, category="goals")
    share(connection, [first])
    only_first = profile_snapshot(connection=connection).version
    share(connection, [first, second])
    both = profile_snapshot(connection=connection).version
    assert both != only_first
    connection = connection_narrow(connection=connection, categories={"basic"})
    assert profile_snapshot(connection=connection).version == only_first
    fact_update(fact=first, label="Renamed")
    assert profile_snapshot(connection=connection).version != only_first


# SPEC M-5: the summary is counts of the visible facts per category, nothing of their content.
def test_summary_only_counts_visible_facts():
    facts = (fact(1), fact(2, category="goals", label="SECRET-LABEL"), fact(3, category="goals"))
    summary = summarize(snapshot_of(facts))
    assert summary["fact_count"] == 3
    assert summary["categories"] == [{"category": "basic", "count": 1}, {"category": "goals", "count": 2}]
    assert "SECRET-LABEL" not in json.dumps(summary)
    assert summarize(snapshot_of(()))["fact_count"] == 0


# SPEC M-6: at most 50 facts per result; the rest is announced, not dropped.
def test_fifty_fact_limit():
    snapshot = snapshot_of(tuple(fact(i) for i in range(1, 61)))
    first = overview(snapshot)
    assert len(first["facts"]) == PAGE_MAX_FACTS
    assert (first["has_more"], first["next_offset"]) == (True, 50)
    assert first["next_uri"] == f"lifeos://profile/page/{snapshot.version}/50"
    rest = page(snapshot, 50)
    assert [f["id"] for f in rest["facts"]] == [str(i) for i in range(51, 61)]
    assert (rest["has_more"], rest["next_offset"], rest["next_uri"]) == (False, None, None)


LONG_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=300)


# SPEC M-6: whatever the content (4-byte characters, characters JSON must escape), every page is
# at most 16,384 bytes and 50 facts, and paging reaches each fact exactly once.
@settings(max_examples=40, deadline=None)
@given(
    count=st.integers(min_value=0, max_value=140),
    label=st.text(min_size=1, max_size=40),
    value=LONG_TEXT,
)
def test_pages_fit_and_cover_everything(count, label, value):
    facts = tuple(fact(i, label=label, value=value or "x", category="work_study") for i in range(1, count + 1))
    snapshot = snapshot_of(facts)
    pages = walk(snapshot)
    for result in pages:
        assert size(result) <= RESULT_MAX_BYTES
        assert len(result["facts"]) <= PAGE_MAX_FACTS
    sent = [f["id"] for result in pages for f in result["facts"]]
    assert sent == [str(i) for i in range(1, count + 1)]


@pytest.mark.parametrize("text", ["\u0001" * 300, '"' * 300, "😀" * 300, "中" * 300])
def test_worst_case_characters_fit(text):
    snapshot = snapshot_of(tuple(fact(i, label=text[:40], value=text) for i in range(1, 80)))
    pages = walk(snapshot)
    assert all(size(result) <= RESULT_MAX_BYTES for result in pages)
    assert sum(len(result["facts"]) for result in pages) == 79
    assert len(pages) > 2  # the byte budget, not the 50-fact limit, cut these pages
