"""The anchor: the MCP SDK's own ``MCPServer``, stateless with JSON responses.

It serves ``get_user_context`` with the very result the product returned for
the benchmark's user (read from ``$BENCH_RESULT_FILE``: the JSON-RPC
``result`` object), held in memory. So it does everything an MCP server on
the SDK must do for a ``tools/call`` (transport, JSON-RPC dispatch, result
validation and serialization) and nothing the product does on top
(authentication, consent, the database, the access record).

    python -m bench.serve.launch bench.targets.anchor:app --lifespan on …
"""

from __future__ import annotations

import json
import os

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult

with open(os.environ["BENCH_RESULT_FILE"], encoding="utf-8") as _file:
    RESULT = CallToolResult.model_validate(json.load(_file))

server = MCPServer("lifeos-memory", version="1", log_level="WARNING")


@server.tool(name="get_user_context", description="The shared profile.")
def get_user_context() -> CallToolResult:
    return RESULT


# The SDK's own defaults for a loopback server (DNS-rebinding protection on).
app = server.streamable_http_app(stateless_http=True, json_response=True)
