"""Statements the ORM compiles once and the hot paths run on every call.

Design notes: docs/performance.md (How the hot paths are built).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from django.core.exceptions import EmptyResultSet
from django.db import NotSupportedError, connections, router
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from django.db.models import Field, Lookup, Model, QuerySet
from django.db.models.sql import InsertQuery

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper

# Values no row can hold: ids far below any sequence, a UUID no generator issues, text with a NUL.
_INT_STAND_INS = tuple(-(2**62) - n for n in range(1, 9))
_UUID_STAND_IN = uuid.UUID("00000000-0000-0000-0000-00000000f00d")
_STR_STAND_INS = tuple(f"\x00stand-in-{n}" for n in range(16))
_INTS_STAND_IN = (-(2**62) - 100,)  # bound as a list: ids no row has


class AnyOf(Lookup):
    """``lhs = ANY(rhs)`` for a list bound as one array parameter (PostgreSQL only).

    Unlike ``IN (…)``, its text does not change with the number of values, so it can be compiled once.
    """

    lookup_name = "any_of"
    prepare_rhs = False

    def as_sql(self, compiler: Any, connection: BaseDatabaseWrapper) -> tuple[str, Any]:
        if connection.vendor != "postgresql":
            raise NotSupportedError("AnyOf binds an array, which only PostgreSQL takes")
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        return f"{lhs} = ANY({rhs})", [*lhs_params, *rhs_params]


def rows(model: type[Model], build: Callable[..., QuerySet], kinds: tuple[str, ...], *values: Any,
         by_key: bool = False) -> list[tuple] | None:
    """``list(build(*values))`` for a ``values_list`` queryset, from SQL compiled once.

    ``kinds``: each value's kind (``int``, ``str``, ``uuid``, ``ints``); ``by_key``: one plan serves every value.
    """
    alias = router.db_for_read(model)
    found = compiled(build, kinds, alias)
    if found is None:
        return None
    return _fetch(alias, found.sql, found.bind(values), found.converters, by_key)


def constant_rows(model: type[Model], build: Callable[[], QuerySet]) -> list[tuple]:
    """``list(build())`` for a ``values_list`` queryset whose parameters never change, compiled once."""
    found = rows(model, build, ())
    return list(build()) if found is None else found


def constant_sql(model: type[Model], build: Callable[[], QuerySet]) -> tuple[str, tuple]:
    """The compiled SQL and parameters of ``build()``, to run inside another statement."""
    found = compiled(build, (), router.db_for_read(model))
    if found is None:
        raise ValueError("the queryset cannot be compiled on its own")
    return found.sql, found.params


def bound(
    model: type[Model], build: Callable[..., QuerySet], kinds: tuple[str, ...], *values: Any
) -> tuple[str, list] | None:
    """The SQL and parameters of ``build(*values)``, compiled once, to run inside another statement."""
    found = compiled(build, kinds, router.db_for_read(model))
    return None if found is None else (found.sql, found.bind(values))


def converted(values: Sequence, converters: dict, connection: BaseDatabaseWrapper) -> tuple:
    """One fetched row as the ORM would load it (``compiler.get_converters``: JSON text, SQLite datetimes …)."""
    row = list(values)
    for index, (functions, expression) in converters.items():
        for function in functions:
            row[index] = function(row[index], expression, connection)
    return tuple(row)


@contextmanager
def prepared_cursor(connection: Any) -> Iterator:
    """A cursor for a statement whose best plan never depends on the values: PostgreSQL plans it once.

    Only where ``prepare_threshold`` is set (persistent connections), else Django's cursor; docs/performance.md.
    """
    # As Django opens a cursor (BaseDatabaseWrapper._cursor): health check, connection, wrapper.
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    raw = connection.connection
    if connection.vendor != "postgresql" or getattr(raw, "prepare_threshold", None) is None:
        with connection.cursor() as cursor:
            yield cursor
        return
    import psycopg

    connection.validate_thread_sharing()
    with connection.wrap_database_errors:
        server_binding = psycopg.Cursor(raw)
    if connection.timezone is UTC:  # the session's zone is UTC: psycopg's loader answers as Django's
        from psycopg.types.datetime import TimestamptzLoader

        # In C, not Python; on this cursor only: Django's own cursors read their loader's ``timezone``.
        server_binding.adapters.register_loader("timestamptz", TimestamptzLoader)
    wrapped = _LoggedAsWritten(server_binding, connection) if connection.queries_logged else (
        connection.make_cursor(server_binding))
    with wrapped as cursor:
        yield cursor


class _LoggedAsWritten(CursorDebugWrapper):
    """Django's query log, with each statement as written: once prepared, psycopg keeps no text for Django to read."""

    def execute(self, sql: Any, params: Any = None) -> Any:
        with self.debug_sql(sql, params):
            return CursorWrapper.execute(self, sql, params)


def _fetch(alias: str, sql: str, params: list, converters: dict, by_key: bool = False) -> list[tuple]:
    connection = connections[alias]
    with prepared_cursor(connection) if by_key else connection.cursor() as cursor:
        cursor.execute(sql, params)
        fetched = cursor.fetchall()
    if not converters:
        return [tuple(row) for row in fetched]
    return [converted(row, converters, connection) for row in fetched]


class Compiled(NamedTuple):
    """A statement compiled with stand-ins: its SQL, parameters, where each value goes, and its converters."""

    sql: str
    params: tuple
    slots: tuple[tuple[int, type], ...]
    converters: dict

    def bind(self, values: Sequence) -> list:
        """The parameters with ``values`` in place of the stand-ins, in the order of ``kinds``."""
        bound = list(self.params)
        for (index, kind), value in zip(self.slots, values, strict=True):
            if isinstance(value, uuid.UUID) and kind is str:
                value = value.hex if len(self.params[index]) == 32 else str(value)
            bound[index] = value
        return bound


def _stand_ins(kinds: tuple[str, ...]) -> list:
    ints, strings = iter(_INT_STAND_INS), iter(_STR_STAND_INS)
    return [_UUID_STAND_IN if kind == "uuid" else next(strings) if kind == "str" else
            list(_INTS_STAND_IN) if kind == "ints" else next(ints) for kind in kinds]


def _same(param: object, stand_in: object) -> bool:
    if isinstance(stand_in, uuid.UUID):
        return param == stand_in or param == stand_in.hex or param == str(stand_in)
    return type(param) is type(stand_in) and param == stand_in


@lru_cache(maxsize=64)
def compiled(build: Callable[..., QuerySet], kinds: tuple[str, ...], alias: str) -> Compiled | None:
    """``build(*stand_ins)`` compiled for ``alias``; ``None`` when a stand-in is not exactly one parameter
    or the database cannot take the statement.
    """
    stand_ins = _stand_ins(kinds)
    compiler = build(*stand_ins).using(alias).query.get_compiler(alias)
    try:
        sql, params = compiler.as_sql()
    except (EmptyResultSet, NotSupportedError):
        return None
    slots = []
    for stand_in in stand_ins:
        found = [index for index, param in enumerate(params) if _same(param, stand_in)]
        if len(found) != 1:
            return None
        slots.append((found[0], type(params[found[0]])))
    converters = compiler.get_converters([column for column, _, _ in compiler.select])
    return Compiled(sql, tuple(params), tuple(slots), converters)


def insert(model: type[Model], values: dict[str, Any]) -> None:
    """``model.objects.create(**values)`` without compiling the statement or building the instance.

    ``values`` must name every column the row needs; each is prepared by its field as a save would.
    """
    alias = router.db_for_write(model)
    connection = connections[alias]
    names = tuple(values)
    fields = [cast(Field, model._meta.get_field(name)) for name in names]  # columns, never reverse relations
    params = [field.get_db_prep_save(values[name], connection) for field, name in zip(fields, names, strict=True)]
    with prepared_cursor(connection) as cursor:
        cursor.execute(_insert_sql(model, names, alias), params)


@lru_cache(maxsize=32)
def _insert_sql(model: type[Model], names: tuple[str, ...], alias: str) -> str:
    query = InsertQuery(model)
    query.insert_values([cast(Field, model._meta.get_field(name)) for name in names], [model()])
    [(sql, _)] = query.get_compiler(using=alias).as_sql()
    return sql
