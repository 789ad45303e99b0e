"""The record of what each assistant was sent (SPEC D-8, M-11), and its forgetting (SPEC J-1)."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime

from apps.common import clock
from apps.common.statements import insert
from apps.consent.models import AccessEvent, Connection
from apps.ops.locks import exclusive

logger = logging.getLogger(__name__)

PRUNE_BATCH_SIZE = 5000


def access_event_record(*, connection: Connection, tool: str, facts: Iterable[tuple[int, int]] = (),
                        refs: Iterable[str] = ()) -> None:
    """Record that ``facts`` (id, version) and memory records (``refs``) reached the connection through ``tool``.

    ``AccessEvent.facts`` holds ``[id, version]`` pairs, then one ``"<type>:<id>"`` per record (SPEC R-11).
    """
    entries: list[list[int] | str] = [[fid, version] for fid, version in facts]
    entries += [str(ref) for ref in dict.fromkeys(refs)]
    insert(AccessEvent, {"connection": connection.pk, "tool": tool, "facts": entries, "created_at": clock.now()})


def access_events_prune(*, older_than: datetime, batch_size: int = PRUNE_BATCH_SIZE) -> int:
    """Delete access events recorded before ``older_than``; return how many were deleted.

    Short batches, each its own transaction; a run that finds another one in progress returns 0 at once."""
    deleted = 0
    with exclusive("ops.access_events_prune") as acquired:
        if not acquired:
            logger.info("access event prune already running elsewhere; skipped")
            return 0
        stale = AccessEvent.objects.filter(created_at__lt=older_than)
        while ids := list(stale.order_by("pk").values_list("pk", flat=True)[:batch_size]):
            _, per_model = AccessEvent.objects.filter(pk__in=ids).delete()
            deleted += per_model.get(AccessEvent._meta.label, 0)
    logger.info("pruned %d access events older than %s", deleted, older_than.isoformat())
    return deleted
