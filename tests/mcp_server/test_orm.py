"""Units of /mcp database work (apps/mcp_server/transport/orm.py): connection reuse and its health check.

With ``conn_health_checks`` Django checks a reused connection (one round
trip) at the start of each request; /mcp runs two units per call, so a
connection that answered on the same thread within ``HEALTH_CHECK_GRACE``
is not checked again. Older, or after an error, it is.
"""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connections
from django.test.utils import CaptureQueriesContext

from apps.common.statements import prepared_cursor
from apps.mcp_server.transport import orm

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres_only]

connection = connections["default"]  # this thread's, as a unit uses it


def _probes(monkeypatch) -> list[str]:
    """Every health-check round trip, as it reaches the database."""
    seen: list[str] = []
    usable = type(connection).is_usable

    def counting(self):
        seen.append(self.alias)
        return usable(self)

    monkeypatch.setattr(type(connection), "is_usable", counting)
    return seen


def _one(sql="SELECT 1"):
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchone()


def _prepared_one(sql="SELECT 1"):
    with prepared_cursor(connection) as cursor:
        cursor.execute(sql)
        return cursor.fetchone()


@pytest.fixture
def checks_on():
    previous = connection.settings_dict["CONN_HEALTH_CHECKS"]
    connection.settings_dict["CONN_HEALTH_CHECKS"] = True
    yield
    connection.settings_dict["CONN_HEALTH_CHECKS"] = previous


def test_a_connection_that_just_answered_is_not_checked_again(checks_on, monkeypatch):
    probes = _probes(monkeypatch)
    orm._unit(_one)  # first unit: whatever this thread's state, it may check
    probes.clear()
    orm._unit(_one)
    orm._unit(_one)
    assert probes == []


def test_after_the_grace_period_the_connection_is_checked(checks_on, monkeypatch):
    probes = _probes(monkeypatch)
    orm._unit(_one)
    monkeypatch.setattr(orm, "HEALTH_CHECK_GRACE", 0.0)
    probes.clear()
    orm._unit(_one)
    assert probes == ["default"]


# The statements that PostgreSQL plans once (admission's is a unit's first) get the same check.
def test_the_prepared_cursor_is_checked_as_djangos_is(checks_on, monkeypatch):
    probes = _probes(monkeypatch)
    orm._unit(_prepared_one)
    monkeypatch.setattr(orm, "HEALTH_CHECK_GRACE", 0.0)
    probes.clear()
    assert orm._unit(_prepared_one) == (1,)
    assert probes == ["default"]


def test_after_an_error_the_connection_is_checked(checks_on, monkeypatch):
    probes = _probes(monkeypatch)
    orm._unit(_one)
    with pytest.raises(DatabaseError):
        orm._unit(_one, "SELECT * FROM no_such_table_anywhere")
    probes.clear()
    orm._unit(_one)
    assert probes == ["default"]


def test_every_unit_still_reads_the_database(checks_on):
    with CaptureQueriesContext(connection) as queries:
        orm._unit(_one)
        orm._unit(_one)
    assert [query["sql"] for query in queries] == ["SELECT 1", "SELECT 1"]
