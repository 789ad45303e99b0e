"""How a notice is written (SPEC W-7): its words, its one unsubscribe link and the headers mail clients read.

A message carries counts, assistant names, dates and links — never a suggestion's label, value or reason,
nor any fact. It is written in the language the person last saved their choices in.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMessage
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

if TYPE_CHECKING:
    from django.utils.functional import _StrPromise

    from apps.accounts.models import User
    from apps.consent.selectors.notices import Summary

UNSUBSCRIBE_SALT = "consent.notices.unsubscribe"
NAME_CHARS = 60  # an assistant's self-chosen name, cut: it is someone else's text inside our message


def unsubscribe_token(user_id: int) -> str:
    """A signed, unguessable token naming the person (``django.core.signing``); it can only stop e-mail."""
    return signing.dumps(user_id, salt=UNSUBSCRIBE_SALT)


def unsubscribe_user_id(token: str) -> int | None:
    """The person a token was made for, or None when it was not made here (or was altered)."""
    try:
        value = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def unsubscribe_url(user_id: int) -> str:
    return settings.PUBLIC_BASE_URL + reverse("consent:unsubscribe", args=[unsubscribe_token(user_id)])


def language_of(code: str) -> str:
    return code if code in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


def one_line(name: str | _StrPromise) -> str:
    """A name as one short line: whitespace (newlines too) folded, cut to NAME_CHARS."""
    folded = " ".join(name.split())
    return (folded if len(folded) <= NAME_CHARS else folded[: NAME_CHARS - 1] + "…") or _("Unnamed assistant")


def _message(*, user: User, language: str, subject: str, template: str, context: dict[str, object]) -> EmailMessage:
    link = unsubscribe_url(user.pk)
    body = render_to_string(template, {**context, "username": user.get_username(), "unsubscribe_url": link,
                                       "review_url": settings.PUBLIC_BASE_URL + reverse("consent:assistants")})
    return EmailMessage(
        subject=subject, body=body, to=[user.email],
        headers={
            # RFC 2369 and RFC 8058: mail clients show their own "unsubscribe" and POST to it, one click.
            "List-Unsubscribe": f"<{link}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Auto-Submitted": "auto-generated",  # RFC 3834: no vacation replies
            "Content-Language": language,
        },
    )


def digest_message(*, user: User, language: str, summary: Summary, weekly: bool) -> EmailMessage:
    """The digest: how many suggestions wait, from which assistants, and when the first expires."""
    language = language_of(language)
    with translation.override(language):
        subject = ngettext("%(count)d suggestion is waiting for you", "%(count)d suggestions are waiting for you",
                           summary.total) % {"count": summary.total}
        lines = [(one_line(line.name), line.count) for line in summary.lines]
        return _message(user=user, language=language, subject=subject, template="notices/digest.txt",
                        context={"total": summary.total, "lines": lines, "weekly": weekly,
                                 "first_expiry": summary.first_expiry})


def expiry_message(*, user: User, language: str, days: dict[date, Summary]) -> EmailMessage:
    """The notice before expiry: per day, how many suggestions expire then, from which assistants."""
    language = language_of(language)
    with translation.override(language):
        total = sum(summary.total for summary in days.values())
        subject = ngettext("%(count)d suggestion expires in a few days", "%(count)d suggestions expire in a few days",
                           total) % {"count": total}
        listed = [(day, summary.total, [(one_line(line.name), line.count) for line in summary.lines])
                  for day, summary in sorted(days.items())]
        return _message(user=user, language=language, subject=subject, template="notices/expiry.txt",
                        context={"total": total, "days": listed})
