"""``search_user_context``: matching shared facts, never the whole profile (SPEC S-1, S-2, M-6).

Design notes: docs/design.md.
"""

from __future__ import annotations

from typing import Any

from apps.consent.selectors.visible_set import visible_ids, visible_set_stamp
from apps.mcp_server.errors import tool_error
from apps.mcp_server.tools.answer import Answer
from apps.mcp_server.tools.context import fit, profile_snapshot
from apps.retrieval.selectors import LIMIT_MAX as SEARCH_LIMIT_MAX
from apps.retrieval.selectors import SearchError, search_visible_matches

ONLY_MATCHES = "These are only the shared facts that matched the query, not the whole profile."
NARROW = " More facts match than a search can page through: narrow the query to reach the rest."


def search_user_context(grant, arguments: dict[str, Any]) -> Answer:
    offset = arguments.get("offset", 0)
    try:
        found = search_visible_matches(
            owner_id=grant.connection.user_id,
            visible=visible_ids(connection=grant.connection),
            visible_stamp=visible_set_stamp(connection=grant.connection),
            query=arguments["query"],
            offset=offset,
            limit=arguments.get("limit", SEARCH_LIMIT_MAX),
        )
    except SearchError as error:
        raise tool_error(error) from None
    snapshot = profile_snapshot(connection=grant.connection, ids=found.ids)
    # In rank order; a match no longer visible by the time of the read is left out.
    current = {fact.id: fact for fact in snapshot.facts}
    matched = [current[fid] for fid in found.ids if fid in current]
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
    result["facts"] = fit(worst, matched)
    kept = matched[: len(result["facts"])]
    if len(kept) < len(matched):  # cut by the byte budget (SPEC M-6): the rest is on the next page
        result.update(next_offset=offset + len(kept), has_more=True, window_exhausted=False, message=ONLY_MATCHES)
    return Answer(payload=result, sent=tuple((fact.id, fact.version) for fact in kept))
