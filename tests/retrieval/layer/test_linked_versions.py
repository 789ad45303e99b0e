"""Paging is bound to everything a record's document is computed from, linked rows included (SPEC R-10).

An episode's ``/transcript``, ``/calendar`` and ``/todos``, a todo's
``/episodes`` and a digest's ``/episodes`` come from other rows and from link
rows; deleting, changing or adding one of those never touches the record's
own ``updated_at``. A read that pages across such a change must end in
``source_changed``, never in ``complete: true`` over a document that matches
neither the old state nor the new.
"""

from __future__ import annotations

from datetime import date, timedelta
from types import SimpleNamespace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.memory import services
from apps.memory.models import Todo, Transcript
from apps.retrieval.layer import Access, Grant, LayerError
from tests.retrieval.layer.builders import T0, call, everything, read_all, reassemble

pytestmark = pytest.mark.django_db

SMALL_PAGE = 4_096  # the smallest page a caller may ask for: a few linked refs fill it
LONG = "很长的会议纪要 long minutes " * 400  # a text field several small pages long


def _access(user, page_bytes: int = SMALL_PAGE) -> Access:
    return Access(user_id=user.pk, caller="agent:test/run:1", audience="internal", grant=Grant.from_json(everything()),
                  page_bytes=page_bytes)


def _todos(owner, count: int) -> list[Todo]:
    return [services.todo_create(owner=owner, title=f"todo {i}") for i in range(count)]


def _episode(owner, *, todos=(), summary: str = "", transcript=None, calendar_event=None):
    return services.episode_create(owner=owner, title="Weekly review", occurred_at=T0, summary=summary,
                                   todos=list(todos), transcript=transcript, calendar_event=calendar_event)


def _first_page(acc: Access, ref: str) -> dict:
    page = call(acc, "read", ref=ref)
    assert page["complete"] is False and page["next_cursor"], "the record must need more than one page"
    return page


def _assert_source_changed(acc: Access, ref: str, page: dict) -> None:
    """Every later page is refused: none of them may finish a mixed document."""
    with pytest.raises(LayerError) as refused:
        while page["next_cursor"]:
            page = call(acc, "read", ref=ref, cursor=page["next_cursor"])
    assert (refused.value.code, refused.value.pointer) == ("source_changed", "/cursor")


# --- episode /todos -----------------------------------------------------------------------------------

# The document shows only each link; the version covers every linked row whole (its pk, updated_at and
# deleted_at) and the set of links, so any of these is a changed source, never a silently different document.
EPISODE_TODO_CHANGES = {
    "deleted": lambda episode, todos: services.resource_delete(instance=todos[0]),
    "changed": lambda episode, todos: services.todo_update(todo=todos[-2], title="renamed", status="done"),
    # a link row only: neither the episode nor the todo is written
    "linked": lambda episode, todos: episode.todos.add(todos[-1]),
    "unlinked": lambda episode, todos: episode.todos.remove(todos[200]),
    "hard_deleted": lambda episode, todos: Todo.objects.filter(pk=todos[0].pk).delete(),  # link rows go with it
}


@pytest.mark.parametrize("change", list(EPISODE_TODO_CHANGES))
def test_a_linked_todo_changed_between_pages_is_source_changed(user, change):  # SPEC R-10
    todos = _todos(user, 400)
    episode = _episode(user, todos=todos[:-1])  # the last one is linked only by "linked"
    acc, ref = _access(user), f"episode:{episode.pk}"
    first = _first_page(acc, ref)
    EPISODE_TODO_CHANGES[change](episode, todos)
    _assert_source_changed(acc, ref, first)


# --- episode /transcript and /calendar --------------------------------------------------------------

def _linked_episode(user):
    transcript = services.transcript_create(
        owner=user, title="recording", recorded_at=T0,
        segments=[{"speaker": "A", "start_ms": 0, "end_ms": 1, "text": "hi"}])
    event = services.calendar_event_create(owner=user, title="review", starts_at=T0, ends_at=T0 + timedelta(hours=1))
    episode = _episode(user, summary=LONG, transcript=transcript, calendar_event=event)
    return episode, transcript, event


@pytest.mark.parametrize("linked", ["transcript", "calendar"])
def test_a_linked_transcript_or_event_deleted_between_pages_is_source_changed(user, linked):  # SPEC R-10
    episode, transcript, event = _linked_episode(user)
    acc, ref = _access(user), f"episode:{episode.pk}"
    first = _first_page(acc, ref)  # /transcript and /calendar come after /summary: not sent yet
    services.resource_delete(instance=transcript if linked == "transcript" else event)
    _assert_source_changed(acc, ref, first)


def test_a_linked_transcript_hard_deleted_between_pages_is_source_changed(user):  # SPEC R-10
    episode, transcript, _ = _linked_episode(user)
    acc, ref = _access(user), f"episode:{episode.pk}"
    first = _first_page(acc, ref)
    # ``on_delete=SET_NULL`` rewrites the episode's column without touching its updated_at.
    Transcript.objects.filter(pk=transcript.pk).delete()
    _assert_source_changed(acc, ref, first)


# --- todo /episodes ------------------------------------------------------------------------------------

def test_a_todo_whose_episode_is_deleted_between_pages_is_source_changed(user):  # SPEC R-10
    todo = services.todo_create(owner=user, title="follow up", notes=LONG)
    episodes = [_episode(user, todos=[todo]) for _ in range(3)]
    acc, ref = _access(user), f"todo:{todo.pk}"
    first = _first_page(acc, ref)  # /episodes comes after /notes
    services.resource_delete(instance=episodes[0])
    _assert_source_changed(acc, ref, first)


def test_a_todo_linked_to_a_new_episode_between_pages_is_source_changed(user):  # SPEC R-10
    todo = services.todo_create(owner=user, title="follow up", notes=LONG)
    _episode(user, todos=[todo])
    acc, ref = _access(user), f"todo:{todo.pk}"
    first = _first_page(acc, ref)
    _episode(user, todos=[todo])
    _assert_source_changed(acc, ref, first)


# --- digest /episodes ----------------------------------------------------------------------------------

def _digest(user, episodes):
    return services.digest_create(owner=user, period="week", period_start=date(2026, 6, 1),
                                  period_end=date(2026, 6, 7), summary=LONG, episodes=episodes)


def test_a_digest_whose_episode_is_deleted_between_pages_is_source_changed(user):  # SPEC R-10
    episodes = [_episode(user) for _ in range(3)]
    digest = _digest(user, episodes)
    acc, ref = _access(user), f"digest:{digest.pk}"
    first = _first_page(acc, ref)
    services.resource_delete(instance=episodes[1])
    _assert_source_changed(acc, ref, first)


def test_a_digest_linked_to_another_episode_between_pages_is_source_changed(user):  # SPEC R-10
    episodes = [_episode(user) for _ in range(3)]
    digest = _digest(user, episodes[:2])
    acc, ref = _access(user), f"digest:{digest.pk}"
    first = _first_page(acc, ref)
    digest.episodes.add(episodes[2])
    _assert_source_changed(acc, ref, first)


# --- what must keep working ----------------------------------------------------------------------------

def test_an_untouched_record_still_pages_to_complete(user):  # SPEC
    todos = _todos(user, 400)
    episode = _episode(user, todos=todos)
    unrelated = services.todo_create(owner=user, title="not linked")
    acc, ref = _access(user), f"episode:{episode.pk}"
    pages = [_first_page(acc, ref)]
    services.todo_update(todo=unrelated, title="changed, but not linked to the episode")
    while pages[-1]["next_cursor"]:
        pages.append(call(acc, "read", ref=ref, cursor=pages[-1]["next_cursor"]))
    assert len(pages) > 3 and pages[-1]["complete"] is True
    doc = reassemble([f for page in pages for f in page["fragments"]])
    assert doc["todos"] == [f"todo:{t.pk}" for t in todos]
    # The same record read whole (64 KiB pages) is the same document.
    whole, _ = read_all(_access(user, 65_536), ref)
    assert whole == doc


def test_a_changed_link_read_again_from_the_start_is_the_new_state(user):  # SPEC R-10
    todos = _todos(user, 400)
    episode = _episode(user, todos=todos)
    acc, ref = _access(user), f"episode:{episode.pk}"
    first = _first_page(acc, ref)
    services.resource_delete(instance=todos[0])
    _assert_source_changed(acc, ref, first)
    doc, pages = read_all(acc, ref)
    assert pages[-1]["complete"] is True
    assert doc["todos"] == [f"todo:{t.pk}" for t in todos[1:]]


def test_statements_per_page_of_a_linked_record_stay_constant(user):  # SPEC
    episode = _episode(user, todos=_todos(user, 400))
    acc, ref = _access(user), f"episode:{episode.pk}"
    body, counts = {"ref": ref}, []
    while True:
        with CaptureQueriesContext(connection) as captured:
            page = call(acc, "read", **body)
        counts.append(len(captured))
        if not page["next_cursor"]:
            break
        body = {"ref": ref, "cursor": page["next_cursor"]}
    # The episode with its transcript and event (one statement), its todos (one): the version is computed
    # from those very rows, with no statement of its own.
    assert len(counts) > 3 and set(counts) == {2}, counts


def test_mcp_memory_read_pages_refuse_a_changed_link(user):  # SPEC R-10, M-6, M-8
    from apps.common.errors import VERSION_CONFLICT
    from apps.mcp_server.errors import ToolError
    from apps.mcp_server.tools.memory import memory_read

    todos = _todos(user, 400)
    episode = _episode(user, todos=todos, summary=LONG * 2)  # more than one 16 KiB page before /todos
    grant = SimpleNamespace(connection=SimpleNamespace(pk=1, user_id=user.pk), scopes={"memory:episode:read"})
    ref = f"episode:{episode.pk}"
    first = memory_read(grant, {"ref": ref}).payload
    assert first["complete"] is False and first["next_cursor"]
    services.resource_delete(instance=todos[0])
    with pytest.raises(ToolError) as refused:
        memory_read(grant, {"ref": ref, "cursor": first["next_cursor"]})
    assert refused.value.code == VERSION_CONFLICT
    # Unchanged since: paging from the start completes over 16 KiB pages.
    pages = [memory_read(grant, {"ref": ref}).payload]
    while pages[-1]["next_cursor"]:
        pages.append(memory_read(grant, {"ref": ref, "cursor": pages[-1]["next_cursor"]}).payload)
    assert pages[-1]["complete"] is True
    assert reassemble([f for p in pages for f in p["fragments"]])["todos"] == [f"todo:{t.pk}" for t in todos[1:]]
