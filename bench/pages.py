"""The person's pages at real size (SPEC W-6): server time, weight and SQL statements per page.

Part of ``make bench`` (``bench/run.py``, unless ``--no-pages``), or on its own:

    .venv/bin/python -m bench.pages [--requests 40]

(on its own it starts a throwaway PostgreSQL cluster and Redis, ``tests/services.py``).

The person is ``manage.py seed_demo --at-scale``: 2,000 facts, 10 connected
assistants sharing parts of them, 300 suggestions from the first one (100
waiting, 200 ignored) and 60 access events. Each page is requested in this
process through Django's whole stack (middleware, session, templates,
PostgreSQL), logged in as that person: a few warm-up requests, then
``--requests`` timed ones. Printed per page: server time p50 and p95, the
web thread's own CPU time per request p50 and p95 (PostgreSQL's not
included; a busy machine inflates it less than the wall time), the HTML's
size, and the SQL statements of one request. The targets: p95 ≤ 150 ms,
weight ≤ 200 KB.

The pages are served as ``make serve`` serves them, DEBUG off: on its own
the process starts with DEBUG off and collects the static files into a
temporary directory first (their manifest names the files); inside
``make bench``, whose process started with DEBUG on, the timed requests run
with DEBUG switched off (no statement log), static files still unhashed.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[1]
if str(BASE_DIR) not in sys.path:
    sys.path.insert(0, str(BASE_DIR))

OUT_DIR = BASE_DIR / "var" / "bench"
USERNAME = "bench-pages"
WARMUP = 3
P95_TARGET_MS = 150
WEIGHT_TARGET = 200 * 1024


def person(username: str = USERNAME, password: str = "bench-pages"):
    """``seed_demo --at-scale``'s person, with the planner's statistics for the rows just loaded."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection as db

    with open(os.devnull, "w") as quiet:
        # With DEBUG off, seed_demo warns about the given password: a throwaway cluster's.
        call_command("seed_demo", "--username", username, "--password", password, "--at-scale", stdout=quiet,
                     stderr=quiet)
    if db.vendor == "postgresql":
        # As autovacuum gathers them within a minute of a bulk load: without them the planner takes each table
        # for a few rows (the assistants page's count took 1.2 s instead of 3 ms).
        with db.cursor() as cursor:
            cursor.execute("ANALYZE")
    return get_user_model().objects.get(username=username)


def _pages(user) -> dict[str, str]:
    from apps.consent.models import Connection

    first = Connection.objects.filter(user=user).order_by("id").first().pk
    return {
        "personal info": "/me/facts/",
        "personal info, page 40": "/me/facts/?page=40",
        "personal info, filtered": "/me/facts/?q=tea&state=not_shared",
        "assistants": "/me/assistants/",
        "connection (100 waiting, 200 decided)": f"/me/assistants/{first}/",
        "connection, filtered and paged": f"/me/assistants/{first}/?state=not_shared&category=habits&page=2"
                                          "&suggestions=3&earlier=4&history=2",
    }


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def measure_pages(requests: int = 40) -> dict:
    """Seed the person, then time every page; returns page → figures."""
    from django.test import Client, override_settings

    started = time.monotonic()
    user = person()
    seeded = time.monotonic() - started
    client = Client(HTTP_HOST="127.0.0.1", HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    with override_settings(DEBUG=False):  # as served, whichever way the process started
        results = {name: _measure(client, path, requests) for name, path in _pages(user).items()}
    load = Path("/proc/loadavg").read_text().split()[0]
    return {"seed_seconds": seeded, "requests": requests, "pages": results, "load": load}


def _measure(client, path: str, requests: int) -> dict:
    from django.db import connection as db

    for _ in range(WARMUP):
        assert client.get(path).status_code == 200, path
    queries = []  # counted as they run: with DEBUG off there is no statement log

    def count(execute, sql, params, many, context):
        queries.append(sql)
        return execute(sql, params, many, context)

    with db.execute_wrapper(count):
        body = client.get(path).content
    times, cpu = [], []
    for _ in range(requests):
        begin, begin_cpu = time.perf_counter(), time.thread_time()
        response = client.get(path)
        times.append((time.perf_counter() - begin) * 1000)
        cpu.append((time.thread_time() - begin_cpu) * 1000)
        assert response.status_code == 200, path
    return {"path": path, "p50_ms": statistics.median(times), "p95_ms": _percentile(times, .95),
            "cpu_p50_ms": statistics.median(cpu), "cpu_p95_ms": _percentile(cpu, .95), "bytes": len(body),
            "statements": len(queries)}


def report(result: dict) -> str:
    lines = [
        "## The person's pages at real size (2,000 facts, 300 suggestions, 10 assistants)",
        "",
        f"{result['requests']} requests per page after {WARMUP} warm-up ones, in-process through Django's whole "
        f"stack on PostgreSQL, DEBUG off as served. Targets: p95 ≤ {P95_TARGET_MS} ms, "
        f"weight ≤ {WEIGHT_TARGET // 1024} KB. Seeding took {result['seed_seconds']:.0f} s. CPU: the web "
        f"thread's own CPU time per request (PostgreSQL's not included), which a busy machine inflates less "
        f"than the wall time. Load average at the end: {result.get('load', '?')}.",
        "",
        "| page | p50 ms | p95 ms | CPU p50 ms | CPU p95 ms | KB | SQL statements | within targets |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, row in result["pages"].items():
        ok = row["p95_ms"] <= P95_TARGET_MS and row["bytes"] <= WEIGHT_TARGET
        lines.append(f"| {name} (`{row['path']}`) | {row['p50_ms']:.1f} | {row['p95_ms']:.1f} | "
                     f"{row['cpu_p50_ms']:.1f} | {row.get('cpu_p95_ms', 0):.1f} | {row['bytes'] / 1024:.0f} | "
                     f"{row['statements']} | {'yes' if ok else 'NO'} |")
    return "\n".join(lines)


@contextlib.contextmanager
def as_served() -> Iterator[None]:
    """A throwaway PostgreSQL and Redis, and Django configured as ``make serve`` runs it: DEBUG off, the static
    files collected into a temporary directory (their manifest names the files; whitenoise serves them)."""
    from django.core.management import call_command

    from bench.run import _django
    from tests.services import postgres_cluster, redis_server

    with contextlib.ExitStack() as stack:
        database_url = stack.enter_context(postgres_cluster())
        redis_url = stack.enter_context(redis_server())
        static_root = stack.enter_context(tempfile.TemporaryDirectory(prefix="lifeos-static-"))
        _django({"DATABASE_URL": database_url, "REDIS_URL": redis_url, "DEBUG": "0", "LOG_LEVEL": "WARNING",
                 "STATIC_ROOT": static_root})
        call_command("collectstatic", "--noinput", verbosity=0)
        yield


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=40, help="timed requests per page")
    args = parser.parse_args()
    with as_served():
        text = report(measure_pages(args.requests))
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    (OUT_DIR / f"pages-{stamp}.md").write_text(text + "\n", encoding="utf-8")
    print(text)
    print(f"\n(kept in var/bench/pages-{stamp}.md)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
