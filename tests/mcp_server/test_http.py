"""/mcp at the HTTP level: who is served and how refusals look (SPEC A-1, A-4, A-8, M-8, M-10)."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.test import Client

from apps.consent.services import connection_revoke
from apps.mcp_server.errors import RPC_INVALID_REQUEST
from apps.ops.models import ServiceStatus
from tests.mcp_server.rpc import ACCEPT, METADATA, call, post, rpc

pytestmark = pytest.mark.django_db


def error_code(response) -> str:
    return response.json()["error"]["data"]["code"]


# SPEC A-8: no token → 401 whose challenge points to the protected resource metadata, and no error code.
def test_missing_token_challenge():
    response = post(rpc("tools/list"))
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == f'Bearer scope="profile:read profile:propose profile:correct", {METADATA}'


# SPEC A-8: a presented token that is not valid → 401 invalid_token with resource_metadata.
@pytest.mark.parametrize("case", ["unknown", "expired", "unbound", "other_resource", "revoked"])
def test_invalid_tokens_are_refused(case, shared_profile, issue_token):
    connection, _, token = shared_profile
    if case == "unknown":
        token = "not-a-token"
    elif case == "expired":
        token = issue_token(expires_in=-1)
    elif case == "unbound":  # e.g. a token without an RFC 8707 resource
        token = issue_token(resource=[])
    elif case == "other_resource":  # e.g. the RFC 7592 registration token
        token = issue_token(resource=[settings.PUBLIC_BASE_URL + "/oauth/register/"])
    else:
        connection_revoke(connection=connection)
    response = post(call("get_user_context"), token)
    assert response.status_code == 401
    challenge = response["WWW-Authenticate"]
    assert challenge.startswith("Bearer ")
    assert 'error="invalid_token"' in challenge and METADATA in challenge
    assert "facts" not in response.content.decode()


# SPEC: a token in the query string is refused and never served, even beside a valid header.
def test_query_string_token_is_refused(shared_profile):
    _, _, token = shared_profile
    response = post(call("get_user_context"), token, path=f"/mcp?access_token={token}")
    assert response.status_code == 400
    assert error_code(response) == "invalid_request"
    assert "facts" not in response.content.decode()


# SPEC A-1: a logged-in browser session never authenticates /mcp.
def test_session_cookie_is_not_accepted(user, shared_profile):
    browser = Client()
    browser.force_login(user)
    response = post(call("get_user_context"), client=browser)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == f'Bearer scope="profile:read profile:propose profile:correct", {METADATA}'


# /mcp is CSRF-exempt: a Bearer call works even where CSRF checks are enforced.
def test_csrf_exempt(shared_profile):
    _, _, token = shared_profile
    response = post(call("get_user_context"), token, client=Client(enforce_csrf_checks=True))
    assert response.status_code == 200
    assert response.json()["result"]["isError"] is False


# SPEC A-8: a tool the effective scopes do not allow → 403 insufficient_scope naming the scope.
def test_insufficient_scope_for_tool(connect, issue_token):
    connect(scopes=("profile:read", "profile:propose"))
    response = post(rpc("tools/call", {"name": "get_user_context", "arguments": {}}, request_id="r-7"),
                    issue_token("profile:propose"))
    assert response.status_code == 403
    challenge = response["WWW-Authenticate"]
    assert 'error="insufficient_scope"' in challenge and 'scope="profile:read"' in challenge
    assert METADATA in challenge
    body = response.json()
    assert body["id"] == "r-7" and body["error"]["data"] == {"code": "insufficient_scope", "scopes": ["profile:read"]}


# SPEC M-7, A-8: reading the resources needs profile:read too.
def test_insufficient_scope_for_resource(connect, issue_token):
    connect(scopes=("profile:read", "profile:propose"))
    response = post(rpc("resources/read", {"uri": "lifeos://profile/summary"}), issue_token("profile:propose"))
    assert response.status_code == 403
    assert 'scope="profile:read"' in response["WWW-Authenticate"]


# SPEC M-10: not open → 503 with the status message, whoever asks; no fallback.
@pytest.mark.parametrize("state", ["closed", "maintenance"])
@pytest.mark.parametrize("presented", ["valid", "invalid", None])
def test_service_not_open(state, presented, shared_profile):
    _, _, token = shared_profile
    ServiceStatus.objects.create(pk=1, state=state, message="Back at 18:00 — 维护中")
    response = post(call("get_user_context"), {"valid": token, "invalid": "not-a-token", None: None}[presented])
    assert response.status_code == 503
    body = response.json()
    assert body["error"]["message"] == "Back at 18:00 — 维护中"
    assert body["error"]["data"]["code"] == "unavailable"
    assert "Location" not in response


# SPEC M-10: once reopened, the same token is served again.
def test_service_reopened(shared_profile):
    _, _, token = shared_profile
    ServiceStatus.objects.create(pk=1, state="closed", message="closed")
    assert post(call("get_user_context"), token).status_code == 503
    ServiceStatus.objects.filter(pk=1).update(state="open")
    assert post(call("get_user_context"), token).status_code == 200


# SPEC A-8, M-10: a tool call or resource read is admitted before the MCP server sees it (docs/mcp.md); a
# caller that is not admitted reads only the refusal, even where the MCP server would answer the call by
# itself (an unknown tool, malformed parameters) without running it.
@pytest.mark.parametrize("message", [call("no_such_tool"), rpc("tools/call", {"name": 7}), rpc("resources/read", {}),
                                     call("get_user_context")], ids=["unknown-tool", "bad-name", "no-uri", "valid"])
@pytest.mark.parametrize("refused", ["invalid-token", "closed"])
def test_unadmitted_caller_reads_only_the_refusal(refused, message, shared_profile):
    _, _, token = shared_profile
    if refused == "closed":
        ServiceStatus.objects.create(pk=1, state="closed", message="closed")
    response = post(message, token if refused == "closed" else "not-a-token")
    assert (response.status_code, error_code(response)) == (
        (503, "unavailable") if refused == "closed" else (401, "invalid_token"))
    assert response.json()["id"] is None
    assert "result" not in response.json() and "facts" not in response.content.decode()


# Two units of database work per tool call, in this order: admission (one statement), then the call with
# its access record; nothing runs after the MCP server has answered (docs/mcp.md "One request, end to end").
def test_tool_call_is_admitted_then_run(shared_profile, monkeypatch):
    from apps.mcp_server import admission, dispatch
    from apps.mcp_server.transport import orm

    units, run = [], orm.run

    async def counted(asgi, function, *args, **kwargs):
        units.append(function)
        return await run(asgi, function, *args, **kwargs)

    monkeypatch.setattr(orm, "run", counted)
    _, _, token = shared_profile
    response = post(call("get_user_context"), token)
    assert response.status_code == 200 and response.json()["result"]["isError"] is False
    assert units == [admission.admit, dispatch.call_tool]


# SPEC A-10, DNS-rebinding defence: a browser origin is served only when it is our own or listed in
# MCP_ALLOWED_ORIGINS (none by default) — a loopback page too, since a rebound name is one.
@pytest.mark.parametrize(
    "origin,status",
    [
        ("http://evil.example", 403),
        ("null", 403),
        ("http://127.0.0.1.evil.example:8787", 403),
        (settings.PUBLIC_BASE_URL, 200),
        (settings.PUBLIC_BASE_URL.upper() + "/", 200),
        ("http://localhost:6274", 403),
        ("http://[::1]:3000", 403),
        ("http://[::1", 403),  # not a URL at all (SPEC M-8: bad input is never a 500)
    ],
)
def test_origin(origin, status, shared_profile):
    _, _, token = shared_profile
    assert post(call("get_user_context"), token, Origin=origin).status_code == status


@pytest.mark.parametrize("origin", ["http://localhost:6274", "HTTP://LOCALHOST:6274/"])
def test_listed_origin(origin, shared_profile, settings):
    settings.MCP_ALLOWED_ORIGINS = ["http://localhost:6274"]
    _, _, token = shared_profile
    assert post(call("get_user_context"), token, Origin=origin).status_code == 200


# SPEC M-8: a Content-Length that is not a number — even of digits int() does not read, "²" — is a
# bad request (RFC 9112 §6.3), never a 500.
def test_a_content_length_that_is_no_number(shared_profile):
    _, _, token = shared_profile
    response = post(call("get_user_context"), token, CONTENT_LENGTH="\u00b2")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == RPC_INVALID_REQUEST


# SPEC M-1, A-10: /mcp and /mcp/ alike, never a redirect a client would have to follow.
def test_no_trailing_slash_redirect(shared_profile):
    _, _, token = shared_profile
    assert post(rpc("tools/list"), token).status_code == 200
    assert post(rpc("tools/list"), token, path="/mcp/").status_code == 200
    assert post(rpc("tools/list"), token, path="/mcp//").status_code == 404


BAD_BODIES = [
    ("not json", 400),
    (b"\xff\xfe{", 400),
    ("[]", 400),
    (json.dumps([rpc("tools/list")]), 400),
    ('"just a string"', 400),
    (json.dumps({"jsonrpc": "1.0", "id": 1, "method": "tools/list"}), 400),
    (json.dumps({"jsonrpc": "2.0", "id": {"x": 1}, "method": "tools/list"}), 400),
    (json.dumps({"jsonrpc": "2.0", "id": True, "method": "tools/list"}), 400),
    ('{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call"}', 400),
    ("[" * 20_000 + "]" * 20_000, 400),
    (json.dumps(rpc("tools/call", "not an object")), 400),
    (json.dumps(rpc("no/such/method")), 200),
    (json.dumps(rpc("tools/call", {"name": "get_user_context", "arguments": [1, 2]})), 200),
    (json.dumps(rpc("tools/call", {"arguments": {}})), 200),
    (json.dumps(rpc("resources/read", {"uri": "file:///etc/passwd"})), 200),
    (json.dumps(rpc("resources/read", {"uri": "lifeos://profile/page/zz/1"})), 200),
]


# SPEC M-8: bad input is a 4xx or a JSON-RPC error, never a 500.
@pytest.mark.parametrize("body,status", BAD_BODIES)
def test_bad_input_never_500(body, status, shared_profile):
    _, _, token = shared_profile
    response = post(body, token)
    assert response.status_code == status
    assert "error" in response.json()


@pytest.mark.parametrize(
    "change,status",
    [
        ({"content_type": "text/plain"}, 415),
        ({"content_type": "application/x-www-form-urlencoded"}, 415),
        ({"Accept": "text/html"}, 406),
        ({"body": "x" * 70_000}, 413),
    ],
)
def test_bad_transport_never_500(change, status, shared_profile):
    _, _, token = shared_profile
    change = dict(change)
    body = change.pop("body", json.dumps(rpc("tools/list")))
    assert post(body, token, **change).status_code == status


@pytest.mark.parametrize("method", ["get", "delete", "put", "patch", "head"])
def test_only_post(method, shared_profile):
    _, _, token = shared_profile
    response = getattr(Client(), method)("/mcp", headers={"Authorization": f"Bearer {token}", "Accept": ACCEPT})
    assert response.status_code == 405
    assert response["Allow"] == "POST"


# A notification is accepted without a body (Streamable HTTP).
def test_notification_accepted(shared_profile):
    _, _, token = shared_profile
    response = post({"jsonrpc": "2.0", "method": "notifications/initialized"}, token)
    assert response.status_code == 202


# SPEC M-8: nothing answers 500; a database outage while admitting is a 503.
@pytest.mark.parametrize("token", ["any-token", None])
def test_database_outage_is_503(token):
    from django.db import OperationalError
    from django.db import connection as db_connection

    def down(execute, sql, params, many, context):
        raise OperationalError("database is down")

    with db_connection.execute_wrapper(down):
        response = post(rpc("tools/list"), token)
    assert response.status_code == 503 and error_code(response) == "unavailable"


# SPEC M-1, A-10: a browser-based client on an allowed origin (an inspector on localhost) can call /mcp
# and read the 401 challenge; other origins get no CORS grant.
def test_cors_for_allowed_origins(shared_profile, settings):
    settings.MCP_ALLOWED_ORIGINS = ["http://localhost:6274"]
    _, _, token = shared_profile
    origin = "http://localhost:6274"
    preflight = Client().options("/mcp", headers={"Origin": origin, "Access-Control-Request-Method": "POST",
                                                  "Access-Control-Request-Headers": "authorization, content-type"})
    assert preflight.status_code == 204
    assert preflight["Access-Control-Allow-Origin"] == origin
    assert "Authorization" in preflight["Access-Control-Allow-Headers"]
    challenged = post(rpc("tools/list"), Origin=origin)
    assert challenged.status_code == 401 and challenged["Access-Control-Allow-Origin"] == origin
    assert "WWW-Authenticate" in challenged["Access-Control-Expose-Headers"]
    assert post(rpc("tools/list"), token, Origin=origin)["Access-Control-Allow-Origin"] == origin
    refused = Client().options("/mcp", headers={"Origin": "http://evil.example"})
    assert refused.status_code == 403 and "Access-Control-Allow-Origin" not in refused
