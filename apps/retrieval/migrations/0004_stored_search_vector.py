"""The ranking's tsvector, stored with each projection row (SPEC R-7; PostgreSQL only).

Ranking computed ``to_tsvector('simple', left(text, 100000))`` for every
candidate row on every search: for a word 245 of a person's rows contain,
about 4 ms of the statement's 15 ms (docs/performance.md). The same vector is
now a generated column, computed by PostgreSQL when a row is written — by the
indexing service, a bulk load or raw SQL alike — so it can never disagree
with the row's text. It costs about as much space again as the text itself
(1,000,000 rows of about 160 characters: 184 → 393 MB of table).

The expression must stay the one the backend ranks with
(``backends.postgres.TS_CONFIG`` and ``RANKED_CHARS``); a test compares them.
Adding the column rewrites the table under its write lock (about 30 s per
million rows on two cores). SQLite's FTS5 table is unchanged.
"""

from django.db import migrations

from apps.common.vendor_sql import run_for_vendor

TABLE = "retrieval_searchprojection"

POSTGRES_FORWARD = [
    f"ALTER TABLE {TABLE} ADD COLUMN IF NOT EXISTS search_vector tsvector"
    " GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, left(text, 100000))) STORED",
]
POSTGRES_BACKWARD = [f"ALTER TABLE {TABLE} DROP COLUMN IF EXISTS search_vector"]


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0003_owner_trigram_index")]

    operations = [
        run_for_vendor({"postgresql": POSTGRES_FORWARD}, {"postgresql": POSTGRES_BACKWARD}),
    ]
