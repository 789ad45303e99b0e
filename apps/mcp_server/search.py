"""``search_user_context``: matching shared facts, never the whole profile (SPEC S-1, S-2, M-6).

Matching is the retrieval layer's (``search_visible_facts``, over the visible
set only). Here: the facts are shown exactly as the overview shows them, the
version of the visible set comes along, and a page is cut to the byte budget
(``next_offset`` then continues after the last fact kept).
"""

from __future__ import annotations

from typing import Any

from apps.mcp_server.errors import INVALID_ARGUMENT, TOOL_ERROR_CODES, ToolError
from apps.mcp_server.handlers import Answer
from apps.mcp_server.profile import fit, profile_snapshot
from apps.mcp_server.schemas import SEARCH_LIMIT_MAX
from apps.retrieval.selectors import SearchError, search_visible_facts

ONLY_MATCHES = "These are only the shared facts that matched the query, not the whole profile."
NARROW = " More facts match than a search can page through: narrow the query to reach the rest."


def search_user_context(grant, arguments: dict[str, Any]) -> Answer:
    snapshot = profile_snapshot(connection=grant.connection)
    offset = arguments.get("offset", 0)
    try:
        found = search_visible_facts(
            connection=grant.connection,
            query=arguments["query"],
            offset=offset,
            limit=arguments.get("limit", SEARCH_LIMIT_MAX),
        )
    except SearchError as error:
        code = error.code if error.code in TOOL_ERROR_CODES else INVALID_ARGUMENT
        raise ToolError(code, error.message) from None
    # Shown as in the snapshot: a fact that changed between the two reads is left out, never mixed.
    current = {fact.id: fact for fact in snapshot.facts}
    matched = [current[fact.pk] for fact in found.facts
               if fact.pk in current and current[fact.pk].version == fact.version]
    result: dict[str, Any] = {
        "facts": [],
        "version": snapshot.version,
        "offset": offset,
        "next_offset": found.next_offset,
        "has_more": found.has_more,
        "window_exhausted": found.window_exhausted,
        "message": ONLY_MATCHES + (NARROW if found.window_exhausted else ""),
    }
    # At its largest: false is longer than true, and no next_offset reaches a million.
    worst = {**result, "next_offset": 999_999, "has_more": False, "window_exhausted": False}
    kept = matched[: len(fit(worst, matched))]
    result["facts"] = [fact.public() for fact in kept]
    if len(kept) < len(matched):  # cut by the byte budget (SPEC M-6): the rest is on the next page
        result.update(next_offset=offset + len(kept), has_more=True, window_exhausted=False, message=ONLY_MATCHES)
    return Answer(payload=result, sent=tuple((fact.id, fact.version) for fact in kept))
