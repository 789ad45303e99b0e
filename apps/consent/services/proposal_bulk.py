"""Deciding many suggestions at once: the review inbox at real sizes (SPEC P-8, P-9, P-10, W-6)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import QuerySet

from apps.common import clock
from apps.consent.models import Connection, Proposal
from apps.consent.services.proposal_checks import ProposalError
from apps.consent.services.proposals import FORBIDDEN, SLOT_CHANGED, proposal_confirm

if TYPE_CHECKING:
    from apps.accounts.models import User


def _pending(connection: Connection | None, user: User, ids: set[int] | None, up_to: int | None) -> QuerySet[Proposal]:
    """The person's pending, unexpired suggestions of ``connection`` (None: the imported ones) among ``ids``."""
    if connection is not None and connection.user_id != user.pk:
        raise ProposalError(FORBIDDEN, "this assistant is not connected to your account")
    pending = Proposal.objects.filter(owner=user, status=Proposal.Status.PENDING, expires_at__gt=clock.now())
    pending = pending.filter(connection=connection) if connection is not None else pending.filter(
        source=Proposal.Source.IMPORT)
    if ids is not None:
        pending = pending.filter(pk__in=ids)
    if up_to is not None:
        pending = pending.filter(pk__lte=up_to)
    return pending


@transaction.atomic
def proposals_ignore(
    *, connection: Connection | None, user: User, ids: set[int] | None = None, up_to: int | None = None,
) -> int:
    """Ignore the pending suggestions of ``connection`` (None: imported) among ``ids`` (``None``: all) up to id
    ``up_to``; return how many.

    Only still-pending, unexpired ones: a suggestion decided meanwhile or past expiry is left alone (SPEC J-2).
    """
    return _pending(connection, user, ids, up_to).update(status=Proposal.Status.IGNORED, decided_at=clock.now())


@dataclass
class BulkConfirmed:
    confirmed: int = 0  # saved as new facts, or replacing the fact they change
    known: int = 0  # already known: closed, nothing changed
    conflicts: int = 0  # the fact changed since: not applied
    left: int = 0  # now something else than shown (SPEC P-9): left waiting for the person


@transaction.atomic
def proposals_confirm(*, connection: Connection | None, user: User, ids: set[int]) -> BulkConfirmed:
    """Confirm the ticked pending suggestions, oldest first, each as confirming it alone would (SPEC P-6, P-9).

    Nothing is shared by it (C-2: a replaced fact waits to be shared again). An ``add`` that changes a fact
    replaces it; one already known closes; a suggestion that an earlier one of the same batch made into
    something else is left for the person.
    """
    done = BulkConfirmed()
    for proposal in _pending(connection, user, ids, None).order_by("created_at", "id"):
        try:
            result = proposal_confirm(proposal=proposal, user=user, share_with_connection=False)
        except ProposalError as error:
            if error.code != SLOT_CHANGED:
                raise
            done.left += 1
            continue
        if result.status == Proposal.Status.CONFLICT:
            done.conflicts += 1
        elif result.slot == Proposal.Slot.KNOWN:
            done.known += 1
        else:
            done.confirmed += 1
    return done
