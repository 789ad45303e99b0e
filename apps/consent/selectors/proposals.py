"""Reads of proposals for the person's pages (SPEC P-5, P-6, J-2)."""

from __future__ import annotations

from django.db.models import QuerySet

from apps.common import clock
from apps.consent.models import Connection, Proposal


def pending_proposals(*, connection: Connection) -> QuerySet[Proposal]:
    """Proposals still awaiting a decision, newest first.

    A pending proposal at or past ``expires_at`` is left out even when no
    sweep has recorded it yet (SPEC J-2). Never shown to an assistant (P-7).
    """
    return (
        Proposal.objects.filter(connection=connection, status=Proposal.Status.PENDING, expires_at__gt=clock.now())
        .select_related("target_fact")
        .order_by("-created_at", "-id")
    )


def proposal_for_user(*, user, proposal_id: int) -> Proposal | None:
    """One proposal of one of ``user``'s connections, or None (never another person's)."""
    return (
        Proposal.objects.filter(pk=proposal_id, connection__user=user)
        .select_related("connection", "connection__application", "target_fact", "result_fact")
        .first()
    )
