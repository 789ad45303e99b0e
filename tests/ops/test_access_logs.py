"""SPEC A-4 against the real servers: the development server's request log and the production access log.

Issue 19 #3: a token sent under a percent-encoded parameter name
(``?access%5Ftoken=…``) was refused but written to both logs as sent.
Each server is started as ``make run`` / ``make serve`` start it, sent the
same requests, and its whole output is searched for the tokens.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import secrets
import subprocess

import pytest

from tests.ops.conftest import BASE_DIR, PYTHON, subprocess_env
from tests.services import free_port, stop_process_group, wait_healthy

pytestmark = pytest.mark.live

SPELLINGS = [
    ("POST", "/mcp?access%5Ftoken={}"),
    ("POST", "/mcp?%61ccess_token={}"),
    ("POST", "/mcp?%61%63%63%65%73%73%5f%74%6f%6b%65%6e={}"),
    ("POST", "/mcp/?x=1&access%5ftoken={}"),
    ("POST", "/mcp?access%255Ftoken={}"),
    ("POST", "/mcp?access_token%3D{}"),
    ("POST", "/oauth/token/?refresh%5Ftoken={}"),
    ("POST", "/oauth/token/?%63ode={}&code%5Fverifier={}"),
    ("POST", "/oauth/revoke_token/?%74oken={}"),
    ("GET", "/me/facts/?access%5Ftoken={}"),
]


def _send_all(port: int) -> list[str]:
    tokens = []
    for method, template in SPELLINGS:
        values = [secrets.token_urlsafe(24) for _ in range(template.count("{}"))]
        tokens += values
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request(method, template.format(*values), body=b"{}",
                           headers={"Content-Type": "application/json", "Authorization": "Bearer " + values[0]})
        connection.getresponse().read()
        connection.close()
    return tokens


@contextlib.contextmanager
def _server(tmp_path, command: list[str], environ: dict[str, str]):
    port = free_port()
    log_path = tmp_path / "server.log"
    env = subprocess_env({"DATABASE_URL": os.environ.get("DATABASE_URL", ""), **environ})
    with log_path.open("wb") as log:
        process = subprocess.Popen([PYTHON, *[part.format(port=port) for part in command]], cwd=BASE_DIR, env=env,
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            try:
                wait_healthy(process, port, log_path)
            except RuntimeError as error:
                pytest.fail(str(error))
            yield port, log_path
        finally:
            stop_process_group(process)


def _assert_no_token_logged(log_path, tokens):
    text = log_path.read_text(errors="replace")
    assert "/mcp?" in text and "[redacted]" in text, text[-2000:]  # the requests were logged …
    leaked = [token for token in tokens if token in text]
    assert not leaked, text[-3000:]  # … without a single token


def test_development_request_log(tmp_path):
    # The local default's own database: runserver reads its migrations at start-up (the suite's PostgreSQL
    # cluster holds only the test database).
    local = {"DEBUG": "1", "DATABASE_URL": f"sqlite:///{tmp_path / 'dev.sqlite3'}"}
    with _server(tmp_path, ["manage.py", "runserver", "127.0.0.1:{port}", "--noreload"], local) as (
        port, log_path,
    ):
        tokens = _send_all(port)
    _assert_no_token_logged(log_path, tokens)


@pytest.mark.production
def test_production_access_log(tmp_path):
    with _server(tmp_path, ["-m", "config.serving", "--bind", "127.0.0.1:{port}", "--workers", "1"],
                 {"DEBUG": "0", "STATIC_ROOT": str(tmp_path / "static")}) as (port, log_path):
        tokens = _send_all(port)
    _assert_no_token_logged(log_path, tokens)
