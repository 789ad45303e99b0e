"""Periodic tasks of the OAuth rules (SPEC J-1). Each only calls a service; the schedule is CELERY_BEAT_SCHEDULE.

Idempotent and safe to run twice at once (docs/deploy.md), and nothing depends on it having run (SPEC J-2).
"""

from __future__ import annotations

from celery import shared_task

from apps.oauth import services


# The registered name keeps its "ops." prefix: the beat schedule and running deployments know it so.
@shared_task(name="ops.oauth_tokens_purge")
def oauth_tokens_purge() -> bool:
    """Delete expired codes and tokens, keeping what refresh-reuse detection needs."""
    return services.oauth_tokens_purge()
