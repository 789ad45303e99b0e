"""Who is calling /mcp: a bearer token resolved to its connection and effective scopes.

Also SPEC A-4, A-6, A-8. Design notes: docs/design.md.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connections as db_connections
from django.db import router
from oauth2_provider.models import get_access_token_model

from apps.common import clock, statements
from apps.consent.models import Connection

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.models import Model


@dataclass(frozen=True)
class BearerGrant:
    connection: Connection
    scopes: frozenset[str]
    token_id: int


# SPEC C-6 (home)
def authenticate_bearer(raw_token: str) -> BearerGrant | None:
    """The grant behind ``raw_token``, or ``None`` when it must be refused with 401.

    One indexed query, nothing cached: a revoked connection or narrowed scopes count at once (SPEC C-6, C-7).
    """
    if not raw_token:
        return None
    alias = router.db_for_read(Connection)
    db = db_connections[alias]
    sql, params = grant_statement(raw_token, db)
    with db.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return None if row is None else grant_from_row(row, alias)


def grant_statement(raw_token: str, db: BaseDatabaseWrapper) -> tuple[str, list[Any]]:
    """The statement of ``authenticate_bearer`` and its values, for a caller that reads it with others.

    It answers one row or none; the row's columns go to ``grant_from_row``.
    """
    checksum = hashlib.sha256(raw_token.encode("utf-8")).hexdigest()
    return _grant_sql(), [checksum, db.ops.adapt_datetimefield_value(clock.now())]


def grant_from_row(row: Sequence[Any], alias: str) -> BearerGrant | None:
    """The grant of a row of ``grant_statement`` (``None`` for a row of NULLs: no live token matched)."""
    names = _connection_columns()
    if row[0] is None:
        return None
    connection = Connection.from_db(alias, names, _converted(row[: len(names)], db_connections[alias]))
    token_id, token_scope, token_resource = row[len(names):]
    # Tokens that are not bound to /mcp (e.g. the RFC 7592 registration token) are refused.
    if _resource(token_resource) != [settings.MCP_RESOURCE_URL]:
        return None
    scopes = frozenset(token_scope.split()) & frozenset(connection.scopes)
    return BearerGrant(connection=connection, scopes=scopes, token_id=token_id)


def _converted(values: Sequence[Any], db: BaseDatabaseWrapper) -> tuple[Any, ...]:
    """The connection's columns as the ORM would load them (JSON text, datetimes on SQLite …)."""
    return statements.converted(values, _converters(db.alias), db)


@cache
def _converters(alias: str) -> dict:
    db = db_connections[alias]
    converters = {}
    for index, field in enumerate(Connection._meta.concrete_fields):
        column = field.get_col(Connection._meta.db_table)
        if functions := db.ops.get_db_converters(column) + column.get_db_converters(db):  # the ORM's order
            converters[index] = (functions, column)
    return converters


@cache
def _connection_columns() -> list[str]:
    return [field.attname for field in Connection._meta.concrete_fields]


@cache
def _grant_sql() -> str:
    """Written out rather than built by the ORM: compiling the equivalent queryset cost ten times the query.

    Table and column names come from the models, so the SQL follows them.
    """
    token_model, user_model = get_access_token_model(), get_user_model()
    connection_table, token_table = Connection._meta.db_table, token_model._meta.db_table

    def column(model: type[Model], name: str) -> str:
        return f'"{model._meta.get_field(name).column}"'  # type: ignore[union-attr]  # columns only

    connection_columns = ", ".join(f'c."{field.column}"' for field in Connection._meta.concrete_fields)
    return (
        f"SELECT {connection_columns}, t.{column(token_model, 'id')} AS token_id, "
        f"t.{column(token_model, 'scope')} AS token_scope, t.{column(token_model, 'resource')} AS token_resource "
        f'FROM "{token_table}" t JOIN "{connection_table}" c '
        f"ON c.{column(Connection, 'user')} = t.{column(token_model, 'user')} "
        f"AND c.{column(Connection, 'application')} = t.{column(token_model, 'application')} "
        f'JOIN "{user_model._meta.db_table}" u ON u.{column(user_model, user_model._meta.pk.name)} '
        f"= c.{column(Connection, 'user')} AND u.{column(user_model, 'is_active')} "
        f"WHERE t.{column(token_model, 'token_checksum')} = %s AND t.{column(token_model, 'expires')} > %s "
        f"AND c.{column(Connection, 'revoked_at')} IS NULL"
    )


def _resource(value: Any) -> list[str]:
    """The token's RFC 8707 resources (a JSON array; the raw query hands over its text)."""
    if isinstance(value, str | bytes):
        value = json.loads(value)
    return list(value or [])
