"""Two web worker processes behind one origin share what matters (SPEC O-3, C-7, M-9).

Each worker is its own ``python -m config.serving`` process on its own loopback
port, as two web hosts behind a load balancer: DEBUG off, the same PostgreSQL
(the test database), the same Redis, the same ``PUBLIC_BASE_URL`` and
``SECRET_KEY``. Nothing is stubbed; requests go over real HTTP. The rows the
test writes must be committed for the workers to see them, so this runs only
in the PostgreSQL pass, with transactional tests.
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import signal
import subprocess
from datetime import timedelta
from urllib.parse import quote

import pytest
from django.db import connection
from oauth2_provider.models import get_access_token_model, set_token_value

from apps.common import clock
from apps.consent.services import connection_revoke
from tests.consent.factories import make_application, make_connection, make_fact, share
from tests.ops.conftest import BASE_DIR, PYTHON, subprocess_env
from tests.services import free_port, wait_healthy

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]

START_TIMEOUT = 60  # seconds a worker process may take to answer /healthz
STOP_TIMEOUT = 15


def _test_database_url() -> str:
    s = connection.settings_dict
    credentials = quote(s["USER"] or "", safe="") + (f":{quote(s['PASSWORD'], safe='')}" if s["PASSWORD"] else "")
    return f"postgres://{credentials}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=STOP_TIMEOUT)


def _wait_healthy(process: subprocess.Popen, port: int, log) -> None:
    try:
        wait_healthy(process, port, log, timeout=START_TIMEOUT)
    except RuntimeError as error:
        pytest.fail(str(error))


@pytest.fixture(scope="module")
def workers(django_db_setup, redis_url, tmp_path_factory):
    """Two worker processes on two ports, one public origin (the first port's); yield (origin, [portA, portB])."""
    logs = tmp_path_factory.mktemp("workers")
    ports = [free_port(), free_port()]
    while ports[1] == ports[0]:
        ports[1] = free_port()
    origin = f"http://127.0.0.1:{ports[0]}"
    env = subprocess_env({
        "DEBUG": "0",
        "DATABASE_URL": _test_database_url(),
        "DATABASE_CONN_MAX_AGE": "0",  # the test database is flushed between tests; hold no idle connection
        "REDIS_URL": redis_url,
        "PUBLIC_BASE_URL": origin,
        "SECRET_KEY": "s" + secrets.token_urlsafe(60),
        "SECURE_SSL_REDIRECT": "0",
        "ALLOWED_HOSTS": "127.0.0.1",
        "STATIC_ROOT": str(logs / "static"),
    })
    processes = []
    try:
        for port in ports:
            log = logs / f"worker-{port}.log"
            with log.open("wb") as out:
                processes.append((subprocess.Popen(
                    [PYTHON, "-m", "config.serving", "--bind", f"127.0.0.1:{port}", "--workers", "1",
                     "--no-access-log", "--log-level", "warning"],
                    cwd=BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                ), port, log))
        for process, port, log in processes:
            _wait_healthy(process, port, log)
        yield origin, ports
    finally:
        for process, _, _ in processes:
            _stop(process)


def _mcp(port: int, token: str, body: dict) -> tuple[int, dict | None]:
    """POST one JSON-RPC message to /mcp on the worker at ``port``; return (status, JSON body or None)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", "/mcp", body=json.dumps(body), headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {token}",
        })
        response = conn.getresponse()
        raw = response.read()
        try:
            payload = json.loads(raw) if raw else None
        except ValueError:
            payload = {"raw": raw.decode(errors="replace")}
        return response.status, payload
    finally:
        conn.close()


def _call(name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def _tool_result(status: int, payload) -> dict:
    assert status == 200, (status, payload)
    return payload["result"]["structuredContent"]


@pytest.fixture
def assistant(user, workers):
    """One connected assistant with a shared fact and an access token bound to the public origin's /mcp."""
    origin, _ = workers
    application = make_application(name=f"Assistant {secrets.token_hex(4)}")
    connected = make_connection(user, application=application, scopes={"profile:read"})
    share(connected, make_fact(user))
    raw = secrets.token_urlsafe(32)
    token = get_access_token_model()(
        user=user, application=application, scope="profile:read",
        expires=clock.now() + timedelta(minutes=10), resource=[origin + "/mcp"],
    )
    set_token_value(token, raw)
    token.save()
    return connected, raw


# SPEC C-7, O-3: one token works on both workers; revoked (here, in another process), the very
# next request to the other worker is refused with 401: no worker trusts what it saw before.
def test_revocation_reaches_every_worker_at_once(workers, assistant):
    _, (port_a, port_b) = workers
    connected, token = assistant
    for port in (port_a, port_b, port_b):
        result = _tool_result(*_mcp(port, token, _call("get_user_context", {})))
        assert "code" not in result, result

    connection_revoke(connection=connected)

    status, payload = _mcp(port_b, token, _call("get_user_context", {}))
    assert status == 401, (status, payload)
    status, payload = _mcp(port_a, token, _call("get_user_context", {}))
    assert status == 401, (status, payload)


# SPEC M-9, O-3: the repeated-failure count lives in Redis, not in a worker: two identical
# failures on A and one on B make the 4th identical call refused, on either worker.
def test_repeated_failure_count_is_shared_between_workers(workers, assistant):
    _, (port_a, port_b) = workers
    _, token = assistant
    stale = secrets.token_hex(32)  # 64 hex characters, never the profile's version
    body = _call("read_user_context_page", {"offset": 0, "version": stale})

    codes = [_tool_result(*_mcp(port, token, body))["code"] for port in (port_a, port_a, port_b)]
    assert codes == ["version_conflict"] * 3
    assert _tool_result(*_mcp(port_a, token, body))["code"] == "repeated_failure"
    assert _tool_result(*_mcp(port_b, token, body))["code"] == "repeated_failure"
