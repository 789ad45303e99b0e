"""Throwaway PostgreSQL and Redis servers on loopback, for the test run and benchmarks.

Each server lives in a temporary directory, listens on a free loopback port
and is removed when its context ends.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _pg_bin(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if not found:
        raise RuntimeError(f"PostgreSQL's {name} is not installed (apt-get install postgresql postgresql-contrib)")
    return found


def _as_postgres_user() -> tuple[list[str], int | None, int | None]:
    """PostgreSQL refuses to run as root: drop to the 'postgres' account when we are root."""
    if os.geteuid() != 0:
        return [], None, None
    account = pwd.getpwnam("postgres")
    return ["runuser", "-u", "postgres", "--"], account.pw_uid, account.pw_gid


def _wait_for_port(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listened on 127.0.0.1:{port} after {timeout}s")


def _cluster_dirs(prefix: str, uid: int | None, gid: int | None) -> tuple[Path, Path, Path]:
    """A new directory for a cluster, its data directory's path and its socket directory, owned by ``uid``."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    data, sockets = root / "data", root / "run"
    sockets.mkdir()
    if uid is not None:
        for path in (root, sockets):
            os.chown(path, uid, gid)  # type: ignore[arg-type]  # set together with uid
    return root, data, sockets


@contextlib.contextmanager
def postgres_cluster(*, settings: tuple[str, ...] = (), hba: tuple[str, ...] = ()) -> Iterator[str]:
    """Yield a ``DATABASE_URL`` for a fresh cluster (UTF-8 ctype: pg_trgm needs it for CJK).

    ``settings``: more server options (``-c name=value``); ``hba``: lines put first in ``pg_hba.conf``."""
    prefix, uid, gid = _as_postgres_user()
    root, data, sockets = _cluster_dirs("lifeos-pg-", uid, gid)
    port = free_port()
    try:
        subprocess.run(
            [*prefix, _pg_bin("initdb"), "-D", str(data), "-U", "lifeos", "--auth=trust",
             "--encoding=UTF8", "--locale=C.UTF-8"],
            check=True, stdout=subprocess.DEVNULL,
        )
        if hba:
            rules = data / "pg_hba.conf"
            rules.write_text("\n".join(hba) + "\n" + rules.read_text())
        options = " ".join((f"-c listen_addresses=127.0.0.1 -p {port} -k {sockets} -c fsync=off "
                            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200", *settings))
        subprocess.run(
            [*prefix, _pg_bin("pg_ctl"), "-D", str(data), "-o", options, "-l", str(root / "log"), "-w", "start"],
            check=True, stdout=subprocess.DEVNULL,
        )
        _wait_for_port(port)
        yield f"postgres://lifeos@127.0.0.1:{port}/lifeos"
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run([*prefix, _pg_bin("pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(root, ignore_errors=True)


REPLICATION_USER = "replicator"


@dataclass
class Replicated:
    """A primary and one streaming replica of it (``postgres_replicated``); the replica can be stopped and started."""

    primary_url: str
    replica_url: str
    replica_data: Path
    replica_options: str
    replica_log: Path

    def stop_replica(self) -> None:
        prefix, _, _ = _as_postgres_user()
        subprocess.run([*prefix, _pg_bin("pg_ctl"), "-D", str(self.replica_data), "-m", "fast", "stop"],
                       check=True, stdout=subprocess.DEVNULL)

    def start_replica(self) -> None:
        prefix, _, _ = _as_postgres_user()
        subprocess.run([*prefix, _pg_bin("pg_ctl"), "-D", str(self.replica_data), "-o", self.replica_options,
                        "-l", str(self.replica_log), "-w", "start"], check=True, stdout=subprocess.DEVNULL)


@contextlib.contextmanager
def postgres_replicated() -> Iterator[Replicated]:
    """A fresh primary (``wal_level=replica``, a replication role allowed from loopback) and a streaming
    replica of it: ``pg_basebackup -R`` into a second data directory, started on another loopback port.

    Replication is asynchronous, as deployed: a write is on the replica once it has been replayed.
    """
    prefix, uid, gid = _as_postgres_user()
    with postgres_cluster(settings=("-c wal_level=replica -c max_wal_senders=5 -c hot_standby=on",),
                          hba=(f"host replication {REPLICATION_USER} 127.0.0.1/32 trust",)) as primary_url:
        import psycopg

        with psycopg.connect(primary_url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as db:
            db.execute(f"CREATE ROLE {REPLICATION_USER} WITH LOGIN REPLICATION")
        root, data, sockets = _cluster_dirs("lifeos-pg-replica-", uid, gid)
        port = free_port()
        primary_port = primary_url.rsplit(":", 1)[1].split("/")[0]
        replica = Replicated(primary_url=primary_url, replica_url=f"postgres://lifeos@127.0.0.1:{port}/lifeos",
                             replica_data=data, replica_log=root / "log",
                             replica_options=f"-c listen_addresses=127.0.0.1 -p {port} -k {sockets} -c fsync=off "
                                             "-c max_connections=200 -c hot_standby=on")
        try:
            subprocess.run(
                [*prefix, _pg_bin("pg_basebackup"), "-h", "127.0.0.1", "-p", primary_port, "-U", REPLICATION_USER,
                 "-D", str(data), "-R", "-X", "stream", "--checkpoint=fast"],
                check=True, stdout=subprocess.DEVNULL,
            )
            replica.start_replica()
            _wait_for_port(port)
            yield replica
        finally:
            if (data / "postmaster.pid").exists():
                subprocess.run([*prefix, _pg_bin("pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """Yield a ``REDIS_URL`` for a fresh, memory-only Redis."""
    binary = shutil.which("redis-server")
    if not binary:
        raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
    root = Path(tempfile.mkdtemp(prefix="lifeos-redis-"))
    port = free_port()
    process = subprocess.Popen(
        [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no", "--dir", str(root)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for_port(port)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def s3_server() -> Iterator[str]:
    """Yield the endpoint URL of a fresh S3-compatible server (moto's standalone server).

    It runs in its own process, so leaving the context really stops it: the
    endpoint then refuses connections, as an unreachable object store would.
    """
    import sys

    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for_port(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_healthy(process: subprocess.Popen, port: int, log: Path, timeout: float = 60.0) -> None:
    """Wait until a served process answers ``GET /healthz`` with 200; fail with its log otherwise."""
    import http.client

    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(OSError):
            probe = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            probe.request("GET", "/healthz")
            healthy = probe.getresponse().status == 200
            probe.close()
            if healthy:
                return
        if time.monotonic() > deadline or process.poll() is not None:
            raise RuntimeError(f"server on port {port} did not start:\n{log.read_text(errors='replace')}")
        time.sleep(0.2)


def stop_process_group(process: subprocess.Popen) -> None:
    """End a served process and its children: TERM, then KILL after 30 s."""
    import signal

    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@contextlib.contextmanager
def serving(server) -> Iterator[int]:
    """``server`` (a ``socketserver`` server) answering from a daemon thread; yields its port, then shuts it down."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
