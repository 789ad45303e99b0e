"""Writes to the search projection (SPEC R-6): on every memory write, and the repair/backfill rebuild."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import models, transaction

from apps.common import clock
from apps.retrieval.backends import get_search_backend
from apps.retrieval.indexing import IndexedType, indexed_type_for, indexed_types
from apps.retrieval.models import SearchProjection

REBUILD_CHUNK = 500


@dataclass
class Drift:
    """How far the projection of one resource type was from its source records."""

    records: int = 0
    rows: int = 0
    missing: int = 0  # a searchable field with text but no row
    stale: int = 0  # a row whose text or owner differs from the record
    orphaned: int = 0  # a row for a record, field or type that is gone or no longer searchable

    @property
    def total(self) -> int:
        return self.missing + self.stale + self.orphaned


@dataclass
class RebuildReport:
    types: dict[str, Drift] = field(default_factory=dict)
    index_problems: list[str] = field(default_factory=list)
    applied: bool = False

    @property
    def drift(self) -> int:
        return sum(d.total for d in self.types.values()) + len(self.index_problems)


def _sync(indexed: IndexedType, records: list[models.Model], drift: Drift, *, apply: bool) -> None:
    """Make the rows of ``records`` match their declared searchable text, counting what differed."""
    wanted = {obj.pk: (getattr(obj, indexed.owner_attr), indexed.rows(obj)) for obj in records}
    existing = {
        (row.record_id, row.field): row
        for row in SearchProjection.objects.filter(resource_type=indexed.resource_type, record_id__in=wanted)
    }
    now = clock.now()
    create, update = [], []
    for record_id, (owner_id, texts) in wanted.items():
        drift.records += 1
        drift.rows += len(texts)
        for path, text in texts.items():
            row = existing.pop((record_id, path), None)
            if row is None:
                drift.missing += 1
                create.append(SearchProjection(resource_type=indexed.resource_type, record_id=record_id,
                                               owner_id=owner_id, field=path, text=text, updated_at=now))
            elif row.text != text or row.owner_id != owner_id:
                drift.stale += 1
                row.text, row.owner_id, row.updated_at = text, owner_id, now
                update.append(row)
    drift.orphaned += len(existing)
    if not apply:
        return
    if existing:
        SearchProjection.objects.filter(pk__in=[row.pk for row in existing.values()]).delete()
    for row in update:
        row.save(update_fields=["text", "owner", "updated_at"])
    if create:
        SearchProjection.objects.bulk_create(create)


@transaction.atomic
def projection_write(*, instance: models.Model) -> None:
    """Re-index one record. Runs inside the record's own write transaction (SPEC R-6).

    Subscribed to ``apps.memory.projection`` by ``RetrievalConfig.ready``, so a
    rolled-back write leaves no projection row behind.
    """
    indexed = indexed_type_for(type(instance))
    if indexed is not None:
        _sync(indexed, [instance], Drift(), apply=True)


@transaction.atomic
def projection_forget(*, instance: models.Model) -> None:
    """Drop a hard-deleted record's rows, in the deleting transaction."""
    indexed = indexed_type_for(type(instance))
    if indexed is not None:
        SearchProjection.objects.filter(resource_type=indexed.resource_type, record_id=instance.pk).delete()


def projection_rebuild(*, dry_run: bool = False, chunk_size: int = REBUILD_CHUNK) -> RebuildReport:
    """Compare the projection with every declared source record; repair it unless ``dry_run``.

    Idempotent: a second run finds no drift. Each chunk of source records is
    locked while its rows are compared and written, so a concurrent edit of
    one of them waits and then writes its own, newer text.
    """
    report = RebuildReport(applied=not dry_run)
    backend = get_search_backend()
    declared = []
    for indexed in indexed_types():
        declared.append(indexed.resource_type)
        drift = report.types[indexed.resource_type] = Drift()
        manager = indexed.model._default_manager
        last_pk = 0
        while True:
            with transaction.atomic():
                batch = manager.filter(pk__gt=last_pk).order_by("pk")
                batch = list((batch if dry_run else batch.select_for_update())[:chunk_size])
                if not batch:
                    break
                _sync(indexed, batch, drift, apply=not dry_run)
                last_pk = batch[-1].pk
        with transaction.atomic():
            orphans = SearchProjection.objects.filter(resource_type=indexed.resource_type).exclude(
                record_id__in=manager.values("pk")
            )
            drift.orphaned += orphans.count()
            if not dry_run:
                orphans.delete()
    with transaction.atomic():
        undeclared = SearchProjection.objects.exclude(resource_type__in=declared)
        for resource_type in sorted(set(undeclared.values_list("resource_type", flat=True))):
            report.types.setdefault(resource_type, Drift()).orphaned += undeclared.filter(
                resource_type=resource_type
            ).count()
        if not dry_run:
            undeclared.delete()
    report.index_problems = backend.index_problems()
    if not dry_run:
        backend.rebuild_index()
    return report
