"""``intent``: an action the product proposes, waiting for a decision."""

from apps.memory.models import Intent
from apps.retrieval.layer.adapters import ModelAdapter
from apps.retrieval.layer.declarations import ALL_FIELDS, Declaration, Field, Filter
from apps.retrieval.layer.registry import registry
from apps.retrieval.layer.resources._common import TIMESTAMPS, UPDATED_FILTERS

STATUSES = ("proposed", "accepted", "rejected", "done")

DECLARATION = Declaration(
    type="intent",
    description="A proposed action on a resource and whether it was decided; proposing is not doing.",
    fields=(
        Field("/action", "string", searchable=True),
        Field("/target", "ref", description="the resource the action is about"),
        Field("/payload", "json", description="the action's details, as proposed"),
        Field("/status", "enum", choices=STATUSES),
        *TIMESTAMPS,
    ),
    filters=(
        Filter("status", "enum", field="/status", lookup="status", choices=STATUSES),
        *UPDATED_FILTERS,
    ),
    readable={"internal": ALL_FIELDS},  # never external (SPEC R-11)
    title="/action",
    order="/created_at",
    rank_weight=0.02,
)


class IntentAdapter(ModelAdapter):
    model = Intent

    def field_target(self, intent):
        return intent.target_ref or None

    def status_boost(self, intent) -> float:
        return {"proposed": 0.1, "rejected": -0.2}.get(intent.status, 0.0)


registry.register(DECLARATION, IntentAdapter())
