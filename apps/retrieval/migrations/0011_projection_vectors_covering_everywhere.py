"""The vector scope's index covers its query on SQLite too (SPEC S-4; apps/common/indexes.py).

SQLite has no non-key columns: it built ``projection_owner_vectors`` without
the ``INCLUDE`` columns of 0007 (Django's ``models.W040`` on every start), so
the vector scope read the table once per row there. The index now appends
them to its key where the database has no ``INCLUDE``. PostgreSQL's index is
the same as before and is left alone: only the migration state changes.
"""

from django.conf import settings
from django.db import migrations, models

import apps.common.indexes

FIELDS = ["owner", "vector_model", "resource_type", "field"]
COVERED = ("record_id", "id", "updated_at")
CONDITION = models.Q(("vector_model__isnull", False))
OLD = models.Index(fields=FIELDS, include=COVERED, condition=CONDITION, name="projection_owner_vectors")
NEW = apps.common.indexes.CoveringIndex(fields=FIELDS, covering=COVERED, condition=CONDITION,
                                        name="projection_owner_vectors")


def _rebuild(drop, build):
    def run(apps, schema_editor):
        if schema_editor.connection.features.supports_covering_indexes:
            return  # the same index either way
        model = apps.get_model("retrieval", "SearchProjection")
        schema_editor.remove_index(model, drop)
        schema_editor.add_index(model, build)

    return run


class Migration(migrations.Migration):

    dependencies = [
        ("retrieval", "0010_projection_statistics"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveIndex(model_name="searchprojection", name="projection_owner_vectors"),
                migrations.AddIndex(model_name="searchprojection", index=NEW),
            ],
            database_operations=[migrations.RunPython(_rebuild(OLD, NEW), _rebuild(NEW, OLD))],
        ),
    ]
