"""The searchable fields of each resource type (SPEC R-1, R-6).

Only what is declared here ever reaches the projection. Facts are the
``user_profile`` resource: their label and value are searchable; evidence is
never indexed, so it can never decide a match (SPEC C-8, S-1).

The other eight types are added here, one ``register`` each, by the unified
list/search/read layer; a soft-deleted record drops out of the projection via
``is_indexed``.
"""

from __future__ import annotations

from apps.memory.models import Fact
from apps.retrieval.indexing import IndexedType, SearchableField, register

USER_PROFILE = "user_profile"

register(
    IndexedType(
        resource_type=USER_PROFILE,
        model=Fact,
        # A label names the fact, so a hit there counts twice a hit in the value.
        fields=(SearchableField("/label", weight=2.0), SearchableField("/value", weight=1.0)),
    )
)
