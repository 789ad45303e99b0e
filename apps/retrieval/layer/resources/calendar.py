"""``calendar``: an event with its time, status and reminders."""

from apps.memory.models import CalendarEvent
from apps.retrieval.layer.adapters import ModelAdapter
from apps.retrieval.layer.declarations import ALL_FIELDS, Declaration, Field, Filter
from apps.retrieval.layer.registry import registry
from apps.retrieval.layer.resources._common import TIMESTAMPS, UPDATED_FILTERS

STATUSES = ("confirmed", "tentative", "cancelled")

DECLARATION = Declaration(
    type="calendar",
    description="A calendar event: title, start and end, status, place, reminders.",
    fields=(
        Field("/title", "string", searchable=True),
        Field("/starts_at", "timestamp"),
        Field("/ends_at", "timestamp"),
        Field("/status", "enum", choices=STATUSES),
        Field("/location", "string", searchable=True, name=True),
        Field("/notes", "text", searchable=True),
        Field("/reminders", "array"),
        Field("/reminders/*", "integer", description="minutes before the start"),
        *TIMESTAMPS,
    ),
    filters=(
        Filter("starts_after", "timestamp", field="/starts_at", lookup="starts_at__gte"),
        Filter("starts_before", "timestamp", field="/starts_at", lookup="starts_at__lt"),
        Filter("status", "enum", field="/status", lookup="status", choices=STATUSES),
        *UPDATED_FILTERS,
    ),
    readable={
        "internal": ALL_FIELDS,
        "external": ("/title", "/starts_at", "/ends_at", "/status", "/location", "/reminders",
                     "/created_at", "/updated_at"),
    },
    title="/title",
    order="/starts_at",
    rank_weight=0.06,
)


class CalendarAdapter(ModelAdapter):
    model = CalendarEvent

    def status_boost(self, event) -> float:
        return -0.2 if event.status == CalendarEvent.Status.CANCELLED else 0.0


registry.register(DECLARATION, CalendarAdapter())
