"""``memory_list``, ``memory_search``, ``memory_read``: the memory resources over MCP (SPEC R-2, R-11).

Also SPEC C-6, M-11. Design notes: docs/design.md.
"""

from __future__ import annotations

from typing import Any

from apps.common.errors import INVALID_ARGUMENT, NOT_FOUND, UNAVAILABLE, VERSION_CONFLICT
from apps.mcp_server.errors import ToolError
from apps.mcp_server.tools.answer import Answer
from apps.retrieval.layer import Access, LayerError, external_grant, handle
from apps.retrieval.layer.audiences import EXTERNAL
from apps.retrieval.layer.searching import RESULT_MAX_BYTES

# Layer codes (apps/retrieval/layer/errors.py) → tool error codes (SPEC M-8).
_REQUEST = {"malformed_json", "duplicate_key", "unknown_key", "missing_key", "null_not_allowed", "invalid_type",
            "invalid_value", "invalid_timestamp", "unknown_filter", "invalid_ref", "filter_not_permitted",
            "cursor_invalid", "cursor_mismatch", "cursor_expired"}
# A type this connection may not read is the same answer as a record that does not exist: no oracle.
_ABSENT = {"not_found", "unknown_resource", "resource_not_permitted", "operation_not_permitted"}
_CHANGED = {"fields_changed", "source_changed"}


def access_for(grant) -> Access:
    """The layer's view of this request: its user, this connection, the effective scopes only."""
    connection = grant.connection
    return Access(
        user_id=connection.user_id,
        caller=f"connection:{connection.pk}",
        audience=EXTERNAL,
        grant=external_grant(grant.scopes),
        page_bytes=RESULT_MAX_BYTES,
    )


def layer_error(error: LayerError) -> ToolError:
    """A layer refusal as the tool error an assistant can act on (SPEC M-8)."""
    if error.code in _ABSENT:
        return ToolError(NOT_FOUND, "no such record or resource type is available to you")
    if error.code in _CHANGED:
        return ToolError(VERSION_CONFLICT, f"{error.message} (call again without cursor)")
    if error.code in _REQUEST:
        where = (error.pointer or "").strip("/").replace("/", ".") or "arguments"
        return ToolError(INVALID_ARGUMENT, f"field {where!r}: {error.message}"[:500])
    return ToolError(UNAVAILABLE, "the memory service could not answer just now; try again in a moment")


def _call(grant, operation: str, arguments: dict[str, Any]) -> dict[str, Any]:
    try:
        return handle(access_for(grant), operation, dict(arguments))
    except LayerError as error:
        raise layer_error(error) from None


def memory_list(grant, arguments: dict[str, Any]) -> Answer:
    result = _call(grant, "list", arguments)
    return Answer(payload=result, refs=tuple(item["ref"] for item in result.get("items", ())))


def memory_search(grant, arguments: dict[str, Any]) -> Answer:
    result = _call(grant, "search", arguments)
    return Answer(payload=result, refs=tuple(hit["ref"] for hit in result["hits"]))


def memory_read(grant, arguments: dict[str, Any]) -> Answer:
    result = _call(grant, "read", arguments)
    return Answer(payload=result, refs=(result["ref"],))
