"""``make serve`` for real: an assistant connects to the multi-worker server over OAuth (SPEC O-3, A-1, M-1).

The server is what ``make serve`` runs — collectstatic with DEBUG off, then
``python -m config.serving`` with two worker processes — on PostgreSQL (the
test database) and Redis, with ``PUBLIC_BASE_URL`` equal to its own origin.
The official MCP SDK client discovers, registers, sends headless Chromium
through login and consent, and reads the shared facts, every request landing
on whichever worker accepts it.
"""

from __future__ import annotations

import secrets
import shutil
import subprocess
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import PBKDF2PasswordHasher, make_password
from django.db import connections

from apps.consent.models import Connection
from apps.consent.services import shares_set
from tests.consent.test_pages_support import compiled_catalogs  # noqa: F401  (fixture)
from tests.e2e.assistant import DISCOVERY_STEPS, Assistant, Person
from tests.e2e.conftest import CHROMIUM, artifacts, browser  # noqa: F401  (fixtures)
from tests.e2e.test_pages_flow import PASSWORD
from tests.mcp_server.conftest import EVIDENCE, make_fact
from tests.ops.conftest import BASE_DIR, PYTHON, subprocess_env
from tests.ops.test_multi_worker import _stop, _test_database_url, _wait_healthy
from tests.services import free_port

pytestmark = [
    pytest.mark.live, pytest.mark.postgres_only, pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("compiled_catalogs"),
    pytest.mark.skipif(not (shutil.which(CHROMIUM) or Path(CHROMIUM).exists()), reason=f"no Chromium at {CHROMIUM}"),
]


@pytest.fixture
def served(compiled_catalogs, redis_url, tmp_path):  # noqa: F811 - fixtures
    """collectstatic, then two uvicorn workers behind one port; yield the origin (= PUBLIC_BASE_URL)."""
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    env = subprocess_env({
        "DEBUG": "0", "DATABASE_URL": _test_database_url(), "DATABASE_CONN_MAX_AGE": "0", "REDIS_URL": redis_url,
        "PUBLIC_BASE_URL": origin, "SECRET_KEY": "s" + secrets.token_urlsafe(60), "SECURE_SSL_REDIRECT": "0",
        "ALLOWED_HOSTS": "127.0.0.1", "STATIC_ROOT": str(tmp_path / "static"),
    })
    subprocess.run([PYTHON, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
                   cwd=BASE_DIR, env=env, check=True, timeout=120)
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [PYTHON, "-m", "config.serving", "--bind", f"127.0.0.1:{port}", "--workers", "2", "--no-access-log",
             "--log-level", "warning"],
            cwd=BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        _wait_healthy(process, port, log)
        yield origin
    finally:
        _stop(process)


# SPEC O-3, M-1, A-1, A-6, C-3, C-8: against the production-like server (two workers, PostgreSQL, Redis,
# DEBUG off), the SDK client gets a 401 challenge, discovers, registers, runs PKCE consent in a browser,
# then get_user_context returns exactly what the person shared, without evidence.
def test_sdk_client_round_trip_against_served_workers(served, browser, artifacts, monkeypatch):  # noqa: F811 - fixtures
    # Playwright's sync API keeps an event loop in this thread; the ORM calls here are plain sync code.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    # The server checks passwords with the production hashers, not the suite's fast one.
    user = get_user_model().objects.create(username="served-sdk",
                                           password=make_password(PASSWORD, hasher=PBKDF2PasswordHasher()))
    facts = [make_fact(user, i) for i in range(3)]
    person = Person(browser, served, username=user.username, locale="en-US", artifacts=artifacts,
                    prefix="served-sdk")
    assistant = Assistant(served, person.consent, mode="auto", name="Served Assistant")
    try:
        assert "get_user_context" in assistant.tool_names()
        steps = [(e.method, e.path, e.status) for e in assistant.exchanges[:6]]
        assert steps == DISCOVERY_STEPS
        assert assistant.context()["facts"] == []  # consent shares nothing by itself

        connection = Connection.objects.get(user=user)
        assert connection.application.client_id == assistant.client_id
        shares_set(connection=connection, fact_ids={fact.pk for fact in facts[:2]})
        overview = assistant.context()
        assert sorted(fact["id"] for fact in overview["facts"]) == sorted(str(fact.pk) for fact in facts[:2])
        assert EVIDENCE not in str(overview)
    finally:
        assistant.close()
        person.close()
        connections.close_all()  # this thread's connection, opened while Playwright ran: the database is dropped later
