"""Periodic and queued search work (SPEC J-1). Search stays correct without it: writes index themselves (R-6)."""

import logging

from celery import shared_task

from apps.retrieval.services import projection_embed, projection_rebuild

log = logging.getLogger(__name__)


@shared_task(name="retrieval.rebuild_search_projection")
def rebuild_search_projection() -> int:
    """Repair any drift between the projection and its sources; returns how much was found."""
    return projection_rebuild().drift


@shared_task(name="retrieval.embed_projection_rows")
def embed_projection_rows(row_ids: list[int]) -> int:
    """Give freshly written projection rows their meaning vectors (SPEC S-4); returns how many got one."""
    return projection_embed(row_ids=row_ids)


def embed_later(row_ids: list[int]) -> None:
    """Ask a worker for the vectors. The write has committed: a broker outage must not fail it, and the
    scheduled rebuild embeds whatever was not queued (SPEC J-2).
    """
    try:
        embed_projection_rows.delay(row_ids)
    except Exception as exc:  # kombu raises its own and the transport's errors
        log.warning("meaning vectors of %d rows left to the rebuild: %s", len(row_ids), exc)
