"""The read model on its own: version, summary and page size (SPEC M-4, M-5, M-6)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.common import clock
from apps.consent.selectors.profile import (
    PAGE_MAX_FACTS,
    RESULT_MAX_BYTES,
    ProfileSnapshot,
    VisibleFact,
    _snapshot,
    _window,
    fit,
    json_size,
    overview,
    page,
    profile_snapshot,
    set_version,
    summarize,
)
from apps.consent.selectors.visibility import visible_facts
from apps.consent.selectors.visible_set import visible_set_of
from apps.consent.services import connection_narrow
from apps.memory.services import fact_update
from tests.consent.factories import make_connection
from tests.mcp_server.conftest import make_fact, share


def fact(fid: int, **fields) -> VisibleFact:
    values = {"category": "basic", "label": f"L{fid}", "value": f"V{fid}", "version": 1,
              "updated_at": "2026-06-01T09:00:00Z"}
    return VisibleFact(id=fid, **{**values, **fields})


def snapshot_of(facts, *, offset: int = 0) -> ProfileSnapshot:
    """``profile_snapshot`` of a whole set given here, from ``offset`` on (no database)."""
    rows = [(f.id, f.category, f.label, f.value, f.version, datetime.fromisoformat(f.updated_at)) for f in facts]
    whole = visible_set_of(rows, limit=None)
    return _snapshot(_window(whole, offset, None), offset, set_version(whole.rows))


def size(payload: dict) -> int:
    return len(json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def walk(facts) -> list[dict]:
    """Every page from the overview on, as a client following next_offset would."""
    pages = [overview(snapshot_of(facts))]
    while pages[-1]["has_more"]:
        pages.append(page(snapshot_of(facts, offset=pages[-1]["next_offset"])))
    return pages


# SPEC M-4: 64 hex, the SHA-256 of the canonical JSON of the whole visible set, in id order.
def test_version_is_sha256_of_the_canonical_set():
    facts = (fact(3, category="goals"), fact(2, label="咖啡"), fact(1))
    document = [{**f.public(), "version": f.version} for f in sorted(facts, key=lambda f: f.id)]
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    version = snapshot_of(facts).version
    assert version == hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    assert len(version) == 64 and version == version.lower()


# SPEC M-4: the same set gives the same version, whatever order it was read in and wherever the page starts.
def test_version_is_deterministic():
    facts = tuple(fact(i) for i in range(1, 6))
    versions = {snapshot_of(facts).version, snapshot_of(tuple(reversed(facts))).version,
                snapshot_of(facts, offset=3).version}
    assert len(versions) == 1


# SPEC M-4, C-2: what identifies a fact's state — id, version (moved by every change of category, label
# or value), updated_at (moved by every save), category — changes the version.
@pytest.mark.parametrize(
    "change",
    [
        {"category": "goals"},
        {"updated_at": "2026-06-01T09:00:01Z"},
        {"version": 2},
        {"version": 2, "value": "v1"},
        {"id": 9},
    ],
)
def test_version_changes_with_the_state_of_any_fact(change):
    facts = (fact(1), fact(2))
    changed = (replace(facts[0], **change), facts[1])
    assert snapshot_of(changed).version != snapshot_of(facts).version


def test_version_changes_when_a_fact_comes_or_goes():
    facts = (fact(1), fact(2), fact(3, category="goals"))
    subsets = [facts, facts[:2], facts[:1], facts[1:], facts[2:], (fact(1), fact(3)), ()]
    assert len({snapshot_of(subset).version for subset in subsets}) == len(subsets)


# SPEC M-4, M-7, C-2, C-8 through the database: sharing, unsharing, editing (content and not),
# narrowing change it; the same set gives it back.
@pytest.mark.django_db
def test_version_follows_the_visible_set(user, connect):
    connection = connect()
    first, second = make_fact(user, 1), make_fact(user, 2, category="goals")
    share(connection, [first])
    only_first = profile_snapshot(connection=connection).version
    assert profile_snapshot(connection=connection).version == only_first
    share(connection, [first, second])
    both = profile_snapshot(connection=connection).version
    assert both != only_first
    other = make_connection(user)  # another assistant, the same set
    share(other, [first, second])
    assert profile_snapshot(connection=other).version == both
    connection = connection_narrow(connection=connection, categories={"basic"})
    assert profile_snapshot(connection=connection).version == only_first
    share(connection, [])
    assert profile_snapshot(connection=connection).version not in (only_first, both)
    share(connection, [first])
    assert profile_snapshot(connection=connection).version == only_first

    renamed = fact_update(fact=first, value="Changed value")  # SPEC C-2: unshared until confirmed again
    assert profile_snapshot(connection=connection).version != only_first
    share(connection, [renamed])
    reshared = profile_snapshot(connection=connection)
    assert reshared.version != only_first
    assert [(f.id, f.value) for f in reshared.facts] == [(first.id, "Changed value")]

    # An evidence edit is no new fact version; what is shown moves only with updated_at (to the second).
    moment = datetime.fromisoformat(reshared.updated_at).replace(microsecond=0)
    with clock.frozen_at(moment + timedelta(microseconds=500)):
        evidence_only = fact_update(fact=renamed, evidence="Said so again")
    assert profile_snapshot(connection=connection).version == reshared.version  # nothing visible changed
    with clock.frozen_at(moment + timedelta(seconds=2)):
        fact_update(fact=evidence_only, evidence="Said so once more")
    assert profile_snapshot(connection=connection).version != reshared.version


# SPEC M-4: the version is the SHA-256 of the canonical JSON of the whole visible set, on every path —
# the first read, a remembered digest, and a page read from an offset.
@pytest.mark.django_db
def test_version_is_the_canonical_hash_of_the_whole_set(user, connect):
    connection = connect(categories=None)
    facts = [make_fact(user, index, category=("basic", "goals")[index % 2]) for index in range(60)]
    share(connection, facts)
    expected = hashlib.sha256(json.dumps(
        [{"category": f.category, "id": str(f.id), "label": f.label, "updated_at": _z(f.updated_at),
          "value": f.value, "version": f.version} for f in sorted(facts, key=lambda f: f.id)],
        sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()
    assert profile_snapshot(connection=connection).version == expected
    assert profile_snapshot(connection=connection).version == expected  # remembered
    assert profile_snapshot(connection=connection, offset=55).version == expected


def _z(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


# SPEC M-5: the summary is counts of the visible facts per category, nothing of their content.
def test_summary_only_counts_visible_facts():
    facts = (fact(1), fact(2, category="goals", label="SECRET-LABEL"), fact(3, category="goals"))
    summary = summarize(snapshot_of(facts))
    assert summary["fact_count"] == 3
    assert summary["categories"] == [{"category": "basic", "count": 1}, {"category": "goals", "count": 2}]
    assert "SECRET-LABEL" not in json.dumps(summary)
    assert summarize(snapshot_of(()))["fact_count"] == 0


# SPEC M-5: categories in the order of SPEC D-2, whatever order their codes sort in.
def test_summary_lists_categories_in_product_order():
    facts = (fact(1, category="work_study"), fact(2, category="preferences"), fact(3, category="basic"))
    assert [entry["category"] for entry in summarize(snapshot_of(facts))["categories"]] == [
        "basic", "preferences", "work_study"]
    assert summarize(snapshot_of(facts))["text"].startswith("3 facts shared with you (basic 1, preferences 1, ")


# SPEC M-6: at most 50 facts per result; the rest is announced, not dropped.
def test_fifty_fact_limit():
    facts = tuple(fact(i) for i in range(1, 61))
    snapshot = snapshot_of(facts)
    first = overview(snapshot)
    assert len(first["facts"]) == PAGE_MAX_FACTS
    assert (first["has_more"], first["next_offset"]) == (True, 50)
    assert first["next_uri"] == f"lifeos://profile/page/{snapshot.version}/50"
    rest = page(snapshot_of(facts, offset=50))
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
    pages = walk(facts)
    for result in pages:
        assert size(result) <= RESULT_MAX_BYTES
        assert len(result["facts"]) <= PAGE_MAX_FACTS
    sent = [f["id"] for result in pages for f in result["facts"]]
    assert sent == [str(i) for i in range(1, count + 1)]


@pytest.mark.parametrize("text", ["\u0001" * 300, '"' * 300, "😀" * 300, "中" * 300])
def test_worst_case_characters_fit(text):
    pages = walk(tuple(fact(i, label=text[:40], value=text) for i in range(1, 80)))
    assert all(size(result) <= RESULT_MAX_BYTES for result in pages)
    assert sum(len(result["facts"]) for result in pages) == 79
    assert len(pages) > 2  # the byte budget, not the 50-fact limit, cut these pages


def fit_one_by_one(worst: dict, candidates) -> list[dict]:
    """The page cut as first written: every fact measured on its own."""
    budget = RESULT_MAX_BYTES - size(worst)
    taken, used = [], 0
    for candidate in candidates:
        cost = size(candidate.public()) + (1 if taken else 0)
        if used + cost > budget:
            break
        taken.append(candidate.public())
        used += cost
    return taken


# SPEC M-6: the page cut measures the whole list at once, and keeps exactly what the fact-by-fact
# cut keeps, whatever the sizes.
@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(LONG_TEXT.filter(bool), min_size=0, max_size=PAGE_MAX_FACTS),
    padding=st.integers(min_value=0, max_value=15_000),
)
def test_fit_keeps_what_measuring_each_fact_keeps(values, padding):
    worst = {"padding": "p" * padding, "facts": []}
    candidates = [fact(i, value=value) for i, value in enumerate(values, start=1)]
    assert fit(worst, candidates) == fit_one_by_one(worst, candidates)


# SPEC M-6 at the edge: a result of exactly 16,384 bytes is kept whole; one byte more drops a fact.
@pytest.mark.parametrize("extra,kept", [(0, 5), (1, 4)])
def test_fit_at_the_byte_budget_edge(extra, kept):
    candidates = [fact(i, value="v" * 100) for i in range(1, 6)]
    facts_bytes = json_size([c.public() for c in candidates]) - 2  # the facts and the commas between them
    worst = {"facts": [], "pad": ""}
    worst["pad"] = "p" * (RESULT_MAX_BYTES - facts_bytes - json_size(worst) + extra)
    taken = fit(worst, candidates)
    assert taken == [c.public() for c in candidates[:kept]]
    assert size({**worst, "facts": taken}) <= RESULT_MAX_BYTES
    if kept == 5:
        assert size({**worst, "facts": taken}) == RESULT_MAX_BYTES


# SPEC M-6, C-1: a page read from the database at any offset is the old whole-set result's slice:
# the same facts, counts, latest change and paging fields.
@pytest.mark.django_db
@pytest.mark.parametrize("offset", [0, 1, 49, 50, 117, 118])
def test_database_page_equals_the_materialized_set(user, connect, offset):
    connection = connect()
    categories = ["basic", "goals", "habits"]
    facts = [make_fact(user, i, category=categories[i % 3], value="值" * (i % 250 + 1)) for i in range(120)]
    share(connection, facts[:-3] + [facts[-1]])  # two not shared: gaps in the ids
    make_fact(user, 999)  # not shared at all
    everything = tuple(
        VisibleFact(id=row.id, category=row.category, label=row.label, value=row.value, version=row.version,
                    updated_at=row.updated_at.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"))
        for row in visible_facts(connection=connection)
    )
    assert len(everything) == 118
    read = profile_snapshot(connection=connection, offset=offset)
    reference = snapshot_of(everything, offset=offset)
    assert read.facts == reference.facts == everything[offset : offset + PAGE_MAX_FACTS]
    assert (read.fact_count, read.categories, read.updated_at) == (
        reference.fact_count, reference.categories, reference.updated_at)
    ours, theirs = (overview(read), overview(reference)) if offset == 0 else (page(read), page(reference))
    for result in (ours, theirs):
        result.pop("version")
        result.pop("next_uri")
    assert ours == theirs
