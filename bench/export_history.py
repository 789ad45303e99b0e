"""The download's history part for a person with 2,000 access events (SPEC D-8, A-4).

    .venv/bin/python -m bench.export_history [--events 2000] [--others 20000] [--samples 15]

On a throwaway PostgreSQL cluster (``tests/services.py``): one person with 10 connected assistants and
``--events`` access events spread over the last year, each with the facts list a call writes (7 in 10 of
50 ``[id, version]`` pairs, 3 in 10 of 10 pairs and a memory record), written the product's way
(``access_event_record``), interleaved in time with ``--others`` events of other people so that the
person's rows are scattered over the table as in production. Then ``export_for`` is timed ``--samples``
times (after one warm-up call): the whole download, and the part of it that reads the access history.
Printed: p50 / p95 / max ms of wall time and of the process's CPU time, and the events exported; the
history part is also read as the download read it before (whole events, prefetched), in the same run,
and both must give the same history.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[1]
if str(BASE_DIR) not in sys.path:
    sys.path.insert(0, str(BASE_DIR))


def _seed(events: int, others: int, seed: int):
    from django.db import connection as db

    from apps.accounts.models import User
    from apps.common import clock
    from apps.consent import partitions
    from apps.consent.models import AccessEvent
    from tests.consent.factories import make_application, make_connection, make_fact

    rng = random.Random(seed)
    person = User.objects.create_user(username="bench-export", password="bench-export")
    other = User.objects.create_user(username="bench-export-other", password="bench-export")
    facts = [make_fact(person, label=f"fact {n}") for n in range(50)]
    mine = [make_connection(person, application=make_application(f"assistant {n}")) for n in range(10)]
    theirs = [make_connection(other, application=make_application(f"other {n}")) for n in range(10)]
    pairs = [[fact.pk, fact.version] for fact in facts]
    total = events + others
    now = clock.now()
    span = timedelta(days=360)
    first = now - span
    if partitions.partitioned(db):
        partitions.ensure(covering=partitions.periods(first, now))
    order = [True] * events + [False] * others
    rng.shuffle(order)
    rows = []
    for n, is_mine in enumerate(order):
        connection = rng.choice(mine if is_mine else theirs)
        at = first + span * n / total  # in the order calls arrive: the person's rows scattered among others'
        if rng.random() < 0.7:
            rows.append(AccessEvent(connection=connection, tool="get_user_context", facts=pairs, created_at=at))
        else:
            rows.append(AccessEvent(connection=connection, tool="search_user_context",
                                    facts=[*pairs[:10], f"note:{n}"], created_at=at))
    AccessEvent.objects.bulk_create(rows, batch_size=2000)
    with db.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return person


def _as_before(person) -> dict[int, list[dict]]:
    """The history part as the download read it before: each connection's events prefetched as model instances,
    then each event turned into the download's entry (the same content, ``test_export_history.py``)."""
    from django.db.models import Prefetch

    from apps.consent.models import Connection
    from apps.consent.selectors.access import retained_access_events

    connections = Connection.objects.filter(user=person).prefetch_related(
        Prefetch("access_events", retained_access_events().order_by("created_at", "id"))).order_by("created_at", "id")
    return {
        connection.pk: [
            {"at": event.created_at.isoformat(), "tool": event.tool,
             "facts": [{"fact_id": pair[0], "version": pair[1]} for pair in event.facts
                       if isinstance(pair, (list, tuple)) and len(pair) == 2],
             "records": [ref for ref in event.facts if isinstance(ref, str)]}
            for event in connection.access_events.all()
        ]
        for connection in connections
    }


def _figures(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return f"{statistics.median(ordered):.1f} / {p95:.1f} / {ordered[-1]:.1f}"


def measure(events: int, others: int, samples: int, seed: int = 36, explain: bool = False) -> str:
    from apps.consent.services.export import export_for, history_for

    started = time.monotonic()
    person = _seed(events, others, seed)
    seeded = time.monotonic() - started
    results = {}
    for name, call in (("history part, as before (whole events)", lambda: _as_before(person)),
                       ("history part", lambda: history_for(user=person)),
                       ("whole download", lambda: export_for(user=person))):
        call()  # warm-up: compiled statements, imports
        wall, cpu = [], []
        for _ in range(samples):
            begin, begin_cpu = time.perf_counter(), time.process_time()
            document = call()
            wall.append((time.perf_counter() - begin) * 1000)
            cpu.append((time.process_time() - begin_cpu) * 1000)
        results[name] = (wall, cpu, document)
    if explain:
        from django.db import connection as db

        from apps.consent.selectors.access import retained_access_events
        from apps.consent.services.export import history_statement

        sql, params = history_statement(retained_access_events(), user=person).query.sql_with_params()
        with db.cursor() as cursor:
            cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql}", params)
            print("\n".join(row[0] for row in cursor.fetchall()))
    before, after = results["history part, as before (whole events)"][2], results["history part"][2]
    assert {pk: events for pk, events in before.items() if events} == after, "the same history either way"
    exported = sum(len(history) for history in results["history part"][2].values())
    load = Path("/proc/loadavg").read_text().split()[0]
    lines = [f"{events} events of the person among {events + others} (seeded in {seeded:.0f} s), "
             f"{exported} exported, {samples} samples, load average {load}", "",
             "| part | wall p50 / p95 / max ms | CPU p50 / p95 / max ms |", "|---|---:|---:|"]
    for name, (wall, cpu, _document) in results.items():
        lines.append(f"| {name} | {_figures(wall)} | {_figures(cpu)} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=2000, help="the person's access events")
    parser.add_argument("--others", type=int, default=20000, help="other people's events between them")
    parser.add_argument("--samples", type=int, default=15)
    parser.add_argument("--explain", action="store_true", help="print the history statement's plan")
    args = parser.parse_args()
    from bench.run import _django
    from tests.services import postgres_cluster, redis_server

    with contextlib.ExitStack() as stack:
        database_url = stack.enter_context(postgres_cluster())
        redis_url = stack.enter_context(redis_server())
        _django({"DATABASE_URL": database_url, "REDIS_URL": redis_url, "DEBUG": "0", "LOG_LEVEL": "WARNING"})
        print(measure(args.events, args.others, args.samples, explain=args.explain))
    return 0


if __name__ == "__main__":
    sys.exit(main())
