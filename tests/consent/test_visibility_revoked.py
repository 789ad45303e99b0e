"""A revoked connection sees nothing, even where a share of it is still on record (SPEC C-1, C-7).

Revocation deletes the connection's shares, so the share condition of C-1
hides everything already; the selectors check ``revoked_at`` as well, so
that no share left behind (a restore, a write racing the revocation) can
make a fact visible again. These tests keep the shares to see that second
wall hold on its own.
"""

from __future__ import annotations

import pytest
from django.db import connection as db

from apps.common import clock
from apps.consent.models import Connection, FactShare
from apps.consent.selectors.visibility import visible_facts
from apps.consent.selectors.visible_set import (
    EMPTY_READ,
    WINDOW_FIELDS,
    visible_fact_values,
    visible_ids,
    visible_set_read,
)
from tests.consent.factories import make_connection, make_fact, share

pytestmark = pytest.mark.django_db


@pytest.fixture
def revoked_with_shares(user):
    connection = make_connection(user)
    facts = [make_fact(user, label=f"Label {i}", value=f"Value {i}") for i in range(3)]
    share(connection, *facts)
    assert visible_set_read(connection=connection, limit=None).count == 3  # visible while live
    Connection.objects.filter(pk=connection.pk).update(revoked_at=clock.now())
    connection.refresh_from_db()
    assert FactShare.objects.filter(connection=connection).count() == 3
    return connection


# SPEC C-7: the queryset of the rule.
def test_visible_facts_of_a_revoked_connection_is_empty(revoked_with_shares):
    assert list(visible_facts(connection=revoked_with_shares)) == []


# SPEC C-7: the compiled-statement read of the same rule.
def test_visible_fact_values_of_a_revoked_connection_is_empty(revoked_with_shares):
    assert visible_fact_values(connection=revoked_with_shares, fields=("id",)) == []
    assert visible_fact_values(connection=revoked_with_shares, fields=WINDOW_FIELDS) == []


# SPEC C-7: the one-statement read (on PostgreSQL the database's own digests).
def test_visible_set_read_of_a_revoked_connection_is_empty(revoked_with_shares):
    assert visible_set_read(connection=revoked_with_shares, limit=None) == EMPTY_READ
    assert visible_set_read(connection=revoked_with_shares, ids=[1, 2, 3]) == EMPTY_READ


# SPEC C-7, S-1: the ids a search embeds.
def test_visible_ids_of_a_revoked_connection_select_nothing(revoked_with_shares):
    records = visible_ids(connection=revoked_with_shares)
    if not isinstance(records, tuple):  # a queryset
        assert list(records) == []
        return
    with db.cursor() as cursor:
        cursor.execute(*records)
        assert cursor.fetchall() == []
