"""The lowest floor: a raw ASGI app that answers every request with the product's response bytes.

It reads the body (as a server must) and sends ``$BENCH_RESPONSE_FILE``
(the whole JSON-RPC response the product sent) with the product's content
type. Anything slower than this is the app's own cost, not uvicorn's or the
load generator's.
"""

from __future__ import annotations

import os

with open(os.environ["BENCH_RESPONSE_FILE"], "rb") as _file:
    BODY = _file.read()

HEADERS = [
    (b"content-type", b"application/json"),
    (b"content-length", str(len(BODY)).encode()),
    (b"cache-control", b"no-store"),
]


async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    more = True
    while more:
        message = await receive()
        more = message.get("more_body", False)
    await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
    await send({"type": "http.response.body", "body": BODY})
