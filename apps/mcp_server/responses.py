"""Refusals as HTTP responses: the one place their wire form is decided (SPEC A-8, M-10).

Design notes: docs/design.md.
"""

from __future__ import annotations

from typing import Any

from django.http import JsonResponse

from apps.consent import scopes as scope_rules
from apps.mcp_server.errors import Refusal
from apps.oauth.discovery import resource_metadata_url


# SPEC A-8 (home)
def challenge(refusal: Refusal) -> str:
    """The ``WWW-Authenticate`` value (RFC 6750 §3, RFC 9728 §5.1)."""
    params = []
    if refusal.token_presented:
        params.append(f'error="{refusal.error}"')
        params.append(f'error_description="{_quoted(refusal.message)}"')
    # A 403 names the scopes the call lacks; a 401 the base scope to ask for (SPEC A-8).
    scopes = refusal.scopes or scope_rules.BASE
    params.append(f'scope="{" ".join(scopes)}"')
    params.append(f'resource_metadata="{resource_metadata_url()}"')
    return "Bearer " + ", ".join(params)


def _quoted(text: str) -> str:
    return "".join(ch for ch in text if ch not in '"\\' and 0x20 <= ord(ch) < 0x7F)


def refusal_response(refusal: Refusal) -> JsonResponse:
    data: dict[str, Any] = {"code": refusal.error}
    if refusal.scopes:
        data["scopes"] = list(refusal.scopes)
    body = {
        "jsonrpc": "2.0",
        "id": refusal.request_id if isinstance(refusal.request_id, str | int)
        and not isinstance(refusal.request_id, bool) else None,
        "error": {"code": refusal.rpc_code, "message": refusal.message, "data": data},
    }
    response = JsonResponse(body, status=refusal.status, json_dumps_params={"ensure_ascii": False})
    if refusal.challenge:
        response["WWW-Authenticate"] = challenge(refusal)
    for name, value in refusal.headers.items():
        response[name] = value
    response["Cache-Control"] = "no-store"
    return response
