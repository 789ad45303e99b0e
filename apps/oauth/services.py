"""Writes on token families: opened by a code exchange, ended by a replay (SPEC A-2, A-3).

A family is every access and refresh token descended from one authorization
code. django-oauth-toolkit already tags refresh tokens with a ``token_family``
uuid; ``TokenFamily`` adds what the toolkit does not know: when the person
consented (for the absolute 30-day refresh limit) and why the family ended
(for the security notice on the person's page).
"""

from __future__ import annotations

import uuid

from django.db import transaction
from oauth2_provider.models import get_refresh_token_model

from apps.common import clock
from apps.oauth.models import TokenFamily


class RevokedReason:
    REFRESH_REPLAY = "refresh_replay"  # an already-rotated refresh token was presented again
    CODE_REPLAY = "code_replay"  # an already-redeemed authorization code was presented again

    NOTICES = (REFRESH_REPLAY, CODE_REPLAY)


def token_family_open(*, family: uuid.UUID, user, application, code: str) -> TokenFamily:
    """Record a new family at the moment its authorization code is exchanged (only the code's hash is kept)."""
    return TokenFamily.objects.create(family=family, user=user, application=application, code=code,
                                      consented_at=clock.now())


@transaction.atomic
def token_family_revoke(*, family: uuid.UUID | None, reason: str) -> None:
    """Kill every token of the family and record why; the first recorded reason is kept.

    Uses the toolkit's own family revocation (refresh tokens marked revoked,
    access tokens deleted), so a later replay of any member is still
    recognised.
    """
    if family is None:
        return
    get_refresh_token_model().revoke_family(family)
    TokenFamily.objects.filter(family=family, revoked_at=None).update(revoked_at=clock.now(), revoked_reason=reason)


def token_families_purge(*, now) -> int:
    """Forget families that can hold no live or replay-detectable token any more.

    A family refreshes for at most ``REFRESH_FAMILY_LIFETIME`` after consent, and
    its revoked refresh tokens are kept as long again for reuse detection; after
    both, the row only fed the person's security notice, which ends with it.
    """
    deleted, _ = TokenFamily.objects.filter(consented_at__lt=TokenFamily.kept_since(now)).delete()
    return deleted
