"""``todo``: a task and its current status."""

from apps.memory.models import Todo
from apps.retrieval.layer.adapters import ModelAdapter
from apps.retrieval.layer.declarations import ALL_FIELDS, Declaration, Field, Filter
from apps.retrieval.layer.registry import registry
from apps.retrieval.layer.resources._common import TIMESTAMPS, UPDATED_FILTERS, ref_list

STATUSES = ("open", "done", "cancelled")

DECLARATION = Declaration(
    type="todo",
    description="A task: title, notes, current status, due date, the episodes it came from.",
    fields=(
        Field("/title", "string", searchable=True),
        Field("/notes", "text", searchable=True),
        Field("/status", "enum", choices=STATUSES),
        Field("/due_at", "timestamp"),
        Field("/completed_at", "timestamp"),
        Field("/episodes", "array"),
        Field("/episodes/*", "ref", description="episode:<id> this task came out of"),
        *TIMESTAMPS,
    ),
    filters=(
        Filter("status", "enum", field="/status", lookup="status", choices=STATUSES),
        Filter("due_after", "timestamp", field="/due_at", lookup="due_at__gte"),
        Filter("due_before", "timestamp", field="/due_at", lookup="due_at__lt"),
        *UPDATED_FILTERS,
    ),
    readable={
        "internal": ALL_FIELDS,
        "external": ("/title", "/status", "/due_at", "/completed_at", "/episodes", "/created_at", "/updated_at"),
    },
    title="/title",
    order="/created_at",
    rank_weight=0.08,
)


class TodoAdapter(ModelAdapter):
    model = Todo
    prefetch_related = ("episodes",)

    def field_episodes(self, todo):
        return ref_list("episode", todo.episodes.all())

    def status_boost(self, todo) -> float:
        # SPEC R-8: open todos up.
        return {"open": 0.3, "done": -0.1, "cancelled": -0.3}.get(todo.status, 0.0)


registry.register(DECLARATION, TodoAdapter())
