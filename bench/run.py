"""The assistant path under load: the product's /mcp against the MCP SDK's own server and two floors.

    .venv/bin/python -m bench.run [--workers 1] [--connections 16] [--seconds 10] [--no-scale]

(``make bench``.) In one run, on loopback only:

1. A throwaway PostgreSQL cluster and Redis (``tests/services.py``),
   migrated; a person with 50 facts written by the product's services; an
   assistant registered by dynamic client registration, approved on the
   consent page, its token from the authorization-code exchange (PKCE); all
   50 facts shared with it.
2. Each target served by the same uvicorn stack (``config.serving``'s
   protocol class, the same worker count), driven by wrk (one thread, a Lua
   script POSTing the JSON-RPC ``tools/call`` of ``get_user_context``):

   * ``product`` — ``python -m config.serving``, DEBUG off, PostgreSQL + Redis,
     the real bearer token;
   * ``sdk-anchor`` — the SDK's ``MCPServer`` (stateless, JSON responses)
     returning the same result from memory (``bench/targets/anchor.py``);
   * ``async-floor`` — the anchor whose tool first does the product's work on
     the outside world for a call (its three statements as captured from the
     product, the guard's Redis GET) on asyncio drivers, checking and building
     nothing: the floor of an asynchronous design (``bench/targets/floor_async.py``;
     ``async-floor-psycopg`` and ``async-floor-1rt`` when named with ``--only``);
   * ``django-stack`` — the product's settings and middleware with a view that
     returns the product's response bytes; ``django-bare`` — Django with no
     middleware, same view; ``asgi-raw`` — a raw ASGI app, same bytes;
   * ``product-base`` (with ``--baseline DIR``) — the product served from
     another checkout, for before/after in the same rounds.

   All are served at once and measured in interleaved rounds. Per target: a short warm-up,
   a throughput run with ``--connections`` keep-alive connections, and a latency run with one connection. Printed:
   requests/s, p50/p95/p99, errors, CPU per request of the server (and of
   PostgreSQL and Redis for the product), wrk's own CPU use, and the ratios
   product / anchor. The product's access records are counted against the
   requests answered (every result carrying facts leaves one, SPEC M-11).
3. Scale (unless ``--no-scale``): ``get_user_context`` with 1 and with
   10,000 shared facts, ``search_user_context`` over 10,000 shared facts,
   each with one connection; the search query's execution time with its
   indexes against the same query forced to sequential scans; EXPLAIN plans
   of the queries on the path. Then the internal agents' resource layer
   (``bench/layer_scale.py``, unless ``--no-layer``): ``search`` over
   1,000,000 projection rows of 1,000 people as an agent run issues it, per
   query kind p50/p95, its SQL with indexes against forced sequential scans
   and the plans; and ``read`` of a transcript over 5 MB page by page against
   one raw storage read, reassembled byte for byte.

Results: printed as Markdown, and kept in ``var/bench/`` (Markdown and JSON).
Bounded: fixed durations, every request with a 5 s timeout; about 8 minutes
(9 with ``--baseline``).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import functools
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[1]
if str(BASE_DIR) not in sys.path:
    sys.path.insert(0, str(BASE_DIR))

from bench import measure  # noqa: E402 - needs sys.path above
from tests.services import free_port, postgres_cluster, redis_server  # noqa: E402 - needs sys.path above

OUT_DIR = BASE_DIR / "var" / "bench"
WARMUP_SECONDS = 1
LATENCY_SECONDS = 4
MAIN_FACTS = 50
SCALE_FACTS = 10_000
CROWD = 2_000  # other people of the same assistant (scale part): connections, tokens, facts


# --- Setup ------------------------------------------------------------------------

def _create_database(database_url: str) -> None:
    """The cluster has only its maintenance database: create the one the URL names."""
    import psycopg

    server, _, name = database_url.rpartition("/")
    with psycopg.connect(f"{server}/postgres", autocommit=True) as maintenance:
        maintenance.execute(f'CREATE DATABASE "{name}"')


def _django(env: dict[str, str]) -> None:
    _create_database(env["DATABASE_URL"])
    os.environ.update(env)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def _machine() -> dict[str, str]:
    from django.db import connection

    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    memory = next((line.split(":", 1)[1].strip() for line in Path("/proc/meminfo").read_text().splitlines()
                   if line.startswith("MemTotal")), "?")
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        postgres = cursor.fetchone()[0]
    wrk_version = subprocess.run(["wrk", "--version"], capture_output=True, text=True).stdout.split("[")[0].strip()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=BASE_DIR, capture_output=True,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "apps", "config"], cwd=BASE_DIR,
                           capture_output=True, text=True).stdout.strip()
    from importlib.metadata import version

    import django
    import mcp  # noqa: F401 - its version is read below
    import uvicorn

    return {
        "load_before": _load(),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit + (" (with uncommitted changes in apps/ or config/)" if dirty else ""),
        "machine": f"{platform.platform()}; {cpu}; {os.cpu_count()} CPUs; {memory} RAM",
        "software": (f"Python {platform.python_version()}, Django {django.__version__}, mcp {version('mcp')}, "
                     f"uvicorn {uvicorn.__version__}, PostgreSQL {postgres}, {wrk_version}"),
    }


def _load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


# --- Targets ----------------------------------------------------------------------

def _ok_mcp(call: measure.Call, token: str | None):
    def probe(port: int) -> bool:
        status, _ = measure.post(port, call, token)
        return status == 200

    return probe


def _serving_flags(port: int, workers: int, pin: bool) -> list[str]:
    """What every target's launcher is given alike: address, worker count and whether workers are pinned."""
    return ["--bind", f"127.0.0.1:{port}", "--workers", str(workers), *(["--pin-cpus"] if pin else [])]


def _launch(app: str, port: int, workers: int, pin: bool, lifespan: str = "off") -> list[str]:
    return [sys.executable, "-m", "bench.serve.launch", app, *_serving_flags(port, workers, pin),
            "--lifespan", lifespan]


def _product_command(port: int, workers: int, pin: bool) -> list[str]:
    return [sys.executable, "-m", "config.serving", *_serving_flags(port, workers, pin),
            "--no-access-log", "--log-level", "warning"]


def _knows_pinning(checkout: Path) -> bool:
    """Whether that checkout's launcher has ``--pin-cpus`` (an earlier commit may not: it then runs unpinned)."""
    return "--pin-cpus" in (checkout / "config" / "serving.py").read_text(encoding="utf-8")


_ASYNC_FLOORS = (  # bench/targets/floor_async.py; only the first unless named with --only
    ("async-floor", "asyncpg", "the anchor running the product's 3 statements + Redis GET on asyncpg, in turn"),
    ("async-floor-psycopg", "psycopg", "the same on psycopg's asyncio connection"),
    ("async-floor-1rt", "psycopg-1rt", "the same on psycopg, the 3 statements in one round trip beside the GET"),
)


def _targets(workers: int, pin: bool, files: dict[str, str], baseline: Path | None = None) -> list[dict]:
    compared = [] if baseline is None else [
        {"name": "product-base", "what": f"the product as checked out in {baseline.name} (same database)",
         "command": lambda port: _product_command(port, workers, pin and _knows_pinning(baseline)),
         "token": True, "cwd": baseline},
    ]
    return [
        {"name": "product", "what": "LifeOS /mcp: OAuth token, PostgreSQL, Redis, access record",
         "command": lambda port: _product_command(port, workers, pin), "token": True},
        *compared,
        {"name": "sdk-anchor", "what": "MCP SDK MCPServer (stateless, JSON), same result from memory",
         "command": lambda port: _launch("bench.targets.anchor:app", port, workers, pin, "on"), "token": False},
        *({"name": name, "what": what, "token": True, "env": {"BENCH_FLOOR_DRIVER": driver},
           "command": lambda port: _launch("bench.targets.floor_async:app", port, workers, pin, "on"),
           "optional": name != "async-floor"}
          for name, driver, what in _ASYNC_FLOORS),
        {"name": "django-stack", "what": "product settings + middleware, view returns the same bytes",
         "command": lambda port: _launch("bench.targets.floor_django:application", port, workers, pin),
         "env": {"BENCH_DJANGO_FLOOR": "stack"}, "token": False},
        {"name": "django-bare", "what": "Django without middleware, view returns the same bytes",
         "command": lambda port: _launch("bench.targets.floor_django:application", port, workers, pin),
         "env": {"BENCH_DJANGO_FLOOR": "bare"}, "token": False},
        {"name": "asgi-raw", "what": "raw ASGI app returning the same bytes",
         "command": lambda port: _launch("bench.targets.floor_asgi:app", port, workers, pin), "token": False},
    ]


def _result_of(body: bytes) -> dict:
    message = json.loads(body)
    assert "result" in message, body[:300]
    return message["result"]


def _access_events(connection_id: int) -> int:
    from apps.consent.models import AccessEvent

    return AccessEvent.objects.filter(connection_id=connection_id).count()


def _median_run(runs: list[measure.Run]) -> measure.Run:
    """The median of each figure over the rounds (errors summed), as one ``Run``."""
    middle = statistics.median
    return measure.Run(
        connections=runs[0].connections,
        seconds=sum(run.seconds for run in runs),
        requests=sum(run.requests for run in runs),
        errors={key: sum(run.errors[key] for run in runs) for key in runs[0].errors},
        latency_us={key: middle(run.latency_us[key] for run in runs) for key in runs[0].latency_us},
        wrk_cpu=sum(run.wrk_cpu for run in runs),
        cpu={label: sum(run.cpu[label] for run in runs) for label in runs[0].cpu},
        rps_override=middle(run.rps for run in runs),
        rps_range=(min(run.rps for run in runs), max(run.rps for run in runs)),
    )


def run_targets(args, base_env: dict[str, str], services: list[measure.ProcessGroup], work: Path) -> dict:
    """Every target served at once (idle while another is measured), measured in interleaved rounds.

    Interleaving spreads whatever else the machine does over all targets
    alike; each figure reported is the median over the rounds.
    """
    from bench import data

    get_context = measure.tool_call("get_user_context", protocol=args.protocol)
    assistant = data.Assistant().register()
    person = data.person("bench")
    facts = data.write_facts(person, MAIN_FACTS)
    grant = data.consent(person, assistant)
    data.share(grant, facts)
    connection_id = grant.connection.pk

    files = {"BENCH_RESULT_FILE": str(work / "result.json"), "BENCH_RESPONSE_FILE": str(work / "response.json")}
    baseline = Path(args.baseline).resolve() if args.baseline else None
    targets = [target for target in _targets(args.workers, not args.no_pin, files, baseline)
               if target["name"] in (args.only or ()) or target["name"].startswith("product")
               or not args.only and not target.get("optional")]
    servers: dict[str, measure.Server] = {}
    tokens: dict[str, str | None] = {}
    sizes: dict[str, int] = {}
    with contextlib.ExitStack() as stack:
        reference = None
        for target in targets:  # the product first: the others answer with its bytes
            token = grant.fresh_access_token() if target["token"] else None
            port = free_port()
            env = dict(base_env, **files, **target.get("env", {}), BENCH_TOKEN=token or "")
            cwd = target.get("cwd", BASE_DIR)
            if cwd != BASE_DIR:
                env["PYTHONPATH"] = str(cwd)
            server = stack.enter_context(
                measure.serving(target["command"](port), port, env, _ok_mcp(get_context, token), cwd=cwd))
            status, body = measure.post(port, get_context, token)
            assert status == 200, body[:500]
            result = _result_of(body)
            if reference is None:
                structured = result["structuredContent"]
                assert not result["isError"] and len(structured["facts"]) == MAIN_FACTS, body[:500]
                assert structured["has_more"] is False
                (work / "result.json").write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
                (work / "response.json").write_bytes(body)
                reference = result
            elif result != reference:
                raise AssertionError(f"{target['name']} does not return the product's result")
            servers[target["name"]], tokens[target["name"]], sizes[target["name"]] = server, token, len(body)

        load: dict[str, list[measure.Run]] = {name: [] for name in servers}
        single: dict[str, list[measure.Run]] = {name: [] for name in servers}
        events = {name: {"answered_measured": 0, "recorded": 0} for name in servers}
        for round_number in range(args.rounds):
            names = list(servers)
            names = names[round_number % len(names):] + names[: round_number % len(names)]  # rotate the order
            for name in names:
                server, target = servers[name], next(t for t in targets if t["name"] == name)
                token = grant.fresh_access_token() if target["token"] else None
                groups = [server.group, *(services if target["token"] else [])]
                measure.wrk(server.url, get_context, token=token, connections=args.connections, seconds=WARMUP_SECONDS)
                time.sleep(0.3)  # requests still in flight when wrk stopped
                before = _access_events(connection_id) if target["token"] else 0
                load[name].append(measure.wrk(server.url, get_context, token=token, connections=args.connections,
                                              seconds=args.seconds, groups=groups))
                single[name].append(measure.wrk(server.url, get_context, token=token, connections=1,
                                                seconds=LATENCY_SECONDS, groups=groups))
                if target["token"]:
                    time.sleep(0.3)
                    events[name]["answered_measured"] += load[name][-1].requests + single[name][-1].requests
                    events[name]["recorded"] += _access_events(connection_id) - before
                print(f"  round {round_number + 1}: {_target_line(name, load[name][-1], single[name][-1])}",
                      flush=True)

    results = {}
    for target in targets:
        name = target["name"]
        results[name] = {"what": target["what"], "response_bytes": sizes[name],
                         "load": _median_run(load[name]), "single": _median_run(single[name])}
        if target["token"]:
            results[name]["access_events"] = events[name]
    return results


def _target_line(name: str, load: measure.Run, single: measure.Run) -> str:
    return (f"{name:<13} {load.rps:8.0f} req/s  p50 {load.latency_us['p50'] / 1000:6.2f} ms  "
            f"single p50 {single.latency_us['p50'] / 1000:6.2f} ms  errors {load.error_count + single.error_count}  "
            f"server {load.cpu_us_per_request('server'):6.0f} µs/req  wrk CPU {load.wrk_cpu_percent:4.0f}%")


# --- Scale ------------------------------------------------------------------------

def _explain(sql: str, params, *, seqscan: bool, repeat: int = 5) -> tuple[float, str]:
    """Median execution time (ms) of ``sql`` by EXPLAIN ANALYZE, and its plan."""
    from django.db import connection, transaction

    times, plan = [], ""
    with transaction.atomic(), connection.cursor() as cursor:
        if seqscan:
            cursor.execute("SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = off; "
                           "SET LOCAL enable_indexonlyscan = off")
        for _ in range(repeat):
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
            lines = [row[0] for row in cursor.fetchall()]
            times.append(float(next(line for line in lines if line.startswith("Execution Time")).split()[2]))
            plan = "\n".join(lines)
    return measure.median_ms(times), plan


def _captured(function, **kwargs) -> list[dict]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        function(**kwargs)
    return captured.captured_queries


def _raw(query: dict) -> tuple[str, None]:
    return query["sql"], None  # CaptureQueriesContext records the SQL with its parameters interpolated


def _indexes_used(plan: str) -> list[str]:
    import re

    return sorted(set(re.findall(r"(?:Index(?: Only)? Scan(?: Backward)? using|Bitmap Index Scan on) (\w+)", plan)))


def run_scale(args, base_env: dict[str, str], services: list[measure.ProcessGroup], work: Path) -> dict:
    from django.db import connection

    from apps.consent.selectors.visibility import visible_facts
    from apps.oauth.bearer import authenticate_bearer
    from apps.retrieval.selectors import search_visible_matches
    from bench import data

    assistant = data.Assistant().register()
    grants = {}
    for label, count in (("1 fact", 1), (f"{SCALE_FACTS:,} facts", SCALE_FACTS)):
        person = data.person(f"scale-{count}")
        facts = data.bulk_facts(person, count)
        grant = data.consent(person, assistant)
        data.share(grant, facts, bulk=True)
        grants[label] = grant
    data.crowd(assistant.flow.client_id, CROWD)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    many = grants[f"{SCALE_FACTS:,} facts"]

    narrow = {"query": "marker042", "limit": 10}  # 20 of the 10,000 facts match
    broad = {"query": "marker", "limit": 10}  # all 10,000 match: the ranking reads every candidate
    get_context, search = (functools.partial(measure.tool_call, name, protocol=args.protocol)
                           for name in ("get_user_context", "search_user_context"))
    cases = [
        ("get_user_context, 1 fact", grants["1 fact"], get_context()),
        (f"get_user_context, {SCALE_FACTS:,} facts", many, get_context()),
        (f"search_user_context, {SCALE_FACTS:,} facts, 20 match", many, search(narrow)),
        (f"search_user_context, {SCALE_FACTS:,} facts, all match", many, search(broad)),
    ]
    http_results = {}
    port = free_port()
    token = many.fresh_access_token()
    command = _product_command(port, args.workers, not args.no_pin)
    with measure.serving(command, port, base_env, _ok_mcp(get_context(), token)) as server:
        for label, grant, call in cases:
            token = grant.fresh_access_token()
            status, answer = measure.post(port, call, token)
            result = _result_of(answer)
            assert status == 200 and not result["isError"], answer[:500]
            measure.wrk(server.url, call, token=token, connections=1, seconds=1)
            run = measure.wrk(server.url, call, token=token, connections=1, seconds=LATENCY_SECONDS,
                              groups=[server.group, *services])
            http_results[label] = {"run": run, "facts_returned": len(result["structuredContent"]["facts"])}
            print(f"  {label:<48} p50 {run.latency_us['p50'] / 1000:7.2f} ms  p95 "
                  f"{run.latency_us['p95'] / 1000:7.2f} ms  {run.rps:6.0f} req/s", flush=True)

    # SQL: the search's ranking query with its indexes and forced to sequential scans; the other reads' plans.
    connection_many = many.connection
    sql = {}
    for label, query_args in (("search, 20 match", narrow), ("search, all match", broad)):
        queries = _captured(search_visible_matches, owner_id=connection_many.user_id,
                            visible=visible_facts(connection=connection_many), offset=0, **query_args)
        ranking = next(q for q in queries if "search" in q["sql"].lower() or "similarity" in q["sql"])
        indexed_ms, plan = _explain(*_raw(ranking), seqscan=False)
        seq_ms, seq_plan = _explain(*_raw(ranking), seqscan=True)
        sql[label] = {"indexed_ms": indexed_ms, "seqscan_ms": seq_ms, "ratio": round(indexed_ms / seq_ms, 3),
                      "indexes": _indexes_used(plan), "plan": plan, "seqscan_plan": seq_plan}
    queries = _captured(lambda: list(visible_facts(connection=connection_many).values_list(
        "id", "category", "label", "value", "version", "updated_at")))
    ms, plan = _explain(*_raw(queries[-1]), seqscan=False)
    sql[f"visible facts, {SCALE_FACTS:,}"] = {"indexed_ms": ms, "indexes": _indexes_used(plan), "plan": plan}
    token = many.fresh_access_token()
    for query in _captured(authenticate_bearer, raw_token=token):
        ms, plan = _explain(*_raw(query), seqscan=False)
        table = query["sql"].split("FROM", 1)[1].split()[0].strip('"')
        sql[f"bearer: {table}"] = {"indexed_ms": ms, "indexes": _indexes_used(plan), "plan": plan}
    for label, entry in sql.items():
        ratio = f", seq scan {entry['seqscan_ms']:.2f} ms (ratio {entry['ratio']})" if "seqscan_ms" in entry else ""
        print(f"  SQL {label:<40} {entry['indexed_ms']:7.3f} ms{ratio}  indexes: {', '.join(entry['indexes']) or '-'}")
    layer = None
    if not args.no_layer:
        from bench import layer_scale

        # After the cases above: the million rows it writes must not weigh on them.
        layer = layer_scale.run(_explain, _indexes_used, media_root=work / "media")
    meaning = None
    if not args.no_meaning:
        from bench import meaning as meaning_bench

        # SPEC S-4: search by meaning beside the figures above (for a person of 10,000 records among
        # 1,000,000 rows, run ``python -m bench.meaning`` on its own).
        meaning = meaning_bench.run(layer=layer is not None, populate=False)
        print("\n".join(meaning_bench.lines(meaning)), flush=True)
    return {"http": http_results, "sql": sql, "layer": layer, "meaning": meaning}


# --- Report -----------------------------------------------------------------------

def _services(run: measure.Run) -> float:
    return sum(run.cpu_us_per_request(label) for label in run.cpu if label != "server")


def _ms(value_us: float) -> str:
    return f"{value_us / 1000:.2f}"


_COMPARED = ("product", "product-base", *(name for name, _, _ in _ASYNC_FLOORS))  # each against the anchor


def _against_anchor(name: str, entry: dict, anchor: dict) -> str:
    load, single = entry["load"], entry["single"]
    return (f"{name} / anchor: throughput {load.rps / anchor['load'].rps:.2f}×, "
            f"p50 under load {load.latency_us['p50'] / anchor['load'].latency_us['p50']:.2f}×, "
            f"p50 single connection {single.latency_us['p50'] / anchor['single'].latency_us['p50']:.2f}×, "
            "server CPU per request "
            f"{load.cpu_us_per_request('server') / anchor['load'].cpu_us_per_request('server'):.2f}×")


def report(machine: dict, args, targets: dict, scale: dict | None) -> str:
    lines = [
        f"Date: {machine['date']}; commit {machine['commit']}",
        f"Machine: {machine['machine']}",
        f"Software: {machine['software']}",
        f"Setup: {args.workers} uvicorn worker(s) per target, "
        f"{'unpinned' if args.no_pin else 'each worker on one CPU (--pin-cpus)'}; wrk 1 thread; "
        f"{args.rounds} interleaved rounds, "
        f"each: {WARMUP_SECONDS} s warm-up, load run {args.connections} connections × {args.seconds} s, single run "
        f"1 connection × {LATENCY_SECONDS} s; tools/call get_user_context, {MAIN_FACTS} shared facts, "
        f"MCP protocol revision {args.protocol}. "
        f"Figures are medians over the rounds (CPU per request: over all requests).",
        f"Load average (1 min) before / after: {machine['load_before']} / {_load()}",
        "",
        f"| target | req/s ({args.connections} conn; range) | p50 ms | p95 ms | p99 ms | errors | server CPU µs/req "
        "| PostgreSQL+Redis CPU µs/req | wrk CPU | 1 conn p50 ms | 1 conn p95 ms | 1 conn p99 ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, entry in targets.items():
        load, single = entry["load"], entry["single"]
        services = _services(load)
        lines.append(
            f"| {name} | {load.rps:.0f} ({load.rps_range[0]:.0f}–{load.rps_range[1]:.0f}) | "
            f"{_ms(load.latency_us['p50'])} | {_ms(load.latency_us['p95'])} | "
            f"{_ms(load.latency_us['p99'])} | {load.error_count + single.error_count} | "
            f"{load.cpu_us_per_request('server'):.0f} | {services:.0f} | {load.wrk_cpu_percent:.0f}% | "
            f"{_ms(single.latency_us['p50'])} | {_ms(single.latency_us['p95'])} | {_ms(single.latency_us['p99'])} |"
        )
    if "product" in targets and "sdk-anchor" in targets:
        product, anchor = targets["product"], targets["sdk-anchor"]
        lines.append("")
        lines += [_against_anchor(name, targets[name], anchor) for name in targets if name in _COMPARED]
        if "product-base" in targets:
            base = targets["product-base"]
            cpu_ratio = product['load'].cpu_us_per_request('server') / base['load'].cpu_us_per_request('server')
            lines.append(f"product / product-base: throughput {product['load'].rps / base['load'].rps:.2f}×, "
                         f"server CPU per request {cpu_ratio:.2f}×, "
                         f"PostgreSQL+Redis CPU per request "
                         f"{_services(product['load']) / _services(base['load']):.2f}×")
        for name in _COMPARED:
            events = targets.get(name, {}).get("access_events")
            if events:
                lines.append(f"Access records written during the measured runs of {name}: "
                             f"{events['recorded']} for {events['answered_measured']} answered requests.")
    if scale:
        lines += ["", "| scale case (1 connection) | req/s | p50 ms | p95 ms | p99 ms | errors | facts returned "
                      "| server CPU µs/req | PostgreSQL CPU µs/req |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for label, entry in scale["http"].items():
            run = entry["run"]
            lines.append(f"| {label} | {run.rps:.0f} | {_ms(run.latency_us['p50'])} | {_ms(run.latency_us['p95'])} | "
                         f"{_ms(run.latency_us['p99'])} | {run.error_count} | {entry['facts_returned']} | "
                         f"{run.cpu_us_per_request('server'):.0f} | {run.cpu_us_per_request('postgres'):.0f} |")
        lines += ["",
                  "| SQL (EXPLAIN ANALYZE, median of 5) | with indexes ms | forced seq scan ms | ratio "
                  "| indexes used |",
                  "|---|---:|---:|---:|---|"]
        for label, entry in scale["sql"].items():
            lines.append(f"| {label} | {entry['indexed_ms']:.3f} | {entry.get('seqscan_ms', '—')} | "
                         f"{entry.get('ratio', '—')} | {', '.join(entry['indexes']) or '—'} |")
        if scale.get("layer"):
            from bench import layer_scale

            lines += layer_scale.lines(scale["layer"])
        if scale.get("meaning"):
            from bench import meaning as meaning_bench

            lines += ["", *meaning_bench.lines(scale["meaning"])]
        lines += ["", "Plans:", ""]
        for label, entry in scale["sql"].items():
            lines += [f"{label}:", "", "```", entry["plan"], "```", ""]
        if scale.get("layer"):
            lines += layer_scale.plans(scale["layer"])
    return "\n".join(lines)


def _jsonable(value):
    if isinstance(value, measure.Run):
        return value.as_dict()
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    return value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=1,
                        help="uvicorn workers per target (default 1: wrk and PostgreSQL need the other cores)")
    parser.add_argument("--no-pin", action="store_true",
                        help="serve every target unpinned (default: each worker on one CPU, --pin-cpus)")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--seconds", type=int, default=8, help="length of each load run")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds over all targets")
    parser.add_argument("--no-scale", action="store_true", help="skip the scale part (1 / 10,000 facts, the layer)")
    parser.add_argument("--no-layer", action="store_true",
                        help="in the scale part, skip the resource layer (1,000,000 projection rows, 5 MB read)")
    parser.add_argument("--no-pages", action="store_true",
                        help="skip the person's pages at real size (bench/pages.py: 2,000 facts, 10 assistants)")
    parser.add_argument("--no-meaning", action="store_true",
                        help="in the scale part, skip search by meaning (bench/meaning.py)")
    parser.add_argument("--protocol", choices=(measure.LEGACY, measure.MODERN), default=measure.LEGACY,
                        help="the MCP revision every call is sent in (default: the handshake era; "
                        f"{measure.MODERN} is what the SDK's own client sends a server that answers discovery)")
    parser.add_argument("--only", nargs="*", help="only these targets (the product always: it supplies the bytes); "
                        "async-floor-psycopg and async-floor-1rt run only when named here")
    parser.add_argument("--baseline", help="also serve the product from this checkout (e.g. a git worktree of an "
                        "earlier commit) as target product-base, measured in the same rounds")
    args = parser.parse_args()
    started = time.monotonic()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        database_url = stack.enter_context(postgres_cluster())
        redis_url = stack.enter_context(redis_server())
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="lifeos-bench-")))
        base_env = dict(os.environ, DATABASE_URL=database_url, REDIS_URL=redis_url, DEBUG="0",
                        STATIC_ROOT=str(work), LOG_LEVEL="WARNING", PYTHONPATH=str(BASE_DIR))
        print("setting up: PostgreSQL, Redis, migrations, data, OAuth", flush=True)
        # This process only writes the data and walks the OAuth pages (DEBUG on: no static manifest
        # needed for the consent page); the servers run with DEBUG off.
        _django({"DATABASE_URL": database_url, "REDIS_URL": redis_url, "DEBUG": "1", "LOG_LEVEL": "WARNING"})
        services = [measure.find_listener("postgres", int(database_url.rsplit(":", 1)[1].split("/")[0])),
                    measure.find_listener("redis-server", int(redis_url.rsplit(":", 1)[1].split("/")[0]))]
        services[0].label, services[1].label = "postgres", "redis"
        machine = _machine()
        print(f"targets ({args.workers} worker(s), {args.connections} connections × {args.seconds} s):", flush=True)
        targets = run_targets(args, base_env, services, work)
        scale = None
        if not args.no_scale:
            print("scale:", flush=True)
            scale = run_scale(args, base_env, services, work)
        pages = None
        if not args.no_pages:
            from bench import pages as page_bench

            print("pages: the person's pages at real size", flush=True)
            pages = page_bench.measure_pages()
    text = report(machine, args, targets, scale)
    if pages is not None:
        text += "\n\n" + page_bench.report(pages)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    (OUT_DIR / f"results-{stamp}.md").write_text(text + "\n", encoding="utf-8")
    (OUT_DIR / f"results-{stamp}.json").write_text(json.dumps(
        {"machine": machine, "targets": _jsonable(targets), "scale": _jsonable(scale), "pages": pages}, indent=2,
        default=str),
        encoding="utf-8")
    print("\n" + text)
    print(f"\n(in {time.monotonic() - started:.0f} s; kept in var/bench/results-{stamp}.md and .json)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
