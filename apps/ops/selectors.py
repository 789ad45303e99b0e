"""The service status, read by /mcp and every /me/ page (SPEC D-9, M-10)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from apps.common.statements import constant_rows
from apps.ops.models import ServiceStatus

_FIELDS = ("state", "message", "updated_at")


def service_status() -> ServiceStatus:
    """The current status, read afresh with a statement compiled once; an unset status means open."""
    rows = constant_rows(ServiceStatus, _status_row)
    return ServiceStatus(pk=1, **dict(zip(_FIELDS, rows[0], strict=True))) if rows else ServiceStatus(pk=1)


def _status_row() -> QuerySet[ServiceStatus, tuple[Any, ...]]:
    return ServiceStatus.objects.filter(pk=1).values_list(*_FIELDS)


def service_state_query() -> QuerySet[ServiceStatus, tuple[str, str]]:
    """The status's state and message only, for a reader that reads them with other rows (/mcp's admission)."""
    return ServiceStatus.objects.filter(pk=1).values_list("state", "message")
