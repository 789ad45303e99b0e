"""What one layer search costs the database: its statements, and the indexes that answer them (SPEC S-4, R-5).

docs/search.md ("Speed and memory").
"""

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.db.models.signals import post_init
from django.test.utils import CaptureQueriesContext

from apps.memory import services
from apps.memory.models import CalendarEvent, Todo, VoiceMemo
from apps.retrieval.models import SearchProjection
from tests.retrieval.layer.builders import T0, access, call

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("meaning")]

PROJECTION = SearchProjection._meta.db_table


def _records(user, count: int) -> None:
    for number in range(count):
        services.todo_create(owner=user, title=f"Book the hotel for the trip {number}", notes="pack light")
        services.voice_memo_create(owner=user, title=f"Trip idea {number}", text="a hotel near the station",
                                   recorded_at=T0)
        services.calendar_event_create(owner=user, title=f"Hotel check-in {number}", starts_at=T0,
                                       ends_at=T0 + timedelta(hours=1), location="station hotel")


def _statements(user) -> tuple[list[str], dict]:
    with CaptureQueriesContext(connection) as captured:
        answer = call(access(user), "search", query="hotel", top_k=5)
    # Reads only: no savepoint or other bookkeeping.
    selects = [q["sql"] for q in captured.captured_queries
               if q["sql"].lstrip().upper().startswith(("SELECT", "WITH"))]
    return selects, answer


def test_a_search_by_words_and_meaning_costs_the_same_statements_at_any_size(user, other_user):  # SPEC S-4, R-6
    # The keyword search, the vector scope (its stamps alone while they stand), the embedded texts of the
    # meaning hits and one statement per type of candidate; the vectors themselves only when not yet kept —
    # whether the person has 3 records or 60. Where the database keeps stamps (PostgreSQL) the keyword search
    # is its texts' scope (their stamps alone while they stand), the texts not yet kept and the relevance pass.
    stamped = connection.vendor == "postgresql"
    words = 3 if stamped else 1
    _records(user, 1)
    _records(other_user, 20)
    few, answer = _statements(user)
    assert {hit["type"] for hit in answer["hits"]} == {"todo", "voice_memo", "calendar"}, answer
    on_projection = [sql for sql in few if PROJECTION in sql]
    assert len(on_projection) == words + 3, on_projection  # the scope, the vectors (not kept yet), embedded texts
    assert len(few) == words + 3 + 3, few  # and one per type: todo, voice memo, calendar event
    again, _ = _statements(user)
    # The vectors and texts are kept now; so are the scopes where stamps are read in their place, once for both.
    assert len([sql for sql in again if PROJECTION in sql]) == (2 if stamped else 3), again
    assert len(again) == 3 + 3, again
    _records(user, 19)
    many, _ = _statements(user)
    # Sixty rows about hotels: none stands out from the others by meaning (docs/search.md "Calibrated
    # relevance"), so there may be no meaning hit whose text to read; the words find them all.
    embedded = [sql for sql in many if f'"{PROJECTION}"."text"' in sql]
    assert len(embedded) <= 1, many
    # Only the new rows' texts and vectors, each scope listed again after its stamps moved.
    assert len([sql for sql in many if PROJECTION in sql]) - len(embedded) == (5 if stamped else 3), many
    assert len(many) - len(embedded) == (6 if stamped else 3) + 3, many


def _plan(sql: str, params: list, tables: tuple[str, ...]) -> str:
    with connection.cursor() as cursor:
        # As autovacuum leaves them: statistics taken and pages all-visible, so an index that holds
        # every column the statement reads is chosen over one that must visit the table. The tables
        # are tiny, so scans of the whole table are ruled out.
        for table in tables:
            cursor.execute(f"VACUUM ANALYZE {table}")
        with transaction.atomic():
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("SET LOCAL enable_bitmapscan = off")
            cursor.execute("EXPLAIN " + sql, params)
            return "\n".join(row[0] for row in cursor.fetchall())


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)  # VACUUM runs outside a transaction
def test_the_vector_scope_is_answered_from_indexes_alone(user, other_user):  # SPEC S-4, R-5
    # A person's rows and records are spread over tables shared with everyone else: the scope
    # reads the owner's slice of one index, and checks each row's record against the ids of the
    # person's current records, never the rows or records themselves.
    sql, params = _vector_scope(user, other_user)
    records = ("memory_todo", "memory_voicememo", "memory_calendarevent")
    plan = _plan(sql, params, (PROJECTION, *records))
    assert "Index Only Scan using projection_owner_vectors" in plan, plan
    for table in records:
        assert f"Index Only Scan using {table}_current_ids" in plan, plan
    assert f"Seq Scan on {PROJECTION}" not in plan, plan


def _vector_scope(user, other_user) -> tuple[str, list]:
    """The vector scope statement of a search over every readable type, two records each for two people."""
    from apps.retrieval.backends import SearchScope, get_search_backend
    from apps.retrieval.hybrid import query_vector
    from apps.retrieval.layer.access import views
    from apps.retrieval.layer.searching import searchable_fields

    _records(user, 2)
    _records(other_user, 2)
    caller = access(user)
    scopes = [SearchScope(v.type, searchable_fields(v), v.resource.adapter.searchable_records(user.pk))
              for v in views(caller) if searchable_fields(v)]
    model, _ = query_vector("hotel")
    return get_search_backend().vector_scope_sql(owner_id=user.pk, scopes=scopes, model=model)


def test_terms_in_different_readable_fields_still_find_their_record(user, other_user, settings):  # SPEC R-5, S-3
    # Each long term bounds the records the statement scores (on PostgreSQL); a record is still found
    # by terms spread over its readable fields, short ones included — and never by a field it may
    # not read, nor by another person's record holding the missing term. By words alone.
    settings.SEARCH_EMBEDDINGS = {}
    mixed = services.todo_create(owner=user, title="Quarterly budget", notes="review it on Monday")
    services.todo_create(owner=user, title="Quarterly review", notes="")
    services.todo_create(owner=other_user, title="Quarterly budget review", notes="on Monday")
    everything = access(user)
    for query in ("budget review", "budget review on", "quarterly monday budget"):
        assert [hit["ref"] for hit in call(everything, "search", query=query)["hits"]] == [f"todo:{mixed.pk}"], query
    titles = access(user, {"todo": {"operations": ["search"], "fields": ["/title"]}})
    assert call(titles, "search", query="budget review")["hits"] == []
    assert [hit["ref"] for hit in call(titles, "search", query="quarterly budget")["hits"]] == [f"todo:{mixed.pk}"]


def test_the_vector_scope_reads_no_projection_row_on_sqlite(user, other_user):  # SPEC S-4, R-5
    # SQLite has no non-key columns: the index carries the covered ones in its key instead (CoveringIndex),
    # or the scope would read the table once per row, and Django would warn (models.W040) on every start.
    if connection.vendor != "sqlite":
        pytest.skip("PostgreSQL: test_the_vector_scope_is_answered_from_indexes_alone")
    sql, params = _vector_scope(user, other_user)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
        cursor.execute("EXPLAIN QUERY PLAN " + sql, params)
        plan = "\n".join(str(row[-1]) for row in cursor.fetchall())
    assert "SEARCH p USING COVERING INDEX projection_owner_vectors" in plan, plan


# SPEC S-4, R-6: a search ranks every candidate from its columns, and makes a record (a model instance, what
# ``document`` reads) only of those it confirms: not 60 to answer with 5 (docs/performance.md).
def test_a_search_makes_records_only_of_the_candidates_it_confirms(user):
    _records(user, 20)  # 60 records hold "hotel"
    made = []

    def count(sender, **kwargs):
        if sender in (Todo, VoiceMemo, CalendarEvent):
            made.append(sender)

    post_init.connect(count)
    try:
        answer = call(access(user), "search", query="hotel", top_k=5)
    finally:
        post_init.disconnect(count)
    assert len(answer["hits"]) == 5 and answer["truncated"], answer
    # The best by words and the closest by meaning, then in rank order the answer's five and the sixth that
    # tells there is more.
    assert 6 <= len(made) <= 8, made
