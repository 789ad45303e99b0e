"""SPEC C-1, M-4: the visible set read in one statement — digests of the whole set and a window of it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection as db
from django.test.utils import CaptureQueriesContext

from apps.consent.models import FactShare
from apps.consent.selectors import visible_set
from apps.consent.selectors.visibility import visible_facts
from apps.consent.selectors.visible_set import (
    EMPTY_READ,
    WINDOW_FIELDS,
    visible_fact_values,
    visible_ids,
    visible_set_of,
    visible_set_read,
)
from apps.consent.services import connection_narrow, connection_revoke
from apps.memory.models import Fact
from apps.memory.services import fact_archive, fact_update
from tests.consent.factories import make_connection, make_fact, share

pytestmark = pytest.mark.django_db

CATEGORIES = ("basic", "preferences", "goals")


def profile(user, count: int = 12):
    connection = make_connection(user)
    facts = [make_fact(user, category=CATEGORIES[i % 3], label=f"Label {i}", value=f"Value {i}")
             for i in range(count)]
    share(connection, *facts)
    return connection, facts


def shape(read):
    """Everything but the fingerprints, which differ between the database's and the Python hash."""
    return [(d.category, d.count, d.latest) for d in read.categories], read.count, read.latest, read.rows


def digests(connection):
    """What the digest is made of (the memo key of ``profile.profile_snapshot``): category, count, fingerprint."""
    return tuple((d.category, d.count, d.fingerprint) for d in visible_set_read(connection=connection).categories)


# SPEC C-1: the statement's counts, latest change and window are those of the whole set read row by row.
@pytest.mark.parametrize("offset,limit", [(0, 5), (3, 5), (10, 5), (12, 5), (40, 5), (0, 50)])
def test_window_equals_the_materialized_set(user, offset, limit):
    connection, facts = profile(user)
    share(connection, *facts[:4], *facts[5:])  # a gap in the ids
    rows = visible_fact_values(connection=connection, fields=WINDOW_FIELDS)
    assert len(rows) == 11
    read = visible_set_read(connection=connection, offset=offset, limit=limit)
    assert shape(read) == shape(visible_set_of(rows, offset=offset, limit=limit))
    assert [row[0] for row in read.rows] == [row[0] for row in rows][offset : offset + limit]


# SPEC C-1, C-8: asked by ids, only the visible ones come back, by id; the digests stay those of the whole set.
def test_ids_give_only_visible_facts(user, other_user):
    connection, facts = profile(user, 6)
    unshared = make_fact(user, label="Unshared", value="Never shown")
    foreign = make_fact(other_user, label="Foreign", value="Never shown")
    FactShare.objects.create(connection=connection, fact=foreign, fact_version=1, shared_at=foreign.created_at)
    asked = [facts[4].pk, unshared.pk, foreign.pk, facts[1].pk, 10**9]
    read = visible_set_read(connection=connection, ids=asked)
    assert [row[0] for row in read.rows] == [facts[1].pk, facts[4].pk]
    assert read.categories == visible_set_read(connection=connection).categories
    assert visible_set_read(connection=connection, ids=[]).rows == ()


# The read is one statement; on PostgreSQL it returns only the window's rows, one row per category and
# one of change stamps, whatever the size of the set.
def test_one_statement_returning_only_the_window(user):
    connection, _ = profile(user, 30)
    returned = []

    def count_rows(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        returned.append(context["cursor"].rowcount)
        return result

    with CaptureQueriesContext(db) as captured, db.execute_wrapper(count_rows):
        read = visible_set_read(connection=connection, offset=7, limit=4)
    assert len(captured.captured_queries) == 1
    assert (read.count, len(read.rows)) == (30, 4)
    if db.vendor == "postgresql":
        sql = captured.captured_queries[0]["sql"]
        assert "bit_xor" in sql and "LIMIT 4 OFFSET 7" in sql
        assert returned == [1 + len(CATEGORIES) + 4]


# While the set's sources are unchanged (their stamps, migration consent 0003), PostgreSQL does not sum
# up the whole set again: the read returns the stamps and the window, and the digests are the same.
@pytest.mark.postgres_only
def test_unchanged_set_is_not_summed_up_again(user):
    connection, _ = profile(user, 30)
    first = visible_set_read(connection=connection, offset=7, limit=4)
    returned = []

    def count_rows(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        returned.append(context["cursor"].rowcount)
        return result

    with db.execute_wrapper(count_rows):
        again = visible_set_read(connection=connection, offset=7, limit=4)
    assert returned == [1 + 4]
    assert again == first


def fresh_digests(connection):
    """The digests summed up from the whole set, with nothing remembered from earlier reads."""
    visible_set._known_digests.entries.clear()
    return digests(connection)


# SPEC M-4 (through C-1): whoever writes the set's sources — a service, a bulk load, a queryset update,
# raw SQL that bypasses the ORM — the next read sees the set as it now is.
@pytest.mark.postgres_only
@pytest.mark.parametrize(
    "write",
    [
        "UPDATE memory_fact SET value = 'Raw' WHERE id = {fact}",
        "UPDATE memory_fact SET updated_at = updated_at + interval '1 second' WHERE id = {fact}",
        "DELETE FROM consent_factshare WHERE fact_id = {fact}",
        "UPDATE consent_factshare SET fact_version = 7 WHERE fact_id = {fact}",
        "DELETE FROM consent_factshare WHERE fact_id = {fact}; DELETE FROM memory_fact WHERE id = {fact}",
        "UPDATE memory_fact SET owner_id = {other} WHERE id = {fact}",
    ],
    ids=["raw-value", "raw-time", "raw-unshare", "raw-share-version", "raw-delete", "owner-moved"],
)
def test_any_write_is_seen_by_the_next_read(user, other_user, write):
    connection, facts = profile(user, 6)
    before = digests(connection)
    assert digests(connection) == before  # remembered
    with db.cursor() as cursor:
        cursor.execute(write.format(fact=facts[0].pk, other=other_user.pk))
    after = digests(connection)
    assert after != before
    assert after == fresh_digests(connection)


# TRUNCATE fires no row trigger (migration consent 0004 stamps it before it runs), including for rows
# written before the stamps existed: their absent stamps are what the process remembered the digests under.
@pytest.mark.postgres_only
@pytest.mark.parametrize("table", ["consent_factshare", "memory_fact"])
def test_truncate_is_seen_by_the_next_read(user, table):
    connection, _ = profile(user, 6)
    with db.cursor() as cursor:
        cursor.execute("DELETE FROM consent_visiblestamp")  # as for rows older than the stamps
    before = fresh_digests(connection)
    assert digests(connection) == before  # remembered
    with db.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # TRUNCATE refuses to run with deferred checks pending
        cursor.execute(f"TRUNCATE {table} CASCADE")
    after = digests(connection)
    assert after != before
    assert after == fresh_digests(connection)


@pytest.mark.postgres_only
def test_bulk_writes_are_seen_by_the_next_read(user):
    connection, facts = profile(user, 6)
    before = digests(connection)
    added = Fact.objects.bulk_create([Fact(owner=user, category="basic", label=f"Bulk {i}", value="v",
                                           certainty="confirmed", created_at=facts[0].created_at,
                                           updated_at=facts[0].updated_at) for i in range(3)])
    assert digests(connection) == before  # not shared yet: the same set, newly summed up
    FactShare.objects.bulk_create([FactShare(connection=connection, fact=fact, fact_version=1,
                                             shared_at=fact.created_at) for fact in added])
    grown = digests(connection)
    assert grown != before and grown == fresh_digests(connection)
    Fact.objects.filter(pk__in=[fact.pk for fact in added]).update(sensitive=True)
    assert digests(connection) == before == fresh_digests(connection)


# SPEC M-4 (through C-1): any change to what is visible changes a digest; the same set gives the same ones.
@pytest.mark.parametrize(
    "change",
    [
        lambda connection, fact: fact_update(fact=fact, sensitive=True),
        lambda connection, fact: fact_update(fact=fact, certainty="guess"),
        lambda connection, fact: fact_archive(fact=fact),
        lambda connection, fact: fact_update(fact=fact, value="Changed"),  # unshared until confirmed again
        lambda connection, fact: fact_update(fact=fact, evidence="Said so again"),  # still shown: updated_at
        lambda connection, fact: FactShare.objects.filter(fact=fact).delete(),
        lambda connection, fact: connection_narrow(connection=connection, categories={"preferences", "goals"}),
    ],
    ids=["sensitive", "guess", "archived", "content", "evidence", "unshared", "narrowed"],
)
def test_any_change_changes_the_digests(user, change):
    connection, facts = profile(user, 6)
    before = digests(connection)
    assert digests(connection) == before
    change(connection, facts[0])  # a "basic" fact
    connection.refresh_from_db()
    after = digests(connection)
    assert after != before
    assert [d for d in after if d[0] != "basic"] == [d for d in before if d[0] != "basic"]


# SPEC C-2: a content edit confirmed again is a new state of the fact, not the old one.
def test_reconfirmed_edit_differs_from_before_and_between(user):
    connection, facts = profile(user, 3)
    before = digests(connection)
    edited = fact_update(fact=facts[0], label="Renamed")
    between = digests(connection)
    share(connection, edited, *facts[1:])
    after = digests(connection)
    assert len({before, between, after}) == 3
    assert visible_set_read(connection=connection, ids=[edited.pk]).rows[0][2] == "Renamed"


# SPEC M-4: a microsecond of updated_at is enough (the database hashes the epoch as a double).
def test_a_microsecond_changes_the_digest(user):
    connection, facts = profile(user, 2)
    before = digests(connection)
    Fact.objects.filter(pk=facts[0].pk).update(updated_at=facts[0].updated_at + timedelta(microseconds=1))
    assert digests(connection) != before


# SPEC M-4: the digests describe the set, not who reads it: another assistant with the same set gets the same.
def test_same_set_same_digests_for_any_connection(user):
    connection, facts = profile(user, 5)
    other = make_connection(user)
    share(other, *facts)
    assert digests(other) == digests(connection)
    share(other, *facts[:4])
    assert digests(other) != digests(connection)


# SPEC C-7: a revoked connection reads nothing, without asking the database.
def test_revoked_reads_nothing(user):
    connection, _ = profile(user, 2)
    connection_revoke(connection=connection)
    connection.refresh_from_db()
    with CaptureQueriesContext(db) as captured:
        assert visible_set_read(connection=connection, offset=0, limit=5) == EMPTY_READ
    assert captured.captured_queries == []


# SPEC C-1, M-7: a window is the id-ordered one whatever order the database keeps the rows in. An
# UPDATE writes a row's new version after the others, and with index scans and merge joins off (for
# this test's transaction only) PostgreSQL reads both tables in stored order: without its ORDER BY the
# statement would return the first fact last.
def test_window_follows_ids_not_the_order_rows_are_stored_in(user):
    connection, facts = profile(user, 6)
    first = facts[0].pk
    with db.cursor() as cursor:
        cursor.execute("UPDATE memory_fact SET label = label WHERE id = %s", [first])
        cursor.execute("UPDATE consent_factshare SET fact_version = fact_version WHERE fact_id = %s", [first])
        if db.vendor == "postgresql":
            for plan in ("mergejoin", "indexscan", "indexonlyscan", "bitmapscan"):
                cursor.execute(f"SET LOCAL enable_{plan} = off")
    window = visible_set_read(connection=connection, offset=0, limit=2)
    assert [row[0] for row in window.rows] == [facts[0].pk, facts[1].pk]
    rest = visible_set_read(connection=connection, offset=2, limit=None)
    assert [row[0] for row in rest.rows] == [fact.pk for fact in facts[2:]]
    assert [row[0] for row in visible_fact_values(connection=connection, fields=("id",))] == [f.pk for f in facts]


def _ids_of(records) -> set[int]:
    """The ids that ``visible_ids``'s answer selects (SQL and parameters, or a queryset)."""
    if not isinstance(records, tuple):
        return set(records.values_list("pk", flat=True))
    with db.cursor() as cursor:
        cursor.execute(records[0], records[1])
        return {row[0] for row in cursor.fetchall()}


# SPEC C-1, S-1: the ids a search embeds are the rule's, compiled once (no queryset built per call) wherever
# the connection can see anything; every change the rule looks at is followed.
@pytest.mark.parametrize("change, still_visible", [
    (lambda connection, fact, other: None, True),
    (lambda connection, fact, other: fact_update(fact=fact, sensitive=True), False),
    (lambda connection, fact, other: fact_update(fact=fact, certainty="guess"), False),
    (lambda connection, fact, other: fact_archive(fact=fact), False),
    (lambda connection, fact, other: fact_update(fact=fact, value="Changed"), False),  # shared at an older version
    (lambda connection, fact, other: FactShare.objects.filter(fact=fact).delete(), False),
    (lambda connection, fact, other: FactShare.objects.create(connection=connection, fact=other, fact_version=1,
                                                              shared_at=other.created_at), True),  # not the owner's
    (lambda connection, fact, other: connection_narrow(connection=connection, categories={"preferences", "goals"}),
     False),
], ids=["as-shared", "sensitive", "guess", "archived", "older-version", "unshared", "foreign", "narrowed"])
def test_visible_ids_are_the_rule_compiled_once(user, other_user, change, still_visible):
    connection, facts = profile(user, 6)
    foreign = make_fact(other_user, label="Foreign", value="Never shown")
    change(connection, facts[0], foreign)
    connection.refresh_from_db()
    records = visible_ids(connection=connection)
    assert isinstance(records, tuple)  # the compiled statement, not a queryset
    found = _ids_of(records)
    assert found == set(visible_facts(connection=connection).values_list("pk", flat=True))
    assert (facts[0].pk in found) is still_visible and foreign.pk not in found and facts[1].pk in found


# SPEC C-1: a connection with no category left sees nothing (a revoked one: test_visibility_revoked.py).
def test_visible_ids_of_a_connection_without_categories(user):
    connection, _ = profile(user, 2)
    connection_narrow(connection=connection, categories=set())
    connection.refresh_from_db()
    assert _ids_of(visible_ids(connection=connection)) == set()
