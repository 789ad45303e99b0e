"""The service status, read by /mcp and every /me/ page (SPEC D-9, M-10)."""

from __future__ import annotations

from apps.ops.models import ServiceStatus


def service_status() -> ServiceStatus:
    """The current status; an unset status means open."""
    return ServiceStatus.objects.filter(pk=1).first() or ServiceStatus(pk=1)
