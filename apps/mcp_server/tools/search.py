"""``search_user_context``: a thin handler over the profile read path (SPEC S-1, S-2, M-6).

Design notes: docs/design.md.
"""

from __future__ import annotations

from typing import Any

from apps.consent.selectors.profile import profile_search
from apps.mcp_server.errors import tool_error
from apps.mcp_server.tools.answer import Answer
from apps.retrieval.selectors import LIMIT_MAX, SearchError


def search_user_context(grant, arguments: dict[str, Any]) -> Answer:
    try:
        read = profile_search(connection=grant.connection, query=arguments["query"],
                              offset=arguments.get("offset", 0), limit=arguments.get("limit", LIMIT_MAX))
    except SearchError as error:
        raise tool_error(error) from None
    return Answer(payload=read.payload, sent=read.sent)
