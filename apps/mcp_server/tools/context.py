"""The context tools and the profile resources: thin handlers over the profile read path (SPEC M-2, M-3).

The read model — visible set, version, summary, pages — is ``apps.consent.selectors.profile``.
Also SPEC M-7. Design notes: docs/design.md.
"""

from __future__ import annotations

import re
from typing import Any

from apps.common.errors import NOT_FOUND
from apps.consent.selectors.profile import (
    PAGE_URI_PREFIX,
    SUMMARY_URI,
    ProfileError,
    ProfileRead,
    profile_overview,
    profile_page,
)
from apps.mcp_server.errors import ToolError, tool_error
from apps.mcp_server.tools.answer import Answer

_PAGE_URI = re.compile(re.escape(PAGE_URI_PREFIX) + r"(?P<version>[0-9a-f]{64})/(?P<offset>0|[1-9][0-9]{0,8})")

# How resource reads are named in the access history (SPEC D-8); tools go by their name.
SUMMARY_EVENT = "resource:profile/summary"
PAGE_EVENT = "resource:profile/page"


def get_user_context(grant, arguments: dict[str, Any]) -> Answer:
    return _answer(profile_overview(connection=grant.connection))


def read_user_context_page(grant, arguments: dict[str, Any]) -> Answer:
    try:
        read = profile_page(connection=grant.connection, offset=arguments["offset"], version=arguments["version"])
    except ProfileError as error:
        raise tool_error(error) from None
    return _answer(read)


def read_resource(grant, uri: str) -> Answer:
    """The JSON behind ``lifeos://profile/summary`` or a page URI (SPEC M-3)."""
    if uri == SUMMARY_URI:
        return _answer(profile_overview(connection=grant.connection), event=SUMMARY_EVENT)
    match = _PAGE_URI.fullmatch(uri)
    if match is None:
        raise ToolError(NOT_FOUND, f"no resource at {uri[:200]!r}; read {SUMMARY_URI} or a next_uri it gave")
    try:
        read = profile_page(connection=grant.connection, offset=int(match["offset"]), version=match["version"])
    except ProfileError as error:
        raise tool_error(error) from None
    return _answer(read, event=PAGE_EVENT)


def _answer(read: ProfileRead, *, event: str = "") -> Answer:
    return Answer(payload=read.payload, sent=read.sent, event=event)
