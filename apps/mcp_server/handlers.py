"""Thin handlers of the read path: tools and resources (SPEC M-2, M-3, M-7).

Also SPEC M-11. Design notes: docs/design.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from apps.mcp_server.errors import INVALID_ARGUMENT, NOT_FOUND, VERSION_CONFLICT, ToolError
from apps.mcp_server.profile import (
    PAGE_URI_PREFIX,
    SUMMARY_URI,
    ProfileSnapshot,
    overview,
    page,
    profile_snapshot,
)

_PAGE_URI = re.compile(re.escape(PAGE_URI_PREFIX) + r"(?P<version>[0-9a-f]{64})/(?P<offset>0|[1-9][0-9]{0,8})")

# How resource reads are named in the access history (SPEC D-8); tools go by their name.
SUMMARY_EVENT = "resource:profile/summary"
PAGE_EVENT = "resource:profile/page"


@dataclass(frozen=True)
class Answer:
    payload: dict[str, Any]
    sent: tuple[tuple[int, int], ...] = ()  # (fact id, version) of every fact in the payload
    event: str = ""  # the access-history name when it is not the tool's own
    refs: tuple[str, ...] = ()  # "<type>:<id>" of every memory record in the payload (memory.py)


def get_user_context(grant, arguments: dict[str, Any]) -> Answer:
    snapshot = profile_snapshot(connection=grant.connection)
    return _answer(snapshot, overview(snapshot))


def read_user_context_page(grant, arguments: dict[str, Any]) -> Answer:
    snapshot = profile_snapshot(connection=grant.connection, offset=arguments["offset"])
    return _answer(snapshot, _checked_page(snapshot, version=arguments["version"]))


def read_resource(grant, uri: str) -> Answer:
    """The JSON behind ``lifeos://profile/summary`` or a page URI (SPEC M-3)."""
    if uri == SUMMARY_URI:
        snapshot = profile_snapshot(connection=grant.connection)
        return _answer(snapshot, overview(snapshot), event=SUMMARY_EVENT)
    match = _PAGE_URI.fullmatch(uri)
    if match is None:
        raise ToolError(NOT_FOUND, f"no resource at {uri[:200]!r}; read {SUMMARY_URI} or a next_uri it gave")
    snapshot = profile_snapshot(connection=grant.connection, offset=int(match["offset"]))
    result = _checked_page(snapshot, version=match["version"])
    return _answer(snapshot, result, event=PAGE_EVENT)


def _checked_page(snapshot: ProfileSnapshot, *, version: str) -> dict[str, Any]:
    """SPEC M-7: a page only of the set the client was told about, from the snapshot's offset."""
    if version != snapshot.version:
        raise ToolError(
            VERSION_CONFLICT,
            "the shared facts changed since this version was issued; call get_user_context again "
            "and page with the version it returns",
        )
    if snapshot.offset > snapshot.fact_count:
        raise ToolError(INVALID_ARGUMENT,
                        f"field 'offset' is too large: at most {snapshot.fact_count} for this version")
    return page(snapshot)


def _answer(snapshot: ProfileSnapshot, result: dict[str, Any], *, event: str = "") -> Answer:
    carried = snapshot.facts[: len(result["facts"])]  # the page is the leading facts read
    return Answer(payload=result, sent=tuple((fact.id, fact.version) for fact in carried), event=event)
