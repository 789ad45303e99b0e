"""``voice_memo``: a note the owner spoke, as text."""

from apps.memory.models import VoiceMemo
from apps.retrieval.layer.adapters import ModelAdapter
from apps.retrieval.layer.declarations import ALL_FIELDS, Declaration, Field, Filter
from apps.retrieval.layer.registry import registry
from apps.retrieval.layer.resources._common import TIMESTAMPS, UPDATED_FILTERS

DECLARATION = Declaration(
    type="voice_memo",
    description="A spoken note: title, text, when it was recorded.",
    fields=(
        Field("/title", "string", searchable=True),
        Field("/text", "text", searchable=True),
        Field("/recorded_at", "timestamp"),
        Field("/duration_seconds", "integer"),
        *TIMESTAMPS,
    ),
    filters=(
        Filter("recorded_after", "timestamp", field="/recorded_at", lookup="recorded_at__gte"),
        Filter("recorded_before", "timestamp", field="/recorded_at", lookup="recorded_at__lt"),
        *UPDATED_FILTERS,
    ),
    readable={"internal": ALL_FIELDS, "external": ALL_FIELDS},
    title="/title",
    order="/recorded_at",
    rank_weight=0.05,
)


class VoiceMemoAdapter(ModelAdapter):
    model = VoiceMemo


registry.register(DECLARATION, VoiceMemoAdapter())
