"""The planner told that a person's rows are of a few types and fields (SPEC S-1, R-5; PostgreSQL only).

Every search names its owner, and each scope's type and fields. The planner
multiplied their shares as if independent: for a person whose 20,000 rows are
nearly all facts, among 1,000,000 rows of 46 people, it expected 1 row where
20,000 came, and checked each matching row's visibility in a nested loop
(``note`` in every fact: 82 ms, against 38 ms once it knew). Extended
statistics over ``(owner_id, resource_type, field)`` — their functional
dependencies and most common combinations — are kept by every ``ANALYZE``
(autovacuum's thresholds: migration ``0007``).
"""

from django.db import migrations

from apps.common.vendor_sql import run_for_vendor

TABLE = "retrieval_searchprojection"
STATISTICS = "projection_owner_type_field"

POSTGRES_FORWARD = [
    f"CREATE STATISTICS IF NOT EXISTS {STATISTICS} (dependencies, mcv) ON owner_id, resource_type, field FROM {TABLE}",
    f"ANALYZE {TABLE}",
]
POSTGRES_BACKWARD = [f"DROP STATISTICS IF EXISTS {STATISTICS}"]


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0009_record_currency_stamps")]

    operations = [
        run_for_vendor({"postgresql": POSTGRES_FORWARD}, {"postgresql": POSTGRES_BACKWARD}),
    ]
