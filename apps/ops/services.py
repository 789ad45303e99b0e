"""Operational writes: the service status and the periodic clean-ups (SPEC D-9, J-1)."""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction

from apps.common import clock
from apps.consent.models import AccessEvent
from apps.ops.locks import exclusive
from apps.ops.models import ServiceStatus

logger = logging.getLogger(__name__)

PRUNE_BATCH_SIZE = 5000


@transaction.atomic
def service_status_set(*, state: str, message: str = "") -> ServiceStatus:
    """Open, close or pause the assistant entry point; there is only ever one row (id 1)."""
    if state not in ServiceStatus.State.values:
        raise ValueError(f"unknown service state {state!r}")
    status, _ = ServiceStatus.objects.update_or_create(pk=1, defaults={"state": state, "message": message.strip()})
    return status


def access_events_prune(*, older_than: datetime, batch_size: int = PRUNE_BATCH_SIZE) -> int:
    """Delete access events recorded before ``older_than``; return how many were deleted.

    In short batches, each its own transaction; a concurrent run returns 0 at once.
    """
    deleted = 0
    with exclusive("ops.access_events_prune") as acquired:
        if not acquired:
            logger.info("access event prune already running elsewhere; skipped")
            return 0
        stale = AccessEvent.objects.filter(created_at__lt=older_than)
        while ids := list(stale.order_by("pk").values_list("pk", flat=True)[:batch_size]):
            _, per_model = AccessEvent.objects.filter(pk__in=ids).delete()
            deleted += per_model.get(AccessEvent._meta.label, 0)
    logger.info("pruned %d access events older than %s", deleted, older_than.isoformat())
    return deleted


def oauth_tokens_purge() -> bool:
    """Delete expired authorization codes and dead tokens (SPEC J-1); return whether it ran.

    Refuses to run unless revoked refresh tokens outlive their family, so replays stay recognised (A-2, A-3).
    """
    from oauth2_provider.models import clear_expired, refresh_token_expire_timedelta
    from oauth2_provider.settings import oauth2_settings

    from apps.oauth.services import token_families_purge

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
