"""What waits for a person, for the header and the e-mail notices (SPEC W-7). Reads only.

Waiting = pending and not yet expired (SPEC P-5, J-2), from an assistant whose connection is not revoked or
from the person's own import (SPEC P-10): imported suggestions expire like the others, so they are counted too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, Min, Q, QuerySet
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from apps.common import clock
from apps.common.text import shown_name
from apps.consent.models import NoticeSettings, Proposal

if TYPE_CHECKING:
    from django.utils.functional import _StrPromise

    from apps.accounts.models import User

EXPIRY_NOTICE_DAYS = 3  # SPEC W-7: the notice comes this many days before suggestions expire (P-5)


IMPORTED = _("Imported memories")  # where an assistant's name stands, for suggestions with no assistant


def waiting_proposals(*, now: datetime) -> QuerySet[Proposal]:
    """Every person's waiting suggestions: pending, unexpired, and imported or on a live connection."""
    return Proposal.objects.filter(
        Q(source=Proposal.Source.IMPORT) | Q(connection__revoked_at__isnull=True, connection__isnull=False),
        status=Proposal.Status.PENDING, expires_at__gt=now,
    )


def _name(name: str | None) -> str | _StrPromise:
    """An assistant's name as shown, or the words for imported suggestions (no assistant), which the message
    translates into the person's language when it is written."""
    return shown_name(name) if name is not None else IMPORTED


@dataclass
class Waiting:
    """How many suggestions wait, per connection, and where the person finds them."""

    by_connection: dict[int | None, int] = field(default_factory=dict)  # None: imported suggestions

    @property
    def total(self) -> int:
        return sum(self.by_connection.values())

    @property
    def url(self) -> str:
        """The one assistant's suggestions when they all come from one, else the list of assistants."""
        if len(self.by_connection) == 1:
            (pk,) = self.by_connection
            return reverse("consent:import") if pk is None else reverse("consent:assistant", args=[pk]) + "#proposals"
        return reverse("consent:assistants")


def waiting(*, user: User) -> Waiting:
    """The person's waiting suggestions, counted per connection in one statement (SPEC W-7)."""
    rows = (waiting_proposals(now=clock.now()).filter(owner_id=user.pk)
            .values_list("connection_id").annotate(n=Count("id")).order_by())
    return Waiting(dict(rows))


def notice_settings(*, user: User) -> NoticeSettings:
    """The person's choices, or the defaults (unsaved) when they never made any."""
    found = NoticeSettings.objects.filter(user_id=user.pk).first()
    return found or NoticeSettings(user_id=user.pk, language=settings.LANGUAGE_CODE)


# --- What a message says: counts and assistant names only, never a suggestion's content -----------------


@dataclass
class AssistantLine:
    name: str | _StrPromise
    count: int


@dataclass
class Summary:
    lines: list[AssistantLine]
    first_expiry: datetime | None

    @property
    def total(self) -> int:
        return sum(line.count for line in self.lines)


def _summaries(rows: Iterable[tuple[int, str, int, datetime]]) -> dict[int, Summary]:
    """(user id, assistant name, count, first expiry) rows → user id → Summary, largest count first."""
    summaries: dict[int, Summary] = {}
    for user_id, name, n, first in sorted(rows, key=lambda row: (row[0], -row[2])):
        summary = summaries.setdefault(user_id, Summary([], None))
        summary.lines.append(AssistantLine(_name(name), n))
        summary.first_expiry = first if summary.first_expiry is None else min(summary.first_expiry, first)
    return summaries


def mail_recipients(user_ids: set[int]) -> QuerySet[User]:
    """Of ``user_ids``, the active accounts with an address to write to."""
    return get_user_model().objects.filter(pk__in=user_ids, is_active=True).exclude(email="")


def digest_window(digest: str, now: datetime) -> str:
    """The window a digest covers: the day (``2026-06-01``) or the ISO week (``2026-W23``), in UTC."""
    if digest == NoticeSettings.Digest.WEEKLY:
        year, week, _day = now.date().isocalendar()
        return f"{year}-W{week:02d}"
    return now.date().isoformat()


def digest_due(*, now: datetime) -> dict[int, tuple[Summary, str]]:
    """user id → (what waits, the window) for each person whose digest is on and who has something waiting.

    One statement: the waiting suggestions of the people with a digest, counted per person and assistant."""
    with_digest = [NoticeSettings.Digest.DAILY, NoticeSettings.Digest.WEEKLY]
    rows = list(
        waiting_proposals(now=now).filter(owner__notice_settings__digest__in=with_digest)
        .values_list("owner_id", "owner__notice_settings__digest", "connection__application__name")
        .annotate(n=Count("id"), first=Min("expires_at")).order_by()
    )
    digests = {user_id: digest for user_id, digest, *_rest in rows}
    summaries = _summaries((user_id, name, n, first) for user_id, _digest, name, n, first in rows)
    return {user_id: (summary, digest_window(digests[user_id], now)) for user_id, summary in summaries.items()}


def expiry_due(*, now: datetime) -> dict[int, dict[date, Summary]]:
    """user id → expiry date → what waits and expires that day, for the days up to EXPIRY_NOTICE_DAYS ahead.

    Each suggestion expires on one day (UTC), so it belongs to one notice; the days before today + 3 are
    still here so that a run missed (the worker down) is made up for by the next one.
    """
    today = datetime.combine(now.date(), time.min, tzinfo=now.tzinfo)
    horizon = today + timedelta(days=EXPIRY_NOTICE_DAYS + 1)
    soon = waiting_proposals(now=now).filter(expires_at__lt=horizon)
    opted_out = NoticeSettings.objects.filter(expiry_notice=False).values("user_id")
    soon = soon.exclude(owner_id__in=opted_out)
    rows = (soon.values_list("owner_id", "connection__application__name", "expires_at")
            .order_by("owner_id", "expires_at"))
    due: dict[int, dict[date, dict[str | _StrPromise, int]]] = {}
    for user_id, name, expires_at in rows:
        day = due.setdefault(user_id, {}).setdefault(expires_at.date(), {})
        day[_name(name)] = day.get(_name(name), 0) + 1
    return {
        user_id: {
            day: Summary([AssistantLine(name, n) for name, n in sorted(names.items(), key=lambda item: -item[1])],
                         None)
            for day, names in days.items()
        }
        for user_id, days in due.items()
    }
