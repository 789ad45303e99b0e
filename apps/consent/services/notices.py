"""E-mail about waiting suggestions (SPEC W-7): the person's choices, unsubscribing, and sending each notice once.

Design notes: docs/pages.md ("E-mail notices").
"""

from __future__ import annotations

import logging
import smtplib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.mail import EmailMessage
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils.translation import gettext_lazy as _

from apps.common import clock
from apps.consent import notice_mail
from apps.consent.models import NoticeSent, NoticeSettings
from apps.consent.selectors import notices as selectors

if TYPE_CHECKING:
    from apps.accounts.models import User

log = logging.getLogger(__name__)


@transaction.atomic
def notice_settings_save(*, user: User, digest: str, expiry_notice: bool, email: str, language: str) -> NoticeSettings:
    """Save the person's choices and address; ``language`` is the one their e-mails are written in."""
    if digest not in NoticeSettings.Digest.values:
        raise ValidationError({"digest": _("Choose off, daily or weekly.")}, code="invalid")
    email = email.strip()
    if email:
        try:
            validate_email(email)
        except ValidationError as error:
            raise ValidationError({"email": error.error_list}) from None
    elif digest != NoticeSettings.Digest.OFF:
        raise ValidationError({"email": _("A digest needs an e-mail address to be sent to.")}, code="required")
    if user.email != email:
        user.email = email
        user.save(update_fields=["email"])
    chosen, _created = NoticeSettings.objects.update_or_create(
        user=user, defaults={"digest": digest, "expiry_notice": expiry_notice,
                             "language": notice_mail.language_of(language), "updated_at": clock.now()})
    return chosen


@transaction.atomic
def notices_unsubscribe(*, user_id: int) -> bool:
    """Stop every e-mail to the person: digest off, no notice before expiry. False: no such person."""
    if not get_user_model().objects.filter(pk=user_id).exists():
        return False
    NoticeSettings.objects.update_or_create(
        user_id=user_id, defaults={"digest": NoticeSettings.Digest.OFF, "expiry_notice": False,
                                   "updated_at": clock.now()})
    return True


@dataclass
class NoticeRun:
    sent: int = 0
    already: int = 0  # the window's message was sent before (or is being sent by a concurrent run)
    failed: int = 0  # the mail server refused it: the window stays open for the next run


def _claim(*, user_id: int, kind: str, windows: Iterable[str], now: datetime) -> bool:
    """Record the windows as sent, committed before anything is sent; False when one of them already is."""
    try:
        with transaction.atomic():
            NoticeSent.objects.bulk_create(
                [NoticeSent(user_id=user_id, kind=kind, window=window, sent_at=now) for window in windows])
    except IntegrityError:
        return False
    return True


# SPEC W-7 (home)
def notice_deliver(*, user: User, kind: str, windows: list[str], message: EmailMessage, run: NoticeRun) -> None:
    """Send ``message`` once for ``windows`` of ``kind``: never twice, whatever runs at the same time.

    The windows are recorded under a unique constraint and committed first; only the run that recorded them
    sends. A refusal by the mail server removes the record again (the next run tries again); a worker that
    dies between the record and the send loses that one message rather than ever sending it twice.
    Not atomic itself, by design: the record must be committed before the message leaves.
    """
    if not _claim(user_id=user.pk, kind=kind, windows=windows, now=clock.now()):
        run.already += 1
        return
    try:
        message.send(fail_silently=False)
    except (smtplib.SMTPException, OSError) as error:
        NoticeSent.objects.filter(user_id=user.pk, kind=kind, window__in=windows).delete()
        log.warning("notice %s for user %s not sent, left for the next run: %s", kind, user.pk, type(error).__name__)
        run.failed += 1
        return
    run.sent += 1


def _sent_windows(kind: str, user_ids: Iterable[int]) -> set[tuple[int, str]]:
    return set(NoticeSent.objects.filter(kind=kind, user_id__in=list(user_ids)).values_list("user_id", "window"))


def _languages(user_ids: Iterable[int]) -> dict[int, str]:
    return dict(NoticeSettings.objects.filter(user_id__in=list(user_ids)).values_list("user_id", "language"))


# A record older than this can no longer stop anything: its day or week is over, its expiry date is past.
NOTICES_KEPT = timedelta(days=30)


def notices_send_digests(*, now: datetime | None = None) -> NoticeRun:
    """The daily or weekly digest to each person who chose one and has suggestions waiting (SPEC W-7).

    Also forgets the records of messages sent more than NOTICES_KEPT ago."""
    now = now or clock.now()
    run = NoticeRun()
    NoticeSent.objects.filter(sent_at__lt=now - NOTICES_KEPT).delete()
    due = selectors.digest_due(now=now)
    if not due:
        return run
    sent, languages = _sent_windows(NoticeSent.Kind.DIGEST, due), _languages(due)
    for user in selectors.mail_recipients(set(due)):
        summary, window = due[user.pk]
        if (user.pk, window) in sent:
            run.already += 1
            continue
        message = notice_mail.digest_message(user=user, language=languages.get(user.pk, ""), summary=summary,
                                             weekly="W" in window)
        notice_deliver(user=user, kind=NoticeSent.Kind.DIGEST, windows=[window], message=message, run=run)
    return run


def notices_send_expiry(*, now: datetime | None = None) -> NoticeRun:
    """One notice per suggestion, three days before it expires (SPEC W-7, P-5); a day missed is made up for."""
    now = now or clock.now()
    run = NoticeRun()
    due = selectors.expiry_due(now=now)
    if not due:
        return run
    sent, languages = _sent_windows(NoticeSent.Kind.EXPIRY, due), _languages(due)
    for user in selectors.mail_recipients(set(due)):
        days = {day: summary for day, summary in due[user.pk].items() if (user.pk, day.isoformat()) not in sent}
        if not days:
            run.already += 1
            continue
        message = notice_mail.expiry_message(user=user, language=languages.get(user.pk, ""), days=days)
        notice_deliver(user=user, kind=NoticeSent.Kind.EXPIRY, windows=[day.isoformat() for day in sorted(days)],
                       message=message, run=run)
    return run
