"""Whether /mcp serves a request, decided once, before the MCP server sees it (the one place that admits).

Also SPEC A-1, A-4, A-6, C-6, C-7. Design notes: docs/design.md.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connections, router
from django.http import HttpRequest

from apps.common.errors import REPEATED_FAILURE
from apps.common.statements import constant_sql, prepared_cursor
from apps.consent.models import Connection
from apps.mcp_server import catalog
from apps.mcp_server.arguments import canonical_arguments, integral_numbers, validate_arguments
from apps.mcp_server.catalog import ToolSpec
from apps.mcp_server.errors import (
    RPC_FORBIDDEN,
    RPC_INVALID_REQUEST,
    RPC_UNAUTHORIZED,
    RPC_UNAVAILABLE,
    Refusal,
    ToolError,
)
from apps.mcp_server.guard import FAILURE_LIMIT, FailureGuard
from apps.oauth.bearer import BearerGrant, grant_from_row, grant_statement
from apps.ops.models import ServiceStatus
from apps.ops.selectors import service_state_query, service_status

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 64 * 1024  # the largest legitimate call is a few KiB (SPEC P-2 limits)

_CLOSED_MESSAGE = "The assistant service is not available right now."


# The methods whose admission depends on the message: the scopes the call or read needs (SPEC A-8).
CALL_METHODS = frozenset({"tools/call", "resources/read"})


@dataclass(frozen=True)
class ToolCall:
    """A ``tools/call`` of a catalog tool, as admitted: the arguments it runs with, from the one parse.

    ``refused``: the tool error it is answered with instead of running (SPEC M-9 repeated failure, or its
    arguments failing the input schema); ``failures``: how many times in a row it failed before.
    """

    spec: ToolSpec
    arguments: dict[str, Any]
    guard_key: str
    failures: int
    refused: ToolError | None = None


@dataclass(frozen=True)
class Admitted:
    """A request /mcp serves: the caller's grant, the body and its one parse (``None``: not one JSON object,
    the MCP server answers it), and for a tool call the call as admitted."""

    grant: BearerGrant
    body: bytes
    message: dict[str, Any] | None
    call: ToolCall | None = None


# SPEC M-10 (home)
def admit(request: HttpRequest) -> Admitted | Refusal:
    """Whether /mcp serves ``request``, decided once, in this order: service status, the query string and
    ``Origin``, the token, the body, the scopes, and for a tool call its arguments and the repeated-failure
    guard. Reads the database (one statement).
    """
    try:
        outcome = _admit(request)
    except DatabaseError:
        logger.exception("database error while admitting an MCP request")
        return Refusal(503, "unavailable", _CLOSED_MESSAGE, RPC_UNAVAILABLE)
    if isinstance(outcome, Refusal):
        return outcome
    body = read_body(request)
    if isinstance(body, Refusal):
        return body
    message = parse(body)
    if isinstance(message, Refusal):
        return message
    if message is not None and (refusal := scope_refusal(outcome, message)) is not None:
        return refusal
    return Admitted(outcome, body, message, _tool_call(outcome, message))


def _tool_call(grant: BearerGrant, message: dict[str, Any] | None) -> ToolCall | None:
    params = message.get("params") if message is not None and message.get("method") == "tools/call" else None
    name = params.get("name") if isinstance(params, dict) else None
    spec = catalog.tool(name) if isinstance(name, str) else None
    arguments = params.get("arguments", {}) if isinstance(params, dict) else None
    if spec is None or not isinstance(arguments, dict | None):
        return None  # an unknown tool or malformed parameters: the MCP server answers the JSON-RPC error
    return tool_call(grant, spec, arguments or {})


def tool_call(grant: BearerGrant, spec: ToolSpec, arguments: dict[str, Any]) -> ToolCall:
    """``arguments`` admitted for ``spec``: refused without running after repeated failures (SPEC M-9) or
    when they fail the tool's input schema (SPEC M-8)."""
    arguments = integral_numbers(arguments)
    key = FailureGuard.key(connection_id=grant.connection.pk, tool=spec.name,
                           arguments=canonical_arguments(spec.input_schema, arguments))
    failures = FailureGuard().failures(key)
    if failures >= FAILURE_LIMIT:
        return ToolCall(spec, arguments, key, failures, ToolError(
            REPEATED_FAILURE,
            f"{spec.name} failed {FAILURE_LIMIT} times in a row with these arguments and was not run again; "
            "change the arguments (for example re-read get_user_context) instead of retrying",
        ))
    try:
        validate_arguments(spec.input_schema, arguments)
    except ToolError as error:
        return ToolCall(spec, arguments, key, failures, error)
    return ToolCall(spec, arguments, key, failures)


def _admit(request: HttpRequest) -> BearerGrant | Refusal:
    raw_token = _raw_token(request)
    state, message, grant = _status_and_grant(raw_token)
    if state != ServiceStatus.State.OPEN:
        return Refusal(503, "unavailable", message or _CLOSED_MESSAGE, RPC_UNAVAILABLE,
                       headers={"X-Service-State": state})
    if (refusal := _header_refusal(request)) is not None:
        return refusal
    if not raw_token:
        return Refusal(401, "unauthorized", "a Bearer access token is required", RPC_UNAUTHORIZED, challenge=True)
    if grant is None:
        return Refusal(401, "invalid_token", "the access token is invalid, expired, revoked or not for this resource",
                       RPC_UNAUTHORIZED, challenge=True, token_presented=True)
    return grant


def _raw_token(request: HttpRequest) -> str:
    scheme, _, raw_token = request.headers.get("Authorization", "").partition(" ")
    return raw_token.strip() if scheme.lower() == "bearer" else ""


def _header_refusal(request: HttpRequest) -> Refusal | None:
    """The checks between the service state and the token that need no database."""
    if "access_token" in request.GET:
        return Refusal(400, "invalid_request", "access tokens are accepted only in the Authorization header",
                       RPC_INVALID_REQUEST, challenge=True, token_presented=True)
    if not origin_allowed(request.headers.get("Origin")):
        return Refusal(403, "origin_refused", "requests from this Origin are refused", RPC_FORBIDDEN)
    return None


def _status_and_grant(raw_token: str) -> tuple[str, str, BearerGrant | None]:
    """The service state and message (SPEC M-10) and the token's grant, read afresh in ONE statement.

    Without a token, only the status is read.
    """
    if not raw_token:
        status = service_status()
        return status.state, status.message, None
    alias = router.db_for_read(Connection)
    db = connections[alias]
    status_sql, status_params = constant_sql(ServiceStatus, service_state_query)
    grant_sql, grant_params = grant_statement(raw_token, db)
    sql = (f"SELECT s.*, g.* FROM (SELECT 1 AS one) base LEFT JOIN ({status_sql}) s ON 1 = 1 "
           f"LEFT JOIN ({grant_sql}) g ON 1 = 1")
    with prepared_cursor(db) as cursor:
        cursor.execute(sql, [*status_params, *grant_params])
        state, message, *grant_row = cursor.fetchone()
    if state is None:  # no status row: open (``service_status``)
        state, message = ServiceStatus.State.OPEN, ""
    return state, message, grant_from_row(grant_row, alias)


def origin_allowed(origin: str | None) -> bool:
    """Absent (not a browser), our own origin, or one in ``MCP_ALLOWED_ORIGINS`` (SPEC A-10): no DNS rebinding."""
    if not origin:
        return True
    origin = origin.rstrip("/").lower()
    return origin == settings.PUBLIC_BASE_URL or origin in settings.MCP_ALLOWED_ORIGINS


def read_body(request: HttpRequest) -> bytes | Refusal:
    """The JSON body of a POST, or why it cannot be taken."""
    if request.method != "POST":
        # Stateless server: no GET event stream and no session to DELETE.
        return Refusal(405, "method_not_allowed", "only POST is served at this endpoint", RPC_INVALID_REQUEST,
                       headers={"Allow": "POST"})
    declared = request.headers.get("Content-Length", "")
    if declared and not (declared.isascii() and declared.isdigit()):  # e.g. "²", a digit to isdigit() alone
        return Refusal(400, "invalid_request", "the Content-Length header is not a number", RPC_INVALID_REQUEST)
    if declared and int(declared) > MAX_BODY_BYTES:
        return _too_large()
    if (request.content_type or "").lower() != "application/json":
        return Refusal(415, "unsupported_media_type", "the body must be application/json", RPC_INVALID_REQUEST)
    body = request.body
    if len(body) > MAX_BODY_BYTES:
        return _too_large()
    return body


def _too_large() -> Refusal:
    return Refusal(413, "body_too_large", f"the body is larger than {MAX_BODY_BYTES} bytes", RPC_INVALID_REQUEST)


def parse(body: bytes) -> dict[str, Any] | None | Refusal:
    """The JSON-RPC message, or ``None`` when it is not one object (the SDK answers those). The one parse of
    a request's body on this side of the MCP server: admission and the tool read what it returns.

    Duplicate keys are refused: the scope check must judge exactly what the SDK dispatches.
    """
    try:
        message = json.loads(body, object_pairs_hook=_no_duplicates)
    except _DuplicateKey as duplicate:
        return Refusal(400, "invalid_request", f"duplicate key {str(duplicate)[:50]!r} in the JSON body",
                       RPC_INVALID_REQUEST)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict):
        return None
    return envelope_refusal(message) or message


# JSON-RPC 2.0 §4: the envelope's members and the JSON types they may have when present. Every step
# after this one (the scope check, the arguments, the SDK) may read them as these types.
_ENVELOPE = (
    # A malformed id would make the SDK take a request for a notification.
    ("id", lambda value: isinstance(value, str | int) and not isinstance(value, bool), "a string or an integer"),
    ("jsonrpc", lambda value: isinstance(value, str), "the string \"2.0\""),
    ("method", lambda value: isinstance(value, str), "a string"),
    ("params", lambda value: value is None or isinstance(value, dict | list), "an object or an array"),
)


def envelope_refusal(message: dict[str, Any]) -> Refusal | None:
    """A JSON-RPC ``Invalid Request`` for an envelope member of the wrong JSON type (SPEC M-8), or ``None``."""
    for name, valid, expected in _ENVELOPE:
        if name in message and not valid(message[name]):
            what = "the request id" if name == "id" else f"the member {name!r}"
            return Refusal(400, "invalid_request", f"{what} must be {expected}", RPC_INVALID_REQUEST)
    return None


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def scope_refusal(grant: BearerGrant, message: dict[str, Any]) -> Refusal | None:
    """HTTP 403 ``insufficient_scope`` for a call the effective scopes do not allow (SPEC A-8)."""
    method, params = message.get("method"), message.get("params")
    if not isinstance(params, dict):
        return None
    if method == "tools/call":
        spec = catalog.tool(params.get("name")) if isinstance(params.get("name"), str) else None  # type: ignore[arg-type]
        if spec is None:
            return None  # an unknown tool is a JSON-RPC error, answered by the server
        missing = spec.scopes.missing(grant.scopes, params.get("arguments"))
        what = f"the tool {spec.name}"
    elif method == "resources/read":
        missing = catalog.RESOURCE_SCOPES.missing(grant.scopes, {})
        what = "reading resources"
    else:
        return None
    if not missing:
        return None
    return Refusal(403, "insufficient_scope", f"{what} needs the scope {' '.join(missing)}", RPC_FORBIDDEN,
                   scopes=tuple(missing), challenge=True, token_presented=True, request_id=message.get("id"))
