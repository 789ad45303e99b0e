"""Search over the facts a connection may see (SPEC S-1 … S-3, C-1, C-8).

Design notes: docs/design.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from typing import Any

from django.db import router
from django.db.models import QuerySet

from apps.common.errors import CodedError
from apps.memory.models import Fact
from apps.retrieval import hybrid
from apps.retrieval.backends import SearchScope, get_search_backend
from apps.retrieval.embeddings import EmbeddingUnavailable, get_embedder
from apps.retrieval.embeddings.codec import unpack_many
from apps.retrieval.indexing import normalize, query_terms
from apps.retrieval.layer.access import TypeView
from apps.retrieval.layer.searching import Target, ranked
from apps.retrieval.models import SearchProjection
from apps.retrieval.registry import indexed_type, registry
from apps.retrieval.searchable import USER_PROFILE, USER_PROFILE_FIELDS

# The search_user_context limits; the MCP tool's schema states them from here.
QUERY_MAX = 200  # characters (SPEC M-2)
OFFSET_MAX = 10_000  # SPEC S-2 (home): the search window
LIMIT_MAX = 10  # SPEC M-2
# What an assistant may match on: a fact's searchable fields, its label and value, never its evidence (SPEC S-1, C-8).
EXTERNAL_FACT_FIELDS = USER_PROFILE_FIELDS


class SearchError(CodedError):
    """A search request the rules refuse; ``code`` is ``invalid_argument``, ``field`` names the argument."""


@dataclass(frozen=True)
class SearchMatches:
    """The ranked ids of one page of matches, best first: never the whole profile, only what matched.

    ``next_offset`` is None when nothing is left or the 10,000-match window is used up (``window_exhausted``: S-2)."""

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


# SPEC S-1 (home)
def search_visible_matches(*, owner_id: int, visible: QuerySet[Fact] | tuple[str, list[Any]], query: str,
                           offset: int, limit: int,
                           visible_stamp: tuple[str, list[int]] | None = None) -> SearchMatches:
    """The ids of the facts among ``visible`` (the owner's; a queryset, or its ids' SQL and parameters:
    ``visible_ids``) whose label or value matches ``query``, by rank.

    The facts are the layer's ``user_profile`` type, searched by the layer's one engine with the visible set as
    the records the search may find and what an assistant reads of a fact as the view (SPEC S-4, C-8).
    ``visible_stamp``: ``SearchScope.stamp`` of ``visible`` (the consent selector ``visible_set_stamp``).
    Bad query, offset or limit: ``SearchError("invalid_argument", …)``; readers re-apply the visibility rule."""
    _check(query, offset, limit)
    # One match past the page (or past the window's end) tells whether more exist.
    take = min(limit, OFFSET_MAX - offset)
    backend = get_search_backend(router.db_for_read(SearchProjection))  # a replica where reads tolerate lag (O-4)
    facts = Target(_assistant_view(), SearchScope(USER_PROFILE, EXTERNAL_FACT_FIELDS, visible, stamp=visible_stamp))
    # The first ``offset + take + 1`` places need at most that many keyword matches past the ones meaning
    # can lift over them (at most ``hybrid.DEPTH`` records match by meaning).
    found = ranked(backend, owner_id=owner_id, query=query, targets=[facts],
                   pool=offset + take + 1 + 2 * hybrid.DEPTH)
    hits = [match.candidate.record_id for match in islice(found, offset, offset + take + 1)]
    more = len(hits) > take
    exhausted = more and offset + take >= OFFSET_MAX
    return SearchMatches(
        ids=tuple(hits[:take]),
        offset=offset,
        next_offset=offset + take if more and not exhausted else None,
        has_more=more,
        window_exhausted=exhausted,
    )


def _assistant_view() -> TypeView:
    """What an assistant reads of a fact (SPEC C-8), as the layer's view of ``user_profile``: the fields it
    matches on, and the time it is shown, by which like matches are ordered (SPEC R-8)."""
    indexed_type(USER_PROFILE)  # the declaration must be loaded: no silent empty search
    return TypeView(registry.get(USER_PROFILE), frozenset({"search"}),  # type: ignore[arg-type]  # loaded above
                    frozenset({*EXTERNAL_FACT_FIELDS, "/category", "/updated_at"}))


# --- Meaning of a person's facts, for rules that compare texts (SPEC P-9) --------------------------

def fact_meanings(
    *, owner_id: int, fact_ids: list[int], fields: tuple[str, ...] = USER_PROFILE_FIELDS,
) -> tuple[dict[tuple[int, str], Any], str | None]:
    """The stored meaning vectors of these facts' ``fields``: ``{(fact id, "/label"|"/value"): vector}``.

    One query. Only vectors of the configured model count; a fact not embedded yet is simply absent.
    Returns the model's name too (None when meaning is off), for embedding other texts alike.
    """
    embedder = get_embedder()
    if embedder is None or not fact_ids:
        return {}, embedder.name if embedder else None
    wanted = set(fact_ids)
    rows = [(record, path, bytes(vector)) for record, path, vector in SearchProjection.objects.filter(
        owner_id=owner_id, resource_type=USER_PROFILE, field__in=fields, vector_model=embedder.name,
    ).values_list("record_id", "field", "vector") if record in wanted and vector is not None]
    if not rows:
        return {}, embedder.name
    matrix, scales = unpack_many([row[2] for row in rows], embedder.dim)
    vectors = matrix.astype("float32") * scales[:, None]
    return {(row[0], row[1]): vectors[index] for index, row in enumerate(rows)}, embedder.name


def text_meanings(texts: list[str], *, normal: bool = True) -> Any | None:
    """Meaning vectors of ``texts``, normalised first as stored fields are (``normal``), or None without meaning."""
    embedder = get_embedder()
    if embedder is None:
        return None
    try:
        return embedder.embed([normalize(text) if normal else text for text in texts])
    except EmbeddingUnavailable:
        return None  # the rule falls back to words (docs/pages.md)
