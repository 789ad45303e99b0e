"""Owner first in the trigram index (SPEC R-7): one GIN index over (owner_id, text gin_trgm_ops).

Every search is one person's. The single-column trigram index of ``0002``
answered ``text LIKE '%term%'`` for the whole table, so a common word's
posting lists held every person's rows (60,000 for "budget" among 1,000,000
rows of 1,000 people) before the owner filter threw all but a few dozen away.
With ``owner_id`` as the first column of the same GIN index (``btree_gin``
supplies the GIN operator class for the integer column), the planner answers
``owner_id = … AND text LIKE …`` inside the index, and a one- or
two-character term is served by the same index's owner entries.

PostgreSQL only; SQLite's FTS5 table is unchanged. Building the index holds
the table's write lock for the build (about 20 s per million rows on two
cores).
"""

from django.db import migrations

from apps.common.vendor_sql import run_for_vendor

TABLE = "retrieval_searchprojection"

POSTGRES_FORWARD = [
    "CREATE EXTENSION IF NOT EXISTS btree_gin",
    f"CREATE INDEX IF NOT EXISTS projection_owner_text_trgm ON {TABLE} USING gin (owner_id, text gin_trgm_ops)",
    "DROP INDEX IF EXISTS projection_text_trgm",
]
POSTGRES_BACKWARD = [
    f"CREATE INDEX IF NOT EXISTS projection_text_trgm ON {TABLE} USING gin (text gin_trgm_ops)",
    "DROP INDEX IF EXISTS projection_owner_text_trgm",
]


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0002_search_indexes")]

    operations = [
        run_for_vendor({"postgresql": POSTGRES_FORWARD}, {"postgresql": POSTGRES_BACKWARD}),
    ]
