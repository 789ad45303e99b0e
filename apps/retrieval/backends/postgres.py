"""PostgreSQL: pg_trgm narrows candidates and scores similarity; tsvector ranks whole-word hits (SPEC R-7)."""

from __future__ import annotations

from django.db import connections

from apps.retrieval.backends.base import BaseSearchBackend, like_pattern

TRIGRAM_INDEX = "projection_text_trgm"
# The ``simple`` configuration does not stem or drop stop words: it treats English
# and Chinese alike, and a whole-word hit ranks above a hit inside a word.
TS_CONFIG = "simple"
# Ranking reads only a record's opening text: a tsvector holds at most 1 MiB, and a
# transcript's body can be larger. Matching itself still covers the whole text.
RANKED_CHARS = 100_000


class PostgresSearchBackend(BaseSearchBackend):
    vendor = "postgresql"

    def contains(self, term):
        # strpos is never served by the trigram index: used for the per-record check
        # and for short terms, which scan the owner's rows only.
        return "strpos(p.text, %s) > 0", [term]

    def candidate_join(self, long_terms, short_terms):
        return "", []

    def candidate_filter(self, long_terms, short_terms):
        # LIKE '%term%' on a term of three or more characters is answered by the GIN
        # (gin_trgm_ops) index; text is already normalized, so LIKE need not fold case.
        parts = ["p.text LIKE %s" for _ in long_terms] + ["strpos(p.text, %s) > 0" for _ in short_terms]
        return " OR ".join(parts), [like_pattern(t) for t in long_terms] + list(short_terms)

    def score_expression(self, terms, long_terms):
        tsquery = " || ".join(f"plainto_tsquery('{TS_CONFIG}', %s)" for _ in terms)
        return (
            f"ts_rank(to_tsvector('{TS_CONFIG}', left(p.text, {RANKED_CHARS})), {tsquery})"
            f" + similarity(left(p.text, {RANKED_CHARS}), %s)",
            [*terms, " ".join(terms)],
        )

    def index_problems(self):
        problems = []
        with connections[self.using].cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'")
            if cursor.fetchone() is None:
                problems.append("the pg_trgm extension is not installed")
            cursor.execute("SELECT 1 FROM pg_indexes WHERE tablename = %s AND indexname = %s",
                           [self.table, TRIGRAM_INDEX])
            if cursor.fetchone() is None:
                problems.append(f"the trigram index {TRIGRAM_INDEX} is missing")
        return problems

    def rebuild_index(self):
        # PostgreSQL keeps its indexes in step transactionally; only a missing one needs work.
        if not self.index_problems():
            return
        with connections[self.using].cursor() as cursor:
            cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            cursor.execute(
                f"CREATE INDEX IF NOT EXISTS {TRIGRAM_INDEX} ON {self.table} USING gin (text gin_trgm_ops)"
            )
