"""Periodic search work (SPEC J-1). Search stays correct without it: writes index themselves (R-6)."""

from celery import shared_task

from apps.retrieval.services import projection_rebuild


@shared_task(name="retrieval.rebuild_search_projection")
def rebuild_search_projection() -> int:
    """Repair any drift between the projection and its sources; returns how much was found."""
    return projection_rebuild().drift


@shared_task(name="retrieval.embed_projection_rows")
def embed_projection_rows(row_ids: list[int]) -> int:
    """Give freshly written projection rows their meaning vectors (SPEC S-4); returns how many got one."""
    from apps.retrieval.services import projection_embed

    return projection_embed(row_ids=row_ids)
