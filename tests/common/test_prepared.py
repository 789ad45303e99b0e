"""The statements /mcp runs on every call are prepared once per PostgreSQL connection (docs/performance.md)."""

from __future__ import annotations

import pytest
from django.db import DatabaseError
from django.db import connection as db
from django.test.utils import CaptureQueriesContext

from apps.common.statements import prepared_cursor
from apps.consent.selectors import visible_set_read
from tests.consent.factories import make_connection, make_fact, share
from tests.ops.conftest import settings_for  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


def _prepared_visible_set_reads() -> int:
    with db.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s", ["%bit_xor%"])
        return cursor.fetchone()[0]


# The visible set is read on every call: once psycopg has seen its statement five times, PostgreSQL binds
# and executes the statement it planned once for this connection, and the read answers exactly as before.
@pytest.mark.postgres_only
def test_the_visible_set_statement_is_prepared_and_answers_the_same(user):
    connection = make_connection(user)
    share(connection, *(make_fact(user, label=f"Label {number}", value=f"Value {number}") for number in range(3)))
    first = visible_set_read(connection=connection, offset=0, limit=2)
    for _ in range(7):
        assert visible_set_read(connection=connection, offset=0, limit=2) == first
    prepared = _prepared_visible_set_reads()  # this shape's statement; earlier tests may have left others
    assert prepared >= 1
    with CaptureQueriesContext(db) as captured:  # still one statement, still counted
        again = visible_set_read(connection=connection, offset=1, limit=2)
    assert len(captured.captured_queries) == 1
    assert again.categories == first.categories and again.rows[0] == first.rows[1]
    assert _prepared_visible_set_reads() == prepared  # other values, the same prepared statement


# A failing statement surfaces as Django's DatabaseError, as through Django's own cursor.
def test_errors_are_djangos():
    with pytest.raises(DatabaseError), prepared_cursor(db) as cursor:
        cursor.execute("SELECT * FROM no_such_table_at_all")


# Prepared statements only on connections that persist: behind a pooler in transaction mode
# (DATABASE_CONN_MAX_AGE=0, docs/deploy.md) a statement must not outlive its transaction.
@pytest.mark.parametrize("max_age, threshold", [("300", 5), ("0", None)])
def test_only_persistent_connections_prepare(settings_for, max_age, threshold):  # noqa: F811
    built = settings_for({"DATABASE_URL": "postgres://u:p@127.0.0.1:5432/db", "DATABASE_CONN_MAX_AGE": max_age})
    assert built["DATABASES"]["default"]["OPTIONS"].get("prepare_threshold") == threshold
    sqlite = settings_for({"DATABASE_URL": "sqlite:///x.sqlite3"})
    assert "prepare_threshold" not in sqlite["DATABASES"]["default"]["OPTIONS"]
