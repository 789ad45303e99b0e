"""/mcp at the ASGI entry point, beside Django's middleware chain rather than behind it.

Design notes: docs/performance.md (How the hot paths are built).
"""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable

from django.core.handlers.asgi import ASGIHandler, ASGIRequest
from django.core.handlers.exception import response_for_exception
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.middleware.security import SecurityMiddleware

from apps.mcp_server.admission import MAX_BODY_BYTES
from apps.mcp_server.transport.views import mcp_endpoint

PATHS = frozenset({"/mcp", "/mcp/"})

ASGIApp = Callable[[dict, Callable, Callable], Awaitable[None]]


def mount(django_application: ASGIHandler) -> ASGIApp:
    """An ASGI application serving ``/mcp`` itself and everything else through ``django_application``."""
    security = SecurityMiddleware(_unused)
    frame_options = XFrameOptionsMiddleware(_unused)

    async def application(scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http" or scope["path"] not in PATHS:
            return await django_application(scope, receive, send)
        body = await _body(receive)
        if body is None:  # the client went away before sending its request
            return
        request = ASGIRequest(scope, io.BytesIO(body))
        try:
            request.get_host()  # ALLOWED_HOSTS, as Django's request handling checks it
            response = security.process_request(request) or await mcp_endpoint(request)
        except Exception as error:  # as Django answers one: 400 for a bad host, logged 500 otherwise
            response = response_for_exception(request, error)
        response = frame_options.process_response(request, security.process_response(request, response))
        await django_application.send_response(response, send)

    return application


async def _body(receive: Callable) -> bytes | None:
    """The request body, read no further than one byte past what the view accepts (it answers 413)."""
    body, more = bytearray(), True
    while more and len(body) <= MAX_BODY_BYTES:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        body += message.get("body", b"")
        more = message.get("more_body", False)
    return bytes(body)


def _unused(request):  # the middleware objects are used only for their request and response steps
    raise AssertionError("not called")
