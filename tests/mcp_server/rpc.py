"""Plain JSON-RPC over Django's test client: for checks below what the SDK client shows (headers, status)."""

from __future__ import annotations

import json

from django.conf import settings
from django.test import Client

METADATA = f'resource_metadata="{settings.PUBLIC_BASE_URL}/.well-known/oauth-protected-resource/mcp"'
ACCEPT = "application/json, text/event-stream"


def rpc(method, params=None, request_id=1) -> dict:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def call(name, arguments=None, request_id=1) -> dict:
    return rpc("tools/call", {"name": name, "arguments": {} if arguments is None else arguments}, request_id)


def post(body, token=None, *, client=None, content_type="application/json", path="/mcp", **headers):
    headers.setdefault("Accept", ACCEPT)
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return (client or Client()).post(path, data=data, content_type=content_type, headers=headers)


def tool_result(response) -> dict:
    """The structured content of a tools/call answer (success or isError)."""
    assert response.status_code == 200, response.content
    result = response.json()["result"]
    return result["structuredContent"]
