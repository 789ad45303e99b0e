"""Load and faults against the production configuration, then a secrets scan.

    .venv/bin/python -m bench.load.run [--seconds 120] [--assistants 20] [--workers 4] [--no-faults]

Starts a throwaway PostgreSQL primary with a streaming replica of it, and a
Redis (loopback), migrates, collects static files, serves ``python -m
config.serving`` with several workers (DEBUG off, ``DATABASE_REPLICA_URLS``
and ``REPLICA_MAX_LAG_SECONDS`` set: SPEC O-4), and connects ``--assistants``
assistants through the real OAuth flow; every other one starts with
``--backlog`` suggestions the person has not decided yet. Then:

1. **Load** — every assistant on its own thread, for ``--seconds``, mixes
   ``get_user_context``, ``search_user_context`` and ``propose_memory``
   (some submissions deliberately repeated), after one refresh at the token
   endpoint; an assistant told ``too_many_pending`` (SPEC P-8) proposes
   nothing for a while (backing off, doubling) and keeps reading. The person,
   logged in through the login page, goes from assistant page to assistant
   page confirming and ignoring what waits there, and checks each next page
   shows what was just decided. Asserts: 0 errors; every ``too_many_pending``
   and ``duplicate_processed`` answer was right when it was given (judged
   from the ids answered and the person's decisions, with their times);
   proposal rows == distinct successful submissions, and a repeated
   submission got the same id (nothing lost or duplicated); access events ==
   successful calls that carried facts; no page of the person's showed a
   decision of theirs undone.
2. **Faults** (bounded, a few seconds each, load running throughout):
   a worker killed mid-request (the others keep serving); PostgreSQL
   restarted (only explicit 503 / ``unavailable`` while it is down, full
   recovery after, every confirmed proposal still there); Redis stopped
   (reads still served: the cache is not on the read path's critical edge,
   or an explicit 503 — counted and printed); the replica stopped and started
   again (the primary serves meanwhile: no error, the person's pages never
   behind, nothing lost, the replica serving again after); the access
   history's partitions (SPEC D-8: events seeded in the past, then the daily
   task makes the next partition and the retention drops the oldest, both
   mid-load: no error, the dropped period's events gone and no other lost,
   the person's access history still served, the replica following).
   Unreachable object
   storage is covered by ``tests/ops/test_storage_s3.py``. ``faults`` in
   ``main`` lists the faults run under load; a new one is a phase added there.
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
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

BASE_DIR = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(BASE_DIR))

from tests.services import (  # noqa: E402 - needs sys.path
    Replicated,
    _as_postgres_user,
    _pg_bin,
    free_port,
    postgres_replicated,
    redis_server,
)

REQUEST_TIMEOUT = 10
PENDING_LIMIT = 100  # SPEC P-8, the product's default (PROPOSAL_PENDING_LIMIT): the server is started with it
REPLICA_MAX_LAG_SECONDS = 5  # the assistant path may read a replica this far behind (SPEC O-4)
BACKOFF_FIRST, BACKOFF_MAX = 1.0, 8.0  # seconds an assistant proposes nothing after too_many_pending
JUDGED = {"too_many_pending", "duplicate_processed"}  # right or wrong by the state at the time: judge_proposals
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
    fact_calls_resent: int = 0  # of those, sent twice (the first try timed out or lost its connection)
    reads_unanswered: int = 0  # tries of reads whose answer never came (timed out): each may have been served
    proposals: dict = field(default_factory=dict)  # (connection, label, value) → set of ids
    confirmed_ids: set = field(default_factory=set)
    errors: list = field(default_factory=list)
    statuses_while: Counter = field(default_factory=Counter)  # during a fault: outcome → count
    samples: dict = field(default_factory=dict)  # outcome → the first message seen with it
    retries: int = 0  # requests re-sent once on a fresh connection after the old one failed
    # Every propose_memory call: (connection, started, ended, outcome, id or None, key).
    proposing: list = field(default_factory=list)
    timings: list = field(default_factory=list)  # every assistant's call: (tool, started, ended) (monotonic)
    known: dict = field(default_factory=dict)  # connection → {proposal id: when its first answer arrived}
    # The person's decisions: proposal id → [started, ended or None (not known to have happened), kind].
    decisions: dict = field(default_factory=dict)
    stale_pages: list = field(default_factory=list)  # (connection, ids decided yet still offered on the next page)
    person_pages: Counter = field(default_factory=Counter)  # what the person asked for → count
    lock: threading.Lock = field(default_factory=threading.Lock)


class Assistant:
    def __init__(self, port: int, info: dict, tally: Tally):
        self.port, self.info, self.tally = port, info, tally
        self.token = info["access_token"]
        self.connection: http.client.HTTPConnection | None = None
        self.rng = random.Random(info["index"])
        self.sent = 0
        self.resent = False  # whether the last request was sent a second time
        self.quiet_until = 0.0  # proposes nothing before this (monotonic), after too_many_pending
        self.backoff = BACKOFF_FIRST

    def _post(self, path: str, body: bytes, headers: dict) -> tuple[int, bytes]:
        self.resent = False
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
                self.resent = True
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
        elif time.monotonic() < self.quiet_until:
            tool, arguments = "get_user_context", {}  # told too_many_pending: reads on, proposes nothing yet
        else:
            # Every fifth proposal repeats one made before: it must answer the same id, not a new row.
            number = self.rng.randrange(max(1, self.sent // 5)) if self.rng.random() < 0.2 else self.sent
            label, value = f"Load {self.info['index']}-{number}", f"Suggested value {number}"
            tool, arguments = "propose_memory", {"op": "add", "category": "preferences", "label": label,
                                                 "value": value}
            key = (self.info["connection_id"], label, value)
        started = time.monotonic()
        outcome, content = self.call(tool, arguments)
        ended = time.monotonic()
        with self.tally.lock:
            self.tally.timings.append((tool, started, ended))
        if tool == "propose_memory":
            with self.tally.lock:
                self.tally.proposing.append((self.info["connection_id"], started, ended, outcome,
                                             content["id"] if outcome == "ok" else None, key))
                if outcome == "ok":
                    self.tally.known.setdefault(self.info["connection_id"], {}).setdefault(content["id"], ended)
            if outcome == "too_many_pending":  # the person has enough waiting: give them time
                self.quiet_until = ended + self.backoff * (0.5 + self.rng.random())
                self.backoff = min(self.backoff * 2, BACKOFF_MAX)
            elif outcome == "ok":
                self.backoff = BACKOFF_FIRST
        return tool, outcome, content, key

    def record(self, tool, outcome, content, key, *, fault: bool) -> None:
        with self.tally.lock:
            self.tally.calls[(tool, outcome)] += 1
            if fault:
                self.tally.statuses_while[outcome] += 1
            if outcome != "ok":
                if tool != "propose_memory" and outcome.startswith("connection error"):
                    self.tally.reads_unanswered += 1 + self.resent  # each try may have reached a worker
                if not fault and not (tool == "propose_memory" and outcome in JUDGED):
                    self.tally.errors.append((tool, outcome))
                return
            if tool in ("get_user_context", "search_user_context") and content["facts"]:
                self.tally.fact_calls += 1
                # A request re-sent after a timeout may have been served (and recorded) the first time too.
                self.tally.fact_calls_resent += self.resent
            if tool == "propose_memory":
                self.tally.proposals.setdefault(key, set()).add(content["id"])
                self.tally.confirmed_ids.add(content["id"])


# --- the person ------------------------------------------------------------------------------------------

class Person:
    """The person on their own pages, as a browser: confirms and ignores what waits, then looks again."""

    def __init__(self, port: int, data: dict, tally: Tally):
        self.port, self.tally = port, tally
        self.username, self.password = data["username"], data["password"]
        self.connections = [a["connection_id"] for a in data["assistants"]]
        self.rng = random.Random(7)
        self.cookies: dict[str, str] = {}
        self.http: http.client.HTTPConnection | None = None
        self.turn = 0

    def request(self, method: str, path: str, fields: dict | None = None) -> tuple[int, str]:
        body = urlencode(fields, doseq=True).encode() if fields is not None else None
        headers = {"Host": "127.0.0.1", "Accept-Language": "en"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        for attempt in (1, 2):
            if self.http is None:
                self.http = http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_TIMEOUT)
            try:
                self.http.request(method, path, body=body, headers=headers)
                response = self.http.getresponse()
                content = response.read()
                break
            except (OSError, http.client.HTTPException):
                self.http.close()
                self.http = None
                if attempt == 2:
                    raise
                with self.tally.lock:
                    self.tally.retries += 1
        for header in response.headers.get_all("Set-Cookie") or []:
            jar = SimpleCookie()
            jar.load(header)
            for name, morsel in jar.items():
                self.cookies[name] = morsel.value
        return response.status, content.decode("utf-8", "replace")

    def login(self) -> None:
        self.request("GET", "/accounts/login/")
        status, _ = self.request("POST", "/accounts/login/", {
            "username": self.username, "password": self.password, "csrfmiddlewaretoken": self.cookies["csrftoken"]})
        if status != 302:
            raise RuntimeError(f"the person could not log in: {status}")

    def _get(self, path: str) -> tuple[str, str]:
        try:
            status, body = self.request("GET", path)
        except (OSError, http.client.HTTPException) as error:
            return f"connection error ({type(error).__name__})", ""
        return ("ok" if status == 200 else f"http {status}"), body

    def one_round(self) -> list[tuple[str, str]]:
        """One assistant's page: decide one to four of the suggestions waiting there, then open it again."""
        pk = self.connections[self.turn % len(self.connections)]
        self.turn += 1
        page = f"/me/assistants/{pk}/"
        outcome, body = self._get(page)
        done = [("page", outcome)]
        if outcome != "ok":
            return done
        waiting = list(dict.fromkeys(re.findall(r"/me/proposals/(\d+)/confirm/", body)))
        chosen = waiting[:self.rng.randint(1, 4)]
        for pid in chosen:
            kind = "confirm" if self.rng.random() < 0.5 else "ignore"
            with self.tally.lock:
                self.tally.decisions[pid] = [time.monotonic(), None, kind]
            try:
                status, _ = self.request("POST", f"/me/proposals/{pid}/{kind}/",
                                         {"csrfmiddlewaretoken": self.cookies.get("csrftoken", "")})
            except (OSError, http.client.HTTPException) as error:
                done.append(("decide", f"connection error ({type(error).__name__})"))
                continue
            if status == 302:  # decided; the answer redirects to the page
                with self.tally.lock:
                    self.tally.decisions[pid][1] = time.monotonic()
            done.append(("decide", "ok" if status == 302 else f"http {status}"))
        if chosen:
            outcome, body = self._get(page)
            done.append(("page", outcome))
            if outcome == "ok":
                # Read your own writes: a suggestion just decided is never offered again on the next page.
                stale = [pid for pid in chosen
                         if self.tally.decisions[pid][1] is not None and f"/me/proposals/{pid}/confirm/" in body]
                if stale:
                    with self.tally.lock:
                        self.tally.stale_pages.append((pk, stale))
        return done


PEOPLE: list[Person] = []  # set up by main: drive() runs them beside the assistants


def drive(assistants: list[Assistant], seconds: float, *, fault: threading.Event | None = None) -> None:
    """Every assistant, and the person, on a thread of their own until the deadline."""
    deadline = time.monotonic() + seconds

    def loop(assistant: Assistant):
        while time.monotonic() < deadline:
            tool, outcome, content, key = assistant.one_round()
            assistant.record(tool, outcome, content, key, fault=fault is not None and fault.is_set())

    def person_loop(person: Person):
        tally = person.tally
        while time.monotonic() < deadline:
            done = person.one_round()
            faulted = fault is not None and fault.is_set()
            with tally.lock:
                for what, outcome in done:
                    tally.person_pages[(what, outcome)] += 1
                    if faulted:
                        tally.statuses_while[f"person {outcome}"] += 1
                    elif outcome != "ok":
                        tally.errors.append((f"person {what}", outcome))
            time.sleep(0.05)  # a person reads the page before the next click

    threads = [threading.Thread(target=loop, args=(a,), daemon=True) for a in assistants]
    threads += [threading.Thread(target=person_loop, args=(p,), daemon=True) for p in PEOPLE]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + 60)


# --- judging the answers that depend on the moment ----------------------------------------------------

def judge_proposals(tally: Tally, cap: int, *, since: float = float("-inf")) -> dict:
    """Whether each ``too_many_pending``, ``duplicate_processed`` and new id was right when it was answered.

    The server's pending count for a connection at a call is not observed, but it is bounded: at most every id
    answered before the call began (plus any call whose answer was lost) less the decisions finished by then;
    at least those ids less every decision begun before the call ended. ``too_many_pending`` is right when the
    upper bound reaches the cap; a new id when the lower bound is below it. ``duplicate_processed`` is right
    when the person had begun deciding the suggestion the repeat names. ``since``: judge only the calls begun
    then or later (one phase's); the bounds still count everything before them.
    """
    owner = {pid: c for c, ids in tally.known.items() for pid in ids}
    decided: dict = {}
    for pid, (started, ended, _kind) in tally.decisions.items():
        decided.setdefault(owner.get(pid), []).append((pid, started, ended))
    first_id = {}
    for _c, _t0, _t1, outcome, pid, key in sorted(tally.proposing, key=lambda e: e[2]):
        if outcome == "ok":
            first_id.setdefault(key, pid)
    wrong, counts = [], Counter()
    for c, t0, t1, outcome, pid, key in tally.proposing:
        if t0 < since:
            continue
        answered = {p for p, when in tally.known.get(c, {}).items() if when <= t0}
        lost = sum(1 for c2, _s, e, o, _p, _k in tally.proposing
                   if c2 == c and e <= t0 and o != "ok" and o not in JUDGED)
        finished = sum(1 for p, _s, e in decided.get(c, []) if p in answered and e is not None and e <= t0)
        begun = sum(1 for p, s, _e in decided.get(c, []) if p in answered and s <= t1)
        upper, lower = len(answered) + lost - finished, len(answered) - begun
        if outcome == "too_many_pending":
            counts["too_many_pending"] += 1
            if upper < cap:
                wrong.append((c, outcome, f"at most {upper} waiting"))
        elif outcome == "duplicate_processed":
            counts["duplicate_processed"] += 1
            named = first_id.get(key)
            if named is None or named not in tally.decisions or tally.decisions[named][0] > t1:
                wrong.append((c, outcome, f"{named} not decided"))
        elif outcome == "ok" and pid not in answered:
            counts["new"] += 1
            if lower >= cap:
                wrong.append((c, "new id", f"at least {lower} waiting"))
        elif outcome == "ok":
            counts["same id again"] += 1
            mine = tally.decisions.get(pid)
            if mine is not None and mine[1] is not None and mine[1] <= t0:
                wrong.append((c, "same id", f"{pid} was decided before"))
    return {"answers": dict(counts), "wrong": wrong}


def fact_calls_seen(tally: Tally) -> tuple[int, int]:
    """(successful calls that carried facts, tries whose answer the client did not see) so far.

    Access events recorded meanwhile lie between the first and the sum (M-11): a read the client gave up on
    (timeout), or sent twice, may have been served and recorded all the same. A phase takes the difference
    of two of these."""
    with tally.lock:
        return tally.fact_calls, tally.fact_calls_resent + tally.reads_unanswered


def decisions_kept(env: dict, tally: Tally) -> tuple[int, list]:
    """Every decision the person saw made is in the database as made: (decisions checked, those not)."""
    rows = json.loads(django_side(env, "counts"))["decided"]
    made = {pid: kind for pid, (_s, ended, kind) in tally.decisions.items() if ended is not None}
    expected = {"confirm": ("confirmed", "conflict"), "ignore": ("ignored",)}
    missing = [pid for pid, kind in made.items() if pid not in rows or rows[pid][0] not in expected[kind]
               or (rows[pid][0] == "confirmed" and not rows[pid][1])]
    return len(made), missing


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
        "access_events_by_tool": {tool: count - before["access_events_by_tool"].get(tool, 0)
                                  for tool, count in after["access_events_by_tool"].items()},
    }
    print(json.dumps(figures, indent=2), flush=True)
    check(figures["errors"] == 0, f"0 errors under load ({figures['errors']}: {figures['error_kinds']})")
    check(figures["proposal_rows"] == figures["distinct_proposals"],
          f"proposal rows {figures['proposal_rows']} == distinct successful submissions "
          f"{figures['distinct_proposals']} (of {figures['proposal_submissions_ok']} submissions)")
    check(all(len(ids) == 1 for ids in tally.proposals.values()), "a repeated submission answered the same id")
    figures["fact_carrying_calls_resent"] = tally.fact_calls_resent
    figures["reads_unanswered"] = tally.reads_unanswered
    figures["resent"] = tally.retries
    _, unseen = fact_calls_seen(tally)  # the tally starts with the load
    check(figures["fact_carrying_calls"] <= figures["access_events"] <= figures["fact_carrying_calls"] + unseen,
          f"access events {figures['access_events']} == fact-carrying calls {figures['fact_carrying_calls']} "
          f"(+ up to {unseen} whose answer the client did not see: re-sent or timed out)")
    judged = judge_proposals(tally, PENDING_LIMIT)
    figures["proposal_answers"] = judged["answers"]
    figures["person"] = {f"{what} {outcome}": count for (what, outcome), count in sorted(tally.person_pages.items())}
    figures["person_decisions"] = dict(Counter(kind for _s, ended, kind in tally.decisions.values() if ended))
    print(json.dumps({k: figures[k] for k in ("proposal_answers", "person", "person_decisions")}, indent=2), flush=True)
    check(not judged["wrong"], f"every too_many_pending / duplicate_processed / new id was right when answered "
                               f"({judged['answers']}; wrong: {judged['wrong'][:5]})")
    check(judged["answers"].get("too_many_pending", 0) > 0, "the cap was reached and answered too_many_pending")
    check(not tally.stale_pages, f"the person's next page always showed their decisions ({tally.stale_pages[:5]})")
    checked, missing = decisions_kept(env, tally)
    check(checked > 0 and not missing, f"every decision the person made is kept ({checked} made, {len(missing)} not)")
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
    answers = {k: v for k, v in outcomes.items() if not k.removeprefix("person ").startswith("connection error")}
    bad = {k: v for k, v in answers.items() if k.removeprefix("person ") not in ("ok", *JUDGED)}
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
    person = {k: v for k, v in outcomes.items() if k.startswith("person ")}
    outcomes = Counter({k: v for k, v in outcomes.items() if k not in person})
    explicit = {"ok", "unavailable", "http 503", *JUDGED}
    check(set(outcomes) <= explicit, f"while down: only ok, 503 or unavailable ({dict(outcomes)})")
    check(set(person) <= {"person ok", "person http 503"},
          f"while down: the person's pages answer or say 503, never 500 ({person})")
    check(outcomes.get("http 503", 0) + outcomes.get("unavailable", 0) > 0, "the outage was answered explicitly")
    tally.errors.clear()
    drive(assistants, 3)
    check(not tally.errors, f"full recovery after the restart ({Counter(o for _, o in tally.errors)})")
    check_no_proposal_lost(env, tally)
    return {"outcomes_while_down": dict(outcomes), "person_while_down": person,
            "down_seconds": round(window["up"] - window["down"], 1),
            "confirmed_before_restart": len(confirmed_before), "confirmed_total": len(tally.confirmed_ids)}


def check_no_proposal_lost(env: dict, tally: Tally) -> None:
    """Every proposal an assistant was answered an id for is still a row."""
    rows = set(json.loads(django_side(env, "counts"))["proposal_ids"])
    lost = tally.confirmed_ids - rows
    check(not lost, f"no proposal lost ({len(tally.confirmed_ids)} answered, {len(lost)} missing)")


def replica_transactions(pair: Replicated) -> int:
    """Transactions the replica has served in the product's database since it started (pg_stat_database)."""
    import psycopg

    with psycopg.connect(pair.replica_url, connect_timeout=5) as db:
        return db.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()").fetchone()[0]


def phase_replica_restart(env, pair: Replicated, assistants, tally) -> dict:
    """SPEC O-4: a replica stopped and started again under load."""
    print("\n== fault: the replica stopped and started again mid-load", flush=True)
    served_before = replica_transactions(pair)
    stale_before, window = len(tally.stale_pages), {}

    def restart(fault):
        time.sleep(1.5)
        fault.set()
        window["down"] = time.monotonic()
        pair.stop_replica()
        time.sleep(3)
        pair.start_replica()
        window["up"] = time.monotonic()
        time.sleep(1)
        fault.clear()

    outcomes = faulty(assistants, tally, 10, restart, "replica restart")
    # The primary serves every read meanwhile; a call reading the replica at the instant it stopped is read
    # again from the primary. So nothing but the answers a healthy run gives.
    allowed = {"ok", *JUDGED, "person ok"}
    check(set(outcomes) <= allowed, f"while the replica was down: only what a healthy run answers ({dict(outcomes)})")
    check(len(tally.stale_pages) == stale_before, "the person's pages never showed a decision undone meanwhile")
    tally.errors.clear()
    drive(assistants, 8)  # longer than a worker leaves a failed replica aside (5 s)
    check(not tally.errors, f"full service after the replica came back ({Counter(o for _, o in tally.errors)})")
    served_after = replica_transactions(pair)
    check(served_after > 0, f"the replica serves reads again after its restart ({served_after} transactions since)")
    check_no_proposal_lost(env, tally)
    checked, missing = decisions_kept(env, tally)
    check(not missing, f"every decision the person made is kept ({checked} made, {len(missing)} not)")
    return {"outcomes_while_down": dict(outcomes), "down_seconds": round(window["up"] - window["down"], 1),
            "replica_transactions_before_stop": served_before, "replica_transactions_after_restart": served_after}


def replica_has(pair: Replicated, names: list[str]) -> dict:
    """Which of these tables the replica has, as far as it has replayed the primary: name → bool."""
    import psycopg

    with psycopg.connect(pair.replica_url, connect_timeout=5) as db:
        return {name: db.execute("SELECT to_regclass(%s) IS NOT NULL", [name]).fetchone()[0] for name in names}


def history_shows(person: Person, url: str, moment: str) -> tuple[str, bool]:
    """The person opens a page of a connection's access history: (outcome, whether it shows the event at moment)."""
    try:
        status, body = person.request("GET", url)
    except (OSError, http.client.HTTPException) as error:
        return f"connection error ({type(error).__name__})", False
    return ("ok" if status == 200 else f"http {status}"), f'datetime="{moment}"' in body


@contextlib.contextmanager
def lock_waits_watched(primary_url: str, replica_url: str):
    """Statements seen waiting on a lock, on the primary and on the replica, every 50 ms while the block runs.

    Yields a dict, filled on exit: how many were seen, the longest wait, a few of the statements."""
    import psycopg

    waits: dict = {}  # (database, backend, statement and lock) → the longest its lock wait was seen to last
    done, summary = threading.Event(), {}

    def watch():
        with psycopg.connect(primary_url, autocommit=True) as primary, \
                psycopg.connect(replica_url, autocommit=True) as replica:
            while not done.is_set():
                for where, db in (("primary", primary), ("replica", replica)):
                    for pid, age, query, lock in db.execute(
                            "SELECT pid, extract(epoch FROM clock_timestamp() - query_start), left(query, 40), "
                            "wait_event FROM pg_stat_activity "
                            "WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()"):
                        key = (where, pid, f"{query}… ({lock})")
                        waits[key] = max(waits.get(key, 0.0), round(float(age or 0), 2))
                time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield summary
    finally:
        done.set()
        watcher.join(timeout=10)
        summary.update(seen=len(waits), longest_seconds=max(waits.values(), default=0.0),
                       statements=sorted({f"{where}: {query}" for where, _pid, query in waits})[:5])


def call_seconds(tally: Tally, started: float, window_from: float, window_to: float) -> dict:
    """The assistants' calls of a phase begun at ``started``: those begun in the window, those in flight across
    it, and the whole phase's median and longest (seconds)."""
    with tally.lock:
        phase_calls = [(tool, t0, t1) for tool, t0, t1 in tally.timings if t0 >= started]
    begun = sorted(t1 - t0 for _tool, t0, t1 in phase_calls if window_from <= t0 < window_to)
    across = max((t1 - t0 for _tool, t0, t1 in phase_calls if t0 < window_to and t1 > window_from), default=0.0)
    every = sorted(phase_calls, key=lambda call: call[2] - call[1])
    return {"begun_while_tasks_ran": len(begun),
            "their_median": round(begun[len(begun) // 2], 3) if begun else None,
            "their_longest": round(begun[-1], 2) if begun else None,
            "longest_in_flight_then": round(across, 2),
            "phase_median": round(every[len(every) // 2][2] - every[len(every) // 2][1], 3) if every else None,
            "phase_longest": round(every[-1][2] - every[-1][1], 2) if every else None,
            "phase_longest_begun_at": round(every[-1][1] - started, 1) if every else None,
            "tasks_from_to": [round(window_from - started, 1), round(window_to - started, 1)]}


def phase_history_partitions(env, pair: Replicated, assistants, tally) -> dict:
    """SPEC D-8: the access history's next partition made and its oldest dropped by the retention, under load."""
    print("\n== fault: the access history's partitions — the next one made, the oldest dropped mid-load", flush=True)
    seeded = json.loads(django_side(env, "history", "seed"))
    old, kept = seeded["dropped"], seeded["kept"]
    before = json.loads(django_side(env, "history", "count", old["name"], kept["name"]))
    print(f"  seeded in the past: {old['events']} events in {old['name']} (wholly past the retention), "
          f"{kept['events']} in {kept['name']} (within it); partitions {before['attached']}", flush=True)
    person = PEOPLE[0]
    # Past the end: the last page, the connection's oldest retained events (the history reads the replica: O-4).
    history_url = f"/me/assistants/{kept['first_connection']}/?history=999999"
    shown_before = history_shows(person, history_url, kept["oldest_of_first"])
    check(shown_before == ("ok", True), f"the seeded events are in the person's access history ({shown_before})")

    # Django is set up before the load starts, so only the two tasks themselves fall in the fault's window.
    tasks = subprocess.Popen([sys.executable, "-m", "bench.load.django_side", "history", "tasks"], cwd=BASE_DIR,
                             env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    if tasks.stdout.readline().strip() != "ready":
        raise RuntimeError(f"django_side history tasks did not start:\n{tasks.communicate(timeout=60)[1][-3000:]}")
    seen_before, window, seconds = fact_calls_seen(tally), {}, 14

    def run_tasks(fault):
        time.sleep(4)  # past the first calls of the phase (a worker's first call after a pause can be slow)
        fault.set()
        window["start"] = time.monotonic()
        tasks.stdin.write("go\n")
        tasks.stdin.flush()
        line = tasks.stdout.readline()
        window["end"] = time.monotonic()
        window["result"] = result = json.loads(line) if line.strip() else None
        if result is not None:  # how soon the replica has both changes (the connection pages read it)
            names = [*result["created"], *(set(result["attached_before"]) - set(result["attached_after"]))]
            while time.monotonic() < window["end"] + 10:
                window["replica"] = replica_has(pair, names)
                if window["replica"] == {name: name in result["created"] for name in names}:
                    window["replayed"] = round(time.monotonic() - window["end"], 2)
                    break
                time.sleep(0.1)
        time.sleep(2)  # the person's next pages, their access history read from the replica, fall in the window
        fault.clear()

    started = time.monotonic()
    with lock_waits_watched(env["DATABASE_URL"], pair.replica_url) as lock_waits:
        outcomes = faulty(assistants, tally, seconds, run_tasks, "partition made and dropped")
    print(f"  statements seen waiting on a lock meanwhile: {lock_waits}", flush=True)
    try:
        _, errors = tasks.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        tasks.kill()  # the process this phase started
        _, errors = tasks.communicate()
    result = window.get("result")
    if result is None:
        print(f"  the tasks failed:\n{errors[-3000:]}", flush=True)
        result = {"attached_before": [], "attached_after": [], "created": [], "dropped": 0}
    check(window.get("end", float("inf")) <= started + seconds,
          f"both tasks ran while the load did ({window.get('end', float('nan')) - started:.1f} s into "
          f"{seconds} s of load)")
    # The module takes no lock an assistant's call waits on (apps/consent/partitions.py): how long were they?
    latency = call_seconds(tally, started, window.get("start", started), window.get("end", started + seconds))
    print(f"  assistants' calls, seconds (begun while the tasks ran; the whole phase): {latency}", flush=True)
    allowed = {"ok", *JUDGED, "person ok"}
    check(set(outcomes) <= allowed, f"while the partitions changed: only what a healthy run answers ({dict(outcomes)})")
    judged = judge_proposals(tally, PENDING_LIMIT, since=started)
    check(not judged["wrong"], f"every too_many_pending / duplicate_processed / new id meanwhile was right "
                               f"({judged['answers']}; wrong: {judged['wrong'][:5]})")
    newer = [n for n in result["created"] if all(n > b for b in result["attached_before"])]
    check(len(result["created"]) == 1 and newer and newer[0] in result["attached_after"],
          f"the task made the next partition ({result['created']} after {result['attached_before'][-1:]})")
    gone = sorted(set(result["attached_before"]) - set(result["attached_after"]))
    check(result["dropped"] == 1 and gone == [old["name"]] == result["attached_before"][:1],
          f"the retention dropped the oldest partition, and only it ({result['dropped']} dropped: {gone})")
    tally.errors.clear()
    drive(assistants, 3)
    check(not tally.errors, f"full service after the partitions changed ({Counter(o for _, o in tally.errors)})")

    after = json.loads(django_side(env, "history", "count", old["name"], kept["name"]))
    seen_after = fact_calls_seen(tally)
    least = seen_after[0] - seen_before[0]
    most = least + seen_after[1] - seen_before[1]
    new = after["total"] - (before["total"] - before["periods"][old["name"]])
    check(after["periods"][old["name"]] == 0,
          f"the dropped period's events are gone ({before['periods'][old['name']]} → {after['periods'][old['name']]})")
    check(after["periods"][kept["name"]] == before["periods"][kept["name"]],
          f"the older period within the retention is whole ({before['periods'][kept['name']]} → "
          f"{after['periods'][kept['name']]})")
    check(least <= new <= most, f"no other access event lost: {new} recorded meanwhile == fact-carrying calls "
                                f"{least} (+ up to {most - least} whose answer the client did not see)")
    check("replayed" in window, f"the replica had both changes within 10 s, load running ({window.get('replayed')} s: "
                                f"{window.get('replica')})")
    shown_after = history_shows(person, history_url, kept["oldest_of_first"])
    check(shown_after == ("ok", True), f"the connection's access history still shows its oldest retained events "
                                       f"({shown_after})")
    check_no_proposal_lost(env, tally)
    return {"seeded": {"dropped_period": old["name"], "dropped_events": old["events"], "kept_period": kept["name"],
                       "kept_events": kept["events"]},
            "outcomes_while_changing": dict(outcomes), "proposal_answers_meanwhile": judged["answers"],
            "partitions_before": result["attached_before"], "partitions_after": result["attached_after"],
            "created": result["created"], "dropped": gone,
            "ensure_seconds": result.get("ensure_seconds"), "prune_seconds": result.get("prune_seconds"),
            "assistant_calls_seconds": latency, "lock_waits": lock_waits,
            "access_events_recorded_meanwhile": new, "fact_carrying_calls_meanwhile": least,
            "unseen_meanwhile": most - least, "kept_period_events_after": after["periods"][kept["name"]],
            "replica_replayed_seconds": window.get("replayed")}


def phase_redis_stopped(redis_url: str, assistants, tally) -> dict:
    print("\n== fault: Redis stopped", flush=True)
    import redis

    def stop(fault):
        time.sleep(1)
        fault.set()
        with contextlib.suppress(redis.exceptions.ConnectionError):
            redis.Redis.from_url(redis_url).shutdown(nosave=True)

    outcomes = faulty(assistants, tally, 6, stop, "Redis stopped")
    person = {k: v for k, v in outcomes.items() if k.startswith("person ")}  # reported, not judged here
    outcomes = Counter({k: v for k, v in outcomes.items() if k not in person})
    other = {k: v for k, v in outcomes.items() if k != "ok" and k not in JUDGED}
    check(all(k in ("unavailable", "http 503") for k in other),
          f"without Redis: every call served, or refused explicitly (503 / unavailable) ({dict(outcomes)})")
    check(not any(k.startswith(("http 5", "rpc -32603")) and k != "http 503" for k in other),
          f"without Redis: no 500 / internal error ({other})")
    samples = {k: tally.samples[k] for k in other if k in tally.samples}
    if samples:
        print(f"  answers without Redis: {samples}", flush=True)
    return {"outcomes_without_redis": dict(outcomes), "person_without_redis": person, "messages": samples}


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
    parser.add_argument("--backlog", type=int, default=PENDING_LIMIT - 2,
                        help="suggestions already waiting for every other assistant (default: two below the cap)")
    parser.add_argument("--no-faults", action="store_true")
    args = parser.parse_args()
    report: dict = {"assistants": args.assistants, "workers": args.workers, "seconds": args.seconds,
                    "backlog": args.backlog}
    with contextlib.ExitStack() as stack:
        pair = stack.enter_context(postgres_replicated())
        database_url = _create_database(pair.primary_url)
        replica_url = pair.replica_url  # the same database name: the replica has it once replayed
        redis_url = stack.enter_context(redis_server())
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="lifeos-load-")))
        port = free_port()
        env = dict(os.environ, DATABASE_URL=database_url, REDIS_URL=redis_url, DEBUG="0",
                   PUBLIC_BASE_URL=f"http://127.0.0.1:{port}", SECRET_KEY="load-" + "k" * 60,
                   ALLOWED_HOSTS="127.0.0.1", STATIC_ROOT=str(work / "static"), MEDIA_ROOT=str(work / "media"),
                   OAUTH_REGISTRATION_RATE_LIMIT="1000", DATABASE_CONN_MAX_AGE="60",
                   PROPOSAL_PENDING_LIMIT=str(PENDING_LIMIT), DATABASE_REPLICA_URLS=replica_url,
                   REPLICA_MAX_LAG_SECONDS=str(REPLICA_MAX_LAG_SECONDS))
        for command in (["migrate", "--noinput", "-v", "0"], ["collectstatic", "--noinput", "-v", "0"]):
            subprocess.run([sys.executable, "manage.py", *command], cwd=BASE_DIR, env=env, check=True)
        print(f"setup: PostgreSQL {database_url} (replica {replica_url}), Redis {redis_url}, "
              f"{args.workers} workers on :{port}", flush=True)
        data = json.loads(django_side(env, "setup", str(args.assistants), str(args.backlog)))
        server = Server(env=env, port=port, workers=args.workers, log_path=work / "server.log")
        stack.callback(server.stop)
        server.start()
        tally = Tally()
        assistants = [Assistant(port, info, tally) for info in data["assistants"]]
        for info in data["assistants"]:
            tally.known[info["connection_id"]] = {pid: float("-inf") for pid in info["waiting"]}
        for assistant in assistants:
            assistant.refresh()  # through the real token endpoint: rotated tokens are secrets held too
        person = Person(port, data, tally)
        person.login()
        PEOPLE.append(person)
        report["load"] = phase_load(env, assistants, tally, args.seconds)
        report["replica_transactions_during_load"] = replica_transactions(pair)
        if not args.no_faults:
            pg_data = Path(_data_directory(database_url))
            faults = {
                "worker_kill": lambda: phase_worker_kill(server, assistants, tally),
                "postgres_restart": lambda: phase_postgres_restart(env, pg_data, assistants, tally),
                "replica_restart": lambda: phase_replica_restart(env, pair, assistants, tally),
                "history_partitions": lambda: phase_history_partitions(env, pair, assistants, tally),
                # Each fault runs under the load, in this order; a new one is a phase added here.
            }
            for name, phase in faults.items():
                report[name] = phase()
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
