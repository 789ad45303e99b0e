"""Periodic tasks of the consent rules (SPEC J-1). Each only calls a service; the schedule is CELERY_BEAT_SCHEDULE.

Also SPEC J-2. Design notes: docs/design.md.
"""

from __future__ import annotations

from celery import shared_task

from apps.consent import services
from apps.consent.selectors.access import access_retention_cutoff

# The registered names keep their "ops." prefix: the beat schedule and running deployments know them so.


@shared_task(name="ops.access_events_prune")
def access_events_prune() -> int:
    """Forget access events older than ACCESS_EVENT_RETENTION_DAYS: whole partitions on PostgreSQL (SPEC D-8)."""
    return services.access_events_prune(older_than=access_retention_cutoff())


@shared_task(name="consent.access_partitions_ensure")
def access_partitions_ensure() -> list[str]:
    """Keep the current access history partition and the next two ready (PostgreSQL; SPEC D-8)."""
    return services.access_partitions_ensure()


@shared_task(name="ops.proposals_expire")
def proposals_expire() -> int:
    """Record pending proposals past their 30 days as expired (SPEC P-5).

    Reads and actions already enforce expiry; this makes the stored status true for lists and admin.
    """
    return services.proposal_expire_due()


@shared_task(name="consent.notices_digest")
def notices_digest() -> dict[str, int]:
    """Send the daily and weekly digests of waiting suggestions that are due (SPEC W-7); each window once."""
    return vars(services.notices_send_digests())


@shared_task(name="consent.notices_expiry")
def notices_expiry() -> dict[str, int]:
    """Tell people, once, about their suggestions expiring in three days (SPEC W-7, P-5)."""
    return vars(services.notices_send_expiry())
