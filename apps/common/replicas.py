"""Reads that tolerate a replica's lag, served by PostgreSQL streaming replicas (SPEC O-4).

Nothing reads a replica unless its caller says the read tolerates lag:

* ``read_tolerating_lag(read)`` — runs ``read()`` with its reads on a replica
  (the internal agents' API, the admin's lists, the access history; the
  assistant path when ``REPLICA_MAX_LAG_SECONDS`` allows, with that bound),
  and once more on the primary if the replica fails while it reads: a
  replica going away costs no answer. Only for reads: ``read`` must write
  nothing, or a retry could write twice;
* ``pinned_tolerating_lag(read)`` — the same for a read whose other
  queries must stay on the primary: ``read(alias)`` pins only its tolerant
  querysets with ``.using(alias)`` (the access history beside a person's
  own data, on the connection page and in the export);
* ``lag_tolerated()`` — the block ``read_tolerating_lag`` runs ``read`` in;
  ``tolerant_alias()`` — the database such a block reads.

Everything else — a person's own pages, every consent decision, every write
and every read inside a transaction on the primary — reads the primary, so a
person always sees their own writes. With no replica configured
(``DATABASE_REPLICA_URLS`` unset) no router is installed and both helpers
answer the primary: nothing changes.

A replica that does not answer is left alone for ``RETRY_SECONDS`` and the
primary serves meanwhile; a bounded block also leaves a replica whose replay
is further behind than its bound (``replica_lag``). Choices are per block: one
block reads one database throughout. docs/deploy.md ("Read replicas").
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import random
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

logger = logging.getLogger(__name__)

# A replica that failed to answer is not asked again for this long (per process).
RETRY_SECONDS = 5.0

# How far behind the primary a replica's data may be, in seconds, as the replica itself can tell:
# 0 when it has replayed everything it received; the age of its last replayed transaction while it
# has more to replay; NULL — unknown, so never within a bound — when it is not streaming (cut off
# from the primary, or promoted). pg_stat_wal_receiver shows its row (the pid) to every role.
LAG_SQL = """
SELECT CASE
    WHEN NOT pg_is_in_recovery() THEN NULL
    WHEN NOT EXISTS (SELECT FROM pg_stat_wal_receiver) THEN NULL
    WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
    ELSE EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp())
END
"""

T = TypeVar("T")

_chosen: contextvars.ContextVar[str | None] = contextvars.ContextVar("replica_chosen", default=None)
_down_until: dict[str, float] = {}


def replica_aliases() -> list[str]:
    return list(getattr(settings, "DATABASE_REPLICAS", []))


def replica_lag(alias: str) -> float | None:
    """Seconds the replica ``alias`` is behind (``LAG_SQL``); None when it cannot tell."""
    with connections[alias].cursor() as cursor:
        cursor.execute(LAG_SQL)
        lag = cursor.fetchone()[0]
    return None if lag is None else float(lag)


def _set_aside(alias: str) -> None:
    _down_until[alias] = time.monotonic() + RETRY_SECONDS
    with contextlib.suppress(DatabaseError):
        connections[alias].close()


def _answers(alias: str) -> bool:
    """Whether ``alias`` is connected and answers; one that does not is skipped for ``RETRY_SECONDS``."""
    if _down_until.get(alias, 0.0) > time.monotonic():
        return False
    db = connections[alias]
    try:
        # Django's own per-request health check, made now rather than at the block's first query, so a
        # replica that went away is found before anything was read from it.
        db.close_if_health_check_failed()
        db.ensure_connection()
    except DatabaseError:
        logger.warning("replica %s does not answer; the primary serves its reads for %ss", alias, RETRY_SECONDS)
        _set_aside(alias)
        return False
    return True


def tolerant_alias(*, max_lag: float | None = None) -> str:
    """A replica that answers (and, with ``max_lag``, is at most that many seconds behind), else the primary.

    Inside a transaction on the primary the primary is the answer: a read there must see its own writes.
    """
    aliases = replica_aliases()
    if not aliases or connections[DEFAULT_DB_ALIAS].in_atomic_block:
        return DEFAULT_DB_ALIAS
    chosen = _chosen.get()
    if chosen is not None and max_lag is None:
        return chosen  # the block's choice: one block reads one database
    for alias in random.sample(aliases, len(aliases)):
        if not _answers(alias):
            continue
        if max_lag is None:
            return alias
        try:
            lag = replica_lag(alias)
        except DatabaseError:
            _set_aside(alias)
            continue
        if lag is not None and lag <= max_lag:
            return alias
    return DEFAULT_DB_ALIAS


@contextlib.contextmanager
def lag_tolerated(*, max_lag: float | None = None) -> Iterator[str]:
    """Within the block, reads go to one replica (``tolerant_alias``); yields the database chosen."""
    alias = tolerant_alias(max_lag=max_lag)
    token = _chosen.set(alias)
    try:
        yield alias
    finally:
        _chosen.reset(token)


def read_tolerating_lag(read: Callable[[], T], *, max_lag: float | None = None) -> T:
    """``read()`` in a ``lag_tolerated`` block; if the replica fails meanwhile, ``read()`` again on the primary.

    ``read`` must only read: it may run twice.
    """
    with lag_tolerated(max_lag=max_lag) as alias:
        if alias == DEFAULT_DB_ALIAS:
            return read()
        try:
            return read()
        except DatabaseError:
            logger.warning("replica %s failed during a read; read again from the primary", alias)
            _set_aside(alias)
    token = _chosen.set(DEFAULT_DB_ALIAS)
    try:
        return read()
    finally:
        _chosen.reset(token)


def pinned_tolerating_lag(read: Callable[[str], T]) -> T:
    """``read(alias)`` with the replica ``tolerant_alias`` chose; if it fails meanwhile, ``read`` on the primary.

    Outside any block: only the querysets ``read`` pins to ``alias`` read the replica. ``read`` may run twice.
    """
    alias = tolerant_alias()
    if alias == DEFAULT_DB_ALIAS:
        return read(alias)
    try:
        return read(alias)
    except DatabaseError:
        logger.warning("replica %s failed during a read; read again from the primary", alias)
        _set_aside(alias)
    return read(DEFAULT_DB_ALIAS)


# SPEC O-4 (home)
class ReplicaRouter:
    """Installed only when replicas are configured (``DATABASE_REPLICA_URLS``; config/settings.py).

    Reads go to the database ``lag_tolerated`` chose for the block they run in, unless a transaction is
    open on the primary; every other read, and every write, goes to the primary.
    """

    def db_for_read(self, model: Any, **hints: Any) -> str | None:
        chosen = _chosen.get()
        if chosen is None or connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return DEFAULT_DB_ALIAS
        return chosen

    def db_for_write(self, model: Any, **hints: Any) -> str:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        return True  # every replica holds the primary's rows

    def allow_migrate(self, db: str, app_label: str, model_name: str | None = None, **hints: Any) -> bool:
        return db == DEFAULT_DB_ALIAS  # a replica replays the primary's schema


class AdminListsOnReplicas:
    """The admin's lists (a changelist, shown by GET) read a replica (SPEC O-4); installed with the router.

    The staff member's session and account are read first, from the primary, and the list is rendered
    inside the block. Its actions (POST) and every other admin page read the primary.
    """

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        return self.get_response(request)

    def process_view(self, request: Any, view: Any, args: Any, kwargs: Any) -> Any:
        match = request.resolver_match
        if (request.method != "GET" or match is None or match.namespace != "admin"
                or not (match.url_name or "").endswith("_changelist")):
            return None
        request.user.is_authenticated  # noqa: B018 - loads the session and the account from the primary

        def listed() -> Any:
            response = view(request, *args, **kwargs)
            return response.render() if callable(getattr(response, "render", None)) else response

        return read_tolerating_lag(listed)
