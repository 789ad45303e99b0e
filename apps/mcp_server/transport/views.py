"""The /mcp endpoint (SPEC M-1): admission, then the MCP SDK.

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
    """Admit the request once (``admission.admit``); only an admitted one crosses into the MCP server."""
    admitted = await orm.run(orm.served_by_asgi(request), admission.admit, request)
    if isinstance(admitted, Refusal):
        return refusal_response(admitted)
    return await transport.serve(request, admitted)
