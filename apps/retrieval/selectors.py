"""Search over the facts a connection may see (SPEC S-1 … S-3, C-1, C-8).

``search_visible_facts`` is what the MCP ``search_user_context`` tool calls.
It matches only the label and value of facts in ``visible_facts(connection)``
— the one visibility rule — so evidence, pending proposals, other resources
and facts that are archived, unshared, changed since shared or sensitive can
never decide a match nor be returned. Two queries (three with meaning on:
the vectors of the visible label and value rows), whatever the number of
facts: the ranked ids (by words and by meaning, fused: ``search_visible_matches``,
candidates confirmed against the source rows inside each statement), then
the facts themselves,
re-checked against the rule. A caller that reads the facts its own way (the
MCP tool reads them together with the version of the visible set) takes the
ranked ids alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from apps.consent.models import Connection
from apps.consent.selectors import visible_facts
from apps.memory.models import Fact
from apps.retrieval import hybrid
from apps.retrieval.backends import SearchScope, get_search_backend
from apps.retrieval.indexing import indexed_type, query_terms
from apps.retrieval.searchable import USER_PROFILE

QUERY_MAX = 200  # characters (SPEC M-2)
OFFSET_MAX = 10_000  # the search window (SPEC S-2)
LIMIT_MAX = 10  # SPEC M-2
# What an assistant may match on: a fact's label and value, never its evidence (SPEC S-1, C-8).
EXTERNAL_FACT_FIELDS = ("/label", "/value")


class SearchError(Exception):
    """A search request the rules refuse; ``code`` is ``invalid_argument``, ``field`` names the argument."""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field


@dataclass(frozen=True)
class SearchPage:
    """One page of matches, best first.

    ``has_more`` says more matches exist after this page. ``next_offset`` is
    where the next page starts, or None when there is none to fetch: either
    nothing is left, or the 10,000-match window is used up — then
    ``window_exhausted`` is True and the query should be narrowed (SPEC S-2).
    A page is never the whole profile, only what matched.
    """

    facts: list[Fact]
    offset: int
    next_offset: int | None
    has_more: bool
    window_exhausted: bool


@dataclass(frozen=True)
class SearchMatches:
    """The ranked ids of one page of matches, best first; the paging fields as in ``SearchPage``."""

    ids: tuple[int, ...]
    offset: int
    next_offset: int | None
    has_more: bool
    window_exhausted: bool


def _check(query: str, offset: int, limit: int) -> None:
    if not isinstance(query, str):
        raise SearchError("invalid_argument", "query must be a string", "query")
    if len(query) > QUERY_MAX:
        raise SearchError("invalid_argument", f"query is {len(query)} characters; at most {QUERY_MAX}", "query")
    if not query_terms(query):
        raise SearchError("invalid_argument", "query must contain something to search for", "query")
    if isinstance(offset, bool) or not isinstance(offset, int) or not 0 <= offset <= OFFSET_MAX:
        raise SearchError("invalid_argument", f"offset must be an integer from 0 to {OFFSET_MAX}", "offset")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= LIMIT_MAX:
        raise SearchError("invalid_argument", f"limit must be an integer from 1 to {LIMIT_MAX}", "limit")


def search_visible_facts(*, connection: Connection, query: str, offset: int, limit: int) -> SearchPage:
    """Facts visible to ``connection`` whose label or value matches ``query`` (SPEC S-1 … S-3).

    Raises ``SearchError("invalid_argument", …)`` for a query longer than 200
    characters or without any term, an offset outside 0 … 10,000, or a limit
    outside 1 … 10. The window is the first 10,000 matches in rank order.
    """
    matches = search_visible_matches(connection=connection, query=query, offset=offset, limit=limit)
    ids = matches.ids
    found = visible_facts(connection=connection).filter(pk__in=ids).in_bulk() if ids else {}
    return SearchPage(
        facts=[found[pk] for pk in ids if pk in found],
        offset=matches.offset,
        next_offset=matches.next_offset,
        has_more=matches.has_more,
        window_exhausted=matches.window_exhausted,
    )


def search_visible_matches(*, connection: Connection, query: str, offset: int, limit: int) -> SearchMatches:
    """The ids of the facts ``search_visible_facts`` returns, in rank order, by one statement.

    The same checks, errors and window. The ids were visible when the
    statement ran; whoever reads the facts reads them through the visibility
    rule again.
    """
    _check(query, offset, limit)
    visible = visible_facts(connection=connection)
    indexed_type(USER_PROFILE)  # the declaration must be loaded: no silent empty search
    # One row past the page (or past the window's end) tells whether more matches exist.
    take = min(limit, OFFSET_MAX - offset)
    backend = get_search_backend()
    scopes = [SearchScope(USER_PROFILE, EXTERNAL_FACT_FIELDS, visible)]
    # SPEC S-4: words and meaning, fused. The fused order's first ``offset + take + 1`` places need at
    # most that many keyword matches past the fused head (which holds at most 2 × DEPTH records).
    keyword = backend.search(owner_id=connection.user_id, query=query, scopes=scopes, offset=0,
                             limit=offset + take + 1 + 2 * hybrid.DEPTH)
    meaning = hybrid.meaning_hits(backend, owner_id=connection.user_id, query=query, scopes=scopes)
    hits = hybrid.fuse(keyword, meaning)[offset:offset + take + 1]
    more = len(hits) > take
    exhausted = more and offset + take >= OFFSET_MAX
    return SearchMatches(
        ids=tuple(hit.record_id for hit in hits[:take]),
        offset=offset,
        next_offset=offset + take if more and not exhausted else None,
        has_more=more,
        window_exhausted=exhausted,
    )
