"""Cursors are opaque, signed and bound (SPEC R-10)."""

from datetime import timedelta

import pytest
from django.core import signing

from apps.memory import services
from apps.retrieval.layer import LayerError
from apps.retrieval.layer.cursors import SALT
from tests.retrieval.layer.builders import T0, access, call

pytestmark = pytest.mark.django_db


@pytest.fixture
def todos(user):
    return [services.todo_create(owner=user, title=f"task {i}") for i in range(30)]


def _refused(acc, code, **body):
    with pytest.raises(LayerError) as refused:
        call(acc, body.pop("op"), **body)
    assert (refused.value.code, refused.value.pointer) == (code, "/cursor")


def test_a_tampered_cursor_is_refused(user, todos):  # SPEC R-10
    acc = access(user)
    cursor = call(acc, "list", resource="todo")["next_cursor"]
    payload = signing.loads(cursor, salt=SALT)
    forged = signing.dumps({**payload, "after": [payload["after"][0], 10**9]}, salt="someone-elses-salt", compress=True)
    flipped = cursor[:-3] + ("A" if cursor[-3] != "A" else "B") + cursor[-2:]
    for bad in (forged, flipped, "not-a-cursor", cursor + "x"):
        _refused(acc, "cursor_invalid", op="list", resource="todo", cursor=bad)
    assert call(acc, "list", resource="todo", cursor=cursor)["items"]  # the genuine one still works


def test_a_foreign_users_or_callers_cursor_is_refused(user, other_user, todos):  # SPEC R-10
    for i in range(30):
        services.todo_create(owner=other_user, title=f"bob {i}")
    cursor = call(access(user), "list", resource="todo")["next_cursor"]
    _refused(access(other_user), "cursor_invalid", op="list", resource="todo", cursor=cursor)
    _refused(access(user, caller="agent:other/run:2"), "cursor_invalid", op="list", resource="todo", cursor=cursor)
    _refused(access(user, audience="external"), "cursor_invalid", op="list", resource="todo", cursor=cursor)


def test_a_cursor_for_another_type_ref_filter_or_operation_is_refused(user, todos):  # SPEC R-10
    for i in range(30):
        services.contact_create(owner=user, display_name=f"person {i}")
    acc = access(user)
    todo_cursor = call(acc, "list", resource="todo")["next_cursor"]
    _refused(acc, "cursor_mismatch", op="list", resource="contact", cursor=todo_cursor)
    _refused(acc, "cursor_mismatch", op="list", resource="todo", filters={"status": "open"}, cursor=todo_cursor)
    _refused(acc, "cursor_mismatch", op="read", ref=f"todo:{todos[0].pk}", cursor=todo_cursor)

    memo = services.voice_memo_create(owner=user, title="long", text="长" * 70_000, recorded_at=T0)
    other = services.voice_memo_create(owner=user, title="long too", text="长" * 70_000, recorded_at=T0)
    read_cursor = call(acc, "read", ref=f"voice_memo:{memo.pk}")["next_cursor"]
    assert read_cursor
    _refused(acc, "cursor_mismatch", op="read", ref=f"voice_memo:{other.pk}", cursor=read_cursor)
    _refused(acc, "cursor_mismatch", op="list", resource="voice_memo", cursor=read_cursor)


def test_a_cursor_expires(user, todos, frozen_clock):  # SPEC R-10
    acc = access(user)
    cursor = call(acc, "list", resource="todo")["next_cursor"]
    frozen_clock.advance(timedelta(hours=7))
    _refused(acc, "cursor_expired", op="list", resource="todo", cursor=cursor)


def test_a_cursor_carries_no_record_text(user, todos):  # SPEC R-10
    payload = signing.loads(call(access(user), "list", resource="todo")["next_cursor"], salt=SALT)
    assert "task" not in str(payload)
    assert set(payload) == {"u", "c", "a", "t", "o", "r", "f", "fs", "fp", "iat", "order", "after"}
