"""Reads that decide what an assistant may see (SPEC C-1, C-8) — one home for the rule."""

from __future__ import annotations

from functools import lru_cache

from django.core.exceptions import EmptyResultSet
from django.db import connections, router
from django.db.models import F, QuerySet

from apps.consent.models import AccessEvent, Connection, FactShare
from apps.memory.models import Category, Certainty, Fact, FactStatus


def connection_categories(connection: Connection) -> list[str]:
    """The connection's categories that may be shared at all (SPEC D-2)."""
    return [code for code in connection.categories if Category.is_shareable(code)]


def visible_facts(*, connection: Connection) -> QuerySet[Fact]:
    """Facts this connection may see right now, in a stable order (SPEC C-1).

    All must hold: same owner; active; category granted and shareable; not
    sensitive; confirmed; shared with this connection at the fact's current
    version (an edit since sharing hides it, SPEC C-2).
    """
    if connection.revoked_at is not None:
        return Fact.objects.none()
    return _visible(connection.user_id, connection_categories(connection), connection.pk)


def _visible(owner_id: int, categories: list[str], connection_id: int) -> QuerySet[Fact]:
    return Fact.objects.filter(
        owner_id=owner_id,
        status=FactStatus.ACTIVE,
        category__in=categories,
        sensitive=False,
        certainty=Certainty.CONFIRMED,
        shares__connection_id=connection_id,
        shares__fact_version=F("version"),
    ).order_by("id")


def visible_fact_values(*, connection: Connection, fields: tuple[str, ...]) -> list[tuple]:
    """``visible_facts(connection).values_list(*fields)``, run from SQL compiled once per shape.

    The assistant path reads the visible set on every call, and compiling the
    queryset cost more CPU than running it (docs/performance.md). The
    statement is compiled from ``_visible`` itself, with stand-in values that
    no real row can have, so the rule above stays written once; each call
    binds the connection's own values to it and reads the database afresh.
    Falls back to the queryset whenever the compiled form does not carry each
    stand-in exactly once as a parameter.
    """
    if connection.revoked_at is not None:
        return []
    categories = connection_categories(connection)
    database = router.db_for_read(Fact)
    prepared = _prepared(database, len(categories), tuple(fields)) if categories else None
    if prepared is None:
        return list(visible_facts(connection=connection).values_list(*fields))
    sql, params, converters = prepared
    values = {_OWNER: connection.user_id, _CONNECTION: connection.pk}
    values.update(zip(_category_stand_ins(len(categories)), categories, strict=True))
    db = connections[database]
    with db.cursor() as cursor:
        cursor.execute(sql, [values.get(param, param) if isinstance(param, int | str) else param for param in params])
        rows = cursor.fetchall()
    if not converters:
        return [tuple(row) for row in rows]
    converted = []
    for row in rows:
        row = list(row)
        for index, (functions, expression) in converters.items():
            for function in functions:
                row[index] = function(row[index], expression, db)
        converted.append(tuple(row))
    return converted


# Stand-ins for the compiled statement: ids no row can have, category codes no fact can have.
_OWNER, _CONNECTION = -(2**62) - 1, -(2**62) - 2


def _category_stand_ins(count: int) -> list[str]:
    return [f"\x00visible-category-{index}" for index in range(count)]


@lru_cache(maxsize=64)
def _prepared(database: str, category_count: int, fields: tuple[str, ...]):
    stand_ins = _category_stand_ins(category_count)
    queryset = _visible(_OWNER, stand_ins, _CONNECTION).using(database).values_list(*fields)
    compiler = queryset.query.get_compiler(database)
    try:
        sql, params = compiler.as_sql()
    except EmptyResultSet:
        return None
    wanted = [_OWNER, _CONNECTION, *stand_ins]
    bound = [param for param in params if isinstance(param, int | str) and not isinstance(param, bool)]
    if sorted(map(repr, (param for param in bound if param in wanted))) != sorted(map(repr, wanted)):
        return None
    converters = compiler.get_converters([column for column, _, _ in compiler.select])
    return sql, tuple(params), converters


def shareable_facts(*, connection: Connection) -> QuerySet[Fact]:
    """Facts the user could share with this connection (the sharing form's choices)."""
    return Fact.objects.filter(
        owner_id=connection.user_id,
        status=FactStatus.ACTIVE,
        category__in=connection_categories(connection),
        sensitive=False,
        certainty=Certainty.CONFIRMED,
    ).order_by("category", "id")


def shares_for(*, connection: Connection) -> dict[int, int]:
    """fact id → version it was shared at, for this connection."""
    return dict(FactShare.objects.filter(connection=connection).values_list("fact_id", "fact_version"))


def connections_for(*, user) -> QuerySet[Connection]:
    return Connection.objects.filter(user=user).select_related("application").order_by("revoked_at", "-created_at")


def access_history(*, connection: Connection, limit: int = 100) -> QuerySet[AccessEvent]:
    return AccessEvent.objects.filter(connection=connection).order_by("-created_at", "-id")[:limit]
