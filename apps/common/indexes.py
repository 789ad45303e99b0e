"""An index that answers its reads alone on every database the product runs on.

PostgreSQL keeps columns that are only read, never searched, as non-key
columns (``INCLUDE``). SQLite has no such thing and would drop them
(``models.W040``), leaving an index that no longer covers its query: every
row found would cost a read of the table. There the same columns are
appended to the key, which SQLite can read back from the index just as well.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import models


class CoveringIndex(models.Index):
    """``Index(fields=…, include=covering)`` where the database has non-key columns, ``fields + covering`` elsewhere."""

    def __init__(self, *args: Any, covering: Sequence[str] = (), **kwargs: Any) -> None:
        if kwargs.get("include"):
            raise ValueError("CoveringIndex takes the read-only columns as covering=, not include=")
        if not covering:
            raise ValueError("CoveringIndex needs the columns it covers (covering=)")
        super().__init__(*args, **kwargs)
        self.covering = tuple(covering)

    def deconstruct(self) -> tuple[str, Sequence[Any], dict[str, Any]]:
        path, args, kwargs = super().deconstruct()
        kwargs["covering"] = self.covering
        return path, args, kwargs

    def spelled_for(self, connection: Any) -> models.Index:
        """The plain index this one is on ``connection``'s database."""
        if connection.features.supports_covering_indexes:
            fields, include = list(self.fields), self.covering
        else:
            fields, include = [*self.fields, *(c for c in self.covering if c not in self.fields)], ()
        return models.Index(fields=fields, include=include, name=self.name, db_tablespace=self.db_tablespace,
                            opclasses=self.opclasses, condition=self.condition)

    def create_sql(self, model: Any, schema_editor: Any, using: str = "", **kwargs: Any) -> Any:
        return self.spelled_for(schema_editor.connection).create_sql(model, schema_editor, using=using, **kwargs)
