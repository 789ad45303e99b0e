"""The record of what each assistant was sent (SPEC D-8, M-11)."""

from __future__ import annotations

from collections.abc import Iterable

from apps.common import clock
from apps.consent.models import AccessEvent, Connection


def access_event_record(*, connection: Connection, tool: str, facts: Iterable[tuple[int, int]]) -> AccessEvent:
    """Record that ``facts`` (id, version) reached the connection through ``tool``."""
    return AccessEvent.objects.create(
        connection=connection, tool=tool, facts=[[fid, version] for fid, version in facts], created_at=clock.now()
    )
