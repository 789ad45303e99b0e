"""``propose_memory``: an assistant suggests, the person decides (SPEC P-1 … P-4, P-7).

The proposal service owns every rule; this only translates its answer. The
scope the ``op`` needs was checked before dispatch (SPEC A-8, P-3).
"""

from __future__ import annotations

from typing import Any

from apps.consent.services import ConsentError
from apps.consent.services.proposals import ProposalError, proposal_submit
from apps.mcp_server.errors import INVALID_ARGUMENT, TOOL_ERROR_CODES, UNAVAILABLE, ToolError
from apps.mcp_server.tools.answer import Answer


# SPEC P-7 (home)
def propose_memory(grant, arguments: dict[str, Any]) -> Answer:
    try:
        proposal = proposal_submit(connection=grant.connection, arguments=arguments)
    except ProposalError as error:
        code = error.code if error.code in TOOL_ERROR_CODES else INVALID_ARGUMENT
        raise ToolError(code, error.message) from None
    except ConsentError as error:  # revoked between the token check and now; the next request gets 401
        raise ToolError(UNAVAILABLE, error.message) from None
    # "pending" means waiting for the person, not remembered (SPEC P-4).
    return Answer(payload={"id": str(proposal.pk), "status": proposal.status})
