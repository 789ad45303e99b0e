"""SQLite (the local default): an FTS5 trigram table over the projection rows (SPEC R-7).

Design notes: docs/design.md.
"""

from __future__ import annotations

from django.db import DatabaseError, connections, transaction

from apps.retrieval.backends.base import BaseSearchBackend

FTS_TABLE = "retrieval_searchprojection_fts"


def fts_phrase(term: str) -> str:
    """A term as an FTS5 phrase: with the trigram tokenizer, a substring match."""
    return '"' + term.replace('"', '""') + '"'


class SQLiteSearchBackend(BaseSearchBackend):
    vendor = "sqlite"

    def contains(self, term):
        return "instr(p.text, %s) > 0", [term]

    def _fts_subquery(self):
        # LIMIT -1 keeps SQLite from flattening the subquery into the join: the index finds the
        # matching rows first, then the join keeps the owner's.
        return f"(SELECT rowid AS rid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s LIMIT -1) m"

    def candidate_join(self, long_terms, short_terms):
        if not long_terms:
            return "", []
        # With only long terms every candidate comes from the index (inner join, which
        # the planner may drive from the FTS side); with short ones too, rows matching
        # only those must survive the join.
        kind = "LEFT JOIN" if short_terms else "JOIN"
        match = " OR ".join(fts_phrase(t) for t in long_terms)
        return f"{kind} {self._fts_subquery()} ON m.rid = p.id", [match]

    def candidate_filter(self, long_terms, short_terms):
        parts = ["m.rid IS NOT NULL"] if long_terms else []
        parts += ["instr(p.text, %s) > 0" for _ in short_terms]
        return " OR ".join(parts), list(short_terms)

    def score_expression(self, terms, long_terms):
        # Nothing beyond the shared coverage score. FTS5's bm25() would weigh each term by how many
        # rows of the whole table contain it — every person's, shared or not — so the order of one
        # caller's matches would move with text that caller may not read (SPEC S-1, R-5).
        return "0", []

    def index_problems(self):
        with connections[self.using].cursor() as cursor:
            cursor.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = %s", [FTS_TABLE])
            if cursor.fetchone() is None:
                return [f"the full-text table {FTS_TABLE} is missing"]
            try:
                with transaction.atomic(using=self.using):
                    cursor.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rank) VALUES ('integrity-check', 1)")
            except DatabaseError:
                return [f"the full-text table {FTS_TABLE} is out of step with the projection"]
        return []

    def rebuild_index(self) -> None:
        with connections[self.using].cursor() as cursor:
            cursor.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')")
