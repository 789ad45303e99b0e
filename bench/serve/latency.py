"""Keep-alive latency of the production server with and without the TCP_NODELAY fix.

    .venv/bin/python -m bench.serve.latency [--requests 300] [--workers 2 4]

Starts ``python -m config.serving`` on a free loopback port (DEBUG off), sends
``--requests`` sequential ``GET /healthz`` over one keep-alive connection, and
prints p50/p90/p99 in milliseconds; then the same with ``--keep-nagle``
(uvicorn's own multi-worker behaviour, Kludex/uvicorn#3149). Loopback only;
every request has a 5 s timeout and the whole run is bounded by the counts.
"""

from __future__ import annotations

import argparse
import http.client
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(BASE_DIR))

from tests.services import free_port, stop_process_group  # noqa: E402 - needs sys.path above


def _serve(workers: int, keep_nagle: bool, static_root: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = dict(os.environ, DEBUG="0", STATIC_ROOT=static_root)
    command = [sys.executable, "-m", "config.serving", "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
               "--no-access-log", "--log-level", "warning"] + (["--keep-nagle"] if keep_nagle else [])
    process = subprocess.Popen(command, cwd=BASE_DIR, env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                connection.close()
                return process, port
        except OSError:
            time.sleep(0.2)
    stop_process_group(process)
    raise RuntimeError("server did not start")


def _measure(port: int, requests: int) -> list[float]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    for _ in range(10):  # warm-up: the connection, the worker's first request
        connection.request("GET", "/healthz")
        connection.getresponse().read()
    timings = []
    for _ in range(requests):
        started = time.perf_counter()
        connection.request("GET", "/healthz")
        connection.getresponse().read()
        timings.append((time.perf_counter() - started) * 1000)
    connection.close()
    return sorted(timings)


def _quantile(times: list[float], q: float) -> float:
    return times[min(len(times) - 1, int(q * len(times)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--workers", type=int, nargs="+", default=[2, 4])
    args = parser.parse_args()
    print(f"# {platform.platform()}, Python {platform.python_version()}, {args.requests} keep-alive GET /healthz")
    print("| workers | TCP_NODELAY fix | p50 ms | p90 ms | p99 ms |")
    print("|---:|---|---:|---:|---:|")
    static_root = tempfile.mkdtemp(prefix="lifeos-bench-static-")  # /healthz needs no static files
    for workers in args.workers:
        for keep_nagle in (True, False):
            process, port = _serve(workers, keep_nagle, static_root)
            try:
                t = _measure(port, args.requests)
            finally:
                stop_process_group(process)
            print(f"| {workers} | {'off (uvicorn as is)' if keep_nagle else 'on'} | "
                  f"{statistics.median(t):.2f} | {_quantile(t, 0.9):.2f} | {_quantile(t, 0.99):.2f} |", flush=True)


if __name__ == "__main__":
    main()
