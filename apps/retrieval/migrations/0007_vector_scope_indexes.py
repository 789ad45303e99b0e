"""The layer's search answered from indexes, not from one table page per row (SPEC S-4, R-5; docs/search.md).

A person's projection rows, and their records, are spread over the whole
tables (written over months, among everyone else's). For a person of 10,000
records among 1,000,000 projection rows, each search read about 13,000
projection pages and 10,000 record pages, most of them twice:

* ``projection_owner_vectors`` (both databases): the vector scope
  (``vector_scope_sql``: owner, model, type, field → id, record, stamp) as an
  index-only scan. Partial: rows without a vector are never compared.
* The ids of a person's current records (PostgreSQL only): every search
  checks each row's record against ``searchable_records`` of its type (owner,
  not deleted; active facts); with ``(owner_id, id)`` over the current rows
  only, that check no longer reads the records themselves.
* The projection table's own autovacuum thresholds (PostgreSQL only): an
  index-only scan skips the table only on pages the visibility map marks
  all-visible, and the planner needs statistics that know the vectors. The
  defaults (20 % of rows changed before a vacuum, 10 % before an analyze) are
  200,000 and 100,000 changed rows at this size; 2 % keeps both within a
  day's embedding.

Building the indexes holds each table's write lock for the build (a few
seconds per million rows on two cores).
"""

from django.conf import settings
from django.db import migrations, models

from apps.common.vendor_sql import run_for_vendor

PROJECTION = "retrieval_searchprojection"
# The tables of the layer's searchable types and what "current" means for each
# (``layer.adapters``: ``current``); the partial index holds exactly those rows.
CURRENT = {
    "memory_calendarevent": "deleted_at IS NULL",
    "memory_contact": "deleted_at IS NULL",
    "memory_digest": "deleted_at IS NULL",
    "memory_episode": "deleted_at IS NULL",
    "memory_intent": "deleted_at IS NULL",
    "memory_todo": "deleted_at IS NULL",
    "memory_transcript": "deleted_at IS NULL",
    "memory_voicememo": "deleted_at IS NULL",
    "memory_fact": "status = 'active'",
}
THRESHOLDS = "autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02"

POSTGRES_FORWARD = [
    *(f"CREATE INDEX IF NOT EXISTS {table}_current_ids ON {table} (owner_id, id) WHERE {condition}"
      for table, condition in CURRENT.items()),
    f"ALTER TABLE {PROJECTION} SET ({THRESHOLDS})",
]
POSTGRES_BACKWARD = [
    f"ALTER TABLE {PROJECTION} RESET (autovacuum_vacuum_scale_factor, autovacuum_analyze_scale_factor)",
    *(f"DROP INDEX IF EXISTS {table}_current_ids" for table in CURRENT),
]


class Migration(migrations.Migration):

    dependencies = [
        ("retrieval", "0006_projection_stamps"),
        ("memory", "0002_fact_evidence_one_line_validator"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddIndex(
            model_name="searchprojection",
            index=models.Index(
                condition=models.Q(("vector_model__isnull", False)),
                fields=["owner", "vector_model", "resource_type", "field"],
                include=("record_id", "id", "updated_at"),
                name="projection_owner_vectors",
            ),
        ),
        run_for_vendor({"postgresql": POSTGRES_FORWARD}, {"postgresql": POSTGRES_BACKWARD}),
    ]
