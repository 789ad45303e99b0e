"""``propose_memory``: an assistant suggests, the person decides (SPEC P-1 … P-4, P-7).

Also SPEC A-8, P-3. Design notes: docs/design.md.
"""

from __future__ import annotations

from typing import Any

from apps.common.errors import UNAVAILABLE
from apps.consent.services import ConsentError
from apps.consent.services.proposals import ProposalError, proposal_submit
from apps.mcp_server.errors import ToolError, tool_error
from apps.mcp_server.tools.answer import Answer


# SPEC P-7 (home)
def propose_memory(grant, arguments: dict[str, Any]) -> Answer:
    try:
        proposal = proposal_submit(connection=grant.connection, arguments=arguments)
    except ProposalError as error:
        raise tool_error(error) from None
    except ConsentError as error:  # revoked between the token check and now; the next request gets 401
        raise ToolError(UNAVAILABLE, error.message) from None
    # "pending" means waiting for the person, not remembered (SPEC P-4).
    return Answer(payload={"id": str(proposal.pk), "status": proposal.status})
