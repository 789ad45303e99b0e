"""The visible set as one call reads it: digests per category and a window of facts (SPEC C-1, M-4).

The visibility rule's fast path, compiled from ``visibility.visible_query`` so the rule stays written once."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from django.db import connections, router
from django.db.models import QuerySet

from apps.common import statements
from apps.common.memo import BoundedMemo
from apps.consent.models import Connection
from apps.consent.selectors.visibility import (
    connection_categories,
    visible_facts,
    visible_query,
)
from apps.memory.models import Fact

if TYPE_CHECKING:

    pass

# What an assistant is shown of a fact, plus its version (SPEC M-2): the columns of a window read.
WINDOW_FIELDS = ("id", "category", "label", "value", "version", "updated_at")


def visible_fact_values(*, connection: Connection, fields: tuple[str, ...]) -> list[tuple[Any, ...]]:
    """``visible_facts(connection).values_list(*fields)``, run from SQL compiled once per shape.

    Compiled from ``visible_query`` with stand-ins; the queryset runs instead when they do not bind cleanly."""
    if connection.revoked_at is not None:
        return []
    categories = connection_categories(connection)
    found = None
    if categories:
        found = statements.rows(Fact, _visible_build(len(categories), tuple(fields), True),
                                _kinds(len(categories)), *_values(connection, categories))
    return list(visible_facts(connection=connection).values_list(*fields)) if found is None else found


def visible_ids(*, connection: Connection) -> tuple[str, list[Any]] | QuerySet[Fact]:
    """The ids of ``visible_facts(connection)`` for another statement to embed (``SearchScope.records``): its SQL
    and parameters, compiled once per shape; the queryset where nothing is visible or the stand-ins do not bind."""
    categories = connection_categories(connection)
    if connection.revoked_at is None and categories:
        found = statements.bound(Fact, _visible_build(len(categories), ("id",), False), _kinds(len(categories)),
                                 *_values(connection, categories))
        if found is not None:
            return found
    return visible_facts(connection=connection)


@lru_cache(maxsize=64)
def _visible_build(category_count: int, fields: tuple[str, ...], ordered: bool) -> Callable[..., QuerySet[Fact, Any]]:
    """``visible_query`` as ``values_list(*fields)``, one builder per shape (it keys the compiled statement)."""

    def build(owner_id: int, connection_id: int, *categories: str) -> QuerySet[Fact, Any]:
        queryset = visible_query(owner_id, list(categories), connection_id)
        return (queryset if ordered else queryset.order_by()).values_list(*fields)

    return build


def _kinds(category_count: int) -> tuple[str, ...]:
    return ("int", "int", *("str",) * category_count)


def _values(connection: Connection, categories: list[str]) -> list[int | str]:
    return [connection.user_id, connection.pk, *categories]


def _compiled_visible(
    database: str, category_count: int, fields: tuple[str, ...], ordered: bool
) -> statements.Compiled | None:
    build = _visible_build(category_count, fields, ordered)
    return statements.compiled(build, _kinds(category_count), database)


@dataclass(frozen=True)
class CategoryDigest:
    """The visible facts of one category, summed up (SPEC M-4, M-5).

    ``fingerprint``: 16 lowercase hex, the XOR of each visible fact's 64-bit hash, whatever the rows' order."""

    category: str
    count: int
    fingerprint: str
    latest: str  # as shown (``shown_time``)


@dataclass(frozen=True)
class VisibleSetRead:
    """What one read of the visible set returns (SPEC C-1).

    ``categories``: a digest per category with visible facts, by code; ``rows``: the facts' ``WINDOW_FIELDS``."""

    categories: tuple[CategoryDigest, ...]
    rows: tuple[tuple[Any, ...], ...]

    @property
    def count(self) -> int:
        return sum(digest.count for digest in self.categories)

    @property
    def latest(self) -> str | None:
        return max((digest.latest for digest in self.categories), default=None)


EMPTY_READ = VisibleSetRead(categories=(), rows=())


def visible_set_read(
    *, connection: Connection, offset: int = 0, limit: int | None = 0, ids: Sequence[int] | None = None
) -> VisibleSetRead:
    """The category digests of the whole visible set and some of its facts, in ONE statement.

    The facts: ``limit`` (``None``: all) from ``offset`` on in id order, or the visible ones among ``ids``."""
    if connection.revoked_at is not None:
        return EMPTY_READ
    categories = connection_categories(connection)
    if not categories:
        return EMPTY_READ
    database = router.db_for_read(Fact)
    statement = _set_statement(database, len(categories), ids is not None) if _in_database(database) else None
    if statement is None:
        rows = visible_fact_values(connection=connection, fields=WINDOW_FIELDS)
        return visible_set_of(rows, offset=offset, limit=limit, ids=ids)
    sql, (narrow, wide) = statement
    window = [sorted(set(ids))] if ids is not None else [limit, offset]
    values = _values(connection, categories)
    key = (database, connection.pk, tuple(categories))
    known = _known_digests.get(key)  # (stamps, digests) of an earlier read
    known_stamps = known[0] if known is not None else (None, None)
    params = [connection.user_id, connection.pk, *narrow.bind(values), known is not None, *known_stamps,
              *wide.bind(values), *window]
    with connections[database].cursor() as cursor:
        cursor.execute(sql, params)
        result = cursor.fetchall()
    # A row with neither id nor category holds the stamps; one with no id is a category's digest;
    # the others are the facts asked for.
    stamps = next((count, folded) for fid, code, count, folded, *_ in result if fid is None and code is None)
    if known is not None and known_stamps == stamps:  # the database skipped the digests: unchanged
        digests = known[1]
    else:
        digests = tuple(sorted(
            (CategoryDigest(category=code, count=count, fingerprint=f"{folded & _MASK64:016x}", latest=moment)
             for fid, code, count, folded, moment, _, _, _ in result if fid is None and code is not None),
            key=lambda digest: digest.category,
        ))
        _known_digests.put(key, (stamps, digests))
    rows = sorted(
        (fid, code, label, value, version, moment)
        for fid, code, _, _, moment, label, value, version in result if fid is not None
    )
    return VisibleSetRead(categories=digests, rows=tuple(rows))


_MASK64 = 2**64 - 1


def _in_database(database: str) -> bool:
    db = connections[database]
    return db.vendor == "postgresql" and db.pg_version >= 140000  # type: ignore[attr-defined]  # bit_xor(): PostgreSQL 14+


# A fact's 64-bit hash: PostgreSQL's own seeded hash functions (those of hash partitioning:
# deterministic across sessions and platforms) chained over value, label, updated_at (the epoch as a
# double, which keeps every microsecond apart until 2106), version and id.
_FACT_HASH = ('hashint8extended(v."id", hashint8extended(v."version", '
              "hashfloat8extended(date_part('epoch', v.\"updated_at\"), "
              'hashtextextended(v."label", hashtextextended(v."value", 1)))))')


# A time as assistants are shown it (``shown_time``), formatted by the database, which spares
# loading each row's timestamp into Python only to format it again.
_SHOWN = """to_char(({}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')"""
_SHOWN_LATEST, _SHOWN_TIME = _SHOWN.format('max(v."updated_at")'), _SHOWN.format('w."updated_at"')


@lru_cache(maxsize=64)
def _set_statement(database: str, category_count: int, by_ids: bool) -> tuple[str, tuple[Any, ...]] | None:
    """The PostgreSQL statement of ``visible_set_read``, both parts compiled from ``visible_query``.

    Returned with its two parts; parameters: the stand-ins first, then ``limit, offset`` or the id array."""
    narrow = _compiled_visible(database, category_count, ("id", "category", "version", "updated_at", "label", "value"),
                               False)
    wide = _compiled_visible(database, category_count, WINDOW_FIELDS, True)
    if narrow is None or wide is None or narrow.converters or wide.converters:  # not a plain PostgreSQL read
        return None
    tail = 'WHERE w."id" = ANY(%s)' if by_ids else "LIMIT %s OFFSET %s"
    # First the stamps of the set's sources (the owner's facts, the connection's shares); then per
    # category one row without an id (count, folded hashes, latest change) — unless the caller
    # already knows the digests for these very stamps, when the database skips summing up the
    # whole set (a one-time filter); then the facts asked for. Each value is sent once, so reading
    # the result costs what the window holds.
    sql = (
        f"WITH s AS (SELECT ({_STAMP % 'f'}) AS facts, ({_STAMP % 's'}) AS shares) "
        'SELECT NULL::bigint AS "id", NULL AS "category", s.facts, s.shares, NULL, NULL, NULL, NULL::integer FROM s '
        "UNION ALL "
        '(SELECT NULL, v."category", count(*), '
        f'bit_xor({_FACT_HASH}), {_SHOWN_LATEST}, NULL, NULL, NULL '
        f"FROM ({narrow.sql}) v WHERE NOT EXISTS (SELECT 1 FROM s WHERE %s "
        "AND s.facts IS NOT DISTINCT FROM %s::bigint AND s.shares IS NOT DISTINCT FROM %s::bigint) "
        'GROUP BY v."category") '
        "UNION ALL "
        f'(SELECT w."id", w."category", NULL, NULL, {_SHOWN_TIME}, w."label", w."value", w."version" '
        f"FROM ({wide.sql}) w {tail})"
    )
    return sql, (narrow, wide)


# A source's change stamp (migration consent 0003): a new random value in the transaction of any
# statement that writes the owner's facts ('f', keyed by owner) or the connection's shares ('s').
# While both are unchanged the visible set is too, so its digests need not be summed up again.
_STAMP = "SELECT stamp FROM consent_visiblestamp WHERE kind = '%s' AND key = %%s"
_known_digests = BoundedMemo(4096)


def visible_set_stamp(*, connection: Connection) -> tuple[str, list[int]] | None:
    """SQL and parameters of a ``bigint[]`` that changes in the transaction of every write to the sources of
    the connection's visible set (its owner's facts, its shares); None where the database keeps no stamps.

    A reader that kept something derived from the set under this value may reuse it while the value is the
    same and holds no NULL (a source written before the stamps existed). The connection's own categories and
    state are the caller's to key by: they are read with the connection."""
    if connections[router.db_for_read(Fact)].vendor != "postgresql":
        return None
    return f"ARRAY[({_STAMP % 'f'}), ({_STAMP % 's'})]", [connection.user_id, connection.pk]


def visible_set_of(rows: Sequence[tuple[Any, ...]], *, offset: int = 0, limit: int | None = 0,
                   ids: Sequence[int] | None = None) -> VisibleSetRead:
    """``visible_set_read`` computed here from the whole set's ``WINDOW_FIELDS`` rows.

    A fact's hash: the first 8 bytes of the SHA-256 of its JSON ``[id, version, updated_at µs, label, value]``."""
    ordered = sorted(rows, key=lambda row: row[0])
    groups: dict[str, tuple[int, int, datetime]] = {}
    for fid, category, label, value, version, updated_at in ordered:
        fact = json.dumps([fid, version, _microseconds(updated_at), label, value], ensure_ascii=False)
        digest = hashlib.sha256(fact.encode("utf-8", "surrogatepass")).digest()
        count, xor, latest = groups.get(category, (0, 0, updated_at))
        groups[category] = (count + 1, xor ^ int.from_bytes(digest[:8], "big"), max(latest, updated_at))
    digests = tuple(
        CategoryDigest(category=code, count=count, fingerprint=f"{xor:016x}", latest=shown_time(latest))
        for code, (count, xor, latest) in sorted(groups.items())
    )
    if ids is not None:
        wanted = set(ids)
        window = [row for row in ordered if row[0] in wanted]
    else:
        window = ordered[offset:] if limit is None else ordered[offset : offset + limit]
    return VisibleSetRead(categories=digests, rows=tuple((*row[:5], shown_time(row[5])) for row in window))


def shown_time(moment: datetime) -> str:
    """A time as assistants are shown it: ISO 8601 in UTC, to the second (``_SHOWN`` in SQL)."""
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _microseconds(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(microseconds=1)
