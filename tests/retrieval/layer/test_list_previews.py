"""List previews always fit a page (SPEC R-2, R-9).

A ``list`` item is a preview of its record: text cut to 280 characters,
arrays cut to their first items, large json values left out, each such path
named in ``truncated``; a record whose preview still cannot fit the page comes
as its ref alone (``data: {}``, ``truncated: [""]``). ``read`` gives the whole
record. One large record never makes a valid list request fail, nor hides the
older records behind it.
"""

from __future__ import annotations

import json
from datetime import timedelta
from types import SimpleNamespace

import pytest
from jsonschema import Draft202012Validator

from apps.mcp_server import catalog
from apps.mcp_server.tools.memory import memory_list
from apps.memory import services
from apps.retrieval.layer import Access, Grant, external_grant
from tests.retrieval.layer.builders import OPS, T0, access, call, meeting, read_all

pytestmark = pytest.mark.django_db

PAGE_BYTES = 65_536  # SPEC R-9, fixed here rather than read from the code under test
MCP_PAGE_BYTES = 16_384  # SPEC M-6
PREVIEW_ITEMS = 20  # an array in a list item: its first 20 items (docs/retrieval.md)


def size(answer: dict) -> int:
    return len(json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def list_all(acc: Access, resource: str, limit: int) -> tuple[list[dict], list[dict]]:
    """Every item of ``resource`` through every cursor; each page checked against ``limit``."""
    pages = [call(acc, "list", resource=resource)]
    while pages[-1]["next_cursor"]:
        assert len(pages) < 50, "the cursor does not advance"
        pages.append(call(acc, "list", resource=resource, cursor=pages[-1]["next_cursor"]))
    assert all(size(page) <= limit for page in pages)
    items = [item for page in pages for item in page["items"]]
    refs = [item["ref"] for item in items]
    assert len(refs) == len(set(refs)), "a ref is listed twice"
    return items, pages


def by_ref(items: list[dict]) -> dict[str, dict]:
    return {item["ref"]: item for item in items}


# SPEC: a 70 KB json payload between two small intents blocks nothing: all three are listed, newest
# first; the large payload is left out of the preview, named in ``truncated``, and read gives it whole.
def test_a_large_json_value_between_small_records(user, frozen_clock):
    older = services.intent_create(owner=user, action="older", payload={"note": "small"})
    frozen_clock.advance(timedelta(minutes=1))
    payload = {"rows": [{"n": i, "text": "x" * 60} for i in range(1_000)]}
    assert len(json.dumps(payload)) > 70_000
    large = services.intent_create(owner=user, action="large", payload=payload)
    frozen_clock.advance(timedelta(minutes=1))
    newer = services.intent_create(owner=user, action="newer", payload={"note": "small"})
    acc = access(user)

    items, _ = list_all(acc, "intent", PAGE_BYTES)
    assert [item["ref"] for item in items] == [f"intent:{newer.pk}", f"intent:{large.pk}", f"intent:{older.pk}"]
    listed = by_ref(items)
    big = listed[f"intent:{large.pk}"]
    assert big["truncated"] == ["/payload"] and "payload" not in big["data"]  # SPEC R-2: the marker, not the value
    assert big["data"]["action"] == "large"
    # Small json values are shown whole, as before.
    assert listed[f"intent:{older.pk}"]["data"]["payload"] == {"note": "small"}
    assert "truncated" not in listed[f"intent:{older.pk}"]
    # SPEC R-9: read gives the whole record, paged as fragments.
    data, pages = read_all(acc, f"intent:{large.pk}")
    assert len(pages) > 1 and json.loads(data["payload"]) == payload  # a json value comes as its JSON text


# SPEC: at the MCP page size (16 KiB, SPEC M-6) an episode with 120 long topics lists with its topics cut
# to a prefix; the records before and after it are listed too.
def test_an_episode_with_120_topics_at_the_mcp_page_size(user, frozen_clock):
    older = services.episode_create(owner=user, title="older", occurred_at=T0, topics=["a", "b"])
    topics = [f"topic {i:03d} " + "y" * 190 for i in range(120)]
    large = services.episode_create(owner=user, title="large", occurred_at=T0 + timedelta(hours=1), topics=topics)
    newer = services.episode_create(owner=user, title="newer", occurred_at=T0 + timedelta(hours=2), topics=["c"])
    acc = Access(user_id=user.pk, caller="connection:1", audience="external",
                 grant=external_grant(["memory:episode:read"]), page_bytes=MCP_PAGE_BYTES)

    items, _ = list_all(acc, "episode", MCP_PAGE_BYTES)
    assert [item["ref"] for item in items] == [f"episode:{newer.pk}", f"episode:{large.pk}", f"episode:{older.pk}"]
    big = by_ref(items)[f"episode:{large.pk}"]
    assert big["truncated"] == ["/topics"]
    assert big["data"]["topics"] == topics[:PREVIEW_ITEMS]  # a prefix, in order
    assert by_ref(items)[f"episode:{older.pk}"]["data"]["topics"] == ["a", "b"]
    assert read_all(acc, f"episode:{large.pk}")[0]["topics"] == topics


# SPEC over MCP: memory_list answers the same page within one tool result and its published schema.
def test_memory_list_lists_the_episode_with_120_topics(user):
    topics = [f"topic {i:03d} " + "y" * 190 for i in range(120)]
    large = services.episode_create(owner=user, title="large", occurred_at=T0, topics=topics)
    grant = SimpleNamespace(connection=SimpleNamespace(pk=1, user_id=user.pk), scopes=("memory:episode:read",))
    answer = memory_list(grant, {"resource": "episode"})
    Draft202012Validator(catalog.tool("memory_list").output_schema).validate(answer.payload)
    assert size(answer.payload) <= MCP_PAGE_BYTES
    assert answer.refs == (f"episode:{large.pk}",)
    assert answer.payload["items"][0]["truncated"] == ["/topics"]


# SPEC: a record whose preview alone cannot fit the page comes as its ref and a marker, and the cursor
# still moves past it: the records around it are listed, each page within its limit.
def test_a_record_too_large_to_preview_comes_as_its_ref(user, frozen_clock):
    small = []
    for i in range(3):
        small.append(services.episode_create(owner=user, title=f"small {i}", occurred_at=T0 + timedelta(hours=i)))
    # 20 participants (a preview keeps at most PREVIEW_ITEMS of them) of 1,000 characters each: over 16 KiB.
    people = [{"display_name": f"{i} " + "z" * 1_000, "role": "guest"} for i in range(PREVIEW_ITEMS)]
    huge = services.episode_create(owner=user, title="huge", occurred_at=T0 + timedelta(hours=1, minutes=30),
                                   participants=people)
    acc = Access(user_id=user.pk, caller="connection:1", audience="external",
                 grant=external_grant(["memory:episode:read"]), page_bytes=MCP_PAGE_BYTES)

    items, pages = list_all(acc, "episode", MCP_PAGE_BYTES)
    assert [item["ref"] for item in items] == [f"episode:{small[2].pk}", f"episode:{huge.pk}",
                                               f"episode:{small[1].pk}", f"episode:{small[0].pk}"]
    assert by_ref(items)[f"episode:{huge.pk}"] == {"ref": f"episode:{huge.pk}", "data": {}, "truncated": [""]}
    assert len(pages) >= 2  # the huge record had a page of its own
    Draft202012Validator(catalog.tool("memory_list").output_schema).validate(pages[0])
    assert read_all(acc, f"episode:{huge.pk}")[0]["participants"][0]["display_name"] == people[0]["display_name"]


# SPEC R-2: twenty-five records each too large to preview page one by one, every page advancing.
def test_pages_of_oversized_records_advance(user):
    people = [{"display_name": "w" * 3_000} for _ in range(10)]
    made = [services.episode_create(owner=user, title=f"e{i}", occurred_at=T0 + timedelta(minutes=i),
                                    participants=people) for i in range(25)]
    acc = Access(user_id=user.pk, caller="connection:1", audience="external",
                 grant=external_grant(["memory:episode:read"]), page_bytes=MCP_PAGE_BYTES)
    items, pages = list_all(acc, "episode", MCP_PAGE_BYTES)
    assert [item["ref"] for item in items] == [f"episode:{e.pk}" for e in reversed(made)]
    assert len(pages) == 25 and all(len(page["items"]) == 1 for page in pages)
    assert pages[-1]["next_cursor"] is None


# SPEC R-2: an ordinary list is unchanged: every listed field whole except text longer than 280 characters.
def test_an_ordinary_list_is_unchanged(user, frozen_clock):
    records = meeting(user)
    services.todo_create(owner=user, title="long notes", notes="n" * 1_000)
    services.intent_create(owner=user, action="remind", target_ref=f"todo:{records['open_todo'].pk}",
                           payload={"when": "2026-06-02T09:00:00+08:00", "channel": "push"})
    acc = access(user)
    for resource in ("episode", "calendar", "todo", "intent", "transcript"):
        page = call(acc, "list", resource=resource)
        assert page["next_cursor"] is None and page["items"]
        for item in page["items"]:
            whole = call(acc, "read", ref=item["ref"])["data"]
            if resource == "transcript":
                whole.pop("segments")  # not shown in lists (declared so)
            if item["data"].get("notes") == "n" * 280:
                assert item["truncated"] == ["/notes"] and whole["notes"] == "n" * 1_000
                whole["notes"] = "n" * 280
            else:
                assert "truncated" not in item
            assert item["data"] == whole
    episode = call(acc, "list", resource="episode")["items"][0]["data"]
    assert episode["topics"] == ["提醒", "reminders"] and len(episode["todos"]) == 2


# SPEC R-5 with previews: a narrow grant previews only what it may read.
def test_previews_hold_only_readable_fields(user):
    topics = [f"t{i}" for i in range(120)]
    services.episode_create(owner=user, title="x", occurred_at=T0, topics=topics, summary="s" * 500)
    acc = Access(user_id=user.pk, caller="agent:test/run:1", audience="internal",
                 grant=Grant.from_json({"episode": {"operations": OPS, "fields": ["/topics"]}}))
    item = call(acc, "list", resource="episode")["items"][0]
    assert item["data"] == {"topics": topics[:PREVIEW_ITEMS]} and item["truncated"] == ["/topics"]


def test_listing_transcripts_never_asks_storage_for_their_bodies(user, monkeypatch):  # SPEC
    # ``/segments`` is not shown in list items: a list page must not fetch (up to 20) bodies only to drop
    # them, nor fail because one body is gone; reading that transcript is what says body_missing.
    from apps.memory import storage

    lost = services.transcript_create(owner=user, title="lost", recorded_at=T0,
                                      segments=[{"speaker": "A", "start_ms": 0, "end_ms": 1, "text": "hi"}])
    kept = services.transcript_create(owner=user, title="kept", recorded_at=T0 + timedelta(hours=1),
                                      segments=[{"speaker": "B", "start_ms": 0, "end_ms": 1, "text": "yo"}])
    storage.body_delete(path=lost.body_path)

    def asked(*args, **kwargs):
        raise AssertionError("a list asked storage for a transcript body")

    monkeypatch.setattr(storage, "body_read", asked)
    monkeypatch.setattr("apps.retrieval.layer.resources.transcript.body_size", asked)
    page = call(access(user), "list", resource="transcript")
    assert [(item["ref"], item["data"]["title"]) for item in page["items"]] == [
        (f"transcript:{kept.pk}", "kept"), (f"transcript:{lost.pk}", "lost")]
    assert all("segments" not in item["data"] for item in page["items"])
