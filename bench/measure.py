"""Measuring tools of the benchmark: servers, wrk, CPU time of process groups.

Everything on loopback; every server is a child process in its own session,
stopped (its process group) when its context ends.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import statistics
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[1]
LUA = BASE_DIR / "bench" / "wrk" / "jsonrpc.lua"
LEGACY = "2025-11-25"  # a handshake-era revision: the SDK serves it through a stateless transport per request
MODERN = "2026-07-28"  # per-request envelopes: what the SDK's own client sends a server that answers discovery
_TICK = os.sysconf("SC_CLK_TCK")


# --- CPU time of process groups -----------------------------------------------------

def _proc(pid: int) -> tuple[int, int, float] | None:
    """(parent pid, session id, CPU seconds of the process and its reaped children)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            data = stat.read()
    except OSError:
        return None
    fields = data[data.rindex(")") + 2 :].split()
    ppid, session = int(fields[1]), int(fields[3])
    ticks = sum(int(value) for value in fields[11:15])  # utime, stime, cutime, cstime
    return ppid, session, ticks / _TICK


def _cmdline(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return [part.decode(errors="replace") for part in cmdline.read().split(b"\0") if part]
    except OSError:
        return []


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


@dataclass
class ProcessGroup:
    """Processes measured together: a session (a server), or a parent and its children (PostgreSQL)."""

    label: str
    session: int | None = None
    parent: int | None = None

    def cpu_seconds(self) -> float:
        total = 0.0
        for pid in _pids():
            info = _proc(pid)
            if info is None:
                continue
            ppid, session, seconds = info
            if (self.session is not None and session == self.session) or (
                self.parent is not None and (pid == self.parent or ppid == self.parent)
            ):
                total += seconds
        return total


def find_listener(program: str, port: int) -> ProcessGroup:
    """The process running ``program`` whose command line names ``port`` (PostgreSQL's postmaster, Redis)."""
    for pid in _pids():
        argv = _cmdline(pid)
        if argv and program in Path(argv[0]).name and any(str(port) in arg for arg in argv):
            return ProcessGroup(program, parent=pid)
    raise RuntimeError(f"no {program} process for port {port}")


# --- Servers ----------------------------------------------------------------------

@dataclass
class Server:
    process: subprocess.Popen
    port: int
    group: ProcessGroup

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


@contextlib.contextmanager
def serving(command: list[str], port: int, env: dict[str, str], probe, cwd: Path = BASE_DIR) -> Iterator[Server]:
    """Start ``command`` (it listens on ``port``), wait until ``probe(port)`` is true, stop it afterwards."""
    process = subprocess.Popen(command, cwd=cwd, env=env, start_new_session=True)
    server = Server(process, port, ProcessGroup("server", session=process.pid))
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"server exited with {process.returncode}: {' '.join(command)}")
            with contextlib.suppress(OSError, http.client.HTTPException):
                if probe(port):
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"server did not answer within 60 s: {' '.join(command)}")
            time.sleep(0.2)
        yield server
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@dataclass(frozen=True)
class Call:
    """One ``tools/call`` as an MCP client of a protocol revision sends it: the JSON-RPC body and the MCP headers."""

    body: str
    headers: dict[str, str]


def tool_call(name: str, arguments: dict | None = None, protocol: str = LEGACY) -> Call:
    params: dict = {"name": name, "arguments": arguments or {}}
    headers = {"MCP-Protocol-Version": protocol}
    if protocol != LEGACY:  # the envelope: version and capabilities in _meta, method and tool name as headers too
        params["_meta"] = {"io.modelcontextprotocol/protocolVersion": protocol,
                           "io.modelcontextprotocol/clientCapabilities": {},
                           "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}}
        headers |= {"Mcp-Method": "tools/call", "Mcp-Name": name}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}, separators=(",", ":"))
    return Call(body, headers)


def post(port: int, call: Call, token: str | None = None, timeout: float = 10) -> tuple[int, bytes]:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **call.headers}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("POST", "/mcp", body=call.body.encode(), headers=headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


# --- Load -------------------------------------------------------------------------

@dataclass
class Run:
    """One wrk run and the CPU every party used meanwhile."""

    connections: int
    seconds: float
    requests: int
    errors: dict[str, int]
    latency_us: dict[str, float]
    wrk_cpu: float  # seconds
    cpu: dict[str, float] = field(default_factory=dict)  # group label → seconds
    rps_override: float | None = None  # the median over rounds, for a combined run
    rps_range: tuple[float, float] | None = None

    @property
    def rps(self) -> float:
        if self.rps_override is not None:
            return self.rps_override
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())

    def cpu_us_per_request(self, label: str) -> float:
        return self.cpu.get(label, 0.0) / self.requests * 1e6 if self.requests else float("nan")

    @property
    def wrk_cpu_percent(self) -> float:
        return 100 * self.wrk_cpu / self.seconds if self.seconds else 0.0

    def as_dict(self) -> dict:
        return {
            "connections": self.connections, "seconds": round(self.seconds, 3), "requests": self.requests,
            "rps": round(self.rps, 1), "errors": self.errors, "latency_ms": {
                key: round(value / 1000, 3) for key, value in self.latency_us.items()},
            "wrk_cpu_percent": round(self.wrk_cpu_percent, 1),
            "cpu_us_per_request": {label: round(self.cpu_us_per_request(label), 1) for label in self.cpu},
            "rps_range": [round(value, 1) for value in self.rps_range] if self.rps_range else None,
        }


def wrk(url: str, call: Call, *, token: str | None, connections: int, seconds: int,
        groups: list[ProcessGroup] = ()) -> Run:
    """Drive ``url`` with one wrk thread and ``connections`` keep-alive connections for ``seconds``."""
    env = dict(os.environ, BENCH_BODY=call.body, BENCH_TOKEN=token or "",
               BENCH_HEADERS="\n".join(f"{name}: {value}" for name, value in call.headers.items()))
    command = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "5s", "-s", str(LUA), url]
    before = {group.label: group.cpu_seconds() for group in groups}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    after = {group.label: group.cpu_seconds() for group in groups}
    line = next((line for line in output.splitlines() if line.startswith("BENCH_JSON ")), None)
    if process.returncode != 0 or line is None:
        raise RuntimeError(f"wrk failed ({process.returncode}):\n{output}")
    data = json.loads(line.removeprefix("BENCH_JSON "))
    return Run(
        connections=connections,
        seconds=data["duration_us"] / 1e6,
        requests=data["requests"],
        errors=data["errors"],
        latency_us=data["latency_us"],
        wrk_cpu=usage.ru_utime + usage.ru_stime,
        cpu={label: after[label] - before[label] for label in before},
    )


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples), 3)
