"""The internal agents' resource layer at scale: ``search`` over 1,000,000 projection rows, a 5 MB ``read``.

Part of ``make bench``'s scale part (``bench/run.py``), or on its own:

    .venv/bin/python -m bench.layer_scale [--users 1000] [--rows-per-user 1000]

(on its own it starts a throwaway PostgreSQL cluster, ``tests/services.py``).

Search: ``users`` people, each with todos, voice memos and calendar events whose
searchable fields make ``rows_per_user`` projection rows — 1,000,000 rows with
the defaults. Records and rows are written by ``INSERT … SELECT`` over
``generate_series`` (text drawn from an English and a Chinese vocabulary,
lower-case and single-spaced, so it is already in ``indexing.normalize``'s
form), in record order across people, so one person's rows are spread over
the whole table as they would be after months of use. Then an internal agent
with a policy granting every type starts one run per person
(``apps.agents.services.run_start``) and issues the searches one after the
other, each as the internal API does it: ``run_access`` (snapshot ∩ policy)
then the layer's ``search`` on a strictly parsed body. Query kinds:

* ``english`` — an English word in about 6 % of the person's rows;
* ``chinese-2`` — a two-character Chinese term (no trigram: the short-term path), about 6 %;
* ``chinese-3`` — a three-character Chinese term, about 2 %;
* ``rare`` — a word in one row per person;
* ``common`` — a word in about 60 % of the person's notes and texts;
* ``two-terms`` — an English word and a Chinese term together (both must match).

For each kind the backend's one SQL statement is also run under EXPLAIN
ANALYZE with its indexes and forced to sequential scans (the ratio), and its
plan kept as evidence of the indexes used.

Read: a transcript whose stored body is over 5 MB, written by the product's
``transcript_create`` (object in file storage), read through the layer page
by page (64 KiB pages, cursor to cursor) and reassembled; the total against
one raw storage read (``storage.body_read``) of the same body, and the
reassembled body compared byte for byte.
"""

from __future__ import annotations

import json
import random
import statistics
import time

USERS = 1_000
ROWS_PER_USER = 1_000
# Per person: todos (title, notes), voice memos (title, text), calendar events (title, location, notes).
SHARES = {"todo": (2, 0.4), "voice_memo": (2, 0.3), "calendar": (3, 0.3)}  # rows per record, share of the rows
SEARCH_USERS = 40  # people searched, one run each; every kind once per run
READ_BYTES = 5 * 1024 * 1024

EN = (
    "budget review launch design mobile reminder release sprint planning customer invoice travel flight hotel "
    "dentist doctor gym running coffee lunch dinner family birthday gift school homework garden kitchen paint "
    "laptop phone charger backup server deploy database migration test bug ticket roadmap hiring interview "
    "contract lawyer tax refund insurance car repair bike train ticket museum concert movie book library "
    "piano guitar lesson english chinese spanish recipe grocery milk bread coffee beans tea yoga swim "
    "passport visa embassy meeting agenda notes slides report quarterly monthly weekly feedback survey "
    "marketing sales partner vendor shipment warehouse inventory pricing discount coupon subscription renewal "
    "password account login security audit compliance privacy policy draft email call video podcast "
    "newsletter blog article photo album camera lens printer scanner monitor keyboard mouse headphones"
).split()
ZH = (
    "周报 提醒 方案 评审 预算 客户 合同 发布 会议 纪要 体检 医生 孩子 学校 作业 旅行 机票 酒店 晚饭 "
    "生日 礼物 装修 厨房 手机 电脑 备份 服务器 数据库 迁移 测试 缺陷 路线图 招聘 面试 报销 保险 维修 "
    "火车票 博物馆 音乐会 电影 图书馆 钢琴课 菜谱 超市 牛奶 面包 咖啡 瑜伽 游泳 护照 签证 大使馆 议程 "
    "季度 反馈 问卷 市场部 销售额 供应商 仓库 库存 定价 折扣 续费 密码 账号 安全 审计 隐私 草稿 邮件 "
    "电话 视频 播客 相册 相机 打印机 显示器 键盘 耳机 产品线"
).split()
PROJECTION_INDEXES = ("projection_", "retrieval_searchprojection")
COMMON = "project"  # prefixed to about 60 % of the long texts
RARE = "zanzibar"  # the location of one calendar event per person
QUERIES = {
    "english": "budget",
    "chinese-2": "周报",
    "chinese-3": "产品线",
    "rare": RARE,
    "common": COMMON,
    "two-terms": "review 预算",
}


# --- Data -------------------------------------------------------------------------

def _tables():
    from django.contrib.auth import get_user_model

    from apps.memory.models import CalendarEvent, Todo, VoiceMemo
    from apps.retrieval.models import SearchProjection

    return {"user": get_user_model()._meta.db_table, "todo": Todo._meta.db_table,
            "voice_memo": VoiceMemo._meta.db_table, "calendar": CalendarEvent._meta.db_table,
            "projection": SearchProjection._meta.db_table}


def populate(users: int = USERS, rows_per_user: int = ROWS_PER_USER) -> dict:
    """People, their records and the records' projection rows, in a few statements. Returns counts and timings.

    Text comes from two pools drawn once (short texts for titles and
    locations, long ones for notes and memo texts), each record picking its
    own entries by a hash of (record number, person). The owner-first trigram
    index is dropped while the rows are written and built again afterwards by
    the backend's ``rebuild_index`` — as migration ``0003`` builds it over an
    existing table.
    """
    from django.db import connection, transaction

    from apps.retrieval.backends import get_search_backend

    t = _tables()
    per_type = {kind: max(1, round(rows_per_user * share / fields)) for kind, (fields, share) in SHARES.items()}
    started = time.perf_counter()
    timings = {}
    people = f"(SELECT id FROM {t['user']} WHERE username LIKE 'layer-%%')"
    common = f"CASE WHEN random() < 0.6 THEN '{COMMON} ' ELSE '' END"

    def picked(pool: str, size: int, salt: int) -> str:
        return f"JOIN bench_{pool} {pool} ON {pool}.id = (g.i * 7919 + u.id * 104729 + {salt}) %% {size}"

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT setseed(0.42)")
        cursor.execute("CREATE TEMP TABLE bench_vocab ON COMMIT DROP AS SELECT %s::text[] AS en, %s::text[] AS zh",
                       [list(EN), list(ZH)])
        # n words, about one in four Chinese.
        cursor.execute("""
            CREATE FUNCTION pg_temp.bench_words(n integer) RETURNS text LANGUAGE sql VOLATILE AS $$
                SELECT string_agg(CASE WHEN random() < 0.25
                                       THEN zh[1 + floor(random() * array_length(zh, 1))::int]
                                       ELSE en[1 + floor(random() * array_length(en, 1))::int] END, ' ')
                FROM bench_vocab, generate_series(1, n)
            $$""")
        cursor.execute("CREATE TEMP TABLE bench_short ON COMMIT DROP AS"
                       " SELECT g AS id, pg_temp.bench_words(2 + g % 5) AS words FROM generate_series(0, 9999) g")
        cursor.execute("CREATE TEMP TABLE bench_long ON COMMIT DROP AS"
                       " SELECT g AS id, pg_temp.bench_words(8 + g % 33) AS words FROM generate_series(0, 39999) g")
        cursor.execute(
            f"INSERT INTO {t['user']} (username, password, is_superuser, is_staff, is_active, first_name, last_name,"
            " email, date_joined)"
            " SELECT 'layer-' || g, '!', false, false, true, '', '', '', now() FROM generate_series(1, %s) g",
            [users])
        mark = time.perf_counter()
        # Records in (i, person) order: one person's records, and rows, are spread over the table.
        cursor.execute(
            f"INSERT INTO {t['todo']} (owner_id, created_at, updated_at, deleted_at, title, notes, status)"
            f" SELECT u.id, now() - g.i * interval '1 hour', now() - g.i * interval '1 hour', NULL,"
            f" short.words, {common} || long.words, CASE WHEN g.i %% 4 = 0 THEN 'done' ELSE 'open' END"
            f" FROM generate_series(1, %s) g(i) CROSS JOIN {people} u"
            f" {picked('short', 10_000, 1)} {picked('long', 40_000, 2)} ORDER BY g.i, u.id",
            [per_type["todo"]])
        cursor.execute(
            f"INSERT INTO {t['voice_memo']} (owner_id, created_at, updated_at, deleted_at, title, text,"
            " recorded_at, duration_seconds)"
            f" SELECT u.id, now() - g.i * interval '2 hours', now() - g.i * interval '2 hours', NULL,"
            f" short.words, {common} || long.words, now() - g.i * interval '2 hours', 60"
            f" FROM generate_series(1, %s) g(i) CROSS JOIN {people} u"
            f" {picked('short', 10_000, 3)} {picked('long', 40_000, 4)} ORDER BY g.i, u.id",
            [per_type["voice_memo"]])
        cursor.execute(
            f"INSERT INTO {t['calendar']} (owner_id, created_at, updated_at, deleted_at, title, starts_at, ends_at,"
            " status, location, notes, reminders)"
            f" SELECT u.id, now() - g.i * interval '1 day', now() - g.i * interval '1 day', NULL,"
            f" short.words, now() - g.i * interval '1 day', now() - g.i * interval '1 day' + interval '1 hour',"
            f" 'confirmed', CASE WHEN g.i = 1 + u.id %% %s THEN '{RARE}' ELSE place.words END,"
            f" {common} || long.words, '[]'::jsonb"
            f" FROM generate_series(1, %s) g(i) CROSS JOIN {people} u"
            f" {picked('short', 10_000, 5)} {picked('long', 40_000, 6)}"
            f" JOIN bench_short place ON place.id = (g.i * 104729 + u.id * 7919) %% 10000 ORDER BY g.i, u.id",
            [per_type["calendar"], per_type["calendar"]])
        timings["records_s"] = time.perf_counter() - mark
        mark = time.perf_counter()
        backend = get_search_backend()
        cursor.execute(f"DROP INDEX IF EXISTS {_trigram_index()}")
        fields = {"todo": ("title", "notes"), "voice_memo": ("title", "text"),
                  "calendar": ("title", "location", "notes")}
        for kind, names in fields.items():
            values = ", ".join(f"('/{name}', r.{name})" for name in names)
            cursor.execute(
                f"INSERT INTO {t['projection']} (resource_type, record_id, owner_id, field, text, updated_at)"
                f" SELECT %s, r.id, r.owner_id, f.field, f.text, r.updated_at"
                f" FROM {t[kind]} r CROSS JOIN LATERAL (VALUES {values}) f(field, text)"
                f" WHERE r.owner_id IN {people} AND f.text <> '' ORDER BY r.id",
                [kind])
        timings["projection_s"] = time.perf_counter() - mark
        mark = time.perf_counter()
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the deferred owner checks, before the index build
        cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
        backend.rebuild_index()
        assert not backend.index_problems(), backend.index_problems()
        timings["index_s"] = time.perf_counter() - mark
        cursor.execute(f"SELECT count(*), count(DISTINCT owner_id) FROM {t['projection']}"
                       f" WHERE owner_id IN {people}")
        rows, owners = cursor.fetchone()
    mark = time.perf_counter()
    with connection.cursor() as cursor:
        for table in (t['projection'], *(t[kind] for kind in fields)):
            # The records too: their visibility map lets the current-ids indexes answer without the table.
            vacuum(cursor, table)
        cursor.execute(f"SELECT pg_total_relation_size('{t['projection']}'), pg_relation_size('{t['projection']}')")
        total_bytes, heap_bytes = cursor.fetchone()
    timings["analyze_s"] = time.perf_counter() - mark
    timings["total_s"] = time.perf_counter() - started
    return {"users": owners, "rows": rows, "records_per_user": per_type, "table_bytes": heap_bytes,
            "table_and_indexes_bytes": total_bytes, "timings": {k: round(v, 1) for k, v in timings.items()}}


def vacuum(cursor, table: str, tries: int = 5) -> None:
    """VACUUM ANALYZE ``table`` until its visibility map covers every page, as autovacuum leaves a quiet table.

    A transaction open elsewhere (autovacuum's own ANALYZE of another table) can keep one pass from marking
    pages all-visible; the searches would then read the table behind an index-only scan, run by run."""
    for _ in range(tries):
        cursor.execute(f"VACUUM ANALYZE {table}")
        cursor.execute("SELECT relallvisible >= relpages FROM pg_class WHERE oid = %s::regclass", [table])
        if cursor.fetchone()[0]:
            return
        time.sleep(1)


def _trigram_index() -> str:
    from apps.retrieval.backends.postgres import TRIGRAM_INDEX

    return TRIGRAM_INDEX


# --- Search -----------------------------------------------------------------------

def _agent():
    from oauth2_provider.models import get_application_model

    from apps.agents.services import policy_create
    from apps.retrieval.layer.registry import registry

    application = get_application_model().objects.create(
        name="bench agent", client_type="confidential", authorization_grant_type="client-credentials",
        redirect_uris="")
    grants = {r.type: {"operations": ["list", "read", "search"], "fields": [""]} for r in registry.all()}
    return policy_create(agent_id="bench", name="Bench", application=application, grants=grants)


def _layer_call(policy, run, operation: str, body: dict) -> dict:
    """One call as the internal API makes it: the run's access now, then the strictly parsed body."""
    from apps.agents.services import run_access
    from apps.retrieval.layer import handle
    from apps.retrieval.layer.parsing import loads

    access = run_access(policy=policy, run_id=run.run_id, thread_id=run.thread_id)
    return handle(access, operation, loads(json.dumps(body)))


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered) + 0.5) - 1))]


def _summary(ms: list[float]) -> dict:
    return {"n": len(ms), "p50_ms": round(statistics.median(ms), 2), "p95_ms": round(_percentile(ms, 0.95), 2),
            "max_ms": round(max(ms), 2)}


def search_scale(explain, indexes_used, *, search_users: int = SEARCH_USERS) -> dict:
    """p50/p95 of sequential layer searches per query kind; the backend SQL with indexes and forced to seq scans."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from apps.agents.services import run_start

    policy = _policy() if _policy_exists() else _agent()
    owners = list(get_user_model().objects.filter(username__startswith="layer-").order_by("pk")
                  .values_list("pk", flat=True))
    chosen = random.Random(7).sample(owners, min(search_users, len(owners)))
    runs = [run_start(policy=policy, user_id=owner, thread_id=f"bench-{owner}") for owner in chosen]
    for query in QUERIES.values():  # warm-up: one search of each kind, not counted
        _layer_call(policy, runs[0], "search", {"query": query, "top_k": 10})
    times = {name: [] for name in QUERIES}
    hits = {name: [] for name in QUERIES}
    for run in runs:
        for name, query in QUERIES.items():
            started = time.perf_counter()
            answer = _layer_call(policy, run, "search", {"query": query, "top_k": 10})
            times[name].append((time.perf_counter() - started) * 1000)
            hits[name].append(len(answer["hits"]))
    results = {"search_users": len(runs), "kinds": {}}
    every = [ms for values in times.values() for ms in values]
    results["all"] = _summary(every)
    # The backend's one statement, for the median person of the sample, with and without indexes.
    probe = runs[len(runs) // 2]
    for name, query in QUERIES.items():
        with CaptureQueriesContext(connection) as captured:
            _layer_call(policy, probe, "search", {"query": query, "top_k": 10})
        statement = next(q["sql"] for q in captured.captured_queries if "retrieval_searchprojection" in q["sql"])
        indexed_ms, plan = explain(statement, None, seqscan=False)
        seq_ms, seq_plan = explain(statement, None, seqscan=True, repeat=3)
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM retrieval_searchprojection WHERE owner_id = %s AND strpos(text, %s) > 0",
                [probe.user_id, query.split()[0]])
            owner_rows = cursor.fetchone()[0]
        results["kinds"][name] = {
            "query": query, **_summary(times[name]), "hits_median": statistics.median(hits[name]),
            "rows_of_person_with_first_term": owner_rows,
            "sql_indexed_ms": indexed_ms, "sql_seqscan_ms": seq_ms, "sql_ratio": round(indexed_ms / seq_ms, 4),
            "indexes": indexes_used(plan), "plan": plan, "seqscan_plan": seq_plan,
        }
    return results


# --- Read -------------------------------------------------------------------------

def _segments(total_bytes: int, seed: int = 11) -> list[dict]:
    """Bilingual segments of 40–4,000 characters, plus one far longer than a page."""
    rng = random.Random(seed)
    words = list(EN) + list(ZH)
    segments, size, offset = [], 0, 0
    while size < total_bytes:
        text = " ".join(rng.choice(words) for _ in range(rng.choice((8, 60, 300, 800))))
        segments.append({"speaker": rng.choice(["林若溪", "Alex", "王小明"]), "start_ms": offset,
                         "end_ms": offset + 4000, "text": text})
        offset += 4000
        size += len(text.encode())
    segments.append({"speaker": "Alex", "start_ms": offset, "end_ms": offset + 1, "text": "长" * 150_000})
    return segments


def read_scale(*, total_bytes: int = READ_BYTES, rounds: int = 3) -> dict:
    """Read a >5 MB transcript page by page through the layer against one raw storage read."""
    from django.contrib.auth import get_user_model

    from apps.agents.evaluation.reassembly import reassemble
    from apps.agents.services import run_start
    from apps.memory import services, storage
    from apps.memory.models import Transcript
    from apps.retrieval.layer.resources import transcript as transcript_resource

    owner = get_user_model().objects.create_user(username="layer-reader", password="layer-reader-password-1")
    policy = _policy() if _policy_exists() else _agent()
    segments = _segments(total_bytes)
    written = time.perf_counter()
    transcript = services.transcript_create(owner=owner, title="All-hands 全员会", recorded_at=_now(),
                                            segments=segments)
    write_s = time.perf_counter() - written
    transcript = Transcript.objects.get(pk=transcript.pk)
    ref = f"transcript:{transcript.pk}"
    raw_ms, stored = [], b""
    for _ in range(rounds):
        started = time.perf_counter()
        stored = storage.body_read(path=transcript.body_path, sha256=transcript.body_sha256)
        raw_ms.append((time.perf_counter() - started) * 1000)
    reads = []
    for round_number in range(rounds):
        transcript_resource._bodies.clear()  # every round starts with nothing kept
        run = run_start(policy=policy, user_id=owner.pk, thread_id=f"bench-read-{round_number}")
        page_ms, pages = [], []
        started = time.perf_counter()
        body = {"ref": ref}
        while True:
            page_started = time.perf_counter()
            page = _layer_call(policy, run, "read", body)
            page_ms.append((time.perf_counter() - page_started) * 1000)
            pages.append(page)
            if not page["next_cursor"]:
                break
            body = {"ref": ref, "cursor": page["next_cursor"]}
        total_ms = (time.perf_counter() - started) * 1000
        reads.append({"total_ms": total_ms, "pages": pages, "page_ms": page_ms})
    # SQL statements per page (a separate pass: capturing them slows the pages down).
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    run = run_start(policy=policy, user_id=owner.pk, thread_id="bench-read-sql")
    statements, body = [], {"ref": ref}
    while True:
        with CaptureQueriesContext(connection) as captured:
            page = _layer_call(policy, run, "read", body)
        statements.append(len(captured))
        if not page["next_cursor"]:
            break
        body = {"ref": ref, "cursor": page["next_cursor"]}
    first = reads[0]
    page_bytes = [len(json.dumps(p, ensure_ascii=False, separators=(",", ":")).encode()) for p in first["pages"]]
    doc = reassemble([f for page in first["pages"] for f in page["fragments"]])
    reassembled = json.dumps({"segments": doc["segments"]}, ensure_ascii=False, separators=(",", ":")).encode()
    totals = [r["total_ms"] for r in reads]
    raw = statistics.median(raw_ms)
    return {
        "body_bytes": len(stored), "segments": len(segments), "write_s": round(write_s, 2),
        "pages": len(first["pages"]), "largest_page_bytes": max(page_bytes),
        "identical": reassembled == stored,
        "total_ms_median": round(statistics.median(totals), 1), "total_ms_rounds": [round(v, 1) for v in totals],
        "first_page_ms_median": round(statistics.median(r["page_ms"][0] for r in reads), 1),
        "later_page_ms_p50": round(statistics.median(ms for r in reads for ms in r["page_ms"][1:]), 2),
        "later_page_ms_p95": round(_percentile([ms for r in reads for ms in r["page_ms"][1:]], 0.95), 2),
        "raw_read_ms_median": round(raw, 2), "ratio_to_raw": round(statistics.median(totals) / raw, 1),
        "rounds": rounds, "sql_per_page": sorted(set(statements)),
    }


def _now():
    from apps.common import clock

    return clock.now()


def _policy_exists() -> bool:
    from apps.agents.models import AgentPolicy

    return AgentPolicy.objects.filter(agent_id="bench").exists()


def _policy():
    from apps.agents.models import AgentPolicy

    return AgentPolicy.objects.get(agent_id="bench")


# --- Report lines -----------------------------------------------------------------

def lines(result: dict) -> list[str]:
    """Markdown for ``bench.run.report``."""
    data, search, read = result["data"], result["search"], result["read"]
    out = [
        "",
        f"Unified layer `search` (internal agent run: `run_access` + strict parse + layer `search`, top_k 10), "
        f"{data['rows']:,} projection rows of {data['users']:,} people "
        f"(records per person: {', '.join(f'{k} {v}' for k, v in data['records_per_user'].items())}; table "
        f"{data['table_bytes'] / 2**20:.0f} MiB, with indexes {data['table_and_indexes_bytes'] / 2**20:.0f} MiB; "
        f"written in {data['timings']['total_s']} s), {search['search_users']} people searched one after the other, "
        f"each kind once per person:",
        "",
        "| query kind | query | person's rows with the term | hits | p50 ms | p95 ms | max ms | SQL with indexes ms "
        "| SQL forced seq scan ms | ratio | indexes used |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    source = set()
    for name, k in search["kinds"].items():
        projection = [i for i in k["indexes"] if i.startswith(PROJECTION_INDEXES)]
        source |= set(k["indexes"]) - set(projection)
        out.append(f"| {name} | `{k['query']}` | {k['rows_of_person_with_first_term']} | {k['hits_median']:g} | "
                   f"{k['p50_ms']:.2f} | {k['p95_ms']:.2f} | {k['max_ms']:.2f} | {k['sql_indexed_ms']:.3f} | "
                   f"{k['sql_seqscan_ms']:.1f} | {k['sql_ratio']} | {', '.join(projection) or '—'} |")
    every = search["all"]
    out += [
        f"| all kinds | | | | {every['p50_ms']:.2f} | {every['p95_ms']:.2f} | {every['max_ms']:.2f} | | | | |",
        "",
        "SQL: `EXPLAIN ANALYZE` execution time of the backend's one statement for one person (median of 5 with "
        "indexes, of 3 with index and bitmap scans off); indexes used: those on the projection table. Every plan "
        f"also checks candidates against their source records (SPEC R-6) by {', '.join(sorted(source)) or '—'}.",
        "",
        f"Unified layer `read` of a transcript of {read['body_bytes']:,} bytes ({read['segments']:,} segments) "
        f"through {read['pages']} pages of at most 65,536 bytes (largest {read['largest_page_bytes']:,}), cursor to "
        f"cursor, median of {read['rounds']} reads each starting with no body kept: "
        f"total {read['total_ms_median']:.0f} ms (rounds: {', '.join(f'{v:.0f}' for v in read['total_ms_rounds'])}); "
        f"first page {read['first_page_ms_median']:.0f} ms, later pages p50 {read['later_page_ms_p50']:.2f} ms / "
        f"p95 {read['later_page_ms_p95']:.2f} ms; one raw storage read (`storage.body_read`, with its SHA-256 check) "
        f"{read['raw_read_ms_median']:.1f} ms — {read['ratio_to_raw']}× ; reassembled byte for byte: "
        f"{'yes' if read['identical'] else 'NO'}; SQL statements per page (`run_access` and the layer): "
        f"{', '.join(map(str, read['sql_per_page']))}.",
    ]
    return out


def plans(result: dict) -> list[str]:
    out = []
    for name, k in result["search"]["kinds"].items():
        out += [f"layer search, {name} (`{k['query']}`):", "", "```", k["plan"], "```", ""]
    return out


def run(explain, indexes_used, *, media_root, users: int = USERS, rows_per_user: int = ROWS_PER_USER) -> dict:
    from django.test.utils import override_settings

    print(f"  layer: writing {users * rows_per_user:,} projection rows of {users:,} people …", flush=True)
    data = populate(users, rows_per_user)
    print(f"  layer: {data['rows']:,} rows in {data['timings']['total_s']} s "
          f"({data['table_and_indexes_bytes'] / 2**20:.0f} MiB with indexes)", flush=True)
    with override_settings(DEBUG=False):  # timed as served: no query log
        search = search_scale(explain, indexes_used)
    for name, k in search["kinds"].items():
        print(f"  layer search {name:<10} p50 {k['p50_ms']:7.2f} ms  p95 {k['p95_ms']:7.2f} ms  SQL "
              f"{k['sql_indexed_ms']:8.3f} ms, seq scan {k['sql_seqscan_ms']:8.1f} ms (ratio {k['sql_ratio']})  "
              f"indexes: {', '.join(k['indexes']) or '-'}", flush=True)
    print(f"  layer search all kinds  p50 {search['all']['p50_ms']:7.2f} ms  p95 {search['all']['p95_ms']:7.2f} ms",
          flush=True)
    with override_settings(MEDIA_ROOT=str(media_root), DEBUG=False):
        read = read_scale()
    print(f"  layer read {read['body_bytes']:,} bytes: {read['pages']} pages, total {read['total_ms_median']:.0f} ms "
          f"vs raw read {read['raw_read_ms_median']:.1f} ms ({read['ratio_to_raw']}x); first page "
          f"{read['first_page_ms_median']:.0f} ms, later pages p50 {read['later_page_ms_p50']:.2f} ms; "
          f"SQL per page {read['sql_per_page']}; byte for byte: {read['identical']}", flush=True)
    return {"data": data, "search": search, "read": read}


def main() -> int:
    import argparse
    import contextlib
    import os
    import sys
    import tempfile
    from pathlib import Path

    base = Path(__file__).resolve().parents[1]
    if str(base) not in sys.path:
        sys.path.insert(0, str(base))
    from bench import run as bench_run
    from tests.services import postgres_cluster, redis_server

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=USERS)
    parser.add_argument("--rows-per-user", type=int, default=ROWS_PER_USER)
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        database_url = stack.enter_context(postgres_cluster())
        redis_url = stack.enter_context(redis_server())
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="lifeos-layer-")))
        os.environ["MEDIA_ROOT"] = str(work / "media")
        bench_run._django({"DATABASE_URL": database_url, "REDIS_URL": redis_url, "DEBUG": "1",
                           "LOG_LEVEL": "WARNING"})
        result = run(bench_run._explain, bench_run._indexes_used, media_root=work / "media", users=args.users,
                     rows_per_user=args.rows_per_user)
    print("\n".join(lines(result) + [""] + plans(result)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
