"""Errors as values with stable codes (SPEC M-8, A-8, M-10).

Design notes: docs/design.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from apps.common.errors import INVALID_ARGUMENT, TOOL_ERROR_CODES, CodedError

# JSON-RPC codes for refusals made before the MCP server sees the request.
# They sit in the implementation-defined band the MCP spec leaves to servers
# (-32000 … -32019), clear of the SDK's own -32000 / -32001.
RPC_UNAUTHORIZED = -32010
RPC_FORBIDDEN = -32011
RPC_UNAVAILABLE = -32012
RPC_INVALID_REQUEST = -32600  # standard JSON-RPC


class ToolError(CodedError):
    """A tool call that failed in a way the assistant should read and act on; on the wire only code and message."""

    def __init__(self, code: str, message: str):
        if code not in TOOL_ERROR_CODES:
            raise ValueError(f"unknown tool error code {code!r}")
        super().__init__(code, message)


def tool_error(error: CodedError) -> ToolError:
    """A refusal from a service as the tool error the assistant reads: its own code when it is a tool code."""
    return ToolError(error.code if error.code in TOOL_ERROR_CODES else INVALID_ARGUMENT, error.message)


@dataclass(frozen=True)
class Refusal:
    """Why /mcp will not serve a request, decided before any MCP dispatch.

    ``error``: the stable code; ``scopes``: those a 403 names; ``challenge``: a Bearer challenge (SPEC A-8);
    ``request_id``: the JSON-RPC id the refusal answers, when it was decided from the message (a 403).
    """

    status: int
    error: str
    message: str
    rpc_code: int
    scopes: tuple[str, ...] = ()
    token_presented: bool = False
    challenge: bool = False
    headers: dict[str, str] = field(default_factory=dict)
    request_id: Any = None
