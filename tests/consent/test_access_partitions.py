"""The access history by time (SPEC D-8): partitions made ahead, forgotten whole, kept through the migration."""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection as db
from django.db import connections

from apps.common import clock
from apps.consent import partitions, services
from apps.consent.models import AccessEvent, Connection
from apps.consent.selectors import pages
from apps.consent.selectors.access import retained_access_events
from tests.ops.conftest import make_connection, make_events

pytestmark = pytest.mark.django_db


def _names():
    return [p.name for p in partitions.attached(db)]


# SPEC D-8: on PostgreSQL the history is partitioned by time; SQLite keeps one table.
def test_partitioned_on_postgresql_only():
    assert partitions.partitioned() == (db.vendor == "postgresql")


# SPEC D-8: the current period's partition and the next two are made on demand (the daily task, every
# migrate), once however often it runs.
@pytest.mark.postgres_only
def test_ensure_makes_this_period_and_the_next_ones_once():
    now = datetime(2031, 3, 5, 12, tzinfo=UTC)
    current = partitions.period_of(now)
    made = services.access_partitions_ensure(now=now)
    assert made == [partitions.name_of(current + partitions.SPAN * n) for n in range(3)]
    assert set(made) <= set(_names())
    assert services.access_partitions_ensure(now=now) == []
    assert services.access_partitions_ensure(now=now + partitions.SPAN) == [
        partitions.name_of(current + partitions.SPAN * 3)]


# SPEC J-1, D-8: the daily task keeps the next partitions ready; on SQLite it has nothing to do.
def test_partition_task(frozen_clock):
    from apps.consent import tasks

    made = tasks.access_partitions_ensure.apply().get()
    if db.vendor == "postgresql":
        assert partitions.name_of(partitions.period_of(clock.now() + partitions.AHEAD)) in _names()
        assert tasks.access_partitions_ensure.apply().get() == []
    else:
        assert made == []


# SPEC D-8, M-11: a call recorded in a period nobody prepared (the task stopped for weeks) makes that period's
# partition and is recorded — inside a transaction (the touch of a connection) as well.
@pytest.mark.parametrize("in_transaction", [False, True])
def test_a_write_makes_its_missing_partition(user, in_transaction, django_db_blocker):
    from django.db import transaction

    connection = make_connection(user)
    with clock.frozen_at(datetime(2033, 8, 17, 10, tzinfo=UTC)):
        if db.vendor == "postgresql":
            assert partitions.name_of(partitions.period_of(clock.now())) not in _names()
        if in_transaction:
            with transaction.atomic():
                services.access_event_record(connection=connection, tool="get_user_context", facts=[(7, 2)])
                services.connection_touch(connection=connection)
        else:
            services.access_event_record(connection=connection, tool="get_user_context", facts=[(7, 2)])
        event = AccessEvent.objects.get(connection=connection)
    assert (event.facts, event.created_at) == ([[7, 2]], datetime(2033, 8, 17, 10, tzinfo=UTC))
    if db.vendor == "postgresql":
        assert partitions.name_of(partitions.period_of(event.created_at)) in _names()


# SPEC D-8, J-1: the prune drops only partitions wholly past the retention; what is left of the period the
# cut-off falls in is kept but never read (SPEC J-2); the newest stay.
@pytest.mark.postgres_only
def test_prune_drops_whole_partitions_past_retention(user, frozen_clock, settings):
    settings.ACCESS_EVENT_RETENTION_DAYS = 400
    now = clock.now()
    connection = make_connection(user)
    gone = make_events(connection, ages_in_days=[800, 500, 430], now=now)
    cutoff = now - timedelta(days=400)
    straddling = make_events(connection, ages_in_days=[(now - partitions.period_of(cutoff)).days], now=now)
    kept = make_events(connection, ages_in_days=[399, 10, 0], now=now)
    before = set(_names())

    dropped = services.access_events_prune(older_than=cutoff)

    assert dropped == 3
    assert set(AccessEvent.objects.values_list("pk", flat=True)) == {e.pk for e in straddling + kept}
    assert {e.pk for e in retained_access_events()} == {e.pk for e in kept}
    left = set(_names())
    assert before - left == {partitions.name_of(partitions.period_of(e.created_at)) for e in gone}
    assert all(p.end > cutoff for p in partitions.attached(db))


# SPEC D-8: dropping a partition does not block writes: while a long read holds the old one, the prune waits
# for it (DETACH … CONCURRENTLY) and an assistant's call is recorded meanwhile. A plain DETACH would
# queue its lock behind the read and every write behind the lock.
@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_writes_go_on_while_a_partition_is_dropped(user):
    import psycopg

    now = clock.now()
    connection = make_connection(user)
    make_events(connection, ages_in_days=[90], now=now)
    params = db.get_connection_params()
    for name in ("cursor_factory", "context", "prepare_threshold"):
        params.pop(name, None)
    results, errors = [], []

    def prune():
        try:
            results.append(services.access_events_prune(older_than=now - timedelta(days=30)))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    with psycopg.connect(**params) as reader:  # a transaction open on every partition, old ones included
        assert reader.execute("SELECT count(*) FROM consent_accessevent").fetchone() == (1,)
        pruning = threading.Thread(target=prune)
        pruning.start()
        time.sleep(0.5)
        started = time.monotonic()
        with db.cursor() as cursor:
            cursor.execute("SET lock_timeout = '3s'")  # a write stuck behind the drop fails instead of hanging
        try:
            services.access_event_record(connection=connection, tool="get_user_context", facts=[(1, 1)])
            services.access_event_record(connection=connection, tool="search_user_context", facts=[(2, 1)])
            elapsed, waiting = time.monotonic() - started, pruning.is_alive()
        finally:
            with db.cursor() as cursor:
                cursor.execute("RESET lock_timeout")
            reader.rollback()
    assert elapsed < 1.0
    assert waiting  # the drop still waited for the read; the writes did not wait for it
    pruning.join(timeout=30)
    assert not errors and results == [1]
    assert sorted(AccessEvent.objects.values_list("tool", flat=True)) == ["get_user_context", "search_user_context"]


# SPEC D-8: a prune stopped between detaching and dropping is completed by the next run.
@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_prune_finishes_what_a_stopped_run_left(user):
    now = clock.now()
    [event] = make_events(make_connection(user), ages_in_days=[200], now=now)
    period = partitions.name_of(partitions.period_of(event.created_at))
    with db.cursor() as cursor:
        cursor.execute(f"ALTER TABLE consent_accessevent DETACH PARTITION {period}")
    assert services.access_events_prune(older_than=now - timedelta(days=100)) == 1
    with db.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s)", [period])
        assert cursor.fetchone() == (None,)


# SPEC D-8, D-3: without a database foreign key, a deleted connection still takes its history with it.
def test_deleting_a_connection_deletes_its_history(user, frozen_clock):
    connection = make_connection(user)
    make_events(connection, ages_in_days=[3, 2, 1], now=clock.now())
    other = make_connection(user, name="Other")
    make_events(other, ages_in_days=[1], now=clock.now())
    Connection.objects.filter(pk=connection.pk).delete()
    assert list(AccessEvent.objects.values_list("connection_id", flat=True)) == [other.pk]
    user.delete()
    assert not AccessEvent.objects.exists()


# SPEC D-8, W-3, W-6: the person's history page, its count and the download's history are read from the
# connection's index, newest partition first, with no sort of the rows (EXPLAIN with scans of whole tables off).
@pytest.mark.postgres_only
def test_history_reads_are_index_served(user, frozen_clock):
    from apps.consent.services.export import export_for

    connection = make_connection(user)
    make_events(connection, ages_in_days=[i * 3 for i in range(40)], now=clock.now())
    page = pages.history_page(connection=connection)
    assert page.paginator.count == 40
    events = retained_access_events().filter(connection=connection).order_by("-created_at", "-id")
    export = retained_access_events().filter(connection_id__in=[connection.pk]).order_by("created_at", "id")
    with db.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        for queryset, sorted_rows in ((events[:5], False), (events, False), (export, True)):
            sql, params = queryset.query.sql_with_params()
            cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
            plan = json.dumps(cursor.fetchone()[0])
            assert "Seq Scan" not in plan
            assert "connection_id_created_at_id_idx" in plan
            if not sorted_rows:
                assert '"Sort"' not in plan, plan
    assert len(export_for(user=user)["assistants"][0]["access_history"]) == 40


# SPEC D-8, AD-1: staff list and open access events of the partitioned table; the tool filter lists the
# catalog's tools and the count stops at its cap.
def test_admin_lists_and_opens_events(admin_client, user, frozen_clock):
    [event] = make_events(make_connection(user), ages_in_days=[1], now=clock.now())
    listing = admin_client.get("/admin/consent/accessevent/", {"tool": "get_user_context"})
    assert listing.status_code == 200
    assert [e.pk for e in listing.context["cl"].result_list] == [event.pk]
    assert admin_client.get(f"/admin/consent/accessevent/{event.pk}/change/").status_code == 200
