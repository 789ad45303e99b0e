"""Writes on token families: opened by a code exchange, ended by a replay (SPEC A-2, A-3).

Design notes: docs/design.md.
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from oauth2_provider.models import (
    clear_expired,
    get_access_token_model,
    get_grant_model,
    get_refresh_token_model,
    refresh_token_expire_timedelta,
)
from oauth2_provider.settings import oauth2_settings

from apps.common import clock
from apps.consent.models import Connection
from apps.consent.services import connection_revoke
from apps.oauth.models import TokenFamily
from apps.ops.locks import exclusive

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from oauth2_provider.models import Application

    from apps.accounts.models import User


class RevokedReason:
    REFRESH_REPLAY = "refresh_replay"  # an already-rotated refresh token was presented again
    CODE_REPLAY = "code_replay"  # an already-redeemed authorization code was presented again
    ACCOUNT_DEACTIVATED = "account_deactivated"  # staff deactivated the account (SPEC A-11); no notice

    NOTICES = (REFRESH_REPLAY, CODE_REPLAY)


def token_family_open(*, family: uuid.UUID, user: User, application: Application, code: str) -> TokenFamily:
    """Record a new family at the moment its authorization code is exchanged (only the code's hash is kept)."""
    return TokenFamily.objects.create(family=family, user=user, application=application, code=code,
                                      consented_at=clock.now())


@transaction.atomic
def token_family_revoke(*, family: uuid.UUID | None, reason: str) -> None:
    """Kill every token of the family and record why (the first reason is kept).

    The toolkit's own family revocation, so a later replay of any member is still recognised.
    """
    if family is None:
        return
    # The family row first, as issuance takes it (validators.py): a refresh racing this either committed its
    # pair before, and it dies here, or waits and finds the family revoked.
    list(TokenFamily.objects.select_for_update().filter(family=family))
    get_refresh_token_model().revoke_family(family)
    TokenFamily.objects.filter(family=family, revoked_at=None).update(revoked_at=clock.now(), revoked_reason=reason)


@transaction.atomic
def user_tokens_revoke(*, user: User) -> None:
    """End every token family of the person and every code not exchanged yet (SPEC A-11: deactivation).

    Connections stay: reactivated, the person authorizes their assistants again; nothing revives.
    """
    families = set(TokenFamily.objects.filter(user=user, revoked_at=None).values_list("family", flat=True))
    families |= set(
        get_refresh_token_model().objects.filter(user=user, revoked=None).exclude(token_family=None)
        .values_list("token_family", flat=True)
    )
    for family in families:
        token_family_revoke(family=family, reason=RevokedReason.ACCOUNT_DEACTIVATED)
    get_refresh_token_model().objects.filter(user=user, revoked=None).update(revoked=clock.now())
    get_access_token_model().objects.filter(user=user).delete()
    get_grant_model().objects.filter(user=user, redeemed_at=None).delete()


@transaction.atomic
def application_deregister(*, application: Application) -> None:
    """The assistant deletes its own registration (RFC 7592 §2.3): every token and code of it dies at once.

    A client people connected stays, revoked and without redirect URIs, to keep their records (SPEC C-7, D-8).
    """
    connections = Connection.objects.filter(application=application)
    if not connections.exists():
        application.delete()
        return
    for connection in connections:
        connection_revoke(connection=connection)
    get_access_token_model().objects.filter(application=application).delete()  # the registration token too
    type(application).objects.filter(pk=application.pk).update(redirect_uris="")


def token_families_purge(*, now: datetime) -> int:
    """Forget families that can hold no live or replay-detectable token any more.

    That is twice ``REFRESH_FAMILY_LIFETIME`` after consent; the security notice ends with the row.
    """
    deleted, _ = TokenFamily.objects.filter(consented_at__lt=TokenFamily.kept_since(now)).delete()
    return deleted


def oauth_tokens_purge() -> bool:
    """Delete expired authorization codes and dead tokens (SPEC J-1); return whether it ran.

    Refuses to run while revoked refresh tokens are kept for less than a family's lifetime (SPEC A-2, A-3)."""
    keep_revoked_for = refresh_token_expire_timedelta()
    if not oauth2_settings.REFRESH_TOKEN_REUSE_PROTECTION or keep_revoked_for is None \
            or keep_revoked_for < settings.REFRESH_FAMILY_LIFETIME:
        raise ImproperlyConfigured(
            "oauth_tokens_purge needs REFRESH_TOKEN_REUSE_PROTECTION on and REFRESH_TOKEN_EXPIRE_SECONDS "
            "at least REFRESH_FAMILY_LIFETIME, or it would delete rows that refresh-reuse detection needs"
        )
    with exclusive("ops.oauth_tokens_purge") as acquired:
        if not acquired:
            logger.info("token purge already running elsewhere; skipped")
            return False
        clear_expired()
        token_families_purge(now=clock.now())
    return True
