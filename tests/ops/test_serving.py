"""The production web server: several uvicorn workers, DEBUG off, whitenoise (SPEC O-3)."""

from __future__ import annotations

import asyncio
import http.client
import os
import signal
import socket
import statistics
import subprocess
import time

import pytest
import uvicorn
from uvicorn.server import ServerState

from config.serving import NoDelayHTTPProtocol, RedactAccessLog
from tests.ops.conftest import BASE_DIR, PYTHON, subprocess_env
from tests.services import free_port, wait_healthy


class _Transport:
    def __init__(self, sock):
        self.sock = sock

    def get_extra_info(self, name, default=None):
        return {"socket": self.sock, "sockname": ("127.0.0.1", 1), "peername": ("127.0.0.1", 2)}.get(name, default)

    def is_closing(self):
        return False


# SPEC O-3: uvicorn's multi-worker socket leaves Nagle on (proto 0, so asyncio skips it);
# the protocol switches it off on each accepted connection.
def test_protocol_sets_tcp_nodelay_on_accepted_connections():
    with socket.socket(socket.AF_INET) as listener:  # created the way uvicorn's bind_socket does
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        with socket.create_connection(listener.getsockname()) as _client:
            accepted, _ = listener.accept()
            with accepted:
                assert accepted.proto == 0
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0
                config = uvicorn.Config(app="config.asgi:application", lifespan="off")
                loop = asyncio.new_event_loop()
                try:
                    protocol = NoDelayHTTPProtocol(config=config, server_state=ServerState(), app_state={}, _loop=loop)
                    protocol.connection_made(_Transport(accepted))
                finally:
                    loop.close()
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1


# SPEC A-4: a token in a request's query string never reaches the access log.
def test_access_log_redacts_secrets_in_the_path():
    import logging

    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                               ("127.0.0.1:5000", "GET", "/mcp?access_token=abc123", "1.1", 400), None)
    RedactAccessLog().filter(record)
    assert "abc123" not in record.getMessage()
    assert "/mcp?access_token=" in record.getMessage()


@pytest.fixture
def served(tmp_path):
    """`make serve`'s configuration: collectstatic with DEBUG off, then two uvicorn workers."""
    env = subprocess_env({"DEBUG": "0", "STATIC_ROOT": str(tmp_path / "static"),
                          "DATABASE_URL": os.environ.get("DATABASE_URL", "")})
    subprocess.run([PYTHON, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
                   cwd=BASE_DIR, env=env, check=True, timeout=120)
    port = free_port()
    log = (tmp_path / "server.log").open("wb")
    process = subprocess.Popen(
        [PYTHON, "-m", "config.serving", "--bind", f"127.0.0.1:{port}", "--workers", "2", "--no-access-log"],
        cwd=BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        try:
            wait_healthy(process, port, tmp_path / "server.log")
        except RuntimeError as error:
            pytest.fail(str(error))
        yield port
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()


# SPEC O-3: several workers answer small keep-alive requests without the ~40 ms Nagle stall,
# serve collected static files through whitenoise, and run with DEBUG off.
@pytest.mark.live
def test_served_with_several_workers(served):
    connection = http.client.HTTPConnection("127.0.0.1", served, timeout=5)
    timings = []
    for _ in range(60):
        started = time.perf_counter()
        connection.request("GET", "/healthz")
        response = connection.getresponse()
        assert response.read() == b'{"status": "ok"}'
        timings.append((time.perf_counter() - started) * 1000)
    p50 = statistics.median(timings[10:])
    assert p50 < 20, f"p50 {p50:.1f} ms over keep-alive: Nagle's algorithm is back on"

    connection.request("GET", "/static/admin/css/base.css")
    response = connection.getresponse()
    assert response.status == 200 and b"body" in response.read()
    assert "max-age" in (response.getheader("Cache-Control") or "")

    connection.request("GET", "/no-such-page-xyz")
    response = connection.getresponse()
    body = response.read()
    assert response.status == 404
    assert b"URLconf" not in body and b"DEBUG = True" not in body
    connection.close()
