"""The search backend interface (SPEC R-6, R-7, S-3).

Design notes: docs/design.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db.models import QuerySet

from apps.common.statements import prepared_cursor
from apps.retrieval.embeddings.base import EMBEDDED_CHARS
from apps.retrieval.indexing import query_terms, script
from apps.retrieval.models import SearchProjection
from apps.retrieval.registry import indexed_type

# Trigram indexes (pg_trgm, FTS5 "trigram") can only serve terms this long.
TRIGRAM = 3
SCORE_SCALE = 1_000_000
# SPEC S-3: the matches ranked with the database's own relevance, the best by coverage first; the
# rest follow by coverage alone (docs/search.md "Matching and ranking").
RELEVANCE_DEPTH = 200


@dataclass(frozen=True)
class SearchScope:
    """What a caller may search in one resource type.

    ``fields``: the readable JSON Pointers; ``records``: the records it may see (queryset, or SQL and parameters);
    ``stamp``: SQL and parameters of a ``bigint[]`` that takes a new value in the transaction of every write
    that may change ``records`` (None: not known, and a search by meaning lists the rows in scope every time).
    """

    resource_type: str
    fields: tuple[str, ...]
    records: QuerySet | tuple[str, list]
    stamp: tuple[str, list] | None = None


@dataclass(frozen=True)
class SearchHit:
    resource_type: str
    record_id: int
    score: float


class KnownMatches(Protocol):
    """Every match of a first pass done outside the database, best first by the shared score."""

    def __len__(self) -> int: ...

    def __getitem__(self, part: slice) -> list[SearchHit]: ...

    def scoring_rows(self, records: int) -> list[int]:
        """The ids of the rows that score (readable, holding a term) of the first ``records`` matches."""
        ...


class BaseSearchBackend:
    vendor = ""
    table = SearchProjection._meta.db_table
    float_sql = "CAST(%s AS DOUBLE PRECISION)"
    # Whether ``score_expression`` adds a relevance of the database's own (else it is 0).
    has_relevance = False
    # Whether ``candidate_filter`` of one term keeps exactly the rows that ``contains`` it.
    exact_filter = False

    def __init__(self, using: str = "default") -> None:
        self.using = using

    # --- The shared query ------------------------------------------------------

    def search(
        self, *, owner_id: int, query: str, scopes: Sequence[SearchScope], offset: int, limit: int
    ) -> list[SearchHit]:
        """The ``limit`` best matches from ``offset`` on, best first."""
        built = self.search_sql(owner_id=owner_id, query=query, scopes=scopes, offset=offset, limit=limit)
        if built is None:
            return []
        sql, params = built
        with connections[self.using].cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        return [SearchHit(kind, int(record_id), score / SCORE_SCALE) for kind, record_id, score in rows]

    def search_sql(
        self, *, owner_id: int, query: str, scopes: Sequence[SearchScope], offset: int, limit: int
    ) -> tuple[str, list] | None:
        """The one SQL statement of a search, or None when nothing can match."""
        terms = query_terms(query)
        scope = self._scope_clause(scopes)
        if not terms or scope is None:
            return None
        long_terms = [t for t in terms if len(t) >= TRIGRAM]
        short_terms = [t for t in terms if len(t) < TRIGRAM]

        # One term that the filter finds exactly: every candidate row holds it, so it is not looked for again.
        single = len(terms) == 1 and self.exact_filter
        weight_sql, weight_params = self._weight_expression(scopes)
        score_sql, score_params = self._coverage_expression(terms, single=single)
        extra_sql, extra_params = self.score_expression(terms, long_terms)
        join_sql, join_params = self.candidate_join(long_terms, short_terms)
        match_sql, match_params = self.candidate_filter(long_terms, short_terms)
        every_sql, every_params = self.records_with_every_term(owner_id, scopes, terms) if len(terms) > 1 \
            else ("", [])
        bound = self.bounding_terms(terms) if every_sql else []
        having, having_params = [], []  # a record holds every term the bound leaves
        for term in terms if not single else ():
            if term in bound:
                continue
            contains_sql, contains_params = self.contains(term)
            having.append(f"MAX(CASE WHEN {contains_sql} THEN 1 ELSE 0 END) = 1")
            having_params += contains_params
        having_sql = " AND ".join(having) or "TRUE"
        if self.has_relevance:
            return self._two_pass_sql(
                owner_id=owner_id, terms=terms, scopes=scopes, scope=scope, weight=(weight_sql, weight_params),
                coverage=(score_sql, score_params), join=(join_sql, join_params),
                match=(f"({match_sql}){every_sql}", [*match_params, *every_params]),
                having=(having_sql, having_params), offset=offset, limit=limit)

        sql = (
            "SELECT resource_type, record_id, score FROM ("
            f" SELECT p.resource_type, p.record_id,"
            f" ROUND(SUM({weight_sql} * ({score_sql} + {extra_sql})) * {SCORE_SCALE}) AS score"
            f" FROM {self.table} p {join_sql}"
            f" WHERE p.owner_id = {self.owner_placeholder()} AND ({scope[0]}) AND ({match_sql}){every_sql}"
            " GROUP BY p.resource_type, p.record_id"
            f" HAVING {having_sql}"
            ") hits ORDER BY score DESC, resource_type, record_id LIMIT %s OFFSET %s"
        )
        params = [
            *weight_params, *score_params, *extra_params, *join_params,
            owner_id, *scope[1], *match_params, *every_params, *having_params, limit, offset,
        ]
        return sql, params

    def _two_pass_sql(self, *, owner_id, terms, scopes, scope, weight, coverage, join, match, having, offset, limit):
        """``search_sql`` where the database adds its own relevance, which costs far more per row than
        coverage (pg_trgm's ``similarity`` builds both texts' trigrams on every call).

        PostgreSQL's SQL (``LATERAL``). The records are ordered by the shared score without the relevance
        (``r``); the first ``RELEVANCE_DEPTH`` get the whole score, as one pass gave every match, and come
        first; the rest follow by the shared score. A score only grows with the relevance, so the list stays
        best first; with no more than ``RELEVANCE_DEPTH`` matches the order is one pass's. ``own``: SQL true
        for a row of ``p`` in a readable field that the match keeps (of a record already in scope).
        """
        owner = f"p.owner_id = {self.owner_placeholder()}"
        # A record must hold every term: a term no readable visible row holds ends the search before any
        # row is scored (``the`` is in thousands of rows, ``user`` often in none). Each is asked once, under
        # the records' rule: a word only in rows the caller may not see ends the search as a word in none does.
        gates, gate_params = "", []
        for term in terms if len(terms) > 1 else ():
            term_sql, term_params = self.term_filter(term)
            gates += (f" AND EXISTS (SELECT 1 FROM {self.table} p WHERE {owner} AND ({scope[0]})"
                      f" AND {term_sql})")
            gate_params += [owner_id, *scope[1], *term_params]
        sql = (  # a SELECT with its WITH inside, as every search statement is read (a SELECT)
            "SELECT resource_type, record_id, score FROM ("
            f"WITH r AS (SELECT p.resource_type, p.record_id, ROUND(SUM({weight[0]} * {coverage[0]}) * {SCORE_SCALE})"
            f" AS score FROM {self.table} p {join[0]} WHERE {owner} AND ({scope[0]})"
            f" AND ({match[0]})"
            f"{gates} GROUP BY p.resource_type, p.record_id HAVING {having[0]}),"
            " top AS (SELECT resource_type, record_id FROM r ORDER BY score DESC, resource_type, record_id"
            " LIMIT %s),"
        )
        ranked_sql, ranked_params = self._ranked_cte(owner_id, terms, scopes)
        sql += ranked_sql
        params = [*weight[1], *coverage[1], *join[1], owner_id, *scope[1], *match[1], *gate_params, *having[1],
                  RELEVANCE_DEPTH, *ranked_params]
        sql += " SELECT resource_type, record_id, score, 0 AS tier FROM ranked"
        if offset + limit > RELEVANCE_DEPTH:  # else the page ends within the ranked records: the rest is never read
            sql += (" UNION ALL SELECT resource_type, record_id, score, 1 FROM r WHERE NOT EXISTS (SELECT 1 FROM top"
                    " WHERE top.resource_type = r.resource_type AND top.record_id = r.record_id)")
        sql += ") hits ORDER BY tier, score DESC, resource_type, record_id"
        return sql + " LIMIT %s OFFSET %s", [*params, limit, offset]

    def _ranked_cte(self, owner_id: int, terms: list[str], scopes: Sequence[SearchScope]) -> tuple[str, list]:
        """`` ranked AS (…)``: the whole score of each record of ``top`` (a CTE of resource types and record ids),
        from its rows in readable fields holding a term."""
        long_terms, short_terms = [t for t in terms if len(t) >= TRIGRAM], [t for t in terms if len(t) < TRIGRAM]
        score = self._whole_score(terms, scopes)
        match_sql, match_params = self.candidate_filter(long_terms, short_terms)
        fields_sql, fields_params = readable_fields("p", scopes)
        own = (f"({fields_sql}) AND ({match_sql})", [*fields_params, *match_params])
        # The top records' own matching rows again, a record at a time by the unique (type, record, field)
        # index (collecting their row ids in ``r`` cost a tenth of the statement). OFFSET 0 keeps the
        # subquery apart: no planner estimate makes it a join that reads every match again.
        sql = (f" ranked AS (SELECT top.resource_type, top.record_id, {score[0]} AS score"
               f" FROM top CROSS JOIN LATERAL (SELECT * FROM {self.table} p WHERE p.resource_type = top.resource_type"
               f" AND p.record_id = top.record_id AND p.owner_id = {self.owner_placeholder()} AND {own[0]}"
               " OFFSET 0) p GROUP BY top.resource_type, top.record_id)")
        return sql, [*score[1], owner_id, *own[1]]

    def _whole_score(self, terms: list[str], scopes: Sequence[SearchScope]) -> tuple[str, list]:
        """A record's whole score, summed over its rows ``p`` that hold a term: the shared score and the relevance."""
        weight = self._weight_expression(scopes)
        coverage = self._coverage_expression(terms, single=len(terms) == 1 and self.exact_filter)
        extra = self.score_expression(terms, [t for t in terms if len(t) >= TRIGRAM])
        return (f"ROUND(SUM({weight[0]} * ({coverage[0]} + {extra[0]})) * {SCORE_SCALE})",
                [*weight[1], *coverage[1], *extra[1]])

    def ranked_matches(self, matched: KnownMatches, *, owner_id: int, terms: list[str],
                       scopes: Sequence[SearchScope], offset: int, limit: int) -> list[SearchHit]:
        """``search``'s answer from its first pass done elsewhere: ``matched``, every match best first by the
        shared score, with the rows that score (``kept_texts``). As in ``_two_pass_sql``, the first
        ``RELEVANCE_DEPTH`` get the whole score and come first; the rest follow as they are.

        Their rows are read by id, not found again by their terms, and the statement's text depends only on
        the scopes' fields and the terms' number: PostgreSQL plans it once per connection."""
        if offset >= len(matched):
            return []
        score_sql, score_params = self._whole_score(terms, scopes)
        sql = (f"SELECT p.resource_type, p.record_id, {score_sql} FROM {self.table} p"
               f" WHERE p.id = ANY(%s::bigint[]) AND p.owner_id = {self.owner_placeholder()}"
               " GROUP BY p.resource_type, p.record_id")
        with prepared_cursor(connections[self.using]) as cursor:
            cursor.execute(sql, [*score_params, matched.scoring_rows(RELEVANCE_DEPTH), owner_id])
            rows = cursor.fetchall()
        ranked = [SearchHit(kind, int(record_id), score / SCORE_SCALE)
                  for kind, record_id, score in sorted(rows, key=lambda row: (-row[2], row[0], row[1]))]
        return [*ranked, *matched[RELEVANCE_DEPTH:offset + limit]][offset:offset + limit]

    # --- Meaning vectors (SPEC S-4, R-5; apps.retrieval.vectors) -------------------------------

    # A row's change stamp: ``updated_at`` moves whenever its text (and so its vector) changes.
    stamp_sql = "p.updated_at"

    def vector_scope_sql(self, *, owner_id: int, scopes: Sequence[SearchScope],
                         model: str | None) -> tuple[str, list] | None:
        """The statement naming the rows whose meaning vectors a search may compare (SPEC S-4, R-5), or, with
        no ``model``, every row a keyword search may match.

        The keyword statement's owner and scope clause; it selects each row's id and change stamp only."""
        scope = self._scope_clause(scopes)
        if scope is None:
            return None
        sql = (f"SELECT p.id, {self.stamp_sql} FROM {self.table} p"
               f" WHERE p.owner_id = {self.owner_placeholder()} AND ({scope[0]})")
        if model is None:
            return sql, [owner_id, *scope[1]]
        return sql + " AND p.vector_model = %s", [owner_id, *scope[1], model]

    def scope_stamp_sql(self, *, owner_id: int, scopes: Sequence[SearchScope]) -> tuple[str, list] | None:
        """SQL of a ``bigint[]`` that changes whenever ``vector_scope_sql``'s answer may have, or None where
        the database keeps no such stamps (the scope is then listed on every search)."""
        return None

    def records_stamp_sql(self, owner_id: int) -> tuple[str, list] | None:
        """SQL of a ``bigint[]`` that changes whenever a record of ``owner_id``'s, of a type the layer searches,
        comes, goes, changes owner or changes whether it is current: the stamp of ``searchable_records``
        (a ``SearchScope``'s ``stamp``). None where the database keeps no such stamp."""
        return None

    def stamps_now(self, cursor, stamp: tuple[str, list]) -> tuple:
        """The value of ``scope_stamp_sql``'s SQL now."""
        cursor.execute(f"SELECT {stamp[0]}", stamp[1])
        return tuple(cursor.fetchone()[0])

    def vector_scope_stamped(self, cursor, scope: tuple[str, list],
                             stamp: tuple[str, list]) -> tuple[tuple, tuple[np.ndarray, np.ndarray]]:
        """The stamps and ``vector_scope``'s answer, read in one statement (one snapshot)."""
        raise NotImplementedError

    def vector_scope(self, cursor, sql: str, params: list) -> tuple[np.ndarray, np.ndarray]:
        """Run ``vector_scope_sql``'s statement: (row ids, their stamps) as int64 arrays."""
        cursor.execute(sql, params)
        rows = cursor.fetchall()
        return (np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows)),
                np.fromiter((stamp(row[1]) for row in rows), dtype=np.int64, count=len(rows)))

    def vector_rows(self, cursor, row_ids: list[int], model: str) -> list[tuple]:
        """(id, stamp, resource type, record id, field, vector, script) of these rows, where they hold ``model``'s
        vector; the script (``indexing.script``) of the text the vector was made from."""
        cursor.execute(f"SELECT p.id, {self.stamp_sql}, p.resource_type, p.record_id, p.field, p.vector,"
                       f" substr(p.text, 1, {EMBEDDED_CHARS})"
                       f" FROM {self.table} p WHERE p.id IN ({', '.join(['%s'] * len(row_ids))})"
                       " AND p.vector_model = %s", [*row_ids, model])
        return [(row_id, stamp(at), kind, int(record_id), path, bytes(vector), script(text))
                for row_id, at, kind, record_id, path, vector, text in cursor.fetchall()]

    def _scope_clause(self, scopes: Sequence[SearchScope]) -> tuple[str, list] | None:
        parts, params = [], []
        for scope in scopes:
            if not scope.fields:
                continue
            try:
                records_sql, records_params = scope.records if isinstance(scope.records, tuple) else (
                    scope.records.order_by().values("pk").query.sql_with_params())
            except EmptyResultSet:
                continue  # the caller may see no record of this type
            fields_sql, fields_params = _readable_in("p", scope)
            parts.append(f"({fields_sql} AND p.record_id IN ({records_sql}))")
            params += [*fields_params, *records_params]
        return (" OR ".join(parts), params) if parts else None

    def _weight_expression(self, scopes: Sequence[SearchScope]) -> tuple[str, list]:
        whens, params = [], []
        for (kind, path), weight in field_weights(scopes).items():
            whens.append(f"WHEN p.resource_type = %s AND p.field = %s THEN {self.float_sql}")
            params += [kind, path, weight]
        if not whens:
            return "1.0", []
        return f"(CASE {' '.join(whens)} ELSE 1.0 END)", params

    def _coverage_expression(self, terms: list[str], *, single: bool = False) -> tuple[str, list]:
        """Per term found in the field: 1, plus the share of the field it covers, halved.

        Finding the term counts most; coverage only orders fields that both hold it. ``single``: one term,
        which every candidate row holds (``exact_filter``), so it is not looked for again.
        """
        if single:
            return f"(1 + {self.float_sql} / LENGTH(p.text))", [float(len(terms[0])) / 2]
        parts, params = [], []
        for term in terms:
            contains_sql, contains_params = self.contains(term)
            parts.append(f"(CASE WHEN {contains_sql} THEN 1 + {self.float_sql} / LENGTH(p.text) ELSE 0 END)")
            params += [*contains_params, float(len(term)) / 2]
        return f"({' + '.join(parts)})", params

    # --- Hooks each database fills in ---------------------------------------------------

    def owner_placeholder(self) -> str:
        """The placeholder of the owner's id in the search query."""
        return "%s"

    def contains(self, term: str) -> tuple[str, list]:
        """SQL that is true when ``p.text`` contains ``term`` (already normalized)."""
        raise NotImplementedError

    def term_filter(self, term: str) -> tuple[str, list]:
        """SQL true for a row of ``p`` containing ``term``, by the database's index where it can."""
        return self.contains(term)

    def candidate_join(self, long_terms: list[str], short_terms: list[str]) -> tuple[str, list]:
        """Joins the candidate query needs (for example to a full-text table); may be empty."""
        raise NotImplementedError

    def candidate_filter(self, long_terms: list[str], short_terms: list[str]) -> tuple[str, list]:
        """SQL true for a row containing at least one term, using the trigram index where it can."""
        raise NotImplementedError

    def records_with_every_term(
        self, owner_id: int, scopes: Sequence[SearchScope], terms: list[str]
    ) -> tuple[str, list]:
        """SQL (`` AND …``) keeping the rows of records whose readable fields hold each of ``bounding_terms``; may
        be empty.

        It drops what the HAVING clause would: the answer is the same, found sooner, and HAVING asks only the
        other terms."""
        return "", []

    def bounding_terms(self, terms: list[str]) -> list[str]:
        """The terms ``records_with_every_term`` bounds the search by: each record it keeps holds them in a
        readable field, so the per-record check (HAVING) need not ask again."""
        return []

    def score_expression(self, terms: list[str], long_terms: list[str]) -> tuple[str, list]:
        """The database's own relevance for one row (added to the shared coverage score)."""
        raise NotImplementedError

    def index_problems(self) -> list[str]:
        """What is wrong with the database's search index (empty when it is in step)."""
        raise NotImplementedError

    def rebuild_index(self) -> None:
        """Bring the database's search index in step with the projection rows."""
        raise NotImplementedError


def field_weights(scopes: Sequence[SearchScope]) -> dict[tuple[str, str], float]:
    """Each readable field's weight in the shared score, by (resource type, field path)."""
    return {(scope.resource_type, path): float(indexed_type(scope.resource_type).searchable(path).weight)
            for scope in scopes for path in scope.fields}


def readable_fields(alias: str, scopes: Sequence[SearchScope]) -> tuple[str, list]:
    """SQL true for a row of ``alias`` in a field its scope may read (whatever its record), and its parameters."""
    clauses = [_readable_in(alias, scope) for scope in scopes if scope.fields]
    return " OR ".join(sql for sql, _ in clauses) or "FALSE", [param for _, params in clauses for param in params]


def _readable_in(alias: str, scope: SearchScope) -> tuple[str, list]:
    """SQL true for a row of ``alias`` of ``scope``'s type in one of its readable fields, and its parameters."""
    placeholders = ", ".join(["%s"] * len(scope.fields))
    return (f"({alias}.resource_type = %s AND {alias}.field IN ({placeholders}))",
            [scope.resource_type, *scope.fields])


def stamp(value) -> int:
    """A change stamp as an int64: an integer, eight big-endian bytes, or (any other value) its hash here."""
    if isinstance(value, int):
        return value
    if isinstance(value, (bytes, memoryview)) and len(value) == 8:
        return int.from_bytes(value, "big", signed=True)
    return hash(value) & 0x7FFF_FFFF_FFFF_FFFF


def like_pattern(term: str) -> str:
    """``%term%`` for LIKE, with the wildcard characters of ``term`` escaped (backslash escape)."""
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"
