"""The search projection follows its sources: every memory write and every hard delete (SPEC R-6)."""

from __future__ import annotations

from functools import partial

from django.db import models, transaction
from django.db.models.signals import post_delete

from apps.memory import projection
from apps.retrieval.registry import indexed_types
from apps.retrieval.services import projection_forget, projection_write
from apps.retrieval.tasks import embed_later


def connect() -> None:
    """Follow the writes and deletes of every type the projection indexes (idempotent)."""
    projection.subscribe(_written)
    for indexed in indexed_types():
        post_delete.connect(_deleted, sender=indexed.model, dispatch_uid=f"retrieval-forget-{indexed.resource_type}")


def _written(instance: models.Model) -> None:
    """Index the record in its write's transaction; vectors left for a worker are asked for once it commits."""
    waiting = projection_write(instance=instance)
    if waiting:
        transaction.on_commit(partial(embed_later, waiting))


def _deleted(sender, instance: models.Model, **kwargs) -> None:
    projection_forget(instance=instance)
