"""Statements the ORM compiles once and the assistant path runs on every call.

Compiling a queryset or an insert costs Django more CPU than the database
spends running it, and /mcp runs a few on every call (docs/performance.md).
The SQL still comes from the models and querysets — nothing here is written
by hand — and every run reads or writes the database afresh: only the text
of the statement is kept, per database alias.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from django.db import connections, router
from django.db.models import Model, QuerySet
from django.db.models.sql import InsertQuery


def constant_rows(build: Callable[[], QuerySet]) -> list[tuple]:
    """``list(build())`` for a ``values_list`` queryset whose parameters never change, compiled once."""
    alias = router.db_for_read(_model_of(build))
    sql, params, converters = _compiled_read(build, alias)
    connection = connections[alias]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    if not converters:
        return [tuple(row) for row in rows]
    converted = []
    for row in rows:
        row = list(row)
        for index, (functions, expression) in converters.items():
            for function in functions:
                row[index] = function(row[index], expression, connection)
        converted.append(tuple(row))
    return converted


@lru_cache(maxsize=32)
def _model_of(build: Callable[[], QuerySet]) -> type[Model]:
    return build().model


@lru_cache(maxsize=32)
def _compiled_read(build: Callable[[], QuerySet], alias: str):
    compiler = build().using(alias).query.get_compiler(alias)
    sql, params = compiler.as_sql()
    return sql, params, compiler.get_converters([column for column, _, _ in compiler.select])


def insert(model: type[Model], values: dict[str, Any]) -> None:
    """``model.objects.create(**values)`` without compiling the statement or building the instance.

    ``values`` must name every column the row needs (no defaults are filled
    in); each value is prepared by its field exactly as a save would do it.
    """
    alias = router.db_for_write(model)
    connection = connections[alias]
    names = tuple(values)
    params = [model._meta.get_field(name).get_db_prep_save(values[name], connection) for name in names]
    with connection.cursor() as cursor:
        cursor.execute(_insert_sql(model, names, alias), params)


@lru_cache(maxsize=32)
def _insert_sql(model: type[Model], names: tuple[str, ...], alias: str) -> str:
    query = InsertQuery(model)
    query.insert_values([model._meta.get_field(name) for name in names], [model()])
    [(sql, _)] = query.get_compiler(using=alias).as_sql()
    return sql
