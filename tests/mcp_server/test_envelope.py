"""A JSON-RPC envelope whose fields have the wrong JSON types gets a JSON-RPC error, never a 500 (SPEC M-8).

Issue 19 #8: ``"method"`` as a list answered HTTP 500 ``unhashable type: 'list'``
(the admission step asked whether it was one of a set of method names).
Every envelope field (``jsonrpc``, ``id``, ``method``, ``params``) is tried with
every JSON type, with a valid token, without one, and through the ASGI entry.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from apps.consent import scopes
from tests.mcp_server.rpc import call, post

pytestmark = pytest.mark.django_db

WRONG_TYPES = {
    "list": ["tools/call"],
    "empty list": [],
    "object": {"name": "tools/call"},
    "empty object": {},
    "number": 1,
    "float": 2.0,
    "true": True,
    "null": None,
    "string": "tools/call",
    "nested": [[{"a": [1]}]],
}
FIELDS = ("jsonrpc", "id", "method", "params")


def envelopes():
    for field in FIELDS:
        for method in ("tools/call", "resources/read", "tools/list", "initialize"):
            for label, value in WRONG_TYPES.items():
                message = call("get_user_context")
                message["method"] = method
                if method == "resources/read":
                    message["params"] = {"uri": "lifeos://profile/summary"}
                message[field] = value
                yield pytest.param(message, id=f"{field}={label}-{method}")


def assert_json_rpc_answer(response, message):
    assert response.status_code < 500, (response.status_code, response.content[:300])
    body = response.json()
    assert body.get("jsonrpc") == "2.0", body
    if "error" in body:
        assert isinstance(body["error"].get("code"), int) and body["error"]["code"] != -32603, body
    else:
        # Only a message that is well formed after all (e.g. "id" of another valid type) gets a result.
        assert "result" in body and message.get("jsonrpc") == "2.0" and isinstance(message.get("method"), str), body


@pytest.fixture
def token(user, connect, issue_token):
    connect(scopes=scopes.ALL)
    return issue_token(scopes.ALL)


@pytest.mark.parametrize("message", list(envelopes()))
def test_wrong_types_in_the_envelope_answer_json_rpc_errors(token, message):
    response = post(json.dumps(message), token)
    if response.status_code == 202:  # a well-formed notification (no id): nothing to answer
        assert "id" not in message
        return
    assert_json_rpc_answer(response, message)


@pytest.mark.parametrize("label", ["list", "object", "number"])
def test_wrong_method_type_without_a_token_is_a_401(label):
    message = {**call("get_user_context"), "method": WRONG_TYPES[label]}
    response = post(json.dumps(message))
    assert response.status_code == 401


@pytest.mark.django_db(transaction=True)  # the ASGI entry works the database from threads of its own
@pytest.mark.parametrize("field,label", [("method", "list"), ("method", "object"), ("jsonrpc", "list"),
                                         ("jsonrpc", "number"), ("params", "list")])
def test_wrong_types_through_the_asgi_entry(token, field, label):
    """The production entry point (config.asgi → apps.mcp_server.transport.entry) answers the same."""
    from config.asgi import application

    message = {**call("get_user_context"), field: WRONG_TYPES[label]}
    body = json.dumps(message).encode()
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
        "path": "/mcp", "raw_path": b"/mcp", "root_path": "", "query_string": b"",
        "headers": [(b"host", b"127.0.0.1:8787"), (b"content-type", b"application/json"),
                    (b"accept", b"application/json, text/event-stream"),
                    (b"authorization", f"Bearer {token}".encode()), (b"content-length", str(len(body)).encode())],
        "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8787),
    }
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(event):
        sent.append(event)

    asyncio.run(application(scope, receive, send))
    status = next(event["status"] for event in sent if event["type"] == "http.response.start")
    assert status < 500, sent
    answer = json.loads(b"".join(event.get("body", b"") for event in sent if event["type"] == "http.response.body"))
    assert "error" in answer and answer["error"]["code"] != -32603, answer
