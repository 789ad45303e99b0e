"""Writes of the eight non-fact resources (SPEC D-6)."""

from datetime import UTC, date, datetime, timedelta

import pytest
from django.core.exceptions import ValidationError

from apps.memory.models import CalendarEvent, Contact, Digest, Episode, Todo, VoiceMemo
from apps.memory.services import (
    calendar_event_create,
    contact_create,
    digest_create,
    episode_create,
    intent_create,
    resource_delete,
    todo_create,
    todo_update,
    transcript_create,
    voice_memo_create,
)

pytestmark = pytest.mark.django_db

WHEN = datetime(2026, 5, 25, 2, 0, tzinfo=UTC)


def transcript_of(owner):
    return transcript_create(owner=owner, title="录音", recorded_at=WHEN,
                             segments=[{"speaker": "A", "start_ms": 0, "end_ms": 1000, "text": "你好"}])


def event_of(owner):
    return calendar_event_create(owner=owner, title="Sync", starts_at=WHEN, ends_at=WHEN + timedelta(hours=1))


# SPEC D-6: an episode links its transcript, calendar event and todos.
def test_episode_links_its_records(user):
    transcript, event = transcript_of(user), event_of(user)
    todos = [todo_create(owner=user, title="写纪要"), todo_create(owner=user, title="Send proposal")]
    episode = episode_create(owner=user, title="周会", occurred_at=WHEN, transcript=transcript,
                             calendar_event=event, todos=todos, topics=["定价"],
                             participants=[{"display_name": "王小明"}])
    episode.refresh_from_db()
    assert (episode.transcript, episode.calendar_event) == (transcript, event)
    assert set(episode.todos.all()) == set(todos)
    assert episode.participants == [{"display_name": "王小明"}]


# SPEC D-6: an episode may link only its owner's records; nothing is written otherwise.
@pytest.mark.parametrize("foreign", ["transcript", "calendar_event", "todos"])
def test_episode_refuses_another_owners_record(user, other_user, foreign):
    links = {"transcript": transcript_of(other_user), "calendar_event": event_of(other_user),
             "todos": [todo_create(owner=other_user, title="bob's")]}
    with pytest.raises(ValueError):
        episode_create(owner=user, title="周会", occurred_at=WHEN, **{foreign: links[foreign]})
    assert not Episode.objects.exists()


# SPEC D-6: a digest links only its owner's episodes.
def test_digest_refuses_another_owners_episode(user, other_user):
    theirs = episode_create(owner=other_user, title="Bob's meeting", occurred_at=WHEN)
    with pytest.raises(ValueError):
        digest_create(owner=user, period="week", period_start=date(2026, 5, 25), period_end=date(2026, 5, 31),
                      summary="本周", episodes=[theirs])
    assert not Digest.objects.exists()
    mine = episode_create(owner=user, title="我的会", occurred_at=WHEN)
    digest = digest_create(owner=user, period="week", period_start=date(2026, 5, 25), period_end=date(2026, 5, 31),
                           summary="本周", episodes=[mine])
    assert list(digest.episodes.all()) == [mine]


# SPEC D-6: marking a todo done records when, once.
def test_todo_done_sets_completed_at(user, frozen_clock):
    todo = todo_create(owner=user, title="预约牙医")
    assert todo.completed_at is None
    done = todo_update(todo=todo, status="done")
    assert done.completed_at == frozen_clock.now()
    frozen_clock.advance(timedelta(hours=2))
    renamed = todo_update(todo=done, title="预约牙医复诊")
    assert renamed.completed_at == done.completed_at
    assert renamed.updated_at == frozen_clock.now()
    assert Todo.objects.get(pk=todo.pk).completed_at == done.completed_at


# SPEC D-6: a todo's status and fields are validated, and only the editable ones change.
def test_todo_update_refuses_bad_changes(user):
    todo = todo_create(owner=user, title="Buy shoes")
    with pytest.raises(ValueError):
        todo_update(todo=todo, owner=user)
    with pytest.raises(ValidationError):
        todo_update(todo=todo, status="finished")
    assert Todo.objects.get(pk=todo.pk).status == "open"


# SPEC R-6: deletion is soft — the row stays, marked, so search can re-check it.
@pytest.mark.parametrize("make", [
    lambda u: todo_create(owner=u, title="t"),
    lambda u: contact_create(owner=u, display_name="王小明", aliases=["小明"]),
    lambda u: voice_memo_create(owner=u, title="memo", text="文字", recorded_at=WHEN),
    lambda u: intent_create(owner=u, action="Move the deadline", target_ref="todo:1"),
    event_of,
    transcript_of,
], ids=["todo", "contact", "voice_memo", "intent", "calendar", "transcript"])
def test_soft_delete(user, frozen_clock, make):
    record = make(user)
    frozen_clock.advance(timedelta(minutes=5))
    resource_delete(instance=record)
    stored = type(record).objects.get(pk=record.pk)
    assert stored.deleted_at == stored.updated_at == frozen_clock.now()
    assert stored.created_at < stored.deleted_at


# SPEC D-6: the database and the services refuse impossible records.
def test_calendar_event_must_end_after_it_starts(user):
    with pytest.raises(ValidationError):
        calendar_event_create(owner=user, title="Backwards", starts_at=WHEN, ends_at=WHEN - timedelta(minutes=1))
    assert not CalendarEvent.objects.exists()


# SPEC D-6: originals are stored whole — no layer truncates stored text.
def test_records_keep_their_text_whole(user):
    long_text = "语音备忘录的内容。Voice memo text. " * 2000
    memo = voice_memo_create(owner=user, title="长备忘", text=long_text, recorded_at=WHEN)
    contact = contact_create(owner=user, display_name="Emily Chen", aliases=["Em", "陈艾米"], notes=long_text)
    assert VoiceMemo.objects.get(pk=memo.pk).text == long_text
    assert Contact.objects.get(pk=contact.pk).notes == long_text
    assert Contact.objects.get(pk=contact.pk).aliases == ["Em", "陈艾米"]
