"""Periodic consent work (SPEC J-1). Correct without it too: expiry is checked on every read (J-2)."""

from celery import shared_task

from apps.consent.services import proposal_expire_due


@shared_task(name="consent.expire_proposals")
def expire_proposals() -> int:
    """Record pending proposals past 30 days as expired; returns how many."""
    return proposal_expire_due()
