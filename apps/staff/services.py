"""Writes of the staff access record (SPEC AD-2): the one place every staff reveal and change is recorded.

Design notes: docs/privacy.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction

from apps.common import clock
from apps.common.errors import CodedError
from apps.staff.models import REVEAL, REVEAL_PERMISSION, AccessRecord

if TYPE_CHECKING:
    from apps.accounts.models import User

REASON_MIN = 10
REASON_MAX = 2000
TICKET_MAX = 100
ACTION_MAX = 64

NOT_PERMITTED = "reveal_not_permitted"
REASON_REQUIRED = "reason_required"
TOO_LONG = "too_long"


def _write(*, staff: User | None, person: User, action: str, records: Sequence[str], reason: str, ticket: str,
           until: datetime | None = None) -> AccessRecord:
    if not action or len(action) > ACTION_MAX:
        raise CodedError(TOO_LONG, f"the action is a code of 1 to {ACTION_MAX} characters", "action")
    if len(ticket) > TICKET_MAX:
        raise CodedError(TOO_LONG, f"a ticket reference has at most {TICKET_MAX} characters", "ticket")
    record = AccessRecord(
        staff=staff, staff_name=staff.get_username() if staff is not None else "", person=person, action=action,
        records=[str(ref) for ref in records], reason=reason, ticket=ticket, at=clock.now(), until=until,
    )
    record.save()
    return record


@transaction.atomic
def staff_access_record(*, staff: User | None, person: User, action: str,
                        records: list[str] | tuple[str, ...] = (), reason: str = "",
                        ticket: str = "") -> AccessRecord:
    """Record that ``staff`` (``None``: an operator at the command line) did ``action`` to ``person``'s data.

    ``records``: the refs touched (``fact:12``); ``reason`` and ``ticket``: why, when there is a why. The row is
    shown to the person on their page and in their export, and nobody changes or deletes it afterwards.
    """
    return _write(staff=staff, person=person, action=action, records=records, reason=reason.strip(),
                  ticket=ticket.strip())


def reveal_lifetime() -> timedelta:
    return timedelta(minutes=settings.STAFF_REVEAL_MINUTES)


@transaction.atomic
def staff_reveal(*, staff: User, person: User, reason: str, ticket: str = "") -> AccessRecord:
    """Let ``staff`` read ``person``'s content for ``STAFF_REVEAL_MINUTES``, for the written ``reason``.

    One person at a time: the newest reveal of a staff member is the only one that counts, so revealing
    another person masks the previous one again at once. Superusers need a reveal like everyone else.
    """
    if not (staff.is_active and staff.is_staff and staff.has_perm(REVEAL_PERMISSION)):
        raise CodedError(NOT_PERMITTED, "this account may not reveal personal content")
    reason = reason.strip()
    if len(reason) < REASON_MIN:
        raise CodedError(REASON_REQUIRED, f"write why, in at least {REASON_MIN} characters", "reason")
    if len(reason) > REASON_MAX:
        raise CodedError(TOO_LONG, f"a reason has at most {REASON_MAX} characters", "reason")
    return _write(staff=staff, person=person, action=REVEAL, records=(), reason=reason, ticket=ticket.strip(),
                  until=clock.now() + reveal_lifetime())
