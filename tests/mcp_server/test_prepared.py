"""Which of the statements /mcp runs on every call PostgreSQL plans once per connection (docs/performance.md)."""

from __future__ import annotations

from datetime import UTC

import pytest
from django.db import DatabaseError
from django.db import connection as db
from django.test.utils import CaptureQueriesContext

from apps.common.statements import prepared_cursor
from apps.consent.selectors.visible_set import visible_set_read
from apps.consent.services import access_event_record
from apps.mcp_server.admission import _status_and_grant
from tests.mcp_server.conftest import make_fact, share
from tests.ops.conftest import settings_for  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


def _prepared(fragment: str) -> int:
    with db.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s", [f"%{fragment}%"])
        return cursor.fetchone()[0]


# Admission (a unique token, its connection, the one status row), the access record (an INSERT), a run's
# authorization and a layer record (each by its key) have one best plan whatever the values: once psycopg
# has seen each five times, PostgreSQL only binds and executes it.
# Answers and statement counts are as before.
@pytest.mark.postgres_only
def test_admission_and_the_access_record_are_planned_once(connect, issue_token):
    connection = connect()
    token = issue_token()
    first = _status_and_grant(token)
    for _ in range(6):
        assert _status_and_grant(token) == first
        access_event_record(connection=connection, tool="get_user_context", facts=[(1, 1)])
    assert _prepared("oauth2_provider_accesstoken") == 1
    assert _prepared('INSERT INTO "consent_accessevent"') == 1
    with CaptureQueriesContext(db) as captured:
        assert _status_and_grant(token) == first
        assert _status_and_grant("not-a-token")[2] is None  # other values, the same prepared statement
    assert len(captured.captured_queries) == 2
    assert all("oauth2_provider_accesstoken" in query["sql"] for query in captured.captured_queries)  # logged
    assert _prepared("oauth2_provider_accesstoken") == 1


# The visible set's best plan depends on how many facts the owner has: a plan kept for every owner, made for
# the many owners of a few facts, read all 10,000 of a large one (4.3 → 16 ms). It is planned for its values.
@pytest.mark.postgres_only
def test_the_visible_set_is_planned_for_its_values(user, connect):
    connection = connect()
    share(connection, [make_fact(user, index) for index in range(3)])
    for _ in range(7):
        visible_set_read(connection=connection, offset=0, limit=2)
    assert _prepared("bit_xor") == 0


# A failing statement surfaces as Django's DatabaseError, as through Django's own cursor.
def test_errors_are_djangos():
    with pytest.raises(DatabaseError), prepared_cursor(db) as cursor:
        cursor.execute("SELECT * FROM no_such_table_at_all")


# Prepared statements only on connections that persist: behind a pooler in transaction mode
# (DATABASE_CONN_MAX_AGE=0, docs/deploy.md) a statement must not outlive its transaction.
@pytest.mark.parametrize("max_age, threshold", [("300", 5), ("0", None)])
def test_only_persistent_connections_prepare(settings_for, max_age, threshold):  # noqa: F811 - the fixture
    built = settings_for({"DATABASE_URL": "postgres://u:p@127.0.0.1:5432/db", "DATABASE_CONN_MAX_AGE": max_age})
    assert built["DATABASES"]["default"]["OPTIONS"].get("prepare_threshold") == threshold
    sqlite = settings_for({"DATABASE_URL": "sqlite:///x.sqlite3"})
    assert "prepare_threshold" not in sqlite["DATABASES"]["default"]["OPTIONS"]


# The resource layer reads a run's authorization and a record by key on every call: planned once as well.
@pytest.mark.postgres_only
def test_a_runs_authorization_is_planned_once(user):
    from apps.agents.selectors import run_state
    from apps.agents.services import run_start
    from tests.agents.builders import make_agent

    run = run_start(policy=make_agent(), user_id=user.pk, thread_id="thread-1")
    for _ in range(6):
        assert run_state(run.run_id).user_id == user.pk
    assert _prepared("agents_runsnapshot") >= 1


# A timestamp read through the prepared cursor is the one Django's cursor reads: the same instant, in UTC, the
# same object (psycopg's own loader, in C, where Django's is Python; the session's zone is UTC either way).
@pytest.mark.postgres_only
def test_timestamps_read_as_djangos_cursor_reads_them(user):
    table = type(user)._meta.db_table
    sql = f"SELECT date_joined, date_joined + interval '1 microsecond', %s::timestamptz FROM {table} WHERE id = %s"
    params = ["2026-03-29 01:30:00.123456+08", user.pk]
    with db.cursor() as cursor:
        cursor.execute(sql, params)
        djangos = cursor.fetchone()
    with prepared_cursor(db) as cursor:
        cursor.execute(sql, params)
        prepared = cursor.fetchone()
    assert prepared == djangos and repr(prepared) == repr(djangos)
    assert all(value.tzinfo is UTC for value in prepared)
