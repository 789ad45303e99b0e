"""Reads of the staff access record: whose content a staff member may read now, and what a person is shown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import QuerySet

from apps.common import clock
from apps.staff.models import REVEAL, REVEAL_PERMISSION, AccessRecord

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser

    from apps.accounts.models import User


def revealed_person_id(*, staff: User | AnonymousUser) -> int | None:
    """The one person whose content ``staff`` may read right now, or ``None`` (SPEC AD-2).

    Only the staff member's newest reveal counts, and only until its end; the permission must still be held.
    """
    if not (staff.is_authenticated and staff.is_active and staff.is_staff and staff.has_perm(REVEAL_PERMISSION)):
        return None
    latest = (
        AccessRecord.objects.filter(staff_id=staff.pk, action=REVEAL)
        .order_by("-at", "-id").values_list("person_id", "until").first()
    )
    if latest is None or latest[1] is None or latest[1] <= clock.now():
        return None
    return latest[0]


def active_reveal(*, staff: User) -> AccessRecord | None:
    """The staff member's reveal in force, with its reason and end, for the admin's notice."""
    latest = AccessRecord.objects.filter(staff_id=staff.pk, action=REVEAL).select_related("person").first()
    if latest is None or latest.until is None or latest.until <= clock.now():
        return None
    return latest


def records_for(*, person: User) -> QuerySet[AccessRecord]:
    """Every record about ``person``, newest first: their page and their export show them all."""
    return AccessRecord.objects.filter(person=person).order_by("-at", "-id")
