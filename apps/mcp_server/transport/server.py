"""The MCP server (low-level SDK ``Server``): tools and resources from the catalog.

Also SPEC M-8. Design notes: docs/design.md.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from apps.mcp_server import catalog, dispatch
from apps.mcp_server.admission import Admitted
from apps.mcp_server.errors import ToolError
from apps.mcp_server.transport import orm

ADMITTED_KEY = "lifeos.admitted"  # the request as admission decided it (``admission.Admitted``)
ASGI_KEY = "lifeos.asgi"  # whether the /mcp view runs under ASGI (``orm.run``)

INSTRUCTIONS = (
    "LifeOS Memory holds facts a person chose to share with you. Call get_user_context first; "
    "page with read_user_context_page while has_more is true. Only what is returned is shared: "
    "do not assume anything else about the person."
)


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# SPEC M-8 (home)
def tool_result(payload: dict[str, Any], *, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=_json(payload))], structured_content=payload, is_error=is_error
    )


def _admitted(ctx) -> Admitted:
    request = ctx.request
    admitted = request.scope.get(ADMITTED_KEY) if request is not None else None
    if not isinstance(admitted, Admitted):  # only reachable if something bypassed the /mcp view
        raise MCPError(INTERNAL_ERROR, "request was not admitted")
    return admitted


def _asgi(ctx) -> bool:
    return bool(ctx.request is not None and ctx.request.scope.get(ASGI_KEY))


async def _list_tools(ctx, params) -> types.ListToolsResult:
    grant = _admitted(ctx).grant
    return types.ListToolsResult(tools=[spec.mcp_tool() for spec in catalog.listed(grant.scopes)])


async def _call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
    admitted = _admitted(ctx)
    call = admitted.call
    if call is None or call.spec.name != params.name:  # admission found no catalog tool of this name
        raise MCPError(INVALID_PARAMS, f"unknown tool {params.name[:100]!r}")
    try:
        payload = await orm.run(_asgi(ctx), dispatch.call_tool, grant=admitted.grant, call=call)
    except ToolError as error:
        return tool_result(error.as_dict(), is_error=True)
    return tool_result(payload)


async def _list_resources(ctx, params) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=catalog.resources(_admitted(ctx).grant.scopes))


async def _list_resource_templates(ctx, params) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(resource_templates=catalog.resource_templates(_admitted(ctx).grant.scopes))


async def _read_resource(ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    uri = str(params.uri)
    try:
        payload = await orm.run(_asgi(ctx), dispatch.read_resource, grant=_admitted(ctx).grant, uri=uri)
    except ToolError as error:
        raise MCPError(INVALID_PARAMS, error.message, data=error.as_dict()) from None
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=uri, mime_type="application/json", text=_json(payload))]
    )


@cache
def mcp_server() -> Server:
    """The process's server object; it holds no per-request or per-loop state."""
    return Server(
        "lifeos-memory",
        version="1",
        title="LifeOS Memory",
        instructions=INSTRUCTIONS,
        get_tool_input_schema=catalog.input_schema_for,
        on_list_tools=_list_tools,
        on_call_tool=_call_tool,
        on_list_resources=_list_resources,
        on_list_resource_templates=_list_resource_templates,
        on_read_resource=_read_resource,
    )
