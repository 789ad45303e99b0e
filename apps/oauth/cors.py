"""CORS for the endpoints a browser-based client calls before it has a token (SPEC A-10).

Design notes: docs/design.md.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse

# "*" does not cover Authorization (Fetch standard), so it is named.
ALLOW_HEADERS = "Authorization, Content-Type, Accept, MCP-Protocol-Version, *"


# SPEC A-10 (home)
def open_to_every_origin(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Answer a preflight and mark every response — errors included — readable from any origin."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
            response = HttpResponse(status=204)
            response["Access-Control-Allow-Methods"] = "GET, POST, PUT, DELETE, OPTIONS"
            response["Access-Control-Allow-Headers"] = ALLOW_HEADERS
            response["Access-Control-Max-Age"] = "600"
        else:
            response = view(request, *args, **kwargs)
        response["Access-Control-Allow-Origin"] = "*"
        response["Access-Control-Expose-Headers"] = "WWW-Authenticate, Retry-After"
        return response

    return wrapped
