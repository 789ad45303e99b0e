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
alike, over the whole text, in time linear in its length (about 40 µs for a
row of 160 characters, 0.15 s for 80,000 Chinese characters). Adding it
rewrites the table under its write lock (about a minute per million rows on
two cores). ``string_to_table``: PostgreSQL 14 or later.
"""

from django.db import migrations

from apps.common.vendor_sql import run_for_vendor

TABLE = "retrieval_searchprojection"
# Runs of two or more CJK characters (the ranges of ``indexing._CJK``; a test compares them), and each
# character of a run with the next. In one pass: ``substr`` at each position of a long run would walk the
# run from its start every time (80,000 Chinese characters: over a quarter of an hour, not 0.15 s).
FUNCTION = r"""
CREATE OR REPLACE FUNCTION retrieval_cjk_pairs(t text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(DISTINCT pair) FILTER (WHERE pair IS NOT NULL), '{}')
    FROM (SELECT c.ch || lead(c.ch) OVER (PARTITION BY run.k ORDER BY c.n) AS pair
          FROM regexp_matches(t, E'[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]{2,}', 'g')
               WITH ORDINALITY AS run (m, k),
               string_to_table(run.m[1], NULL) WITH ORDINALITY AS c (ch, n)) AS pairs
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
