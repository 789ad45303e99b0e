"""CORS for browser-based MCP clients on an allowed origin (e.g. an inspector on localhost).

Also SPEC A-8. Design notes: docs/design.md.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from apps.mcp_server.admission import origin_allowed

# "*" does not cover Authorization, so it is named (Fetch standard).
_ALLOW_HEADERS = "Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID, *"
_EXPOSE_HEADERS = "WWW-Authenticate, Mcp-Session-Id, MCP-Protocol-Version"


def preflight(request: HttpRequest) -> HttpResponse:
    origin = request.headers.get("Origin")
    if not origin or not origin_allowed(origin):
        return HttpResponse(status=403)
    response = HttpResponse(status=204)
    response["Access-Control-Allow-Methods"] = "POST"
    response["Access-Control-Allow-Headers"] = _ALLOW_HEADERS
    response["Access-Control-Max-Age"] = "600"
    return with_cors(request, response)


def with_cors(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    origin = request.headers.get("Origin")
    response["Vary"] = "Origin"
    if origin and origin_allowed(origin):
        response["Access-Control-Allow-Origin"] = origin
        response["Access-Control-Expose-Headers"] = _EXPOSE_HEADERS
    return response
