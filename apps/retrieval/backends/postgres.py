"""PostgreSQL: pg_trgm narrows candidates and scores similarity; tsvector ranks whole-word hits (SPEC R-7).

Design notes: docs/design.md.
"""

from __future__ import annotations

import numpy as np
from django.db import connections

from apps.retrieval.backends import kept_texts
from apps.retrieval.backends.base import TRIGRAM, BaseSearchBackend, like_pattern, readable_fields
from apps.retrieval.indexing import is_cjk_pair, query_terms
from apps.retrieval.models import SearchProjection

TRIGRAM_INDEX = "projection_owner_text_trgm"
# Each row's distinct pairs of adjacent CJK characters (generated column, migration 0008) and its
# owner-first index: a two-character Chinese term has no trigram, but it is one pair.
PAIRS_COLUMN = "cjk_pairs"
PAIRS_INDEX = "projection_owner_cjk_pairs"
PAIRS_EXPRESSION = "retrieval_cjk_pairs(text)"
PROJECTION_STAMPS = "retrieval_projectionstamp"  # owner → change stamp of their rows (migration 0006)
RECORD_STAMPS = "retrieval_recordstamp"  # owner → change stamp of their records' currency (migration 0009)
EXTENSIONS = ("pg_trgm", "btree_gin")
# The ``simple`` configuration does not stem or drop stop words: it treats English
# and Chinese alike, and a whole-word hit ranks above a hit inside a word.
TS_CONFIG = "simple"
# Ranking reads only a record's opening text: a tsvector holds at most 1 MiB, and a
# transcript's body can be larger. Matching itself still covers the whole text.
RANKED_CHARS = 100_000
# Each row's to_tsvector(TS_CONFIG, left(text, RANKED_CHARS)), stored by PostgreSQL when
# the row is written (generated column, migration 0004): ranking does not recompute it.
VECTOR_COLUMN = "search_vector"
VECTOR_EXPRESSION = f"to_tsvector('{TS_CONFIG}'::regconfig, left(text, {RANKED_CHARS}))"
# What ``rebuild_index`` restores when missing: name → (what it is, its definition).
COLUMNS = {VECTOR_COLUMN: ("ranking column", f"tsvector GENERATED ALWAYS AS ({VECTOR_EXPRESSION}) STORED"),
           PAIRS_COLUMN: ("CJK pairs column", f"text[] GENERATED ALWAYS AS ({PAIRS_EXPRESSION}) STORED")}
INDEXES = {TRIGRAM_INDEX: ("trigram index", "USING gin (owner_id, text gin_trgm_ops)"),
           PAIRS_INDEX: ("CJK pairs index", f"USING gin (owner_id, {PAIRS_COLUMN})")}


# SPEC R-7 (home)
class PostgresSearchBackend(BaseSearchBackend):
    vendor = "postgresql"
    has_relevance = True  # ts_rank + similarity: ranked for the first RELEVANCE_DEPTH matches
    exact_filter = True  # LIKE, the CJK pairs and strpos all test the normalized text as it is

    def owner_placeholder(self):
        # Typed as the column: btree_gin's operator classes have no cross-type operators, so
        # ``bigint_column = 72`` (an integer literal) could not use the index's owner column.
        column_type = SearchProjection._meta.get_field("owner").target_field.rel_db_type(connections[self.using])
        return f"CAST(%s AS {column_type})"

    def search(self, *, owner_id, query, scopes, offset, limit):
        # The first pass from the scope's texts kept in this process, where its stamps prove them current: a
        # word in every row is found in them in a few milliseconds, not by reading and grouping every row.
        terms = query_terms(query)
        matched = kept_texts.matches(self, owner_id=owner_id, scopes=scopes, terms=terms)
        if matched is None:
            return super().search(owner_id=owner_id, query=query, scopes=scopes, offset=offset, limit=limit)
        return self.ranked_matches(matched, owner_id=owner_id, terms=terms, scopes=scopes, offset=offset, limit=limit)

    # The timestamp's own 8 bytes (microseconds since 2000): exact, and never turned into a datetime.
    stamp_sql = "timestamptz_send(p.updated_at)"

    def vector_scope(self, cursor, sql, params):
        cursor.execute(_packed(sql), params)
        return _pairs(cursor.fetchone()[0])

    def scope_stamp_sql(self, *, owner_id, scopes):
        # The stamps of each scope's records and of the owner's projection rows (migration 0006): the
        # scope's rows, fields and vectors cannot change without one of them changing in the same transaction.
        parts, params, read = [], [], []
        for scope in scopes:
            if not scope.fields:
                continue
            if scope.stamp is None:
                return None
            if scope.stamp in read:
                continue  # one stamp several scopes share (the layer's records stamp) is read once
            read.append(scope.stamp)
            parts.append(f"({scope.stamp[0]})")
            params += scope.stamp[1]
        parts.append(f"ARRAY[(SELECT stamp FROM {PROJECTION_STAMPS} WHERE owner_id = %s)]")
        return " || ".join(parts), [*params, owner_id]

    def records_stamp_sql(self, owner_id):
        # No row until the owner's records first change currency (migration 0009): 0 until then.
        return f"ARRAY[COALESCE((SELECT stamp FROM {RECORD_STAMPS} WHERE owner_id = %s), 0)]", [owner_id]

    def vector_scope_stamped(self, cursor, scope, stamp):
        cursor.execute(f"SELECT {stamp[0]}, ({_packed(scope[0])})", [*stamp[1], *scope[1]])
        now, packed = cursor.fetchone()
        return tuple(now), _pairs(packed)

    def contains(self, term):
        # strpos is never served by the trigram index: used for the per-record check
        # and for short terms, which scan the owner's rows only.
        return "strpos(p.text, %s) > 0", [term]

    def candidate_join(self, long_terms, short_terms):
        return "", []

    def term_filter(self, term):
        sql, param = _indexed_filter("p", term)
        return sql, [param]

    def candidate_filter(self, long_terms, short_terms):
        # LIKE '%term%' on a term of three or more characters is answered by the GIN
        # (owner_id, gin_trgm_ops) index together with the owner; text is already
        # normalized, so LIKE need not fold case. A CJK pair by the pairs index; other
        # short terms read the owner's rows.
        filters = [self.term_filter(term) for term in [*long_terms, *short_terms]]
        return " OR ".join(sql for sql, _ in filters), [param for _, params in filters for param in params]

    def records_with_every_term(self, owner_id, scopes, terms):
        # A record answers only when each term is in one of its readable fields. The records of the longest
        # indexed terms (trigrams, CJK pairs), found by the owner-first indexes, bound the rows read and
        # scored: a common or short term no longer makes the statement score every row of the person's.
        fields, params = readable_fields("q", scopes)
        sql, every = "", []
        for term in self.bounding_terms(terms):
            term_sql, term_param = _indexed_filter("q", term)
            sql += (f" AND (p.resource_type, p.record_id) IN (SELECT q.resource_type, q.record_id FROM {self.table} q"
                    f" WHERE q.owner_id = {self.owner_placeholder()} AND ({fields}) AND {term_sql})")
            every += [owner_id, *params, term_param]
        return (sql, every) if params else ("", [])

    def bounding_terms(self, terms):
        # The longest an index finds (likely the rarest), in query order: LIKE and the CJK pairs test the
        # normalized text exactly as the per-record check's strpos does.
        longest = sorted((term for term in terms if _indexed(term)), key=len, reverse=True)[:BOUNDING_TERMS]
        return [term for term in terms if term in longest]

    def score_expression(self, terms, long_terms):
        tsquery = " || ".join(f"plainto_tsquery('{TS_CONFIG}', %s)" for _ in terms)
        return (
            f"ts_rank(p.{VECTOR_COLUMN}, {tsquery})"
            f" + similarity(left(p.text, {RANKED_CHARS}), %s)",
            [*terms, " ".join(terms)],
        )

    def index_problems(self):
        with connections[self.using].cursor() as cursor:
            missing, indexes, columns = self._state(cursor)
        problems = [f"the {extension} extension is not installed" for extension in missing]
        for name, (what, _) in COLUMNS.items():
            if not columns[name]:
                problems.append(f"the {what} {name} is missing")
        for name, (what, _) in INDEXES.items():
            if indexes[name] is None:
                problems.append(f"the {what} {name} is missing")
            elif not indexes[name]:
                problems.append(f"the {what} {name} is invalid")
        return problems

    def rebuild_index(self) -> None:
        # PostgreSQL keeps its indexes and the generated columns in step transactionally: only what
        # is missing (or an invalid index) needs work, and only that is done.
        with connections[self.using].cursor() as cursor:
            missing, indexes, columns = self._state(cursor)
            for extension in missing:
                cursor.execute(f"CREATE EXTENSION IF NOT EXISTS {extension}")
            for name, (_, definition) in COLUMNS.items():  # before the indexes: one is over a column
                if not columns[name]:
                    cursor.execute(f"ALTER TABLE {self.table} ADD COLUMN {name} {definition}")
            for name, (_, definition) in INDEXES.items():
                if not indexes[name]:
                    cursor.execute(f"DROP INDEX IF EXISTS {name}")  # an invalid one is rebuilt, not kept
                    cursor.execute(f"CREATE INDEX {name} ON {self.table} {definition}")

    def _state(self, cursor) -> tuple[list[str], dict[str, bool | None], dict[str, bool]]:
        """The extensions not installed, whether each index is valid (None: missing), whether each column exists."""
        cursor.execute("SELECT extname FROM pg_extension WHERE extname = ANY(%s)", [list(EXTENSIONS)])
        installed = {row[0] for row in cursor.fetchall()}
        cursor.execute(
            "SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
            " WHERE c.relname = ANY(%s) AND i.indrelid = %s::regclass", [list(INDEXES), self.table])
        valid = dict(cursor.fetchall())
        cursor.execute("SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attname = ANY(%s)"
                       " AND NOT attisdropped", [self.table, list(COLUMNS)])
        present = {row[0] for row in cursor.fetchall()}
        return ([e for e in EXTENSIONS if e not in installed], {name: valid.get(name) for name in INDEXES},
                {name: name in present for name in COLUMNS})


def _indexed(term: str) -> bool:
    """Whether an index finds the rows holding ``term`` (trigrams, or a CJK pair)."""
    return len(term) >= TRIGRAM or is_cjk_pair(term)


# Each bound is a semi-join the planner may order: with more of them, planning costs more than they save.
BOUNDING_TERMS = 2


def _indexed_filter(alias: str, term: str) -> tuple[str, str]:
    """SQL true for a row of ``alias`` holding ``term``, through an index where one serves it, and its parameter."""
    if len(term) >= TRIGRAM:
        return f"{alias}.text LIKE %s", like_pattern(term)
    if is_cjk_pair(term):
        return f"{alias}.{PAIRS_COLUMN} @> ARRAY[%s]::text[]", term
    return f"strpos({alias}.text, %s) > 0", term


def _packed(scope_sql: str) -> str:
    """A statement giving the (id, stamp) rows of ``scope_sql`` as one bytea of big-endian int64 pairs: 20,000
    rows without per-row Python."""
    return f"SELECT string_agg(int8send(s.id) || s.stamp, ''::bytea) FROM ({scope_sql}) s (id, stamp)"


def _pairs(packed) -> tuple[np.ndarray, np.ndarray]:
    pairs = np.frombuffer(bytes(packed or b""), dtype=">i8").reshape(-1, 2).astype(np.int64)
    return np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1])
