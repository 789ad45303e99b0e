"""Reads of what each assistant was sent, within the retention window (SPEC D-8, J-1, J-2)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import QuerySet

from apps.common import clock
from apps.consent.models import AccessEvent, Connection


# SPEC J-2 (home)
def access_retention_cutoff() -> datetime:
    """Access events from before this moment are forgotten (SPEC J-1).

    Every read leaves them out whether or not the daily prune has run, so nothing depends on it (J-2)."""
    return clock.now() - timedelta(days=settings.ACCESS_EVENT_RETENTION_DAYS)


def retained_access_events(*, using: str | None = None) -> QuerySet[AccessEvent]:
    """``using``: the database to read (SPEC O-4: the history of what assistants were sent tolerates a replica's
    lag wherever it is shown, none of it being the person's own write; ``pinned_tolerating_lag`` chooses)."""
    return AccessEvent.objects.using(using).filter(created_at__gte=access_retention_cutoff())


def access_history(*, connection: Connection, limit: int = 100) -> QuerySet[AccessEvent]:
    return retained_access_events().filter(connection=connection).order_by("-created_at", "-id")[:limit]
