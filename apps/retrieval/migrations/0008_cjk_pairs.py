"""Two-character Chinese terms found through an index (SPEC S-3, R-7; PostgreSQL only).

Most Chinese words are two characters (周报, 签证, 复盘), and trigrams cannot
serve a two-character term: such a search read every one of the person's
projection rows and looked for the term in each (22,000 rows, 20 ms of a
layer search at 1,000,000 rows; docs/search.md "Speed and memory"). Each row
now stores the distinct pairs of adjacent CJK characters (Han, kana, Hangul:
``indexing._CJK``) of its normalized text, and an owner-first GIN index
answers "which of this person's rows hold the pair". A row holds a
two-character CJK term exactly when the pair is among them, so matching is
unchanged; single characters and other short terms still read the person's
rows.

A generated column, as the ranking's tsvector (``0004``): PostgreSQL computes
it whenever a row is written, by the indexing service, a bulk load or raw SQL
alike, over the whole text. Adding it rewrites the table under its write lock
(about 50 s per million rows on two cores).
"""

from django.db import migrations

from apps.common.vendor_sql import run_for_vendor

TABLE = "retrieval_searchprojection"
# Runs of two or more CJK characters (the ranges of ``indexing._CJK``; a test compares them), and each
# run's overlapping pairs.
FUNCTION = r"""
CREATE OR REPLACE FUNCTION retrieval_cjk_pairs(t text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(DISTINCT substr(run.m[1], i, 2)), '{}')
    FROM regexp_matches(t, E'[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]{2,}', 'g') AS run (m),
         generate_series(1, length(run.m[1]) - 1) AS i
$$"""

POSTGRES_FORWARD = [
    FUNCTION,
    f"ALTER TABLE {TABLE} ADD COLUMN IF NOT EXISTS cjk_pairs text[]"
    " GENERATED ALWAYS AS (retrieval_cjk_pairs(text)) STORED",
    f"CREATE INDEX IF NOT EXISTS projection_owner_cjk_pairs ON {TABLE} USING gin (owner_id, cjk_pairs)",
]
POSTGRES_BACKWARD = [
    "DROP INDEX IF EXISTS projection_owner_cjk_pairs",
    f"ALTER TABLE {TABLE} DROP COLUMN IF EXISTS cjk_pairs",
    "DROP FUNCTION IF EXISTS retrieval_cjk_pairs(text)",
]


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0007_vector_scope_indexes")]

    operations = [
        run_for_vendor({"postgresql": POSTGRES_FORWARD}, {"postgresql": POSTGRES_BACKWARD}),
    ]
