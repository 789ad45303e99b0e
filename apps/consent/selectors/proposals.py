"""Reads of proposals for the person's pages (SPEC P-5, P-6, J-2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.consent.models import Proposal

if TYPE_CHECKING:
    from apps.accounts.models import User


def proposal_for_user(*, user: User, proposal_id: int) -> Proposal | None:
    """One of ``user``'s suggestions (from an assistant or an import), or None (never another person's)."""
    return (
        Proposal.objects.filter(pk=proposal_id, owner=user)
        .select_related("connection", "connection__application", "target_fact", "result_fact", "slot_fact")
        .first()
    )
