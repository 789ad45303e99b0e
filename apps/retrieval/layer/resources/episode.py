"""``episode``: a meeting or conversation, what was decided and who was there."""

import re

from apps.memory.models import Episode
from apps.retrieval.layer.adapters import ModelAdapter
from apps.retrieval.layer.declarations import ALL_FIELDS, Declaration, Field, Filter
from apps.retrieval.layer.registry import registry
from apps.retrieval.layer.resources._common import TIMESTAMPS, UPDATED_FILTERS, ref_list, ref_or_none

DECLARATION = Declaration(
    type="episode",
    description="A meeting or conversation: summary, topics, participants, linked transcript, event and todos.",
    fields=(
        Field("/title", "string", searchable=True),
        Field("/summary", "text", searchable=True, description="what happened and what was decided"),
        Field("/topics", "array"),
        Field("/topics/*", "string", searchable=True),
        Field("/participants", "array"),
        Field("/participants/*", "object"),
        Field("/participants/*/display_name", "string", searchable=True, name=True),
        Field("/participants/*/role", "string"),
        Field("/participants/*/contact", "ref", description="contact:<id> when the participant is a contact"),
        Field("/occurred_at", "timestamp"),
        Field("/transcript", "ref", description="transcript:<id> of the recording, if any"),
        Field("/calendar", "ref", description="calendar:<id> of the event, if any"),
        Field("/todos", "array"),
        Field("/todos/*", "ref", description="todo:<id> that came out of it"),
        *TIMESTAMPS,
    ),
    filters=(
        Filter("occurred_after", "timestamp", field="/occurred_at", lookup="occurred_at__gte"),
        Filter("occurred_before", "timestamp", field="/occurred_at", lookup="occurred_at__lt"),
        *UPDATED_FILTERS,
    ),
    readable={
        "internal": ALL_FIELDS,
        # Transcripts are never published externally (SPEC R-11), so neither is the link to one.
        "external": ("/title", "/summary", "/topics", "/participants", "/occurred_at", "/calendar", "/todos",
                     "/created_at", "/updated_at"),
    },
    title="/title",
    order="/occurred_at",
    rank_weight=0.10,
)


def _contact_ref(person: dict) -> str | None:
    """Participants link a contact as ``"contact": "contact:<id>"`` (or ``"contact_id": <id>``)."""
    ref = person.get("contact")
    if isinstance(ref, str) and re.fullmatch(r"contact:[1-9][0-9]*", ref):
        return ref
    pk = person.get("contact_id")
    return f"contact:{pk}" if isinstance(pk, int) and not isinstance(pk, bool) and pk > 0 else None


class EpisodeAdapter(ModelAdapter):
    model = Episode
    select_related = ("transcript", "calendar_event")
    prefetch_related = ("todos",)

    def field_participants(self, episode):
        people = []
        for person in episode.participants:
            person = person if isinstance(person, dict) else {"display_name": str(person)}
            people.append({
                "display_name": person.get("display_name", ""),
                "role": person.get("role", ""),
                "contact": _contact_ref(person),
            })
        return people

    def field_transcript(self, episode):
        return ref_or_none("transcript", episode.transcript)

    def field_calendar(self, episode):
        return ref_or_none("calendar", episode.calendar_event)

    def field_todos(self, episode):
        return ref_list("todo", episode.todos.all())


registry.register(DECLARATION, EpisodeAdapter())
