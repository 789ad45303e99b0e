"""Hands one admitted Django request to the MCP SDK and brings its answer back (nothing else comes back).

Design notes: docs/performance.md (How the hot paths are built).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import weakref
from collections.abc import MutableMapping
from typing import Any

import anyio
from django.http import HttpRequest, HttpResponse
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from apps.mcp_server.admission import MAX_BODY_BYTES, Admitted
from apps.mcp_server.transport.orm import served_by_asgi
from apps.mcp_server.transport.server import ADMITTED_KEY, ASGI_KEY, mcp_server

# With a manager per request (WSGI) or per event loop, the SDK's session start/stop
# messages at INFO say nothing; keep them out of the log unless logging is configured for them.
for _name in ("mcp.server.streamable_http_manager", "mcp.server.streamable_http"):
    if logging.getLogger(_name).level == logging.NOTSET:
        logging.getLogger(_name).setLevel(logging.WARNING)

# Credentials stop at the view: the SDK has no use for them.
_WITHHELD_HEADERS = {"authorization", "cookie"}


def _new_manager() -> StreamableHTTPSessionManager:
    return StreamableHTTPSessionManager(
        app=mcp_server(), stateless=True, json_response=True, max_request_body_size=MAX_BODY_BYTES
    )


# Under ASGI: one running manager per event loop (a worker process has one), and the task holding it open.
_managers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Future] = weakref.WeakKeyDictionary()
_holders: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task] = weakref.WeakKeyDictionary()


async def _loop_manager() -> StreamableHTTPSessionManager:
    """This event loop's session manager, started on first use and kept running until the loop ends.

    Its holder task runs in an empty context, so no request's context variables leak into it.
    """
    loop = asyncio.get_running_loop()
    ready, holder = _managers.get(loop), _holders.get(loop)
    if ready is None or (holder is not None and holder.done()):
        ready = _managers[loop] = loop.create_future()
        _holders[loop] = loop.create_task(_hold(_new_manager(), ready), context=contextvars.Context())
    return await asyncio.shield(ready)


async def _hold(manager: StreamableHTTPSessionManager, ready: asyncio.Future) -> None:
    try:
        async with manager.run():
            ready.set_result(manager)
            await asyncio.get_running_loop().create_future()  # until the loop cancels it
    except BaseException as error:
        if not ready.done():
            ready.set_exception(error if isinstance(error, Exception) else RuntimeError("manager stopped"))
        raise


def _scope(request: HttpRequest, admitted: Admitted) -> dict:
    headers = [
        (name.lower().encode("latin-1"), value.encode("latin-1", "replace"))
        for name, value in request.headers.items()
        if name.lower() not in _WITHHELD_HEADERS
    ]
    host, _, port = request.get_host().rpartition(":")
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode("utf-8"),
        "root_path": "",
        "query_string": b"",  # never forwarded: a token there was already refused
        "headers": headers,
        "client": (request.META.get("REMOTE_ADDR", ""), 0),
        "server": (host or request.get_host(), int(port) if port.isdigit() else 80),
        ADMITTED_KEY: admitted,
        ASGI_KEY: served_by_asgi(request),
    }


async def serve(request: HttpRequest, admitted: Admitted) -> HttpResponse:
    """Run the MCP server on one admitted request; it answers from what admission decided."""
    body = admitted.body
    delivered = False
    finished = anyio.Event()

    async def receive() -> dict:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await finished.wait()  # nothing more will come; the client is "still connected"
        return {"type": "http.disconnect"}

    status = 500
    headers: list[tuple[bytes, bytes]] = []
    chunks: list[bytes] = []

    async def send(message: MutableMapping[str, Any]) -> None:
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status, headers = message["status"], list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    scope = _scope(request, admitted)
    try:
        if scope[ASGI_KEY]:
            await (await _loop_manager()).handle_request(scope, receive, send)
        else:
            manager = _new_manager()
            async with manager.run():
                await manager.handle_request(scope, receive, send)
    finally:
        finished.set()

    response = HttpResponse(b"".join(chunks), status=status)
    for name, value in headers:
        if name.lower() != b"content-length":
            response[name.decode("latin-1")] = value.decode("latin-1")
    response["Cache-Control"] = "no-store"
    return response
