"""A migration operation running SQL written for each database vendor.

Design notes: docs/design.md.
"""

from __future__ import annotations

from django.db import migrations


def run_for_vendor(forward: dict[str, list[str]], backward: dict[str, list[str]]) -> migrations.RunPython:
    return migrations.RunPython(_statements(forward), _statements(backward))


def _statements(by_vendor: dict[str, list[str]]):
    def run(apps, schema_editor):
        for statement in by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement)

    return run
