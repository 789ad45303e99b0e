"""Writes for the eight non-fact resources (SPEC D-6)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from django.db import models, transaction

from apps.common import clock
from apps.memory import storage
from apps.memory.models import CalendarEvent, Contact, Digest, Episode, Intent, Todo, Transcript, VoiceMemo
from apps.memory.models.resources import OwnedResource
from apps.memory.projection import record_written

if TYPE_CHECKING:
    from apps.accounts.models import User

M = TypeVar("M", bound=models.Model)


def _create(model: type[M], *, owner: User, **fields: Any) -> M:
    now = clock.now()
    instance = model(owner=owner, created_at=now, updated_at=now, **fields)
    instance.full_clean(exclude=["owner"], validate_constraints=False)
    instance.save()
    return instance


def _written(instance: M) -> M:
    record_written(instance)
    return instance


@transaction.atomic
def todo_create(
    *, owner: User, title: str, notes: str = "", due_at: datetime | None = None, status: str = "open",
) -> Todo:
    return _written(_create(Todo, owner=owner, title=title, notes=notes, due_at=due_at, status=status))


@transaction.atomic
def todo_update(*, todo: Todo, **changes: Any) -> Todo:
    locked = Todo.objects.select_for_update().get(pk=todo.pk)
    for name, value in changes.items():
        if name not in {"title", "notes", "status", "due_at"}:
            raise ValueError(f"todo field {name!r} cannot be edited")
        setattr(locked, name, value)
    if changes.get("status") == Todo.Status.DONE and locked.completed_at is None:
        locked.completed_at = clock.now()
    locked.updated_at = clock.now()
    locked.full_clean(exclude=["owner"], validate_constraints=False)
    locked.save()
    return _written(locked)


@transaction.atomic
def calendar_event_create(
    *, owner: User, title: str, starts_at: datetime, ends_at: datetime, status: str = "confirmed",
    location: str = "", notes: str = "", reminders: list[int] | None = None,
) -> CalendarEvent:
    return _written(_create(
        CalendarEvent, owner=owner, title=title, starts_at=starts_at, ends_at=ends_at, status=status,
        location=location, notes=notes, reminders=list(reminders or []),
    ))


@transaction.atomic
def contact_create(
    *, owner: User, display_name: str, aliases: list[str] | None = None, relation: str = "", notes: str = "",
) -> Contact:
    return _written(_create(Contact, owner=owner, display_name=display_name, aliases=list(aliases or []),
                            relation=relation, notes=notes))


@transaction.atomic
def voice_memo_create(
    *, owner: User, title: str, text: str, recorded_at: datetime, duration_seconds: int = 0,
) -> VoiceMemo:
    return _written(_create(VoiceMemo, owner=owner, title=title, text=text, recorded_at=recorded_at,
                            duration_seconds=duration_seconds))


def transcript_create(
    *, owner: User, title: str, segments: list[dict[str, Any]], recorded_at: datetime, language: str = "zh-hans",
) -> Transcript:
    """Store the whole body in object storage, then its metadata row (the object is removed if the row fails).

    ``segments`` are ``{"speaker", "start_ms", "end_ms", "text"}``; nothing is cut.
    """
    body = json.dumps({"segments": segments}, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    path, size, digest = storage.body_store(owner_id=owner.pk, data=body)
    try:
        with transaction.atomic():
            return _written(_create(
                Transcript, owner=owner, title=title, language=language, recorded_at=recorded_at,
                duration_seconds=max((s.get("end_ms", 0) for s in segments), default=0) // 1000,
                speakers=sorted({s["speaker"] for s in segments}), segment_count=len(segments),
                body_path=path, body_bytes=size, body_sha256=digest,
            ))
    except BaseException:
        storage.body_delete(path=path)
        raise


def transcript_segments(transcript: Transcript) -> list[dict[str, Any]]:
    """The stored segments, whole. Raises ``TranscriptBodyMissing`` if the object is gone."""
    data = storage.body_read(path=transcript.body_path, sha256=transcript.body_sha256)
    segments: list[dict[str, Any]] = json.loads(data)["segments"]
    return segments


@transaction.atomic
def episode_create(
    *, owner: User, title: str, occurred_at: datetime, summary: str = "", topics: list[str] | None = None,
    participants: list[dict[str, Any]] | None = None, transcript: Transcript | None = None,
    calendar_event: CalendarEvent | None = None, todos: Sequence[Todo] = (),
) -> Episode:
    for linked in (transcript, calendar_event, *todos):
        if linked is not None and linked.owner_id != owner.pk:
            raise ValueError("an episode can only link its owner's records")
    episode = _create(
        Episode, owner=owner, title=title, occurred_at=occurred_at, summary=summary, topics=list(topics or []),
        participants=list(participants or []), transcript=transcript, calendar_event=calendar_event,
    )
    episode.todos.set(todos)
    return _written(episode)


@transaction.atomic
def digest_create(
    *, owner: User, period: str, period_start: date, period_end: date, summary: str, episodes: Sequence[Episode] = (),
) -> Digest:
    if any(e.owner_id != owner.pk for e in episodes):
        raise ValueError("a digest can only link its owner's episodes")
    digest = _create(
        Digest, owner=owner, period=period, period_start=period_start, period_end=period_end, summary=summary
    )
    digest.episodes.set(episodes)
    return _written(digest)


@transaction.atomic
def intent_create(
    *, owner: User, action: str, target_ref: str = "", payload: dict[str, Any] | None = None, status: str = "proposed",
) -> Intent:
    return _written(_create(Intent, owner=owner, action=action, target_ref=target_ref, payload=dict(payload or {}),
                            status=status))


@transaction.atomic
def resource_delete(*, instance: OwnedResource) -> OwnedResource:
    """Soft-delete a non-fact resource: search re-checks ``deleted_at`` before answering (SPEC R-6)."""
    instance.deleted_at = instance.updated_at = clock.now()
    instance.save(update_fields=["deleted_at", "updated_at"])
    return _written(instance)
