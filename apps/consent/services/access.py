"""The record of what each assistant was sent (SPEC D-8, M-11), and its forgetting (SPEC J-1).

On PostgreSQL the record lives in partitions of four weeks (``apps/consent/partitions.py``): this module
keeps the next ones ready and forgets by dropping whole partitions; on SQLite it forgets row by row."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from contextlib import nullcontext
from datetime import datetime

from django.db import IntegrityError, connections, router, transaction

from apps.common import clock
from apps.common.statements import insert
from apps.consent import partitions
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
    now = clock.now()
    row = {"connection": connection.pk, "tool": tool, "facts": entries, "created_at": now}
    database = connections[router.db_for_write(AccessEvent)]
    try:
        # Inside a transaction a failed insert would end it: a savepoint keeps the retry below possible.
        with transaction.atomic(using=database.alias) if database.in_atomic_block else nullcontext():
            insert(AccessEvent, row)
    except IntegrityError as error:
        if getattr(error.__cause__, "sqlstate", None) != partitions.MISSING:
            raise
        # No partition for this moment: the daily task has not run for weeks. Make it, then record.
        logger.warning("no access history partition for %s; creating it", now.isoformat())
        partitions.ensure(covering=[now], connection=database)
        insert(AccessEvent, row)


def access_partitions_ensure(*, now: datetime | None = None) -> list[str]:
    """Make the current access history partition and the next two, if missing (PostgreSQL).

    Idempotent; the daily task and every ``migrate`` call it. Returns the names created."""
    database = connections[router.db_for_write(AccessEvent)]
    if not partitions.partitioned(database):
        return []
    return partitions.ensure_ahead(now=now or clock.now(), connection=database)


def access_events_prune(*, older_than: datetime, batch_size: int = PRUNE_BATCH_SIZE) -> int:
    """Forget access events recorded before ``older_than``; return how many partitions or rows went.

    PostgreSQL: every partition wholly before ``older_than`` is detached (concurrently, so writes go on)
    and dropped; events of the partition that straddles it stay until that whole period has passed, and
    every read leaves them out meanwhile (SPEC J-2). Returns the number of partitions dropped.
    SQLite (one table): deletes the rows in short batches, each its own transaction; returns the rows.
    A run that finds another one in progress returns 0 at once."""
    database = connections[router.db_for_write(AccessEvent)]
    with exclusive("ops.access_events_prune", using=database.alias) as acquired:
        if not acquired:
            logger.info("access event prune already running elsewhere; skipped")
            return 0
        if partitions.partitioned(database):
            return len(partitions.drop_before(cutoff=older_than, connection=database))
        deleted = 0
        stale = AccessEvent.objects.filter(created_at__lt=older_than)
        while ids := list(stale.order_by("pk").values_list("pk", flat=True)[:batch_size]):
            _, per_model = AccessEvent.objects.filter(pk__in=ids).delete()
            deleted += per_model.get(AccessEvent._meta.label, 0)
    logger.info("pruned %d access events older than %s", deleted, older_than.isoformat())
    return deleted
