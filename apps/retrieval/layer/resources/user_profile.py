"""``user_profile``: the owner's facts (SPEC D-1). Archived facts are not current."""

import hashlib

from apps.memory.models import Category, Certainty, Fact, FactStatus
from apps.retrieval.layer.adapters import ModelAdapter
from apps.retrieval.layer.declarations import ALL_FIELDS, Declaration, Field, Filter
from apps.retrieval.layer.registry import registry
from apps.retrieval.layer.resources._common import TIMESTAMPS, UPDATED_FILTERS

CATEGORIES = tuple(Category.values)
CERTAINTIES = tuple(Certainty.values)

DECLARATION = Declaration(
    type="user_profile",
    description="Long-term facts about the owner: preferences, habits, goals, work, health, relationships.",
    fields=(
        Field("/category", "enum", choices=CATEGORIES),
        Field("/label", "string", searchable=True),
        Field("/value", "string", searchable=True),
        Field("/evidence", "string", description="where the fact came from; never searchable"),
        Field("/certainty", "enum", choices=CERTAINTIES),
        Field("/sensitive", "boolean"),
        Field("/version", "integer"),
        *TIMESTAMPS,
    ),
    filters=(
        Filter("category", "enum", field="/category", lookup="category", choices=CATEGORIES),
        Filter("certainty", "enum", field="/certainty", lookup="certainty", choices=CERTAINTIES),
        Filter("sensitive", "boolean", field="/sensitive", lookup="sensitive"),
        *UPDATED_FILTERS,
    ),
    readable={"internal": ALL_FIELDS},  # never external through this layer (SPEC R-11)
    title="/label",
    order="/created_at",
    rank_weight=0.05,
)


class UserProfileAdapter(ModelAdapter):
    model = Fact

    def current(self, queryset):
        return queryset.filter(status=FactStatus.ACTIVE)

    def is_current(self, fact) -> bool:
        return fact.status == FactStatus.ACTIVE

    def source_version(self, fact) -> str:
        stamp = f"{fact.pk}|{fact.version}|{fact.updated_at.isoformat()}|{fact.status}"
        return hashlib.sha256(stamp.encode()).hexdigest()[:32]


registry.register(DECLARATION, UserProfileAdapter())
