"""search(query, resource?, top_k?) (SPEC R-5 … R-8)."""

import json
from datetime import timedelta

import pytest

from apps.memory import services
from apps.retrieval.layer import LayerError
from apps.retrieval.layer.registry import registry
from apps.retrieval.models import SearchProjection
from tests.retrieval.layer.builders import OPS, T0, access, call, meeting

pytestmark = pytest.mark.django_db

SEARCH_BYTES = 16_384  # the search byte budget (docs/retrieval.md), fixed here, not read from the code


def refs(answer) -> list[str]:
    return [hit["ref"] for hit in answer["hits"]]


def test_a_keyword_only_in_an_unreadable_field_matches_nothing(user):  # SPEC R-5
    todo = services.todo_create(owner=user, title="更新推送配置", notes="内部联系人 13800000000 Zephyrine")
    titles_only = access(user, {"todo": {"operations": OPS, "fields": ["/title", "/status"]}})
    with_notes = access(user, {"todo": {"operations": OPS, "fields": ["/title", "/notes"]}})
    # No existence oracle: the record does not come back, under any query that only its notes match.
    for query in ("Zephyrine", "13800000000", "推送 Zephyrine"):
        assert call(titles_only, "search", query=query)["hits"] == []
        assert call(titles_only, "search", query=query, resource="todo")["hits"] == []
    # The caller who may read the notes finds it, snippet taken from them.
    found = call(with_notes, "search", query="zephyrine")
    assert refs(found) == [f"todo:{todo.pk}"]
    assert found["hits"][0]["snippet"]["path"] == "/notes"
    assert "Zephyrine" in found["hits"][0]["snippet"]["text"]
    # Both callers find it by its title; the narrow one sees no notes in the hit.
    hit = call(titles_only, "search", query="推送配置")["hits"][0]
    assert hit["snippet"] == {"path": "/title", "text": "更新推送配置"} and "Zephyrine" not in str(hit)


def test_nested_fields_are_matched_only_where_granted(user):  # SPEC R-5
    episode = meeting(user)["episode"]
    names_only = access(user, {"episode": {"operations": OPS, "fields": ["/participants/*/display_name"]}})
    assert refs(call(names_only, "search", query="Alex Zhang")) == [f"episode:{episode.pk}"]
    assert call(names_only, "search", query="本地推送")["hits"] == []  # only in the summary
    # A grant of a sibling path opens neither the parent objects nor the names beside it.
    roles_only = access(user, {"episode": {"operations": OPS, "fields": ["/participants/*/role"]}})
    assert call(roles_only, "search", query="Alex", resource="episode")["hits"] == []
    assert call(roles_only, "read", ref=f"episode:{episode.pk}")["data"] == {
        "participants": [{"role": "host"}, {"role": "data"}]}


def test_a_todo_marked_done_after_indexing_comes_back_with_its_current_status(user):  # SPEC R-6
    todo = services.todo_create(owner=user, title="Renew the passport")
    acc = access(user)
    assert call(acc, "search", query="passport")["hits"][0]["status"] == "open"
    services.todo_update(todo=todo, status="done")
    hit = call(acc, "search", query="passport")["hits"][0]
    assert (hit["ref"], hit["status"]) == (f"todo:{todo.pk}", "done")
    assert call(acc, "read", ref=hit["ref"])["data"]["status"] == "done"


def test_candidates_are_confirmed_against_the_source_record(user, other_user):  # SPEC R-6
    kept = services.voice_memo_create(owner=user, title="Quokka idea", text="a quokka app", recorded_at=T0)
    deleted = services.voice_memo_create(owner=user, title="Quokka draft", text="old", recorded_at=T0)
    services.voice_memo_create(owner=other_user, title="Quokka of bob", text="bob's", recorded_at=T0)
    services.resource_delete(instance=deleted)
    # A projection row whose source text changed without the projection being told is not trusted either.
    stale = services.voice_memo_create(owner=user, title="Quokka stale", text="x", recorded_at=T0)
    type(stale).objects.filter(pk=stale.pk).update(title="renamed")
    assert refs(call(access(user), "search", query="quokka")) == [f"voice_memo:{kept.pk}"]


# The statement naming what each type may return is compiled once and bound per search: one person's
# search after another's finds that person's records, and a deletion counts at once.
def test_each_search_is_bound_to_its_own_person(user, other_user):  # SPEC R-6
    mine = services.todo_create(owner=user, title="Quokka visa")
    theirs = services.todo_create(owner=other_user, title="Quokka visa")
    assert refs(call(access(user), "search", query="quokka")) == [f"todo:{mine.pk}"]
    assert refs(call(access(other_user), "search", query="quokka")) == [f"todo:{theirs.pk}"]
    services.resource_delete(instance=theirs)
    assert call(access(other_user), "search", query="quokka")["hits"] == []
    assert refs(call(access(user), "search", query="quokka")) == [f"todo:{mine.pk}"]


def test_ranking_lifts_open_todos_and_recent_records(user, frozen_clock):  # SPEC R-8
    done = services.todo_create(owner=user, title="Call the bank about the mortgage", status="done")
    frozen_clock.advance(timedelta(days=1))
    open_ = services.todo_create(owner=user, title="Call the bank about the mortgage")
    frozen_clock.advance(timedelta(days=90))
    old_memo = services.voice_memo_create(owner=user, title="mortgage", text="mortgage", recorded_at=T0)
    answer = call(access(user), "search", query="mortgage")
    ranked = refs(answer)
    assert ranked.index(f"todo:{open_.pk}") < ranked.index(f"todo:{done.pk}")
    assert len(ranked) == len(set(ranked)) == 3 and f"voice_memo:{old_memo.pk}" in ranked
    scores = [hit["score"] for hit in answer["hits"]]
    assert scores == sorted(scores, reverse=True)


# SPEC: what the caller may not read does not reach it through the ranking either. With only the
# title granted, todos that differ only in status (and, here, in when they changed) score alike — their order
# would otherwise tell which are done.
def test_ranking_uses_only_fields_the_caller_may_read(user, frozen_clock):
    for status in ("open", "done", "cancelled"):
        services.todo_create(owner=user, title="Quokka vaccination", status=status)
        frozen_clock.advance(timedelta(days=40))
    titles = access(user, {"todo": {"operations": OPS, "fields": ["/title"]}})
    hits = call(titles, "search", query="quokka")["hits"]
    assert len(hits) == 3 and len({hit["score"] for hit in hits}) == 1
    assert all(set(hit) == {"ref", "type", "score", "title", "snippet"} for hit in hits)
    everything = access(user)
    assert len({hit["score"] for hit in call(everything, "search", query="quokka")["hits"]}) == 3


def test_results_are_cut_to_top_k_and_the_byte_budget(user):  # SPEC R-8
    for i in range(30):
        services.voice_memo_create(owner=user, title=f"Lighthouse {i} " + "灯塔" * 90, text="lighthouse " * 500,
                                   recorded_at=T0)
    acc = access(user)
    few = call(acc, "search", query="lighthouse", top_k=3)
    assert len(few["hits"]) == 3 and few["truncated"] is True
    many = call(acc, "search", query="lighthouse", top_k=50)
    assert 3 < len(many["hits"]) < 30 and many["truncated"] is True
    assert len(json.dumps(many, ensure_ascii=False, separators=(",", ":")).encode()) <= SEARCH_BYTES


def test_cross_resource_search_spans_every_searchable_type(user):  # SPEC
    records = meeting(user)
    ranked = refs(call(access(user), "search", query="本地推送"))
    assert f"episode:{records['episode'].pk}" in ranked
    assert f"transcript:{records['transcript'].pk}" in ranked
    quote = call(access(user), "search", query="云端补发", resource="transcript")["hits"][0]
    assert quote["snippet"]["path"] == "/segments/0/text"


def test_search_without_any_searchable_grant_is_refused(user):  # SPEC R-4
    acc = access(user, {"todo": {"operations": ["read"], "fields": ["/title"]}})
    with pytest.raises(LayerError) as refused:
        call(acc, "search", query="anything")
    assert refused.value.code == "operation_not_permitted"


def test_a_transcript_longer_than_a_tsvector_is_searchable(user):  # SPEC, D-6
    # Over 1 MiB of text in one searchable field: PostgreSQL's tsvector limit must not break search,
    # and a phrase near the end (past any ranking window) still matches.
    segments = [
        {"speaker": "A", "start_ms": i * 1000, "end_ms": i * 1000 + 900, "text": f"第{i}段 讨论推送方案 {i:06d}"}
        for i in range(60_000)
    ]
    segments[-1]["text"] = "最后决定 Quetzalcoatl 方案"
    transcript = services.transcript_create(owner=user, title="长会议", segments=segments, recorded_at=T0)
    answer = call(access(user), "search", query="Quetzalcoatl", resource="transcript")
    assert refs(answer) == [f"transcript:{transcript.pk}"]


def test_scores_are_relative_to_the_best_confirmed_candidate(user, frozen_clock):  # SPEC
    # The projection's best match is stale (its source no longer says "quokka"): it must neither
    # be answered nor set the scale of the others' lexical scores.
    services.voice_memo_create(owner=user, title="Quokka notes", text="a quokka app and a quokka game",
                               recorded_at=T0)
    services.todo_create(owner=user, title="Buy quokka food", notes="quokka")
    stale = services.voice_memo_create(owner=user, title="Quokka", text="quokka", recorded_at=T0)
    type(stale).objects.filter(pk=stale.pk).update(title="renamed", text="renamed")
    with_stale = call(access(user), "search", query="quokka")
    SearchProjection.objects.filter(resource_type="voice_memo", record_id=stale.pk).delete()
    without = call(access(user), "search", query="quokka")
    assert f"voice_memo:{stale.pk}" not in refs(with_stale)
    assert with_stale == without and len(without["hits"]) == 2


def test_search_builds_documents_only_for_what_it_answers(user, monkeypatch):  # SPEC
    for i in range(40):
        services.voice_memo_create(owner=user, title=f"Lighthouse {i}", text="lighthouse keeper", recorded_at=T0)
    adapter = registry.get("voice_memo").adapter
    built = []
    original = adapter.document

    def document(instance, names=None):
        built.append(names)
        return original(instance, names)

    monkeypatch.setattr(adapter, "document", document)
    answer = call(access(user), "search", query="lighthouse", top_k=3)
    assert len(answer["hits"]) == 3 and answer["truncated"] is True
    assert len(built) == 4  # the three answered and the one proving there are more
    assert all(names == frozenset({"title", "text", "updated_at"}) for names in built)


def test_a_search_loads_each_type_of_candidate_once(user):  # SPEC
    # One statement per type loads its candidates (only what ranking and a hit read, the ids bound as
    # one list on PostgreSQL). Ranking and building hits read nothing more: a field left unloaded that
    # either needed would cost a statement per record.
    from datetime import date

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from apps.memory.services.facts import fact_create

    records = meeting(user, title="Quokka review")
    services.todo_create(owner=user, title="Quokka food", notes="the quokka")
    services.voice_memo_create(owner=user, title="Quokka idea", text="a quokka app", recorded_at=T0)
    services.contact_create(owner=user, display_name="Quokka Lin", notes="met at the quokka park")
    services.digest_create(owner=user, period="week", period_start=date(2026, 6, 1), period_end=date(2026, 6, 7),
                           summary="quokka week", episodes=[records["episode"]])
    services.intent_create(owner=user, action="quokka reminder")
    services.calendar_event_create(owner=user, title="Quokka visit", starts_at=T0, ends_at=T0 + timedelta(hours=1),
                                   location="quokka island")
    services.transcript_create(owner=user, title="Quokka talk", recorded_at=T0,
                               segments=[{"speaker": "A", "start_ms": 0, "end_ms": 900, "text": "quokka"}])
    fact_create(owner=user, category="preferences", label="Favourite animal", value="quokka")
    with CaptureQueriesContext(connection) as captured:
        answer = call(access(user), "search", query="quokka", top_k=50)
    assert {hit["type"] for hit in answer["hits"]} == {r.type for r in registry.all() if r.declaration.searchable}
    loads = [q["sql"] for q in captured.captured_queries
             if q["sql"].lstrip().upper().startswith("SELECT") and "retrieval_" not in q["sql"]]
    assert len(loads) == len({hit["type"] for hit in answer["hits"]}), loads
