"""/mcp at the ASGI entry point (apps/mcp_server/transport/entry.py): what it keeps from Django's request handling.

The production application (``config.asgi.application``) is driven in-process
with ASGI messages, so these checks see exactly what uvicorn would send.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from django.conf import settings

from apps.consent.models import AccessEvent
from apps.mcp_server.admission import MAX_BODY_BYTES
from tests.mcp_server.rpc import ACCEPT, call

pytestmark = pytest.mark.django_db(transaction=True)


def asgi(path: str, body: bytes = b"", *, token: str | None = None, host: str = "127.0.0.1:8787",
         method: str = "POST", chunks: int = 1) -> tuple[int, dict[str, str], bytes]:
    from config.asgi import application

    headers = [(b"host", host.encode()), (b"content-type", b"application/json"), (b"accept", ACCEPT.encode())]
    if token:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    size = max(1, -(-len(body) // chunks))
    parts = [body[i:i + size] for i in range(0, len(body), size)] or [b""]
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
             "path": path, "raw_path": path.encode(), "root_path": "", "query_string": b"", "headers": headers,
             "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8787)}
    sent: list[dict] = []

    async def run() -> None:
        pending = list(parts)
        done = asyncio.Event()

        async def receive():
            if pending:
                part = pending.pop(0)
                return {"type": "http.request", "body": part, "more_body": bool(pending)}
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            sent.append(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                done.set()

        await application(scope, receive, send)

    asyncio.run(run())
    start = next(message for message in sent if message["type"] == "http.response.start")
    response_headers = {name.decode().lower(): value.decode() for name, value in start["headers"]}
    body_out = b"".join(message.get("body", b"") for message in sent if message["type"] == "http.response.body")
    return start["status"], response_headers, body_out


def test_mcp_call_through_the_entry_point(shared_profile):
    connection, facts, token = shared_profile
    status, headers, body = asgi("/mcp", json.dumps(call("get_user_context")).encode(), token=token)
    assert status == 200
    result = json.loads(body)["result"]["structuredContent"]
    assert [fact["id"] for fact in result["facts"]] == [str(fact.pk) for fact in facts]
    # SPEC M-11: the entry point leaves the access record as the view always did.
    assert AccessEvent.objects.filter(connection=connection).count() == 1
    # Django's security headers, applied as its middleware applies them to every response.
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == settings.SECURE_REFERRER_POLICY
    assert headers["cache-control"] == "no-store"


def test_a_host_outside_allowed_hosts_is_refused_before_admission(shared_profile):
    _, _, token = shared_profile
    status, _, _ = asgi("/mcp", json.dumps(call("get_user_context")).encode(), token=token, host="evil.example")
    assert status == 400
    assert AccessEvent.objects.count() == 0


def test_the_body_is_read_across_messages_and_bounded(shared_profile):
    _, _, token = shared_profile
    status, _, body = asgi("/mcp", json.dumps(call("get_user_context")).encode(), token=token, chunks=5)
    assert status == 200 and b'"isError":false' in body
    # SPEC M-8: an oversized body is answered 413 from what was read, however it arrives.
    padding = json.dumps({**call("get_user_context"), "pad": "x" * (MAX_BODY_BYTES + 10)}).encode()
    assert asgi("/mcp", padding, token=token, chunks=7)[0] == 413


def test_only_mcp_bypasses_django():
    # Anything else is Django's: its URL resolver, middleware and views. /mcp/ is /mcp (SPEC A-10).
    status, headers, _ = asgi("/mcp/", method="GET")
    assert status == 401 and "resource_metadata=" in headers["www-authenticate"]
    status, headers, _ = asgi("/mcp/x", method="GET")
    assert status == 404
    status, headers, _ = asgi("/me/facts/", method="GET")
    assert status == 302 and "/login" in headers["location"]  # the session middleware and login wall ran
    status, headers, _ = asgi("/mcp", method="GET")
    assert status == 401 and "resource_metadata=" in headers["www-authenticate"]  # /mcp's own admission
