"""Writes to the search projection (SPEC R-6): on every memory write, and the repair/backfill rebuild."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import models, transaction

from apps.common import clock
from apps.retrieval.backends import get_search_backend
from apps.retrieval.indexing import IndexedType
from apps.retrieval.models import SearchProjection
from apps.retrieval.registry import indexed_type_for, indexed_types

log = logging.getLogger(__name__)
REBUILD_CHUNK = 500


@dataclass
class Drift:
    """How far the projection of one resource type was from its source records."""

    records: int = 0
    rows: int = 0
    missing: int = 0  # a searchable field with text but no row
    stale: int = 0  # a row whose text or owner differs from the record
    orphaned: int = 0  # a row for a record, field or type that is gone or no longer searchable
    unembedded: int = 0  # a row without a vector of the configured embedder (SPEC S-4)

    @property
    def total(self) -> int:
        return self.missing + self.stale + self.orphaned + self.unembedded


@dataclass
class RebuildReport:
    types: dict[str, Drift] = field(default_factory=dict)
    index_problems: list[str] = field(default_factory=list)
    applied: bool = False

    @property
    def drift(self) -> int:
        return sum(d.total for d in self.types.values()) + len(self.index_problems)


def _embed_rows(rows: list[SearchProjection]) -> list[SearchProjection]:
    """Give ``rows`` the configured embedder's vectors now; the rows it could not embed are returned."""
    from apps.retrieval.embeddings import EmbeddingUnavailable, get_embedder
    from apps.retrieval.embeddings.codec import pack

    embedder = get_embedder()
    if embedder is None or not rows:
        return []
    try:
        vectors = embedder.embed([row.text for row in rows])
    except EmbeddingUnavailable as exc:
        log.warning("meaning vectors left for later: %s", exc)
        return rows
    for row, vector in zip(rows, vectors, strict=False):
        row.vector, row.vector_model = pack(vector), embedder.name
    return []


def _needs_vector(row: SearchProjection, model: str | None) -> bool:
    return model is not None and (row.vector is None or row.vector_model != model)


def _sync(indexed: IndexedType, records: list[models.Model], drift: Drift, *, apply: bool,
          inline: bool = True) -> list[int]:
    """Make the rows of ``records`` match their declared searchable text, counting what differed.

    A changed row loses its vector: embedded here with ``inline``, else its id is returned for a task.
    """
    from apps.retrieval.embeddings import get_embedder

    embedder = get_embedder()
    model = embedder.name if embedder else None
    wanted = {obj.pk: (getattr(obj, indexed.owner_attr), indexed.rows(obj)) for obj in records}
    existing = {
        (row.record_id, row.field): row
        for row in SearchProjection.objects.filter(resource_type=indexed.resource_type, record_id__in=wanted)
    }
    now = clock.now()
    create, update, unembedded = [], [], []
    for record_id, (owner_id, texts) in wanted.items():
        drift.records += 1
        drift.rows += len(texts)
        for path, text in texts.items():
            row = existing.pop((record_id, path), None)
            if row is None:
                drift.missing += 1
                row = SearchProjection(resource_type=indexed.resource_type, record_id=record_id,
                                       owner_id=owner_id, field=path, text=text, updated_at=now)
                create.append(row)
            elif row.text != text or row.owner_id != owner_id:
                drift.stale += 1
                if row.text != text:  # the old vector described the old text
                    row.vector = row.vector_model = None
                row.text, row.owner_id, row.updated_at = text, owner_id, now
                update.append(row)
            elif _needs_vector(row, model):
                drift.unembedded += 1
                update.append(row)
            if _needs_vector(row, model):
                unembedded.append(row)
    drift.orphaned += len(existing)
    if not apply:
        return []
    if inline:
        unembedded = _embed_rows(unembedded)
    if existing:
        SearchProjection.objects.filter(pk__in=[row.pk for row in existing.values()]).delete()
    for row in update:
        row.save(update_fields=["text", "owner", "updated_at", "vector", "vector_model"])
    if create:
        SearchProjection.objects.bulk_create(create)
    return [row.pk for row in unembedded if row.pk is not None]


# SPEC R-6 (home)
@transaction.atomic
def projection_write(*, instance: models.Model) -> list[int]:
    """Re-index one record inside its own write transaction (SPEC R-6), so a rollback leaves no row behind.

    Returns the ids of the rows left for a worker to embed (``tasks.embed_later``): none when vectors are
    made inline or meaning is off.
    """
    from apps.retrieval.embeddings import vectors_inline

    indexed = indexed_type_for(type(instance))
    if indexed is None:
        return []
    return _sync(indexed, [instance], Drift(), apply=True, inline=vectors_inline())


def projection_embed(*, row_ids: list[int]) -> int:
    """Embed the given rows that still lack a vector of the configured model; returns how many got one.

    A row whose text changed meanwhile keeps waiting for its own vector.
    """
    from apps.retrieval.embeddings import get_embedder

    embedder = get_embedder()
    if embedder is None:
        return 0
    rows = [row for row in SearchProjection.objects.filter(pk__in=row_ids).only("id", "text", "vector",
                                                                                 "vector_model")
            if _needs_vector(row, embedder.name)]
    failed = {row.pk for row in _embed_rows(rows)}
    done = 0
    for row in rows:
        if row.pk not in failed:
            done += SearchProjection.objects.filter(pk=row.pk, text=row.text).update(
                vector=row.vector, vector_model=row.vector_model)
    return done


@transaction.atomic
def projection_forget(*, instance: models.Model) -> None:
    """Drop a hard-deleted record's rows, in the deleting transaction."""
    indexed = indexed_type_for(type(instance))
    if indexed is not None:
        SearchProjection.objects.filter(resource_type=indexed.resource_type, record_id=instance.pk).delete()


def projection_rebuild(*, dry_run: bool = False, chunk_size: int = REBUILD_CHUNK,
                       progress: Callable[[str, int, int], None] | None = None) -> RebuildReport:
    """Compare the projection with every declared source record; repair it unless ``dry_run`` (idempotent).

    Each chunk of records is locked while compared; missing vectors are embedded (SPEC S-4).
    """
    report = RebuildReport(applied=not dry_run)
    backend = get_search_backend()
    declared = []
    for indexed in indexed_types():
        declared.append(indexed.resource_type)
        drift = report.types[indexed.resource_type] = Drift()
        manager = indexed.model._default_manager
        last_pk = 0
        total = manager.count() if progress else 0
        while True:
            with transaction.atomic():
                after = manager.filter(pk__gt=last_pk).order_by("pk")
                batch = list((after if dry_run else after.select_for_update())[:chunk_size])
                if not batch:
                    break
                _sync(indexed, batch, drift, apply=not dry_run)
                last_pk = batch[-1].pk
            if progress:
                progress(indexed.resource_type, drift.records, total)
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
