"""The /mcp endpoint (SPEC M-1): admission checks, then the MCP SDK.

Design notes: docs/design.md.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from apps.mcp_server import admission
from apps.mcp_server.errors import Refusal
from apps.mcp_server.responses import refusal_response
from apps.mcp_server.transport import cors, orm, transport


# SPEC M-1 (home)
@csrf_exempt
async def mcp_endpoint(request: HttpRequest) -> HttpResponse:
    if request.method == "OPTIONS":
        return cors.preflight(request)
    return cors.with_cors(request, await _serve(request))


async def _serve(request: HttpRequest) -> HttpResponse:
    if (call := admission.deferred(request)) is not None:
        return await _serve_deferred(request, call)
    grant = await orm.run(orm.served_by_asgi(request), admission.admit, request)
    if isinstance(grant, Refusal):
        return refusal_response(grant)
    body = admission.read_body(request)
    if isinstance(body, Refusal):
        return refusal_response(body)
    message = admission.peek(body)
    if isinstance(message, Refusal):
        return refusal_response(message)
    if message is not None and (refusal := admission.scope_refusal(grant, message)) is not None:
        return refusal_response(refusal, request_id=message.get("id"))
    return await transport.serve(request, body, grant)


async def _serve_deferred(request: HttpRequest, call: admission.Deferred) -> HttpResponse:
    """A call admitted within its own unit of database work (``admission.Deferred``)."""
    response = await transport.serve(request, call.body, call)
    if not call.admitted:  # the MCP server answered without running the call
        await orm.run(orm.served_by_asgi(request), call.admit)
    if call.refusal is not None:
        return refusal_response(call.refusal, request_id=call.refusal_id)
    return response
