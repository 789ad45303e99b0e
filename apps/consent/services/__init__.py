"""Writes that change who may see what. Each is one transaction."""

from apps.consent.services.access import access_event_record
from apps.consent.services.connections import (
    ConsentError,
    connection_authorize,
    connection_narrow,
    connection_revoke,
    connection_touch,
)
from apps.consent.services.shares import shares_set

__all__ = [
    "ConsentError",
    "access_event_record",
    "connection_authorize",
    "connection_narrow",
    "connection_revoke",
    "connection_touch",
    "shares_set",
]
