"""Prototype, measured only: the product's /mcp view served by an ASGI entry point, outside Django's middleware.

Not part of the product (``config/asgi.py`` serves everything through
Django). It shows what /mcp would cost if it were mounted at the ASGI level:
requests to exactly ``/mcp`` go straight to ``apps.mcp_server.views.mcp_endpoint``
— the same admission, MCP SDK, database work and access record — with
``SecurityMiddleware``'s request and response steps applied around it (HTTPS
redirect, HSTS and the other security headers) and the host checked against
``ALLOWED_HOSTS``; everything else goes to Django's own ASGI application.
What it skips is the rest of the middleware chain, which under ASGI runs each
middleware's sync hooks through ``sync_to_async`` (docs/performance.md), and
Django's per-request thread.

    python -m bench.serve.launch bench.targets.product_entry:app …
"""

from __future__ import annotations

import io

from django.core.asgi import get_asgi_application

django_application = get_asgi_application()

from django.core.exceptions import DisallowedHost  # noqa: E402
from django.core.handlers.asgi import ASGIRequest  # noqa: E402
from django.http import HttpResponseBadRequest  # noqa: E402
from django.middleware.security import SecurityMiddleware  # noqa: E402

from apps.mcp_server.admission import MAX_BODY_BYTES  # noqa: E402
from apps.mcp_server.views import mcp_endpoint  # noqa: E402

_security = SecurityMiddleware(lambda request: None)


async def app(scope, receive, send):
    if scope["type"] != "http" or scope["path"] != "/mcp":
        return await django_application(scope, receive, send)
    body, more = bytearray(), True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
        body += message.get("body", b"")
        more = message.get("more_body", False)
        if len(body) > MAX_BODY_BYTES:  # the view answers 413 from what it was given
            break
    request = ASGIRequest(scope, io.BytesIO(bytes(body)))
    try:
        request.get_host()  # ALLOWED_HOSTS, as Django's handler checks it
        response = _security.process_request(request) or await mcp_endpoint(request)
        response = _security.process_response(request, response)
    except DisallowedHost:
        response = HttpResponseBadRequest()
    await django_application.send_response(response, send)
