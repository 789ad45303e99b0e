"""Periodic tasks (SPEC J-1). Each only calls a service; the schedule is CELERY_BEAT_SCHEDULE.

Also SPEC J-2. Design notes: docs/design.md.
"""

from __future__ import annotations

from celery import shared_task

from apps.ops import services


@shared_task(name="ops.access_events_prune")
def access_events_prune() -> int:
    """Forget access events older than ACCESS_EVENT_RETENTION_DAYS."""
    from apps.consent.selectors import access_retention_cutoff  # the consent app owns the rule

    return services.access_events_prune(older_than=access_retention_cutoff())


@shared_task(name="ops.oauth_tokens_purge")
def oauth_tokens_purge() -> bool:
    """Delete expired codes and tokens, keeping what refresh-reuse detection needs."""
    return services.oauth_tokens_purge()


@shared_task(name="ops.proposals_expire")
def proposals_expire() -> int:
    """Record pending proposals past their 30 days as expired (SPEC P-5).

    Reads and actions already enforce expiry; this makes the stored status true for lists and admin.
    """
    # Imported here: the consent app owns the rule, ops only schedules it.
    from apps.consent.services import proposal_expire_due

    return proposal_expire_due()
