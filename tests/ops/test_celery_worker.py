"""A real Celery worker, through a real Redis, prunes access events in PostgreSQL (SPEC J-1).

The worker is a separate process: it must see committed rows in a database it
can reach, so this runs only in the PostgreSQL pass, with a transactional test.
"""

from __future__ import annotations

import subprocess
import uuid
from datetime import timedelta
from urllib.parse import quote

import pytest
from celery import Celery
from django.db import connection
from django.utils import timezone

from apps.consent.models import AccessEvent
from tests.ops.conftest import BASE_DIR, PYTHON, make_connection, make_events, subprocess_env
from tests.services import stop_process_group

pytestmark = pytest.mark.production


def _test_database_url() -> str:
    s = connection.settings_dict
    credentials = quote(s["USER"] or "", safe="") + (f":{quote(s['PASSWORD'], safe='')}" if s["PASSWORD"] else "")
    return f"postgres://{credentials}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


@pytest.fixture
def worker(redis_url, tmp_path):
    """Start ``celery -A config worker`` on a private queue; yield (queue, log path)."""
    queue = f"test-ops-{uuid.uuid4().hex[:12]}"
    log = tmp_path / "worker.log"
    env = subprocess_env({"DATABASE_URL": _test_database_url(), "REDIS_URL": redis_url,
                          "ACCESS_EVENT_RETENTION_DAYS": "400"})
    with log.open("wb") as out:
        process = subprocess.Popen(
            [PYTHON, "-m", "celery", "-A", "config", "worker", "-Q", queue, "--concurrency", "2", "--pool", "prefork",
             "--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel", "INFO", "-n", f"{queue}@%h"],
            cwd=BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        yield queue, log
    finally:
        # Warm shutdown, then make sure no child keeps a connection to the test database.
        stop_process_group(process)


# SPEC J-1, D-8: beat's task, sent twice at once through Redis, runs in a worker process against
# PostgreSQL: the partitions past the retention (400 days) are dropped exactly once, newer events stay.
@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_worker_prunes_old_access_events(user, worker, redis_url):
    queue, log = worker
    now = timezone.now()
    assigned = make_connection(user)
    make_events(assigned, ages_in_days=[450, 540, 800], now=now)  # three periods wholly past the retention
    kept = make_events(assigned, ages_in_days=[399, 30, 0], now=now)

    client = Celery("ops-test", broker=redis_url, backend=redis_url)
    try:
        results = [client.send_task("ops.access_events_prune", queue=queue) for _ in range(2)]
        try:
            counts = [result.get(timeout=90) for result in results]
        except Exception as exc:
            pytest.fail(f"worker did not run the task ({exc!r}); its log:\n{log.read_text(errors='replace')}")
    finally:
        client.close()

    assert sum(counts) == 3 and min(counts) >= 0  # each stale period dropped once, whichever run got it
    assert set(AccessEvent.objects.values_list("pk", flat=True)) == {event.pk for event in kept}
    assert (now - timedelta(days=400)) < min(AccessEvent.objects.values_list("created_at", flat=True))
