"""SPEC R-7, S-3 on PostgreSQL: pg_trgm matches Chinese, and the GIN index serves searches on a large table."""

from __future__ import annotations

import random

import pytest
from django.db import connection as db_connection
from django.test.utils import CaptureQueriesContext

from apps.common import clock
from apps.consent.models import FactShare
from apps.consent.selectors.visibility import visible_facts
from apps.memory.models import Fact
from apps.retrieval.backends import SearchScope, get_search_backend
from apps.retrieval.backends.base import RELEVANCE_DEPTH
from apps.retrieval.backends.postgres import (
    PAIRS_COLUMN,
    PAIRS_INDEX,
    RANKED_CHARS,
    TRIGRAM_INDEX,
    TS_CONFIG,
    VECTOR_COLUMN,
)
from apps.retrieval.indexing import is_cjk_pair
from apps.retrieval.models import SearchProjection
from apps.retrieval.selectors import search_visible_matches
from apps.retrieval.services import projection_rebuild
from tests.consent.factories import make_connection

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db]

WORDS = ["tea", "coffee", "morning", "evening", "running", "reading", "music", "travel", "project", "family",
         "喝茶", "咖啡", "早上", "晚上", "跑步", "读书", "音乐", "旅行", "工作", "项目", "会议", "家人"]


def fetch(sql, params=()):
    with db_connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def plan(conn, query):
    sql, params = get_search_backend().search_sql(
        owner_id=conn.user_id, query=query, offset=0, limit=11,
        scopes=[SearchScope("user_profile", ("/label", "/value"), visible_facts(connection=conn))],
    )
    return "\n".join(row[0] for row in fetch("EXPLAIN " + sql, params))


def index_condition(explained: str, index: str) -> list[str]:
    """The start of each part of the ``Index Cond`` under the scan of ``index`` (owner, text …)."""
    lines = explained.splitlines()
    at = next(i for i, line in enumerate(lines) if f"on {index}" in line)
    condition = next(line for line in lines[at + 1:] if "Index Cond:" in line).split("Index Cond:", 1)[1].strip()
    parts = [part.strip(" ()") for part in condition.split(" AND ")]
    return [part if part.startswith("owner_id") else part.split("'", 1)[0].strip() for part in parts]


# SPEC S-3: the cluster's UTF-8 ctype makes CJK characters word characters for pg_trgm.
def test_pg_trgm_makes_trigrams_of_chinese():
    assert fetch("SELECT array_length(show_trgm(%s), 1)", ["喝咖啡"])[0][0] >= 1
    assert fetch("SELECT similarity(%s, %s) > 0", ["我每天早上喝咖啡", "喝咖啡"])[0][0] is True
    assert fetch("SELECT %s LIKE %s", ["我每天早上喝咖啡", "%早上喝咖啡%"])[0][0] is True


# SPEC R-7: ranking reads the stored vector; it must be the vector of the row's text as written
# now, however it was written (service, raw INSERT, UPDATE), and cut where ranking cuts it.
def test_the_stored_vector_is_the_ranking_vector_of_the_current_text(user):
    table = SearchProjection._meta.db_table
    long_text = "head " + "filler " * (RANKED_CHARS // 7) + "tailword"
    fetch(f"INSERT INTO {table} (resource_type, record_id, owner_id, field, text, updated_at)"
          " VALUES ('todo', 1, %s, '/title', 'plan the trip', now()), ('todo', 2, %s, '/notes', %s, now())",
          [user.pk, user.pk, long_text])
    fetch(f"UPDATE {table} SET text = 'pack the bags' WHERE record_id = 1 AND owner_id = %s", [user.pk])
    rows = fetch(
        f"SELECT record_id, {VECTOR_COLUMN} = to_tsvector(%s, left(text, %s)), {VECTOR_COLUMN}::text"
        f" FROM {table} WHERE owner_id = %s ORDER BY record_id", [TS_CONFIG, RANKED_CHARS, user.pk])
    assert [(record_id, same) for record_id, same, _ in rows] == [(1, True), (2, True)]
    assert "'pack'" in rows[0][2] and "'plan'" not in rows[0][2]
    assert "'head'" in rows[1][2] and "'tailword'" not in rows[1][2]


# SPEC S-1, R-5: every search names its owner, types and fields; the planner knows how they go together
# (a person's rows are of a few types), else it expects one row where thousands come and checks each
# row's visibility in a nested loop.
def test_the_planner_knows_which_types_and_fields_a_persons_rows_have():
    kinds = fetch("SELECT e.stxkind, array_agg(a.attname ORDER BY a.attname) FROM pg_statistic_ext e"
                  " JOIN pg_attribute a ON a.attrelid = e.stxrelid AND a.attnum = ANY(e.stxkeys)"
                  " WHERE e.stxrelid = %s::regclass GROUP BY e.stxkind", [SearchProjection._meta.db_table])
    assert [(sorted(kind), columns) for kind, columns in kinds] == [
        (["f", "m"], ["field", "owner_id", "resource_type"])]


# SPEC S-3, R-7: a record answers only when it holds every term; the records holding every indexed term bound
# each candidate row, whichever term the row holds. The records lacking a term are then never grouped: with the
# bound on one term's rows only, the 30 records holding "alpha" alone were grouped, then dropped.
def test_every_candidate_row_is_bound_by_the_records_holding_every_term(user):
    now = clock.now()
    conn = make_connection(user)
    facts = Fact.objects.bulk_create(
        Fact(owner=user, category="preferences", label=f"Item {n}", value=value, created_at=now, updated_at=now)
        for n, value in enumerate(["alpha only"] * 30 + ["alpha and beta"] * 2))
    FactShare.objects.bulk_create(FactShare(connection=conn, fact=f, fact_version=1, shared_at=now) for f in facts)
    projection_rebuild()
    sql, params = get_search_backend().search_sql(
        owner_id=conn.user_id, query="alpha beta", offset=0, limit=11,
        scopes=[SearchScope("user_profile", ("/label", "/value"), visible_facts(connection=conn))])
    explained = fetch("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params)[0][0][0]["Plan"]

    def nodes(node):
        yield node
        for child in node.get("Plans", []):
            yield from nodes(child)

    per_record = [node for node in nodes(explained) if node["Node Type"] == "Aggregate" and "Group Key" in node]
    assert per_record, explained
    assert all(node["Actual Rows"] == 2 and node.get("Rows Removed by Filter", 0) == 0 for node in per_record), \
        per_record
    assert sorted(search(conn, query="alpha beta").ids) == sorted(f.pk for f in facts[30:])


# SPEC S-3: each bound is a semi-join the planner may order; a query of many words is bounded by its two longest
# indexed terms (likely the rarest), the others left to the per-record check. Bounded by all six words, the
# statement of a question an early check ends spent twice as long in the planner.
def test_a_search_is_bounded_by_its_two_longest_indexed_terms(user):
    scopes = [SearchScope("user_profile", ("/label", "/value"), Fact.objects.filter(owner=user))]
    sql, params = get_search_backend().records_with_every_term(
        user.pk, scopes, ["tea", "coffee", "on", "espresso", "cup", "咖啡"])
    assert sql.count("IN (SELECT q.resource_type, q.record_id") == 2
    assert [param for param in params if isinstance(param, str) and param.startswith("%")] == [
        "%coffee%", "%espresso%"]


# SPEC S-3: the per-record check asks only the terms the bound leaves: a record of the bound holds each of its
# terms already. Asked again, two common words cost the statement a tenth more (strpos on every row, twice).
def test_the_per_record_check_asks_only_the_terms_the_bound_leaves(user):
    scopes = [SearchScope("user_profile", ("/label", "/value"), Fact.objects.filter(owner=user))]

    def asked(query):
        sql, _ = get_search_backend().search_sql(owner_id=user.pk, query=query, offset=0, limit=11, scopes=scopes)
        return sql[sql.index(" HAVING "):sql.index("), top AS")].count("MAX(CASE WHEN")

    assert asked("fact note") == 0
    assert asked("fact note zz") == 1
    assert asked("alpha beta gamma") == 1  # beta: the two longest bound the search


def scans(node, table):
    """The scans of ``table`` in an ``EXPLAIN (ANALYZE, FORMAT JSON)`` plan: (node type, index, rows read, loops)."""
    if node.get("Relation Name") == table:
        removed = node.get("Rows Removed by Filter", 0) + node.get("Rows Removed by Index Recheck", 0)
        read = node["Actual Rows"] + removed
        yield node["Node Type"], node.get("Index Name"), read, node["Actual Loops"]
    for child in node.get("Plans", []):
        yield from scans(child, table)


# SPEC S-3: the database's relevance is added for the best RELEVANCE_DEPTH records only, re-reading just their
# rows, a record at a time by the unique (type, record, field) index, whatever the planner's statistics say.
# Here they say no row holds "note", then 3,000 facts come to hold it: a re-read the planner could join
# (a second pass over every match) or a scan per record reads far more.
def test_the_relevance_pass_rereads_only_the_best_records_rows(user):
    conn = make_connection(user)
    now = clock.now()
    facts = Fact.objects.bulk_create(Fact(owner=user, category="preferences", label=f"Item {n}",
                                          value=f"tea {n} " + "x" * (n % 40), created_at=now, updated_at=now)
                                     for n in range(3_000))
    FactShare.objects.bulk_create(FactShare(connection=conn, fact=f, fact_version=1, shared_at=now) for f in facts)
    projection_rebuild()
    fetch("ANALYZE retrieval_searchprojection")
    fetch("UPDATE retrieval_searchprojection SET text = replace(text, 'tea', 'note') WHERE owner_id = %s", [user.pk])
    sql, params = get_search_backend().search_sql(
        owner_id=conn.user_id, query="note", offset=0, limit=11,
        scopes=[SearchScope("user_profile", ("/label", "/value"), visible_facts(connection=conn))])
    explained = fetch("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params)[0][0][0]["Plan"]
    read = list(scans(explained, SearchProjection._meta.db_table))
    assert ("Index Scan", "projection_one_per_field") in [scan[:2] for scan in read if scan[3] == RELEVANCE_DEPTH], read
    # At most the person's rows once (two fields of 3,000 facts), and each best record's two rows.
    assert sum(rows * loops for _, _, rows, loops in read) <= 2 * 3_000 + 2 * RELEVANCE_DEPTH, read


def cjk_pairs(text: str) -> list[str]:
    """The pairs of adjacent CJK characters in ``text``, by the matcher's own definition (``is_cjk_pair``)."""
    return sorted({text[i:i + 2] for i in range(len(text) - 1) if is_cjk_pair(text[i:i + 2])})


# SPEC S-3, R-7: a row holds a two-character CJK term exactly when its stored pairs hold it: the stored
# pairs are the text's pairs as the query side reads them, at each end of every CJK range, however the row
# is written, whatever its length.
def test_the_stored_pairs_are_the_cjk_pairs_of_the_current_text(user):
    table = SearchProjection._meta.db_table
    edges = "".join(chr(c) for low, high in ((0x3040, 0x30FF), (0x3400, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF))
                    for c in (low - 1, low, low + 1, high - 1, high, high + 1))
    texts = {1: "准备周报材料 and okr复盘 一 二三", 2: edges, 3: "ひらがな한국어 mixed", 4: "no chinese at all",
             5: "报" * 3 + " tail " + "周报" * 40_000 + "尾巴"}
    fetch(f"INSERT INTO {table} (resource_type, record_id, owner_id, field, text, updated_at)"
          " SELECT 'todo', n, %s, '/title', t, now() FROM unnest(%s::int[], %s::text[]) AS given (n, t)",
          [user.pk, list(texts), list(texts.values())])
    fetch(f"UPDATE {table} SET text = '签证材料' WHERE record_id = 4 AND owner_id = %s", [user.pk])
    texts[4] = "签证材料"
    rows = dict(fetch(f"SELECT record_id, {PAIRS_COLUMN} FROM {table} WHERE owner_id = %s", [user.pk]))
    assert {n: sorted(rows[n]) for n in texts} == {n: cjk_pairs(text) for n, text in texts.items()}
    assert "尾巴" in rows[5] and "报报" in rows[5]


@pytest.fixture
def large_table(user, django_user_model):
    """10,000 shared facts for ``user`` among 100,000 projection rows of other people."""
    rng = random.Random(7)
    now = clock.now()
    conn = make_connection(user)

    def text():
        return " ".join(rng.choice(WORDS) for _ in range(4))

    facts = Fact.objects.bulk_create(
        Fact(owner=user, category="preferences", label=f"Note {n}", value=text(), created_at=now, updated_at=now)
        for n in range(10_000)
    )
    rare = facts[:3]
    for n, fact in enumerate(rare):
        Fact.objects.filter(pk=fact.pk).update(value=f"zebra crossing 斑马线 number {n}")
    FactShare.objects.bulk_create(FactShare(connection=conn, fact=f, fact_version=1, shared_at=now) for f in facts)
    projection_rebuild()  # indexes the bulk-created facts (and proves the rebuild at this size)
    others = [django_user_model.objects.create_user(username=f"other{n}").pk for n in range(20)]
    # Other people's rows, generated in the database: four words each, "zebra 斑马线" in a few.
    fetch(
        f"""INSERT INTO {SearchProjection._meta.db_table} (resource_type, record_id, owner_id, field, text, updated_at)
            SELECT 'user_profile', 1000000000 + n, (%s::bigint[])[1 + n %% 20], '/value',
                   w[1 + n %% 22] || ' ' || w[1 + (n / 22) %% 22] || ' ' || w[1 + (n / 484) %% 22] || ' '
                   || w[1 + (n * 7) %% 22] || CASE WHEN n %% 5000 = 0 THEN ' zebra 斑马线' ELSE '' END,
                   now()
            FROM generate_series(0, 99999) AS n, (SELECT %s::text[] AS w) AS words""",
        [others, WORDS],
    )
    fetch("ANALYZE retrieval_searchprojection")
    fetch("ANALYZE memory_fact")
    fetch("ANALYZE consent_factshare")
    return conn, rare


def search(conn, *, query, offset=0):
    """The search as the MCP tool runs it: over the connection's visible set."""
    return search_visible_matches(owner_id=conn.user_id, visible=visible_facts(connection=conn), query=query,
                                  offset=offset, limit=10)


# SPEC R-7, S-1 … S-3 at size. One test, because the table takes a while to build.
def test_large_table(large_table):
    conn, rare = large_table
    rare_ids = sorted(f.pk for f in rare)

    # A trigram-sized query is served by the owner-first GIN index, owner and text together in
    # one index condition, for English and for Chinese.
    for query in ("zebra", "斑马线"):
        explained = plan(conn, query)
        assert TRIGRAM_INDEX in explained, explained
        assert index_condition(explained, TRIGRAM_INDEX) == [f"owner_id = '{conn.user_id}'::bigint", "text ~~"], \
            explained
        page = search(conn, query=query)
        assert sorted(page.ids) == rare_ids

    # A two-character Chinese query has no trigram: it is one CJK pair, served by the owner-first pairs index.
    explained = plan(conn, "斑马")
    assert "~~" not in explained, explained
    assert index_condition(explained, PAIRS_INDEX) == [f"owner_id = '{conn.user_id}'::bigint", f"{PAIRS_COLUMN} @>"], \
        explained
    page = search(conn, query="斑马")
    assert sorted(page.ids) == rare_ids
    # Other short terms read one person's rows, never the whole table.
    explained = plan(conn, "ze")
    assert PAIRS_INDEX not in explained and "Seq Scan on retrieval_searchprojection" not in explained, explained

    # 10,000 shared facts, queries matching thousands of them: per page one search statement (in its savepoint)
    # and one load of the candidates it ranks — however many match.
    with CaptureQueriesContext(db_connection) as queries:
        first = search(conn, query="咖啡")
        deep = search(conn, query="咖啡", offset=first.next_offset)
        common = search(conn, query="tea")
    assert [q["sql"].split()[0] for q in queries] == ["SAVEPOINT", "SELECT", "RELEASE", "SELECT"] * 3
    assert first.has_more and deep.has_more and common.has_more
    assert not set(first.ids) & set(deep.ids)
