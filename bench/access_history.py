"""The access history (SPEC D-8) at tens of millions of events: time partitions against one table.

    .venv/bin/python -m bench.access_history [--events 20000000] [--people 10000] [--samples 300]

Not part of ``make test``. Starts a throwaway PostgreSQL cluster (``tests/services.py``) and removes it at
the end. ``people`` people, each with two connected assistants and 50 confirmed facts, all written by SQL;
then ``events`` access events over the last 56 weeks, in time order as calls write them, each connection
chosen by a hash of the row number, generated in the database (``INSERT … SELECT`` over
``generate_series``, a million rows a statement). Each event carries what the product writes: 7 in 10
are ``get_user_context`` with its page of 50 ``[fact id, version]`` pairs (``PAGE_MAX_FACTS``), 3 in 10
``search_user_context`` with 10. Each value is stored as the product's own INSERT stores it: a 50-pair list
is about 1.8 kB of ``jsonb``, under the 2 kB at which PostgreSQL compresses, so it is not compressed.

The same data is measured twice, in one cluster, one schema after the other: first **today's schema** —
the consent app migrated to just before ``access_history_time_partitions``, one table with its foreign key
and indexes — then the **partitioned** one (that migration: the filled table is migrated in place, which
times the migration — less the oldest partition's rows, which today's retention deleted; ``--reload``
empties it and loads the same rows afresh). After each load:
``VACUUM ANALYZE`` (what autovacuum does to an insert-only table), then, with the product's own code:

* ``history page 1`` — ``pages.history_page(number=1)``, the connection page's history part (its count,
  its five events, the labels of the facts they list), for ``samples`` random connections;
* ``history page 20`` — the same, twenty pages back (paging through the history, SPEC W-6);
* ``export history`` — the download's history part: every retained event of a person's connections,
  oldest first, as ``export_for`` reads it (``history_for``), for ``samples / 3`` random people;
* ``write`` — ``access_event_record`` as a ``get_user_context`` call records it (autocommit), 1,000 calls;
* ``retention`` — ``access_events_prune`` with the cut-off at the end of the oldest partition's period: the
  partitioned schema detaches and drops it; today's deletes the same rows in batches. A second thread records
  calls the whole time; their count and slowest latency during the drop show whether writes waited.

Disk per million events is ``pg_total_relation_size`` over the table (every partition) and its TOAST and
indexes. Figures: p50 / p95 / max milliseconds of wall time in this process (Django + psycopg + the
server), and the ratio partitioned ÷ today's.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

EVENTS = 20_000_000
PEOPLE = 10_000
ASSISTANTS = 2  # connections per person
FACTS = 50  # per person, all sent by get_user_context
SEARCH_FACTS = 10
WEEKS = 56
CHUNK = 1_000_000
WRITES = 1_000


def _sql(statement: str, params=None) -> list[tuple]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.fetchall() if cursor.description else []


def _ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50": statistics.median(ordered), "p95": ordered[max(0, round(0.95 * len(ordered)) - 1)],
            "max": ordered[-1], "n": len(ordered)}


def _people(people: int) -> None:
    """Users, one assistant application per slot, connections, facts: written by SQL, triggers off."""
    from django.utils import timezone

    now = timezone.now()
    _sql("SET session_replication_role = replica")
    _sql("INSERT INTO accounts_user (password, is_superuser, username, first_name, last_name, email, is_staff, "
         "is_active, date_joined) SELECT '!', false, 'person' || g, '', '', '', false, true, %s "
         "FROM generate_series(1, %s) g", [now, people])
    from oauth2_provider.models import get_application_model

    apps = [get_application_model().objects.create(
        name=f"Assistant {n}", client_type="public", authorization_grant_type="authorization-code",
        redirect_uris="https://assistant.example/cb") for n in range(ASSISTANTS)]
    for app in apps:
        _sql("INSERT INTO consent_connection (user_id, application_id, scopes, categories, created_at, "
             "consented_at, last_used_at) SELECT id, %s, '[\"profile:read\"]', '[\"basic\"]', %s, %s, %s "
             "FROM accounts_user WHERE username LIKE 'person%%'", [app.pk, now, now, now])
    _sql("INSERT INTO memory_fact (category, label, value, evidence, certainty, sensitive, status, version, "
         "created_at, updated_at, owner_id) SELECT 'basic', 'fact ' || k, 'value ' || k, '', 'confirmed', false, "
         "'active', 1 + k %% 3, %s, %s, u.id FROM accounts_user u CROSS JOIN generate_series(1, %s) k "
         "WHERE u.username LIKE 'person%%'", [now, now, FACTS])
    _sql("SET session_replication_role = DEFAULT")
    _sql("DROP TABLE IF EXISTS bench_sent")
    _sql(f"""CREATE UNLOGGED TABLE bench_sent AS
        SELECT (row_number() OVER (ORDER BY c.id)) - 1 AS slot, c.id AS connection_id,
               (SELECT jsonb_agg(jsonb_build_array(f.id, f.version) ORDER BY f.id) FROM memory_fact f
                WHERE f.owner_id = c.user_id) AS page,
               (SELECT jsonb_agg(x.pair) FROM (SELECT jsonb_build_array(f.id, f.version) AS pair FROM memory_fact f
                WHERE f.owner_id = c.user_id ORDER BY f.id DESC LIMIT {SEARCH_FACTS}) x) AS search
        FROM consent_connection c""")
    _sql("CREATE UNIQUE INDEX ON bench_sent (slot)")
    _sql("ANALYZE")


def _load(events: int, start, end) -> float:
    """``events`` events from ``start`` to ``end``, in time order; return seconds."""
    (slots,) = _sql("SELECT count(*) FROM bench_sent")[0]
    step = (end - start) / events
    began = time.monotonic()
    _sql("SET session_replication_role = replica")  # today's schema: no foreign-key check per bulk row
    for first in range(1, events + 1, CHUNK):
        last = min(events, first + CHUNK - 1)
        _sql("""INSERT INTO consent_accessevent (connection_id, tool, facts, created_at)
            SELECT s.connection_id,
                   CASE WHEN g %% 10 < 7 THEN 'get_user_context' ELSE 'search_user_context' END,
                   -- through text: a new value, stored as the product's INSERT stores it (uncompressed, under
                   -- PostgreSQL's 2 kB threshold), not the copy of bench_sent's compressed one
                   (CASE WHEN g %% 10 < 7 THEN s.page ELSE s.search END)::text::jsonb,
                   %s + (g - 1) * %s
            FROM generate_series(%s, %s) g
            JOIN bench_sent s ON s.slot = (hashint4(g::int)::bigint & 2147483647) %% %s""",
             [start, step, first, last, slots])
        print(f"  loaded {last:,} events, {time.monotonic() - began:.0f} s", flush=True)
    _sql("SET session_replication_role = DEFAULT")
    return time.monotonic() - began


def _vacuum() -> float:
    from django.db import connection

    began = time.monotonic()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE) consent_accessevent")
    return time.monotonic() - began


def _disk(events: int) -> dict[str, float]:
    rows = _sql("""SELECT coalesce(sum(pg_relation_size(r)), 0),
                          coalesce(sum(pg_table_size(r) - pg_relation_size(r)), 0),
                          coalesce(sum(pg_indexes_size(r)), 0)
                   FROM (SELECT inhrelid AS r FROM pg_inherits WHERE inhparent = 'consent_accessevent'::regclass
                         UNION ALL SELECT 'consent_accessevent'::regclass) t""")
    heap, toast, indexes = (int(v) for v in rows[0])
    total = heap + toast + indexes
    per_million = 1e6 / events
    return {"heap_mb_per_m": heap * per_million / 2**20, "toast_mb_per_m": toast * per_million / 2**20,
            "index_mb_per_m": indexes * per_million / 2**20, "total_mb_per_m": total * per_million / 2**20,
            "total_gb": total / 2**30, "bytes_per_event": total / events}


def _timed(function, *args, **kwargs) -> float:
    began = time.perf_counter()
    function(*args, **kwargs)
    return (time.perf_counter() - began) * 1000


def _reads(samples: int, seed: int) -> dict[str, dict[str, float]]:
    from django.contrib.auth import get_user_model

    from apps.consent.models import Connection
    from apps.consent.selectors import pages
    from apps.consent.services.export import history_for

    rng = random.Random(seed)
    ids = list(Connection.objects.values_list("id", flat=True))
    chosen = [Connection.objects.get(pk=pk) for pk in rng.sample(ids, samples)]

    def history(connection, number):
        page = pages.history_page(connection=connection, number=number)
        assert page.object_list, "a page of history"

    def export(user_id):
        # The download's history part as the product reads it (``history_for``): the columns it shows, in chunks.
        history = history_for(user=get_user_model()(pk=user_id))
        assert history

    for connection in chosen[:20]:  # warm the process (compiled statements, imports); not counted
        history(connection, 1)
    result = {
        "history page 1": _ms([_timed(history, c, 1) for c in chosen]),
        "history page 20": _ms([_timed(history, c, 20) for c in chosen]),
        "export history": _ms([_timed(export, c.user_id) for c in chosen[: max(10, samples // 3)]]),
    }
    return result


def _explain(connection_id: int) -> dict[str, float]:
    from apps.consent.models import Connection
    from apps.consent.selectors.access import retained_access_events

    connection = Connection.objects.get(pk=connection_id)
    queryset = retained_access_events().filter(connection=connection).order_by("-created_at", "-id")[:5]
    sql, params = queryset.query.sql_with_params()
    import json

    [(plan,)] = _sql("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, params)
    plan = plan if isinstance(plan, list) else json.loads(plan)
    return {"planning_ms": plan[0]["Planning Time"], "execution_ms": plan[0]["Execution Time"]}


def _writes(seed: int) -> dict[str, float]:
    from apps.consent.models import Connection
    from apps.consent.services import access_event_record

    rng = random.Random(seed)
    ids = list(Connection.objects.values_list("id", flat=True))
    chosen = [Connection.objects.get(pk=pk) for pk in rng.sample(ids, 200)]
    pairs = [(1_000_000 + n, 1 + n % 3) for n in range(FACTS)]
    for connection in chosen[:20]:
        access_event_record(connection=connection, tool="get_user_context", facts=pairs)
    [(before,)] = _sql("SELECT pg_current_wal_lsn()")
    figures = _ms([_timed(access_event_record, connection=rng.choice(chosen), tool="get_user_context", facts=pairs)
                   for _ in range(WRITES)])
    [(wal,)] = _sql("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), %s)", [before])
    return {**figures, "wal_bytes": float(wal) / WRITES}


def _retention() -> dict[str, float]:
    """Drop the oldest partition while another thread records calls; return the drop and what the writes saw."""
    from django.db import connections

    from apps.consent import partitions
    from apps.consent.models import AccessEvent, Connection
    from apps.consent.services import access_event_record, access_events_prune

    [(oldest,)] = _sql("SELECT min(created_at) FROM consent_accessevent")
    cutoff = partitions.period_of(oldest) + partitions.SPAN
    expected = AccessEvent.objects.filter(created_at__lt=cutoff).count()
    connection_ids = list(Connection.objects.values_list("id", flat=True)[:200])
    stop, seen = threading.Event(), []

    def writer():
        try:
            chosen = list(Connection.objects.filter(pk__in=connection_ids))
            pairs = [(1_000_000 + n, 1) for n in range(FACTS)]
            while not stop.is_set():
                began = time.perf_counter()
                access_event_record(connection=random.choice(chosen), tool="get_user_context", facts=pairs)
                seen.append((began, time.perf_counter()))
        finally:
            connections.close_all()

    thread = threading.Thread(target=writer)
    thread.start()
    time.sleep(1.0)
    began = time.perf_counter()
    removed = access_events_prune(older_than=cutoff)
    ended = time.perf_counter()
    time.sleep(0.5)
    stop.set()
    thread.join()
    during = [(b, e) for b, e in seen if e >= began and b <= ended]
    before = [(e - b) * 1000 for b, e in seen if e < began]
    left = AccessEvent.objects.filter(created_at__lt=cutoff).count()
    return {"drop_ms": (ended - began) * 1000, "events_removed": expected - left, "returned": removed,
            "writes_during": len(during), "slowest_write_during_ms": max(((e - b) * 1000 for b, e in during),
                                                                         default=0.0),
            "write_p50_before_ms": statistics.median(before) if before else 0.0}


def _phase(label: str, events: int, samples: int, start, end, *, load: bool) -> dict:
    print(f"{label}: loading {events:,} events" if load else f"{label}: data in place", flush=True)
    figures: dict = {"load_s": _load(events, start, end) if load else None}
    figures["vacuum_s"] = _vacuum()
    [(figures["events"],)] = _sql("SELECT count(*) FROM consent_accessevent")
    figures["disk"] = _disk(figures["events"])
    print(f"  disk {figures['disk']['total_gb']:.2f} GB, {figures['disk']['total_mb_per_m']:.0f} MB per million",
          flush=True)
    figures["reads"] = _reads(samples, seed=36)
    [(connection_id,)] = _sql("SELECT connection_id FROM bench_sent WHERE slot = 7")
    figures["explain"] = _explain(connection_id)
    figures["write"] = _writes(seed=37)
    figures["retention"] = _retention()
    print(f"  {figures}", flush=True)
    return figures


def _row(name: str, base: dict[str, float], part: dict[str, float]) -> str:
    return (f"| {name} | {base['p50']:.2f} / {base['p95']:.2f} / {base['max']:.1f} | "
            f"{part['p50']:.2f} / {part['p95']:.2f} / {part['max']:.1f} | {part['p50'] / base['p50']:.2f} | "
            f"{part['p95'] / base['p95']:.2f} |")


def report(events: int, people: int, today: dict, parted: dict, migration_s: float | None) -> list[str]:
    lines = [f"events {events:,}, people {people:,}, connections {people * ASSISTANTS:,}, weeks {WEEKS}",
             "", "| case | today's p50 / p95 / max ms | partitioned p50 / p95 / max ms | p50 ratio | p95 ratio |",
             "|---|---:|---:|---:|---:|"]
    for name in today["reads"]:
        lines.append(_row(name, today["reads"][name], parted["reads"][name]))
    lines.append(_row("write (access_event_record)", today["write"], parted["write"]))
    lines.append(f"| WAL bytes per write (50 facts; full_page_writes off) | {today['write']['wal_bytes']:.0f} | "
                 f"{parted['write']['wal_bytes']:.0f} | | |")
    lines += ["", "| | today's | partitioned |", "|---|---:|---:|"]
    for key in ("total_mb_per_m", "heap_mb_per_m", "toast_mb_per_m", "index_mb_per_m", "bytes_per_event",
                "total_gb"):
        lines.append(f"| disk {key} | {today['disk'][key]:.1f} | {parted['disk'][key]:.1f} |")
    for key in ("planning_ms", "execution_ms"):
        lines.append(f"| page 1 EXPLAIN {key} | {today['explain'][key]:.2f} | {parted['explain'][key]:.2f} |")
    for key in ("drop_ms", "events_removed", "writes_during", "slowest_write_during_ms", "write_p50_before_ms"):
        lines.append(f"| retention {key} | {today['retention'][key]:.1f} | {parted['retention'][key]:.1f} |")
    lines.append(f"| load s | {today['load_s']:.0f} | {parted['load_s'] or 0:.0f} |")
    lines.append(f"| VACUUM ANALYZE s | {today['vacuum_s']:.0f} | {parted['vacuum_s']:.0f} |")
    if migration_s is not None:
        lines.append(f"| migration access_history_time_partitions, rows in place, s | | {migration_s:.0f} |")
    return lines


def main() -> int:
    base = Path(__file__).resolve().parents[1]
    if str(base) not in sys.path:
        sys.path.insert(0, str(base))
    from bench import run as bench_run
    from tests.services import postgres_cluster

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=EVENTS)
    parser.add_argument("--people", type=int, default=PEOPLE)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--reload", action="store_true",
                        help="empty the table and load the partitioned schema afresh instead of migrating it")
    args = parser.parse_args()
    began = time.monotonic()
    with contextlib.ExitStack() as stack:
        database_url = stack.enter_context(postgres_cluster())
        bench_run._django({"DATABASE_URL": database_url, "DEBUG": "0", "LOG_LEVEL": "WARNING"})
        from django.core.management import call_command
        from django.db import connection
        from django.db.migrations.loader import MigrationLoader
        from django.utils import timezone

        from apps.consent import partitions

        loader = MigrationLoader(connection)
        [mine] = [key for key in loader.disk_migrations if key[1].endswith("_access_history_time_partitions")]
        call_command("migrate", *loader.get_migration(*mine).dependencies[0], verbosity=0)  # today's: one table
        now = timezone.now()
        start, end = partitions.period_of(now) - timedelta(weeks=WEEKS), now - timedelta(minutes=5)
        _people(args.people)
        today = _phase("today's schema", args.events, args.samples, start, end, load=True)
        in_place = not args.reload
        if not in_place:
            _sql("TRUNCATE consent_accessevent")
        migrated = time.monotonic()
        call_command("migrate", "consent", verbosity=0)
        migration_s = time.monotonic() - migrated if in_place else None
        if in_place:
            (count,) = _sql("SELECT count(*) FROM consent_accessevent")[0]
            print(f"migrated in place: {count:,} events in {migration_s:.0f} s", flush=True)
        else:
            partitions.ensure(covering=partitions.periods(start, end))
        parted = _phase("partitioned", args.events, args.samples, start, end, load=not in_place)
        if in_place:
            parted["load_s"] = None
    print("\n".join(report(args.events, args.people, today, parted, migration_s)))
    print(f"\nload average {os.getloadavg()[0]:.1f}; {time.monotonic() - began:.0f} s end to end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
