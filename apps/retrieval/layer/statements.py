"""Reads the layer makes on every call, compiled once and run with each call's own values.

Every list, search and read page starts with the same few reads (the run's
access, the record asked for), and Django spends more CPU compiling each of
those querysets than the database spends running it. Here a queryset is
built once from the ordinary ORM code with *stand-ins* — values no real row
can have — in place of the call's values, compiled once per database alias,
and then run with each call's values bound where the stand-ins were. Every
run reads the database afresh; only the text of the statement is kept.

When the compiled form does not carry each stand-in exactly once as a
parameter (a queryset that folds or repeats a value), ``rows`` answers
``None`` and the caller runs its queryset as usual.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import lru_cache

from django.core.exceptions import EmptyResultSet
from django.db import connections, router
from django.db.models import Model, QuerySet

# Values no row can hold: ids far below any sequence, and a UUID no generator issues.
_INT_STAND_INS = tuple(-(2**62) - n for n in range(1, 5))
_UUID_STAND_IN = uuid.UUID("00000000-0000-0000-0000-00000000f00d")


def _stand_ins(kinds: tuple[str, ...]) -> list:
    ints = iter(_INT_STAND_INS)
    return [_UUID_STAND_IN if kind == "uuid" else next(ints) for kind in kinds]


def _same(param, stand_in) -> bool:
    if isinstance(stand_in, uuid.UUID):
        return param == stand_in or param == stand_in.hex or param == str(stand_in)
    return type(param) is int and param == stand_in


@lru_cache(maxsize=64)
def _compiled(build: Callable[..., QuerySet], kinds: tuple[str, ...], alias: str):
    stand_ins = _stand_ins(kinds)
    compiler = build(*stand_ins).using(alias).query.get_compiler(alias)
    try:
        sql, params = compiler.as_sql()
    except EmptyResultSet:
        return None
    slots = []
    for stand_in in stand_ins:
        found = [index for index, param in enumerate(params) if _same(param, stand_in)]
        if len(found) != 1:
            return None
        slots.append((found[0], type(params[found[0]])))
    converters = compiler.get_converters([column for column, _, _ in compiler.select])
    return sql, tuple(params), tuple(slots), converters


def rows(model: type[Model], build: Callable[..., QuerySet], kinds: tuple[str, ...], *values) -> list[tuple] | None:
    """``list(build(*values))`` for a ``values_list`` queryset, from SQL compiled once.

    ``kinds`` names each value's kind (``"int"`` or ``"uuid"``); ``build`` must
    be a module-level function (it keys the compiled statement).
    """
    alias = router.db_for_read(model)
    compiled = _compiled(build, kinds, alias)
    if compiled is None:
        return None
    sql, params, slots, converters = compiled
    bound = list(params)
    for (index, kind), value in zip(slots, values, strict=True):
        if isinstance(value, uuid.UUID) and kind is str:
            value = value.hex if len(params[index]) == 32 else str(value)
        bound[index] = value
    connection = connections[alias]
    with connection.cursor() as cursor:
        cursor.execute(sql, bound)
        fetched = cursor.fetchall()
    if not converters:
        return [tuple(row) for row in fetched]
    converted = []
    for row in fetched:
        row = list(row)
        for index, (functions, expression) in converters.items():
            for function in functions:
                row[index] = function(row[index], expression, connection)
        converted.append(tuple(row))
    return converted
