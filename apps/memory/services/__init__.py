"""Every write to a memory resource goes through these functions."""

from apps.memory.services.facts import (
    FactArchived,
    FactVersionConflict,
    fact_archive,
    fact_create,
    fact_restore,
    fact_update,
)
from apps.memory.services.resources import (
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

__all__ = [
    "FactArchived",
    "FactVersionConflict",
    "calendar_event_create",
    "contact_create",
    "digest_create",
    "episode_create",
    "fact_archive",
    "fact_create",
    "fact_restore",
    "fact_update",
    "intent_create",
    "resource_delete",
    "todo_create",
    "todo_update",
    "transcript_create",
    "voice_memo_create",
]
