"""Errors as values with stable codes (SPEC M-8, A-8, M-10).

Design notes: docs/design.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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


class NotAdmitted(Exception):
    """A call whose admission, made in its own unit (``admission.Deferred``), refused it.

    ``missing``: the scopes it lacks, when that was the reason.
    """

    def __init__(self, missing: tuple[str, ...] | list[str] = ()):
        super().__init__("not admitted")
        self.missing = list(missing)


@dataclass(frozen=True)
class Refusal:
    """Why /mcp will not serve a request, decided before any MCP dispatch.

    ``error``: the stable code; ``scopes``: those a 403 names; ``challenge``: a Bearer challenge (SPEC A-8).
    """

    status: int
    error: str
    message: str
    rpc_code: int
    scopes: tuple[str, ...] = ()
    token_presented: bool = False
    challenge: bool = False
    headers: dict[str, str] = field(default_factory=dict)
