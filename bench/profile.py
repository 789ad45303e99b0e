"""Where one /mcp call spends its time: the product's ASGI app driven in-process under cProfile.

    .venv/bin/python -m bench.profile [--requests 2000] [--facts 50] [--top 40] [--call get_user_context]

Same setup as ``bench.run`` (throwaway PostgreSQL and Redis, a person with
shared facts, a token from the real OAuth flow), then ``--requests``
sequential calls straight into ``config.asgi.application`` on one event loop
(no sockets: only the app's own work is profiled). Prints the wall time per
call, the number of SQL statements per call, and the cProfile table sorted by
cumulative time. Not part of ``make test``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import json
import pstats
import sys
import tempfile
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[1]
if str(BASE_DIR) not in sys.path:
    sys.path.insert(0, str(BASE_DIR))

from bench import measure  # noqa: E402 - needs sys.path above
from bench.run import _django  # noqa: E402 - needs sys.path above
from tests.services import postgres_cluster, redis_server  # noqa: E402 - needs sys.path above


def _scope(call: measure.Call, token: str) -> dict:
    headers = [
        (b"host", b"127.0.0.1:8787"), (b"content-type", b"application/json"),
        (b"accept", b"application/json, text/event-stream"),
        *((name.lower().encode(), value.encode()) for name, value in call.headers.items()),
        (b"authorization", f"Bearer {token}".encode()), (b"content-length", str(len(call.body.encode())).encode()),
    ]
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
            "path": "/mcp", "raw_path": b"/mcp", "root_path": "", "query_string": b"", "headers": headers,
            "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8787)}


async def _call(app, call: measure.Call, token: str) -> tuple[int, bytes]:
    sent = False
    done = asyncio.Event()
    status, chunks = 0, []

    async def receive():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": call.body.encode(), "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message):
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                done.set()

    await app(_scope(call, token), receive, send)
    return status, b"".join(chunks)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--facts", type=int, default=50)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--call", default="get_user_context")
    parser.add_argument("--arguments", default="{}", help="JSON arguments of the tool")
    parser.add_argument("--protocol", choices=(measure.LEGACY, measure.MODERN), default=measure.LEGACY)
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        database_url = stack.enter_context(postgres_cluster())
        redis_url = stack.enter_context(redis_server())
        _django({"DATABASE_URL": database_url, "REDIS_URL": redis_url, "DEBUG": "1", "LOG_LEVEL": "WARNING",
                 "STATIC_ROOT": stack.enter_context(tempfile.TemporaryDirectory())})
        from django.conf import settings
        from django.db import connection
        from django.db.backends.signals import connection_created

        from bench import data

        assistant = data.Assistant().register()
        person = data.person("profile")
        facts = data.bulk_facts(person, args.facts) if args.facts > 200 else data.write_facts(person, args.facts)
        grant = data.consent(person, assistant)
        data.share(grant, facts, bulk=args.facts > 200)
        token = grant.fresh_access_token()
        settings.DEBUG = False  # as served (DEBUG only helped the consent page above)

        from config.asgi import application

        call = measure.tool_call(args.call, json.loads(args.arguments), protocol=args.protocol)

        async def calls(count: int) -> None:
            for _ in range(count):
                status, answer = await _call(application, call, token)
                assert status == 200 and b'"isError":false' in answer, answer[:300]

        statements: list[str] = []

        recording = True

        def record(execute, sql, params, many, context):
            if recording:
                statements.append(sql)
            return execute(sql, params, many, context)

        def watch(sender, connection, **kwargs):  # every connection, whichever thread opens it
            connection.execute_wrappers.append(record)

        connection_created.connect(watch)
        connection.close()
        asyncio.run(calls(20))  # warm-up
        statements.clear()
        asyncio.run(calls(1))
        per_call = list(statements)
        connection_created.disconnect(watch)
        recording = False
        profiler = cProfile.Profile()
        started = time.perf_counter()
        profiler.enable()
        asyncio.run(calls(args.requests))
        profiler.disable()
        elapsed = time.perf_counter() - started
        print(f"{args.requests} sequential {args.call} calls: {elapsed / args.requests * 1e6:.0f} µs each under "
              f"cProfile (SQL statements per call: {len(per_call)})")
        for sql in per_call:
            print("   ", sql[:160])
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
