"""Fields and filters several built-in types share."""

from __future__ import annotations

from apps.retrieval.layer.declarations import Field, Filter

TIMESTAMPS = (
    Field("/created_at", "timestamp", description="when the record was created"),
    Field("/updated_at", "timestamp", description="when the record last changed"),
)
UPDATED_FILTERS = (
    Filter("updated_after", "timestamp", field="/updated_at", lookup="updated_at__gte",
           description="changed at or after this instant"),
    Filter("updated_before", "timestamp", field="/updated_at", lookup="updated_at__lt",
           description="last changed before this instant"),
)


def ref_list(resource_type: str, records) -> list[str]:
    """Refs of the current (not deleted) linked records, in id order."""
    return [f"{resource_type}:{r.pk}" for r in sorted(records, key=lambda r: r.pk) if r.deleted_at is None]


def ref_or_none(resource_type: str, record) -> str | None:
    return f"{resource_type}:{record.pk}" if record is not None and record.deleted_at is None else None
