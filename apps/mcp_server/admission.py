"""Whether /mcp serves a request at all, decided before the MCP server sees it.

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

from apps.common.statements import constant_sql, prepared_cursor
from apps.consent.models import Connection
from apps.mcp_server import catalog
from apps.mcp_server.errors import (
    RPC_FORBIDDEN,
    RPC_INVALID_REQUEST,
    RPC_UNAUTHORIZED,
    RPC_UNAVAILABLE,
    Refusal,
)
from apps.oauth.bearer import BearerGrant, grant_from_row, grant_statement
from apps.ops.models import ServiceStatus
from apps.ops.selectors import service_state_query, service_status

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 64 * 1024  # the largest legitimate call is a few KiB (SPEC P-2 limits)

_CLOSED_MESSAGE = "The assistant service is not available right now."


# SPEC M-10 (home)
def admit(request: HttpRequest) -> BearerGrant | Refusal:
    """The caller's grant, or why the request is refused. Reads the database."""
    try:
        return _admit(request)
    except DatabaseError:
        logger.exception("database error while admitting an MCP request")
        return Refusal(503, "unavailable", _CLOSED_MESSAGE, RPC_UNAVAILABLE)


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


def peek(body: bytes) -> dict[str, Any] | None | Refusal:
    """The JSON-RPC message, or ``None`` when it is not one object (the SDK answers those).

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
# after this one (the scope check, the deferred admission, the SDK) may read them as these types.
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
                   scopes=tuple(missing), challenge=True, token_presented=True)


# The methods whose handlers run a unit of database work anyway (``dispatch``).
DEFERRED_METHODS = frozenset({"tools/call", "resources/read"})


@dataclass(eq=False)
class Deferred:
    """A call admitted inside its own unit of database work: one thread hop per call instead of two.

    ``admit`` runs the database checks a request admitted first meets; the view answers ``refusal`` if any fails.
    """

    request: HttpRequest
    body: bytes
    message: dict[str, Any]
    admitted: bool = False
    refusal: Refusal | None = None
    refusal_id: Any = None  # the request id a scope refusal answers, as when it is decided first

    def admit(self) -> BearerGrant | None:
        """The grant (reads the database), or ``None`` with ``refusal`` set. Runs once."""
        if self.admitted:
            raise RuntimeError("admitted already")
        self.admitted = True
        outcome = admit(self.request)
        if isinstance(outcome, Refusal):
            self.refusal = outcome
            return None
        if (refusal := scope_refusal(outcome, self.message)) is not None:
            self.refusal, self.refusal_id = refusal, self.message.get("id")
            return None
        return outcome


def deferred(request: HttpRequest) -> Deferred | None:
    """A ``Deferred`` admission for the request, or ``None``: it is admitted first, as usual."""
    if _header_refusal(request) is not None or not _raw_token(request):
        return None
    body = read_body(request)
    if isinstance(body, Refusal):
        return None
    message = peek(body)
    if not isinstance(message, dict) or message.get("method") not in DEFERRED_METHODS:
        return None
    return Deferred(request, body, message)
