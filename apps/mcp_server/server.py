"""The MCP server (low-level SDK ``Server``): tools and resources from the catalog.

Every handler finds the caller's ``BearerGrant`` in the request scope, where
the /mcp view put it after authentication (``GRANT_KEY``). ORM work runs in
``dispatch`` through ``orm.run``: on long-lived threads under ASGI, on the
request's thread under WSGI (a fresh event loop per request); the view says
which in the scope (``ASGI_KEY``).

This is also the one place where ``ToolError`` becomes an MCP result
(``isError: true``, structured content ``{"code", "message"}`` and the same
JSON as text, SPEC M-8) — or, for resource reads, a JSON-RPC error.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from apps.mcp_server import catalog, dispatch, orm
from apps.mcp_server.errors import RPC_FORBIDDEN, ToolError
from apps.mcp_server.profile import PAGE_URI_TEMPLATE, SUMMARY_URI

GRANT_KEY = "lifeos.grant"
ASGI_KEY = "lifeos.asgi"  # whether the /mcp view runs under ASGI (``orm.run``)

INSTRUCTIONS = (
    "LifeOS Memory holds facts a person chose to share with you. Call get_user_context first; "
    "page with read_user_context_page while has_more is true. Only what is returned is shared: "
    "do not assume anything else about the person."
)


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def tool_result(payload: dict[str, Any], *, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=_json(payload))], structured_content=payload, is_error=is_error
    )


def _grant(ctx):
    request = ctx.request
    grant = request.scope.get(GRANT_KEY) if request is not None else None
    if grant is None:  # only reachable if something bypassed the /mcp view
        raise MCPError(INTERNAL_ERROR, "request was not authenticated")
    return grant


def _asgi(ctx) -> bool:
    return bool(ctx.request is not None and ctx.request.scope.get(ASGI_KEY))


def _forbidden(missing: list[str]) -> MCPError:
    # The view answers HTTP 403 before dispatch (SPEC A-8); this is the backstop.
    return MCPError(RPC_FORBIDDEN, f"insufficient_scope: needs {' '.join(missing)}",
                    data={"code": "insufficient_scope", "scopes": missing})


async def _list_tools(ctx, params) -> types.ListToolsResult:
    grant = _grant(ctx)
    return types.ListToolsResult(tools=[spec.mcp_tool() for spec in catalog.listed(grant.scopes)])


async def _call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
    grant = _grant(ctx)
    spec = catalog.tool(params.name)
    if spec is None:
        raise MCPError(INVALID_PARAMS, f"unknown tool {params.name[:100]!r}")
    arguments = params.arguments or {}
    if missing := spec.scopes.missing(grant.scopes, arguments):
        raise _forbidden(missing)
    try:
        payload = await orm.run(_asgi(ctx), dispatch.call_tool, grant=grant, spec=spec, arguments=arguments)
    except ToolError as error:
        return tool_result(error.payload(), is_error=True)
    return tool_result(payload)


async def _list_resources(ctx, params) -> types.ListResourcesResult:
    if not catalog.RESOURCE_SCOPES.listed_for(_grant(ctx).scopes):
        return types.ListResourcesResult(resources=[])
    summary = types.Resource(
        name="profile_summary",
        title="Shared profile",
        uri=SUMMARY_URI,
        mime_type="application/json",
        description="The same overview get_user_context returns: summary, first facts, version, paging fields.",
    )
    return types.ListResourcesResult(resources=[summary])


async def _list_resource_templates(ctx, params) -> types.ListResourceTemplatesResult:
    if not catalog.RESOURCE_SCOPES.listed_for(_grant(ctx).scopes):
        return types.ListResourceTemplatesResult(resource_templates=[])
    page = types.ResourceTemplate(
        name="profile_page",
        title="Page of shared facts",
        uri_template=PAGE_URI_TEMPLATE,
        mime_type="application/json",
        description="Shared facts from offset on, for one version of the set (next_uri points here).",
    )
    return types.ListResourceTemplatesResult(resource_templates=[page])


async def _read_resource(ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    grant = _grant(ctx)
    uri = str(params.uri)
    if missing := catalog.RESOURCE_SCOPES.missing(grant.scopes, {}):
        raise _forbidden(missing)
    try:
        payload = await orm.run(_asgi(ctx), dispatch.read_resource, grant=grant, uri=uri)
    except ToolError as error:
        raise MCPError(INVALID_PARAMS, error.message, data=error.payload()) from None
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
