"""The searchable fields of each resource type (SPEC R-1, R-6).

Also SPEC C-8, S-1. Design notes: docs/design.md.
"""

from __future__ import annotations

from apps.memory.models import Fact
from apps.retrieval.indexing import IndexedType, SearchableField, register

USER_PROFILE = "user_profile"
# A label names the fact, so a hit there counts twice a hit in the value.
_FACT_FIELDS = (SearchableField("/label", weight=2.0), SearchableField("/value", weight=1.0))
USER_PROFILE_FIELDS = tuple(field.path for field in _FACT_FIELDS)

register(
    IndexedType(
        resource_type=USER_PROFILE,
        model=Fact,
        fields=_FACT_FIELDS,
    )
)
