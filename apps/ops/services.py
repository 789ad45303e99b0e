"""Operational writes: the service status (SPEC D-9)."""

from __future__ import annotations

from django.db import transaction

from apps.ops.models import ServiceStatus


@transaction.atomic
def service_status_set(*, state: str, message: str = "") -> ServiceStatus:
    """Open, close or pause the assistant entry point; there is only ever one row (id 1)."""
    if state not in ServiceStatus.State.values:
        raise ValueError(f"unknown service state {state!r}")
    status, _ = ServiceStatus.objects.update_or_create(pk=1, defaults={"state": state, "message": message.strip()})
    return status
