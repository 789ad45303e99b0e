"""The nine memory resources (SPEC D-6). ``Fact`` is the ``user_profile`` resource."""

from apps.memory.models.facts import Category, Certainty, Fact, FactStatus
from apps.memory.models.resources import (
    CalendarEvent,
    Contact,
    Digest,
    Episode,
    Intent,
    Todo,
    Transcript,
    VoiceMemo,
)

__all__ = [
    "CalendarEvent",
    "Category",
    "Certainty",
    "Contact",
    "Digest",
    "Episode",
    "Fact",
    "FactStatus",
    "Intent",
    "Todo",
    "Transcript",
    "VoiceMemo",
]
