"""Deciding many suggestions at once: the review inbox at real sizes (SPEC P-8, W-6)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction

from apps.common import clock
from apps.consent.models import Connection, Proposal
from apps.consent.services.proposal_checks import ProposalError
from apps.consent.services.proposals import FORBIDDEN

if TYPE_CHECKING:
    from apps.accounts.models import User


@transaction.atomic
def proposals_ignore(
    *, connection: Connection, user: User, ids: set[int] | None = None, up_to: int | None = None,
) -> int:
    """Ignore the connection's pending suggestions among ``ids`` (``None``: all) up to id ``up_to``; return how many.

    Only still-pending, unexpired ones: a suggestion decided meanwhile or past expiry is left alone (SPEC J-2).
    """
    if connection.user_id != user.pk:
        raise ProposalError(FORBIDDEN, "this assistant is not connected to your account")
    now = clock.now()
    pending = Proposal.objects.filter(connection=connection, status=Proposal.Status.PENDING, expires_at__gt=now)
    if ids is not None:
        pending = pending.filter(pk__in=ids)
    if up_to is not None:
        pending = pending.filter(pk__lte=up_to)
    return pending.update(status=Proposal.Status.IGNORED, decided_at=now)
