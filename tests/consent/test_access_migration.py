"""Migrating a filled access history to time partitions keeps every row (SPEC D-8)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection as db
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader

from apps.consent import partitions

_LOADER = MigrationLoader(None, ignore_no_migrations=True)  # the files only, no database
# This migration by its name, whatever number it carries once migrations are merged; the one before it.
[AFTER] = [key for key in _LOADER.disk_migrations if key[0] == "consent"
           and key[1].endswith("_access_history_time_partitions")]
BEFORE = _LOADER.get_migration(*AFTER).dependencies[0]  # the one table, as it was
COLUMNS = "id, connection_id, tool, facts, created_at"


def _migrate(target):
    executor = MigrationExecutor(db)
    executor.loader.build_graph()
    executor.migrate([target])
    return executor.loader.project_state([target]).apps


def _rows():
    with db.cursor() as cursor:
        cursor.execute(f"SELECT {COLUMNS} FROM consent_accessevent ORDER BY id")
        return [(i, c, t, json.loads(f) if isinstance(f, str) else f, str(w)) for i, c, t, f, w in cursor.fetchall()]


def _table_facts():
    with db.cursor() as cursor:
        cursor.execute("SELECT relkind FROM pg_class WHERE relname = 'consent_accessevent'")
        kind = cursor.fetchone()[0]
        cursor.execute("SELECT pg_get_constraintdef(oid) FROM pg_constraint "
                       "WHERE conrelid = 'consent_accessevent'::regclass ORDER BY contype")
        return kind, [definition for (definition,) in cursor.fetchall()]


# SPEC D-8: the old one-table schema with rows across three years, migrated: every row is there, column for
# column; on PostgreSQL the table is partitioned by time with its key (id, created_at) and no id is issued
# twice (the sequence continues past the old one's position, deleted ids included).
@pytest.mark.django_db(transaction=True)
def test_migration_keeps_every_row():
    from oauth2_provider.models import get_application_model

    from apps.accounts.models import User
    from apps.consent.models import Connection

    Application = get_application_model()
    AccessEvent = _migrate(BEFORE).get_model("consent", "AccessEvent")  # as it was: one table
    now = datetime.now(UTC)
    user = User.objects.create(username="migrated", password="!")
    connections = [
        Connection.objects.create(
            user=user, application=Application.objects.create(name=f"A{n}", client_type="public",
                                                              authorization_grant_type="authorization-code",
                                                              redirect_uris="https://a.example/cb"),
            scopes=["profile:read"], categories=["basic"], created_at=now, consented_at=now)
        for n in range(3)
    ]
    facts = [[[1, 1], [2, 3]], [], [[9, 1], "todo:0b5c9a5e-5c1f-4b7e-9e55-2f4f7f0d2d11"], [[4, 2]] * 50]
    AccessEvent.objects.bulk_create(
        AccessEvent(connection_id=connections[n % 3].pk, tool=["get_user_context", "memory_read", "search_user_context",
                                                        "工具"][n % 4],
                    facts=facts[n % 4], created_at=now - timedelta(days=n * 11, seconds=n))
        for n in range(100))
    AccessEvent.objects.filter(pk=AccessEvent.objects.order_by("-pk").first().pk).delete()  # the last id, gone
    with db.cursor() as cursor:
        cursor.execute("SELECT max(id) + 1 FROM consent_accessevent")
        deleted_id = cursor.fetchone()[0]
    before = _rows()
    assert len(before) == 99

    try:
        _migrate(AFTER)
        assert _rows() == before
        if db.vendor == "postgresql":
            kind, constraints = _table_facts()
            assert kind == "p"
            assert constraints == ["PRIMARY KEY (id, created_at)"]  # no foreign key any more
            oldest = min(row[4] for row in before)
            assert len(partitions.attached(db)) >= (now - datetime.fromisoformat(oldest)).days // 28
        from apps.consent.models import AccessEvent as Current

        new = Current.objects.create(connection_id=connections[0].pk, tool="get_user_context", facts=[],
                                     created_at=now)
        # SQLite's table rebuild (Django's, for any altered field) restarts after the highest id still
        # there; PostgreSQL's sequence continues where the old one stood.
        assert new.pk > (deleted_id if db.vendor == "postgresql" else before[-1][0])
    finally:
        _migrate(MigrationExecutor(db).loader.graph.leaf_nodes("consent")[0])
        if partitions.partitioned():  # the weeks of the old rows would stay for the next tests
            partitions.drop_before(cutoff=partitions.period_of(now))
