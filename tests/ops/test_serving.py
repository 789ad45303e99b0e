"""The production web server: several uvicorn workers, DEBUG off, whitenoise (SPEC O-3)."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import socket
import statistics
import subprocess
import time
from pathlib import Path

import pytest
import uvicorn
from uvicorn.server import ServerState

from config.serving import NoDelayHTTPProtocol, RedactAccessLog
from tests.ops.conftest import BASE_DIR, PYTHON, subprocess_env
from tests.services import free_port, stop_process_group, wait_healthy

pytestmark = pytest.mark.production


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


_LOADED = """
import gc, importlib, json, sys
from django.urls import get_resolver
importlib.import_module(sys.argv[1])
get_resolver().url_patterns  # what the first request loads
print(json.dumps({"frozen": gc.get_freeze_count(), "tracked": len(gc.get_objects())}))
"""


# SPEC O-3: a worker's application, once loaded, is out of the collector's full passes (docs/performance.md
# "Collector pauses"), its URL configuration included; without the freeze every object it loaded is tracked,
# with a freeze before Django loads most of them are, and with the URL configuration left to the first request
# its 25,000 objects are.
@pytest.mark.parametrize("entry", ["config.asgi", "config.wsgi"])
def test_a_loaded_worker_leaves_its_startup_objects_to_no_full_collection(entry):
    env = subprocess_env({"DEBUG": "0", "DATABASE_URL": os.environ.get("DATABASE_URL", "")})
    done = subprocess.run([PYTHON, "-c", _LOADED, entry], cwd=BASE_DIR, env=env, capture_output=True, text=True,
                          timeout=120, check=True)
    counts = json.loads(done.stdout.strip().splitlines()[-1])
    assert counts["frozen"] > 50_000
    assert counts["tracked"] < counts["frozen"] / 20


@contextlib.contextmanager
def _serving(tmp_path, *flags: str):
    """`make serve`'s configuration: collectstatic with DEBUG off, then two uvicorn workers; yields the process."""
    env = subprocess_env({"DEBUG": "0", "STATIC_ROOT": str(tmp_path / "static"),
                          "DATABASE_URL": os.environ.get("DATABASE_URL", "")})
    subprocess.run([PYTHON, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
                   cwd=BASE_DIR, env=env, check=True, timeout=120)
    port = free_port()
    log = (tmp_path / "server.log").open("wb")
    process = subprocess.Popen(
        [PYTHON, "-m", "config.serving", "--bind", f"127.0.0.1:{port}", "--workers", "2", "--no-access-log", *flags],
        cwd=BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    process.port = port
    try:
        try:
            wait_healthy(process, port, tmp_path / "server.log")
        except RuntimeError as error:
            pytest.fail(str(error))
        yield process
    finally:
        stop_process_group(process)
        log.close()


@pytest.fixture
def served(tmp_path):
    with _serving(tmp_path) as process:
        yield process.port


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


# --- Workers pinned to CPUs (--pin-cpus) ------------------------------------------------------------------

_CAN_PIN = hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) >= 2
needs_two_cpus = pytest.mark.skipif(not _CAN_PIN, reason="needs Linux and at least two CPUs")

_PIN_CHILD = """
import os, sys, threading
from config.serving import pin_to_cpu
early = threading.Thread(target=sys.stdin.read)  # a thread that exists before the pin
early.start()
cpu = pin_to_cpu(sys.argv[1])
print(cpu, sorted(os.sched_getaffinity(early.native_id)), sorted(os.sched_getaffinity(0)), flush=True)
early.join()  # until the test closes stdin
"""


def _pinned_child(namespace: str) -> subprocess.Popen:
    """A process that pins itself in ``namespace``; ``.cpu`` is the CPU it took. It ends when its stdin closes."""
    child = subprocess.Popen([PYTHON, "-c", _PIN_CHILD, namespace], cwd=BASE_DIR, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    cpu, rest = child.stdout.readline().split(" ", 1)
    assert rest.strip() == f"[{cpu}] [{cpu}]"  # the early thread and the main thread alike
    child.cpu = int(cpu)
    return child


def _cpus_of(pid: int) -> set[frozenset[int]]:
    """The CPU set of every thread of the process (a thread that ends while they are read is left out)."""
    cpus = set()
    for thread in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(ProcessLookupError):
            cpus.add(frozenset(os.sched_getaffinity(int(thread))))
    return cpus


# SPEC O-3 (docs/performance.md): serving processes take CPUs in turn, every thread of one on the
# same single CPU (threads started before the pin too), and a CPU is free again when its process ends.
@needs_two_cpus
def test_pinning_takes_cpus_in_turn_and_frees_them_on_exit():
    cpus = sorted(os.sched_getaffinity(0))
    namespace = f"lifeos-test-{os.getpid()}-{time.monotonic_ns()}"
    children = []
    try:
        for _ in range(3):
            children.append(_pinned_child(namespace))
            assert _cpus_of(children[-1].pid) == {frozenset({children[-1].cpu})}
        assert [child.cpu for child in children] == [cpus[0], cpus[1 % len(cpus)], cpus[2 % len(cpus)]]

        children[1].stdin.close()
        children[1].wait(timeout=10)
        children.append(_pinned_child(namespace))
        assert children[-1].cpu == cpus[1]  # the slot the ended one held
    finally:
        for child in children:
            if child.poll() is None:
                child.stdin.close()
                child.wait(timeout=10)
            child.stdout.close()  # the pipe is ours to close, not the garbage collector's


# SPEC O-3: with --pin-cpus the two workers of one server keep all their threads — the database
# threads a request starts included — each on a CPU of its own.
@pytest.mark.live
@needs_two_cpus
def test_pinned_workers_each_keep_one_cpu(tmp_path):
    with _serving(tmp_path, "--pin-cpus") as process:
        for _ in range(20):  # new connections, so both workers serve some and start their threads
            connection = http.client.HTTPConnection("127.0.0.1", process.port, timeout=5)
            connection.request("GET", "/healthz")
            assert connection.getresponse().status == 200
            connection.close()
        children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
        workers = [int(pid) for pid in children if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert len(workers) == 2
        per_worker = [_cpus_of(pid) for pid in workers]
        assert all(len(cpus) == 1 and len(next(iter(cpus))) == 1 for cpus in per_worker), per_worker
        assert per_worker[0] != per_worker[1]
        assert b"on CPU" in (tmp_path / "server.log").read_bytes()
