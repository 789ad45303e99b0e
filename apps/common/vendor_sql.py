"""A migration operation running SQL written for each database vendor.

Design notes: docs/design.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from django.db import migrations

if TYPE_CHECKING:
    from django.db.backends.base.schema import BaseDatabaseSchemaEditor
    from django.db.migrations.state import StateApps


def run_for_vendor(forward: dict[str, list[str]], backward: dict[str, list[str]]) -> migrations.RunPython:
    return migrations.RunPython(_statements(forward), _statements(backward))


def _statements(by_vendor: dict[str, list[str]]) -> Callable[[StateApps, BaseDatabaseSchemaEditor], None]:
    def run(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
        for statement in by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement)

    return run
