"""Load and faults against the production configuration, then a secrets scan.

    .venv/bin/python -m bench.load.run [--seconds 120] [--assistants 20] [--workers 4] [--no-faults]

Starts a throwaway PostgreSQL and Redis (loopback), migrates, collects static
files, serves ``python -m config.serving`` with several workers (DEBUG off),
and connects ``--assistants`` assistants through the real OAuth flow. Then:

1. **Load** — every assistant on its own thread, for ``--seconds``, mixes
   ``get_user_context``, ``search_user_context`` and ``propose_memory``
   (some submissions deliberately repeated), after one refresh at the token
   endpoint. Asserts: 0 errors; proposal rows == distinct successful
   submissions, and a repeated submission got the same id (nothing lost or
   duplicated); access events == successful calls that carried facts.
2. **Faults** (bounded, a few seconds each, load running throughout):
   a worker killed mid-request (the others keep serving); PostgreSQL
   restarted (only explicit 503 / ``unavailable`` while it is down, full
   recovery after, every confirmed proposal still there); Redis stopped
   (reads still served: the cache is not on the read path's critical edge,
   or an explicit 503 — counted and printed). Unreachable object storage is
   covered by ``tests/ops/test_storage_s3.py``.
3. **Secrets** — every token, code, verifier and registration token the
   clients held is searched for in every database table, the captured
   server log and the rendered pages (the person's and the admin's).

Prints the figures; exits non-zero if any check fails. Loopback only; every
request has a timeout and every phase a deadline.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

BASE_DIR = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(BASE_DIR))

from tests.services import _as_postgres_user, _pg_bin, free_port, postgres_cluster, redis_server  # noqa: E402 - needs sys.path

REQUEST_TIMEOUT = 10
FAILURES: list[str] = []


def check(condition: bool, what: str) -> None:
    print(f"  [{'ok' if condition else 'FAIL'}] {what}", flush=True)
    if not condition:
        FAILURES.append(what)


# --- the server ------------------------------------------------------------------------------------

@dataclass
class Server:
    env: dict
    port: int
    workers: int
    log_path: Path
    process: subprocess.Popen | None = None

    def start(self) -> None:
        log = open(self.log_path, "ab")  # closed with the process
        command = [sys.executable, "-m", "config.serving", "--bind", f"127.0.0.1:{self.port}",
                   "--workers", str(self.workers), "--log-level", "info"]
        self.process = subprocess.Popen(command, cwd=BASE_DIR, env=self.env, stdout=log, stderr=log,
                                        start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError, http.client.HTTPException):
                if get(self.port, "/readyz").status == 200:
                    return
            time.sleep(0.3)
        raise RuntimeError("the server did not become ready")

    def worker_pids(self) -> list[int]:
        """The uvicorn worker processes (spawned children), not the resource tracker."""
        pids = []
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            for pid in (task / "children").read_text().split():
                with contextlib.suppress(OSError):
                    if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace"):
                        pids.append(int(pid))
        return sorted(pids)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def get(port: int, path: str) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT)
    connection.request("GET", path, headers={"Host": "127.0.0.1"})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


def django_side(env: dict, *args: str) -> str:
    result = subprocess.run([sys.executable, "-m", "bench.load.django_side", *args], cwd=BASE_DIR, env=env,
                            capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise RuntimeError(f"django_side {args[0]} failed:\n{result.stderr[-3000:]}")
    return result.stdout


# --- one assistant -----------------------------------------------------------------------------------

@dataclass
class Tally:
    calls: Counter = field(default_factory=Counter)  # (tool, outcome) → count
    fact_calls: int = 0  # successful calls whose result carried at least one fact
    proposals: dict = field(default_factory=dict)  # (connection, label, value) → set of ids
    confirmed_ids: set = field(default_factory=set)
    errors: list = field(default_factory=list)
    statuses_while: Counter = field(default_factory=Counter)  # during a fault: outcome → count
    samples: dict = field(default_factory=dict)  # outcome → the first message seen with it
    retries: int = 0  # requests re-sent once on a fresh connection after the old one failed
    lock: threading.Lock = field(default_factory=threading.Lock)


class Assistant:
    def __init__(self, port: int, info: dict, tally: Tally):
        self.port, self.info, self.tally = port, info, tally
        self.token = info["access_token"]
        self.connection: http.client.HTTPConnection | None = None
        self.rng = random.Random(info["index"])
        self.sent = 0

    def _post(self, path: str, body: bytes, headers: dict) -> tuple[int, bytes]:
        for attempt in (1, 2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_TIMEOUT)
            try:
                self.connection.request("POST", path, body=body, headers={"Host": "127.0.0.1", **headers})
                response = self.connection.getresponse()
                return response.status, response.read()
            except (OSError, http.client.HTTPException):
                self.connection.close()
                self.connection = None
                if attempt == 2:
                    raise
                with self.tally.lock:
                    self.tally.retries += 1
                # A keep-alive connection the server closed between requests: a client retries that once.
                # (Only safe because it never reached a worker; a reset mid-request surfaces on the retry.)
        raise AssertionError("unreachable")

    def refresh(self) -> None:
        body = urlencode({"grant_type": "refresh_token", "refresh_token": self.info["refresh_token"],
                          "client_id": self.info["client_id"]}).encode()
        status, content = self._post("/oauth/token/", body, {"Content-Type": "application/x-www-form-urlencoded"})
        if status != 200:
            raise RuntimeError(f"refresh failed: {status} {content[:200]!r}")
        tokens = json.loads(content)
        self.token = tokens["access_token"]
        self.info["refresh_token"] = tokens["refresh_token"]
        self.info["secrets"] += [tokens["access_token"], tokens["refresh_token"]]

    def call(self, tool: str, arguments: dict) -> tuple[str, dict | None]:
        """One tools/call; the outcome is "ok", an M-8 code, "http <status>" or "connection error"."""
        self.sent += 1
        message = {"jsonrpc": "2.0", "id": self.sent, "method": "tools/call",
                   "params": {"name": tool, "arguments": arguments}}
        try:
            status, content = self._post("/mcp", json.dumps(message).encode(), {
                "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                "Authorization": f"Bearer {self.token}"})
        except (OSError, http.client.HTTPException) as error:
            return f"connection error ({type(error).__name__})", None
        if status != 200:
            return f"http {status}", None
        body = json.loads(content)
        if "error" in body:
            outcome = f"rpc {body['error'].get('code')}"
            self.tally.samples.setdefault(outcome, str(body["error"].get("message"))[:200])
            return outcome, None
        result = body["result"]
        if result.get("isError"):
            return result["structuredContent"]["code"], None
        return "ok", result["structuredContent"]

    def one_round(self) -> tuple[str, str, dict | None, tuple | None]:
        roll = self.rng.random()
        key = None
        if roll < 0.45:
            tool, arguments = "get_user_context", {}
        elif roll < 0.70:
            tool, arguments = "search_user_context", {"query": self.rng.choice(["tea", "Load fact", "walks",
                                                                              "reading", "nothing-matches"])}
        else:
            # Every fifth proposal repeats one made before: it must answer the same id, not a new row.
            number = self.rng.randrange(max(1, self.sent // 5)) if self.rng.random() < 0.2 else self.sent
            label, value = f"Load {self.info['index']}-{number}", f"Suggested value {number}"
            tool, arguments = "propose_memory", {"op": "add", "category": "preferences", "label": label,
                                                 "value": value}
            key = (self.info["connection_id"], label, value)
        outcome, content = self.call(tool, arguments)
        return tool, outcome, content, key

    def record(self, tool, outcome, content, key, *, fault: bool) -> None:
        with self.tally.lock:
            self.tally.calls[(tool, outcome)] += 1
            if fault:
                self.tally.statuses_while[outcome] += 1
            if outcome != "ok":
                if not fault:
                    self.tally.errors.append((tool, outcome))
                return
            if tool in ("get_user_context", "search_user_context") and content["facts"]:
                self.tally.fact_calls += 1
            if tool == "propose_memory":
                self.tally.proposals.setdefault(key, set()).add(content["id"])
                self.tally.confirmed_ids.add(content["id"])


def drive(assistants: list[Assistant], seconds: float, *, fault: threading.Event | None = None) -> None:
    """Every assistant on its own thread until the deadline."""
    deadline = time.monotonic() + seconds

    def loop(assistant: Assistant):
        while time.monotonic() < deadline:
            tool, outcome, content, key = assistant.one_round()
            assistant.record(tool, outcome, content, key, fault=fault is not None and fault.is_set())

    threads = [threading.Thread(target=loop, args=(a,), daemon=True) for a in assistants]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + 60)


# --- phases ------------------------------------------------------------------------------------------

def phase_load(env, assistants, tally, seconds) -> dict:
    print(f"\n== load: {len(assistants)} assistants × {seconds:.0f} s", flush=True)
    before = json.loads(django_side(env, "counts"))
    started = time.monotonic()
    drive(assistants, seconds)
    elapsed = time.monotonic() - started
    after = json.loads(django_side(env, "counts"))
    total = sum(tally.calls.values())
    by_tool = Counter()
    for (tool, _), count in tally.calls.items():
        by_tool[tool] += count
    figures = {
        "calls": total,
        "calls_per_second": round(total / elapsed, 1),
        "by_tool": dict(by_tool),
        "errors": len(tally.errors),
        "error_kinds": dict(Counter(outcome for _, outcome in tally.errors)),
        "proposal_submissions_ok": sum(count for (tool, outcome), count in tally.calls.items()
                                       if tool == "propose_memory" and outcome == "ok"),
        "distinct_proposals": len(tally.proposals),
        "proposal_rows": after["proposals"] - before["proposals"],
        "fact_carrying_calls": tally.fact_calls,
        "access_events": after["access_events"] - before["access_events"],
    }
    print(json.dumps(figures, indent=2), flush=True)
    check(figures["errors"] == 0, f"0 errors under load ({figures['errors']}: {figures['error_kinds']})")
    check(figures["proposal_rows"] == figures["distinct_proposals"],
          f"proposal rows {figures['proposal_rows']} == distinct successful submissions "
          f"{figures['distinct_proposals']} (of {figures['proposal_submissions_ok']} submissions)")
    check(all(len(ids) == 1 for ids in tally.proposals.values()), "a repeated submission answered the same id")
    check(figures["access_events"] == figures["fact_carrying_calls"],
          f"access events {figures['access_events']} == fact-carrying calls {figures['fact_carrying_calls']}")
    return figures


def faulty(assistants, tally, seconds, action, label) -> Counter:
    """Run load for ``seconds``; ``action`` (in its own thread) injects the fault; returns outcomes during it."""
    fault = threading.Event()
    tally.statuses_while.clear()
    errors_before = len(tally.errors)
    worker = threading.Thread(target=action, args=(fault,), daemon=True)
    worker.start()
    drive(assistants, seconds, fault=fault)
    worker.join(timeout=120)
    outcomes = Counter(tally.statuses_while)
    print(f"  {label}: outcomes while faulted {dict(outcomes)}; "
          f"errors outside the fault window {len(tally.errors) - errors_before}", flush=True)
    return outcomes


def phase_worker_kill(server, assistants, tally) -> dict:
    print("\n== fault: a worker killed mid-request", flush=True)
    killed = {}

    def kill(fault):
        time.sleep(1.5)
        pids = server.worker_pids()
        victim = max(pids, key=_sockets)  # the busiest: the one holding the most connections
        fault.set()
        os.kill(victim, signal.SIGKILL)  # a worker process this script started (child of our server)
        killed["pid"], killed["workers"] = victim, len(pids)
        time.sleep(3)
        fault.clear()

    retries_before = tally.retries
    outcomes = faulty(assistants, tally, 8, kill, "worker kill")
    retried = tally.retries - retries_before
    after = len(server.worker_pids())
    served = outcomes.get("ok", 0)
    check(served > 0, f"the other workers kept serving while one was killed ({served} calls ok)")
    bad = {k: v for k, v in outcomes.items() if k != "ok" and not k.startswith("connection error")}
    check(not bad, f"only dropped connections of the killed worker's in-flight requests, no error answers ({bad})")
    tally.errors.clear()
    drive(assistants, 3)
    check(not tally.errors, f"full service after the kill (workers {killed.get('workers')} → {after})")
    print(f"  requests re-sent on a new connection after the kill: {retried}", flush=True)
    return {"outcomes_while_killed": dict(outcomes), "workers_before": killed.get("workers"), "workers_after": after,
            "resent_after_connection_loss": retried}


def phase_postgres_restart(env, pg_data: Path, assistants, tally) -> dict:
    print("\n== fault: PostgreSQL restarted mid-load", flush=True)
    prefix, _, _ = _as_postgres_user()
    confirmed_before = set(tally.confirmed_ids)
    window = {}

    # Started again with exactly the options it ran with (port, socket directory, …): postmaster.opts.
    opts = shlex.split((pg_data / "postmaster.opts").read_text())[1:]
    options = " ".join(shlex.quote(o) for o in opts if o not in ("-D", str(pg_data)))

    def restart(fault):
        time.sleep(1.5)
        fault.set()
        window["down"] = time.monotonic()
        subprocess.run([*prefix, _pg_bin("pg_ctl"), "-D", str(pg_data), "-m", "fast", "stop"], check=True,
                       stdout=subprocess.DEVNULL)
        time.sleep(3)
        subprocess.run([*prefix, _pg_bin("pg_ctl"), "-D", str(pg_data), "-o", options,
                        "-l", str(pg_data.parent / "log"), "-w", "start"], check=True, stdout=subprocess.DEVNULL)
        window["up"] = time.monotonic()
        time.sleep(1)
        fault.clear()

    outcomes = faulty(assistants, tally, 10, restart, "PostgreSQL restart")
    explicit = {"ok", "unavailable", "http 503"}
    check(set(outcomes) <= explicit, f"while down: only ok, 503 or unavailable ({dict(outcomes)})")
    check(outcomes.get("http 503", 0) + outcomes.get("unavailable", 0) > 0, "the outage was answered explicitly")
    tally.errors.clear()
    drive(assistants, 3)
    check(not tally.errors, f"full recovery after the restart ({Counter(o for _, o in tally.errors)})")
    rows = set(json.loads(django_side(env, "counts"))["proposal_ids"])
    lost = tally.confirmed_ids - rows
    check(not lost, f"no confirmed proposal lost ({len(tally.confirmed_ids)} confirmed, {len(lost)} missing)")
    return {"outcomes_while_down": dict(outcomes), "down_seconds": round(window["up"] - window["down"], 1),
            "confirmed_before_restart": len(confirmed_before), "confirmed_total": len(tally.confirmed_ids)}


def phase_redis_stopped(redis_url: str, assistants, tally) -> dict:
    print("\n== fault: Redis stopped", flush=True)
    import redis

    def stop(fault):
        time.sleep(1)
        fault.set()
        with contextlib.suppress(redis.exceptions.ConnectionError):
            redis.Redis.from_url(redis_url).shutdown(nosave=True)

    outcomes = faulty(assistants, tally, 6, stop, "Redis stopped")
    other = {k: v for k, v in outcomes.items() if k != "ok"}
    check(all(k in ("unavailable", "http 503") for k in other),
          f"without Redis: every call served, or refused explicitly (503 / unavailable) ({dict(outcomes)})")
    check(not any(k.startswith(("http 5", "rpc -32603")) and k != "http 503" for k in other),
          f"without Redis: no 500 / internal error ({other})")
    samples = {k: tally.samples[k] for k in other if k in tally.samples}
    if samples:
        print(f"  answers without Redis: {samples}", flush=True)
    return {"outcomes_without_redis": dict(outcomes), "messages": samples}


def phase_secrets(env, server, assistants) -> dict:
    print("\n== secrets: tables, server log, rendered pages", flush=True)
    import psycopg

    held = {s for a in assistants for s in a.info["secrets"] if s and len(s) >= 16}
    found = []
    with psycopg.connect(env["DATABASE_URL"]) as db, db.cursor() as cursor:
        cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        tables = [row[0] for row in cursor.fetchall()]
        for table in tables:
            cursor.execute(f'SELECT t::text FROM "{table}" AS t')  # every column of every row, as text
            text = "\n".join(row[0] for row in cursor.fetchall())
            found += [f"table {table}" for secret in held if secret in text]
    log = server.log_path.read_text(errors="replace")
    found += ["server log" for secret in held if secret in log]
    pages = django_side(env, "pages")
    found += ["rendered pages" for secret in held if secret in pages]
    figures = {"secrets_held": len(held), "tables_scanned": len(tables), "log_bytes": len(log),
               "pages_bytes": len(pages), "found": sorted(set(found))}
    check(not found, f"no secret a client held appears anywhere ({len(held)} secrets, {len(tables)} tables, "
                     f"{len(log)} log bytes, {len(pages)} page bytes)")
    return figures


# --- main ----------------------------------------------------------------------------------------------

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--assistants", type=int, default=20)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--no-faults", action="store_true")
    args = parser.parse_args()
    report: dict = {"assistants": args.assistants, "workers": args.workers, "seconds": args.seconds}
    with contextlib.ExitStack() as stack:
        database_url = _create_database(stack.enter_context(postgres_cluster()))
        redis_url = stack.enter_context(redis_server())
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="lifeos-load-")))
        port = free_port()
        env = dict(os.environ, DATABASE_URL=database_url, REDIS_URL=redis_url, DEBUG="0",
                   PUBLIC_BASE_URL=f"http://127.0.0.1:{port}", SECRET_KEY="load-" + "k" * 60,
                   ALLOWED_HOSTS="127.0.0.1", STATIC_ROOT=str(work / "static"), MEDIA_ROOT=str(work / "media"),
                   OAUTH_REGISTRATION_RATE_LIMIT="1000", DATABASE_CONN_MAX_AGE="60")
        for command in (["migrate", "--noinput", "-v", "0"], ["collectstatic", "--noinput", "-v", "0"]):
            subprocess.run([sys.executable, "manage.py", *command], cwd=BASE_DIR, env=env, check=True)
        print(f"setup: PostgreSQL {database_url}, Redis {redis_url}, {args.workers} workers on :{port}", flush=True)
        data = json.loads(django_side(env, "setup", str(args.assistants)))
        server = Server(env=env, port=port, workers=args.workers, log_path=work / "server.log")
        stack.callback(server.stop)
        server.start()
        tally = Tally()
        assistants = [Assistant(port, info, tally) for info in data["assistants"]]
        for assistant in assistants:
            assistant.refresh()  # through the real token endpoint: rotated tokens are secrets held too
        report["load"] = phase_load(env, assistants, tally, args.seconds)
        if not args.no_faults:
            report["worker_kill"] = phase_worker_kill(server, assistants, tally)
            pg_data = Path(json.loads(django_side(env, "counts")) and _data_directory(database_url))
            report["postgres_restart"] = phase_postgres_restart(env, pg_data, assistants, tally)
        report["secrets"] = phase_secrets(env, server, assistants)
        if not args.no_faults:
            report["redis_stopped"] = phase_redis_stopped(redis_url, assistants, tally)
        report["server_log_errors"] = sum(1 for line in server.log_path.read_text(errors="replace").splitlines()
                                          if "Traceback" in line)
    print("\n== summary")
    print(json.dumps(report, indent=2))
    print(f"\n{'FAILED: ' + '; '.join(FAILURES) if FAILURES else 'all checks passed'}")
    return 1 if FAILURES else 0


def _sockets(pid: int) -> int:
    fds = Path(f"/proc/{pid}/fd")
    count = 0
    for fd in fds.iterdir():
        with contextlib.suppress(OSError):
            count += os.readlink(fd).startswith("socket:")
    return count


def _create_database(cluster_url: str) -> str:
    import psycopg

    with psycopg.connect(cluster_url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as db:
        db.execute("CREATE DATABASE lifeos")
    return cluster_url


def _data_directory(database_url: str) -> str:
    import psycopg

    with psycopg.connect(database_url) as db:
        return db.execute("SHOW data_directory").fetchone()[0]


if __name__ == "__main__":
    sys.exit(main())
