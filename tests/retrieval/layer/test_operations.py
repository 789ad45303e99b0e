"""list() / list(resource, filters, cursor) / read(ref) (SPEC R-2, R-9)."""

from datetime import timedelta

import pytest

from apps.memory import services
from apps.retrieval.layer import LayerError
from tests.retrieval.layer.builders import OPS, T0, access, call, meeting

pytestmark = pytest.mark.django_db


def test_catalog_lists_only_types_with_a_readable_field(user):  # SPEC R-2
    acc = access(user, {
        "todo": {"operations": ["list", "read"], "fields": ["/title", "/status"]},
        "contact": {"operations": OPS, "fields": ["/notes"]},
    }, audience="internal")
    catalog = call(acc, "list")
    todo = next(entry for entry in catalog["resources"] if entry["type"] == "todo")
    assert [entry["type"] for entry in catalog["resources"]] == ["contact", "todo"]
    assert todo["operations"] == ["list", "read"]
    assert [f["path"] for f in todo["fields"]] == ["/title", "/status"]
    assert [f["name"] for f in todo["filters"]] == ["status"]  # filters on unreadable fields are not offered

    # A type whose granted fields are all outside the audience cap has no readable field: absent.
    external = access(user, {"todo": {"operations": OPS, "fields": ["/notes"]},
                             "episode": {"operations": OPS, "fields": ["/title"]}}, audience="external")
    assert [entry["type"] for entry in call(external, "list")["resources"]] == ["episode"]


def test_refs_are_stable_and_read_answers_the_readable_fields_only(user):  # SPEC
    records = meeting(user)
    episode = records["episode"]
    acc = access(user, {"episode": {"operations": OPS, "fields": ["/title", "/participants/*/display_name"]}})
    answer = call(acc, "read", ref=f"episode:{episode.pk}")
    assert answer == {
        "ref": f"episode:{episode.pk}", "type": "episode", "complete": True, "next_cursor": None,
        "data": {"title": episode.title,
                 "participants": [{"display_name": "林若溪"}, {"display_name": "Alex Zhang"}]},
    }
    # Undeclared keys kept in the JSON column (an e-mail address) never come out, even with every field granted.
    whole = call(access(user), "read", ref=f"episode:{episode.pk}")["data"]
    assert whole["participants"][0] == {"display_name": "林若溪", "role": "host", "contact": None}
    assert whole["todos"] == [f"todo:{records['open_todo'].pk}", f"todo:{records['done_todo'].pk}"]
    assert whole["transcript"] == f"transcript:{records['transcript'].pk}"


def test_read_refuses_other_users_and_deleted_records_alike(user, other_user):  # SPEC R-6
    mine = services.todo_create(owner=user, title="mine")
    theirs = services.todo_create(owner=other_user, title="theirs")
    gone = services.todo_create(owner=user, title="gone")
    services.resource_delete(instance=gone)
    acc = access(user)
    for ref in (f"todo:{theirs.pk}", f"todo:{gone.pk}", "todo:999999"):
        with pytest.raises(LayerError) as refused:
            call(acc, "read", ref=ref)
        assert (refused.value.code, refused.value.pointer) == ("not_found", "/ref")
    assert call(acc, "read", ref=f"todo:{mine.pk}")["data"]["title"] == "mine"


def test_list_pages_filters_and_previews(user, frozen_clock):  # SPEC R-2
    for i in range(30):
        services.todo_create(owner=user, title=f"task {i}", notes="x" * 1000, status="done" if i % 5 == 0 else "open")
        frozen_clock.advance(timedelta(minutes=1))
    acc = access(user)
    first = call(acc, "list", resource="todo", filters={"status": "open"})
    assert first["order"] == "/created_at desc"
    assert [item["data"]["title"] for item in first["items"]][:3] == ["task 29", "task 28", "task 27"]
    assert all(item["data"]["status"] == "open" for item in first["items"])
    assert len(first["items"][0]["data"]["notes"]) == 280 and first["items"][0]["truncated"] == ["/notes"]
    second = call(acc, "list", resource="todo", filters={"status": "open"}, cursor=first["next_cursor"])
    titles = [i["data"]["title"] for i in first["items"] + second["items"]]
    assert len(titles) == len(set(titles)) == 24 and second["next_cursor"] is None
    # Without the order field readable, the order is by id and the cursor holds no time.
    narrow = access(user, {"todo": {"operations": OPS, "fields": ["/title"]}})
    assert call(narrow, "list", resource="todo")["order"] == "id desc"


def test_list_filters_by_time(user, frozen_clock):  # SPEC
    services.calendar_event_create(owner=user, title="early", starts_at=T0, ends_at=T0 + timedelta(hours=1))
    services.calendar_event_create(owner=user, title="late", starts_at=T0 + timedelta(days=3),
                                   ends_at=T0 + timedelta(days=3, hours=1))
    page = call(access(user), "list", resource="calendar", filters={"starts_after": "2026-06-02T00:00:00+08:00"})
    assert [item["data"]["title"] for item in page["items"]] == ["late"]


def test_a_filter_on_an_unreadable_field_is_refused(user):  # SPEC R-5
    acc = access(user, {"todo": {"operations": OPS, "fields": ["/title"]}})
    with pytest.raises(LayerError) as refused:
        call(acc, "list", resource="todo", filters={"status": "open"})
    assert (refused.value.code, refused.value.pointer) == ("filter_not_permitted", "/filters/status")


def test_operations_outside_the_grant_are_refused(user):  # SPEC R-4
    todo = services.todo_create(owner=user, title="t")
    acc = access(user, {"todo": {"operations": ["list"], "fields": ["/title"]}})
    with pytest.raises(LayerError) as refused:
        call(acc, "read", ref=f"todo:{todo.pk}")
    assert refused.value.code == "operation_not_permitted"
    with pytest.raises(LayerError) as refused:
        call(acc, "list", resource="contact")
    assert (refused.value.code, refused.value.pointer) == ("resource_not_permitted", "/resource")
