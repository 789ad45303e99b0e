"""The access history's time partitions on PostgreSQL (SPEC D-8): their bounds, names, creation and removal.

``consent_accessevent`` is range-partitioned by ``created_at`` into periods of four weeks (from a Monday
00:00 UTC). The product keeps them itself, without an extension: the next periods are created ahead of need
by a daily task and on every ``migrate``, and a write that finds its period missing creates it (SPEC M-11:
nothing is sent unrecorded). A period wholly past the retention is detached and dropped as a whole.

Why four weeks: every read of a connection's history plans and opens each partition of the retention
(400 days: about 15 of four weeks); with weekly ones (about 58) a history page took twice as long at 20
million events (docs/performance.md), while the period being written stays small enough for its indexes
to be cached at a million people.

Locks, chosen so that an assistant's call never waits on this module:

* a partition is created as a plain table and then ``ATTACH``ed, which takes ``SHARE UPDATE EXCLUSIVE``
  on the history (``CREATE TABLE … PARTITION OF`` would take ``ACCESS EXCLUSIVE`` and stop every read
  and write of it for as long as it waits);
* a partition leaves by ``DETACH … CONCURRENTLY`` (the same weak lock; it waits for the transactions
  that may still read the partition, never blocks new ones), then ``DROP`` of what is by then a table
  of its own;
* the history has no database foreign key to connections (Django's ``on_delete`` still deletes a
  connection's events with it): dropping a table with a foreign key takes ``ACCESS EXCLUSIVE`` on the
  table it refers to, and every call reads ``consent_connection``.

Operating notes: docs/deploy.md ("The access history's partitions"); measurements: docs/performance.md.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db import connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper

logger = logging.getLogger(__name__)

TABLE = "consent_accessevent"
SPAN = timedelta(weeks=4)  # fixed once a database has partitions: each one's end is read as start + SPAN
ORIGIN = datetime(2001, 1, 1, tzinfo=UTC)  # a Monday: every partition starts on one, at 00:00 UTC
AHEAD = timedelta(weeks=8)  # kept ready after the current period: two more
_NAME = re.compile(rf"^{TABLE}_p(\d{{8}})$")
_LOCK = int.from_bytes(hashlib.sha256(b"consent.access_partitions").digest()[:8], "big", signed=True)
MISSING = "23514"  # check_violation: PostgreSQL's SQLSTATE for "no partition of relation … found for row"


@dataclass(frozen=True)
class Partition:
    name: str
    start: datetime
    pending: bool = False  # detached concurrently by a run that stopped before the end

    @property
    def end(self) -> datetime:
        return self.start + SPAN


def period_of(moment: datetime) -> datetime:
    """The start of the partition holding ``moment``."""
    return ORIGIN + SPAN * ((moment - ORIGIN) // SPAN)


def name_of(start: datetime) -> str:
    return f"{TABLE}_p{start:%Y%m%d}"


def start_of(name: str) -> datetime | None:
    match = _NAME.match(name)
    return datetime.strptime(match.group(1), "%Y%m%d").replace(tzinfo=UTC) if match else None


def partitioned(connection: BaseDatabaseWrapper | None = None) -> bool:
    """Whether the history is a partitioned table here (PostgreSQL after its migration)."""
    connection = connection or connections["default"]
    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT relkind FROM pg_class WHERE oid = to_regclass(%s)", [TABLE])
        row = cursor.fetchone()
    return row is not None and row[0] == "p"


def attached(connection: BaseDatabaseWrapper) -> list[Partition]:
    """The partitions of the history, oldest first (one left half-detached by a stopped run included)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, i.inhdetachpending FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "WHERE i.inhparent = to_regclass(%s)", [TABLE])
        rows = cursor.fetchall()
    return sorted((Partition(name, start, pending) for name, pending in rows if (start := start_of(name))),
                  key=lambda p: p.start)


def _detached(connection: BaseDatabaseWrapper) -> list[Partition]:
    """Tables of former partitions a stopped run detached but did not drop."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_class c WHERE c.relkind = 'r' AND c.relname LIKE %s "
            "AND c.relnamespace = to_regnamespace(current_schema()) "
            "AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = c.oid)", [f"{TABLE}_p%"])
        names = [name for (name,) in cursor.fetchall()]
    return [Partition(name, start) for name in names if (start := start_of(name))]


def periods(since: datetime, until: datetime) -> list[datetime]:
    """The start of every period from the one holding ``since`` to the one holding ``until``."""
    start, starts = period_of(since), []
    while start <= until:
        starts.append(start)
        start += SPAN
    return starts


def ensure(*, covering: Iterable[datetime], connection: BaseDatabaseWrapper | None = None) -> list[str]:
    """Create the partition of the period of every moment in ``covering`` where missing; idempotent.

    Return the names created. Takes a transaction-level advisory lock, so concurrent callers create each
    partition once; in autocommit each partition is its own short transaction.
    """
    connection = connection or connections["default"]
    starts = sorted({period_of(moment) for moment in covering})
    present = {p.start for p in attached(connection)} if starts else set()
    created = [name_of(start) for start in starts if start not in present and _create(connection, start)]
    if created:
        logger.info("created access history partitions %s", ", ".join(created))
    return created


def _create(connection: BaseDatabaseWrapper, start: datetime) -> bool:
    name, end = name_of(start), start + SPAN
    with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK])
        cursor.execute("SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass(%s)", [name])
        if cursor.fetchone():
            return False  # another process made it while this one waited
        cursor.execute(f"DROP TABLE IF EXISTS {name}")  # a former partition, detached and never dropped
        cursor.execute(f"CREATE TABLE {name} (LIKE {TABLE} INCLUDING DEFAULTS INCLUDING STORAGE "
                       "INCLUDING COMPRESSION)")
        cursor.execute(f"ALTER TABLE {TABLE} ATTACH PARTITION {name} "
                       f"FOR VALUES FROM ('{start.isoformat()}') TO ('{end.isoformat()}')")
    return True


def ensure_ahead(*, now: datetime, connection: BaseDatabaseWrapper | None = None) -> list[str]:
    """The current period's partition and those ``AHEAD`` (the daily task, and ``migrate``)."""
    return ensure(covering=periods(now, now + AHEAD), connection=connection)


def drop_before(*, cutoff: datetime, connection: BaseDatabaseWrapper | None = None) -> list[str]:
    """Detach and drop every partition wholly before ``cutoff``; return their names.

    In autocommit (the scheduled task) each leaves by ``DETACH … CONCURRENTLY``, which does not block
    writes; inside a transaction (which ``CONCURRENTLY`` refuses) by a plain ``DETACH``.
    """
    connection = connection or connections["default"]
    dropped = []
    concurrently = connection.get_autocommit()
    for partition in attached(connection):
        if partition.end > cutoff:
            break
        with connection.cursor() as cursor:
            if partition.pending:  # a run stopped mid-way: complete its detach
                cursor.execute(f"ALTER TABLE {TABLE} DETACH PARTITION {partition.name} FINALIZE")
            elif concurrently:
                cursor.execute(f"ALTER TABLE {TABLE} DETACH PARTITION {partition.name} CONCURRENTLY")
            else:
                cursor.execute(f"ALTER TABLE {TABLE} DETACH PARTITION {partition.name}")
            cursor.execute(f"DROP TABLE {partition.name}")
        dropped.append(partition.name)
    for partition in _detached(connection):
        if partition.end <= cutoff:
            with connection.cursor() as cursor:
                cursor.execute(f"DROP TABLE IF EXISTS {partition.name}")
            dropped.append(partition.name)
    if dropped:
        logger.info("dropped access history partitions %s", ", ".join(dropped))
    return dropped
