"""``digest``: a summary of a day, week or month, with the episodes it covers."""

from apps.memory.models import Digest
from apps.retrieval.layer.adapters import ModelAdapter
from apps.retrieval.layer.declarations import ALL_FIELDS, Declaration, Field, Filter
from apps.retrieval.layer.registry import registry
from apps.retrieval.layer.resources._common import TIMESTAMPS, UPDATED_FILTERS, ref_list

PERIODS = ("day", "week", "month")

DECLARATION = Declaration(
    type="digest",
    description="A summary of a period (day, week, month) and the episodes it covers.",
    fields=(
        Field("/period", "enum", choices=PERIODS),
        Field("/period_start", "date"),
        Field("/period_end", "date"),
        Field("/summary", "text", searchable=True),
        Field("/episodes", "array"),
        Field("/episodes/*", "ref"),
        *TIMESTAMPS,
    ),
    filters=(
        Filter("period", "enum", field="/period", lookup="period", choices=PERIODS),
        Filter("starts_on_or_after", "date", field="/period_start", lookup="period_start__gte"),
        Filter("ends_on_or_before", "date", field="/period_end", lookup="period_end__lte"),
        *UPDATED_FILTERS,
    ),
    readable={"internal": ALL_FIELDS},  # never external (SPEC R-11)
    title=None,
    order="/created_at",
    rank_weight=0.03,
)


class DigestAdapter(ModelAdapter):
    model = Digest
    prefetch_related = ("episodes",)

    def field_episodes(self, digest):
        return ref_list("episode", digest.episodes.all())


registry.register(DECLARATION, DigestAdapter())
