"""``contact``: a person, the names they go by, how they relate to the owner."""

from apps.memory.models import Contact
from apps.retrieval.layer.adapters import ModelAdapter
from apps.retrieval.layer.declarations import ALL_FIELDS, Declaration, Field, Filter
from apps.retrieval.layer.registry import registry
from apps.retrieval.layer.resources._common import TIMESTAMPS, UPDATED_FILTERS

DECLARATION = Declaration(
    type="contact",
    description="A person: display name, aliases, relation, notes.",
    fields=(
        Field("/display_name", "string", searchable=True, name=True),
        Field("/aliases", "array"),
        Field("/aliases/*", "string", searchable=True, name=True),
        Field("/relation", "string", searchable=True),
        Field("/notes", "text", searchable=True),
        *TIMESTAMPS,
    ),
    filters=(
        Filter("relation", "string", field="/relation", lookup="relation"),
        *UPDATED_FILTERS,
    ),
    readable={
        "internal": ALL_FIELDS,
        "external": ("/display_name", "/aliases", "/relation", "/created_at", "/updated_at"),
    },
    title="/display_name",
    order="/created_at",
    rank_weight=0.05,
)


class ContactAdapter(ModelAdapter):
    model = Contact


registry.register(DECLARATION, ContactAdapter())
