"""The searchable fields of each resource type (SPEC R-1, R-6).

Also SPEC C-8, S-1. Design notes: docs/design.md.
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
