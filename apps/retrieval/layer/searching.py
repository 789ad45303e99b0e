"""``search(query, resource?, top_k?)`` across the types a caller may search (SPEC R-5 … R-8).

Also SPEC S-4. Design notes: docs/design.md.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.db import DatabaseError, router, transaction
from django.db.models import F, QuerySet, Value

from apps.common import clock, statements
from apps.retrieval import calibration, hybrid
from apps.retrieval.backends import BaseSearchBackend, SearchScope, get_search_backend
from apps.retrieval.indexing import normalize, query_terms
from apps.retrieval.layer import documents, pointers
from apps.retrieval.layer.access import Access, TypeView, require, views
from apps.retrieval.layer.errors import LayerError
from apps.retrieval.layer.parsing import SearchRequest
from apps.retrieval.layer.pointers import texts_at
from apps.retrieval.layer.ranking import Candidate, rank
from apps.retrieval.models import SearchProjection
from apps.retrieval.registry import name_fields

log = logging.getLogger(__name__)

# SPEC M-6 (home): one result's compact UTF-8 JSON is at most 16 KiB — this search answer, a memory page
# and a profile page over MCP alike.
RESULT_MAX_BYTES = 16_384
CANDIDATE_POOL = 200  # candidates taken from the backend before ranking
SNIPPET_CHARS = 200
TITLE_CHARS = 200


def _backend() -> BaseSearchBackend:
    try:
        # A replica where the block's reads tolerate lag (SPEC O-4), else the primary.
        return get_search_backend(router.db_for_read(SearchProjection))
    except NotImplementedError as exc:
        raise LayerError("search_unavailable", str(exc)) from None


def searchable_fields(v: TypeView) -> tuple[str, ...]:
    """The fields of ``v``'s type that this caller may both read and search by (SPEC R-5)."""
    return tuple(path for path in v.resource.declaration.searchable if path in v.leaves)


def _snippet(text: str, term: str) -> str:
    at = max(text.casefold().find(term), 0)
    begin = max(at - SNIPPET_CHARS // 3, 0)
    piece = text[begin:begin + SNIPPET_CHARS]
    return ("…" if begin else "") + piece + ("…" if begin + SNIPPET_CHARS < len(text) else "")


def _confirm(v: TypeView, doc: dict, terms: list[str]) -> dict | None:
    """The snippet proving the match in the current readable text, or None if it no longer matches."""
    fields = searchable_fields(v)
    joined = {path: normalize("\n".join(text for _, text in texts_at(doc, path))) for path in fields}
    if not all(any(term in text for text in joined.values()) for term in terms):
        return None
    for path in fields:
        for concrete, text in texts_at(doc, path):
            if terms[0] in normalize(text):
                return {"path": concrete, "text": _snippet(text, terms[0])}
    return {"path": fields[0], "text": ""}  # every term matched, none within one string


def _confirm_meaning(v: TypeView, doc: dict, pattern: str, embedded: str | None) -> dict | None:
    """The snippet of a match by meaning: the field's current text must be what its vector was made from."""
    if pattern not in searchable_fields(v):
        return None  # never a field the caller may not read (SPEC R-5)
    found = texts_at(doc, pattern)
    if not found or embedded is None or normalize("\n".join(text for _, text in found)) != embedded:
        return None
    concrete, text = found[0]
    return {"path": concrete, "text": _snippet(text, "")}


def shown_names(v: TypeView) -> frozenset[str]:
    """The top-level fields a hit of ``v``'s type may show (its readable ones only are built)."""
    declaration = v.resource.declaration
    wanted = {pointers.split(path)[0] for path in searchable_fields(v)} | {"status", "updated_at"}
    if declaration.title:
        wanted.add(pointers.split(declaration.title)[0])
    return frozenset(wanted)


def _hit(v: TypeView, doc: dict, candidate: Candidate, snippet: dict) -> dict:
    declaration = v.resource.declaration
    hit = {"ref": candidate.ref, "type": v.type, "score": candidate.rank}
    title = declaration.title
    if title and title in v.leaves and isinstance(doc.get(title[1:]), str):
        hit["title"] = doc[title[1:]][:TITLE_CHARS]
    for name in ("status", "updated_at"):
        if f"/{name}" in v.leaves and f"/{name}" in declaration.by_path:
            hit[name] = doc.get(name)
    hit["snippet"] = snippet
    return hit


class _Confirmation:
    """Each candidate's proof of match, built once and only when asked for (SPEC R-6).

    Only what a hit can show, and only where the caller may read it.
    """

    def __init__(
        self, rows: dict, terms: list[str], keyword: set[str], meaning: dict[str, tuple[str, str | None]],
    ):
        self._rows, self._terms = rows, terms  # ref → (the view it is read through, its candidate row)
        self._keyword = keyword  # refs the words matched
        self._meaning = meaning  # ref → (field pattern, the text its vector was made from)
        self._proofs: dict[str, tuple[dict, dict] | None] = {}
        self._names: dict[str, frozenset[str]] = {}

    def _shown(self, v: TypeView) -> frozenset[str]:
        if v.type not in self._names:
            self._names[v.type] = shown_names(v) & v.readable_top_level()
        return self._names[v.type]

    def __call__(self, ref: str) -> tuple[dict, dict] | None:
        if ref not in self._proofs:
            v, row = self._rows[ref]
            adapter = v.resource.adapter
            doc = adapter.document(adapter.record(row), self._shown(v))
            snippet = _confirm(v, doc, self._terms) if ref in self._keyword else None
            if snippet is None and ref in self._meaning:
                snippet = _confirm_meaning(v, doc, *self._meaning[ref])
            self._proofs[ref] = None if snippet is None else (doc, snippet)
        return self._proofs[ref]


@dataclass(frozen=True)
class Target:
    """One type a search looks in: the caller's view of it and its scope (readable fields, records it may find)."""

    view: TypeView
    scope: SearchScope


@dataclass(frozen=True)
class Found:
    """One confirmed match, in the engine's order: its rank, the view it was read through, what a hit shows."""

    candidate: Candidate
    view: TypeView
    doc: dict
    snippet: dict


def search_scopes(access: Access, targets: list[TypeView], backend: BaseSearchBackend) -> list[SearchScope]:
    """Each target type's readable searchable fields of the caller's current records (SPEC R-5, R-6), under
    the stamp that moves with those records: a search by meaning lists its rows again only when it moved."""
    stamp = backend.records_stamp_sql(access.user_id)
    return [SearchScope(v.type, fields, v.resource.adapter.searchable_records(access.user_id), stamp=stamp)
            for v in targets if (fields := searchable_fields(v))]


def _embedded_texts(row_ids: list[int]) -> dict[int, str]:
    """The text each of these projection rows was embedded from, by row id (SQL compiled once, on PostgreSQL)."""
    found = statements.rows(SearchProjection, _embedded_build, ("ints",), row_ids)
    return dict(SearchProjection.objects.filter(pk__in=row_ids).values_list("pk", "text") if found is None else found)


def _embedded_build(row_ids: list[int]) -> QuerySet:
    return SearchProjection.objects.filter(statements.AnyOf(F("pk"), Value(row_ids))).order_by().values_list(
        "pk", "text")


# SPEC S-4 (home): the one engine — the agents' search and search_user_context both find and rank here.
def ranked(backend: BaseSearchBackend, *, owner_id: int, query: str, targets: list[Target],
           pool: int) -> Iterator[Found]:
    """The matches of ``query`` in ``targets``, best first, each confirmed in the current record (SPEC R-6)
    as it is reached: a search reads the few documents it answers with, not the whole candidate pool.

    ``pool``: the keyword matches taken before ranking. A failing statement raises its ``DatabaseError`` (the
    caller's transaction intact); a type the projection does not index, ``KeyError``."""
    terms = query_terms(query)
    by_type = {t.view.type: t.view for t in targets}
    # A failing statement must not poison the caller's transaction (on the database searched).
    with transaction.atomic(using=backend.using):
        found, meaning = hybrid.search_both(backend, owner_id=owner_id, query=query,
                                            scopes=[t.scope for t in targets], keyword_limit=pool)
        embedded = _embedded_texts([h.row_id for h in meaning]) if meaning else {}
    # Load every candidate (one query per type) for what ranking needs — current or not, status, time —
    # and for what a hit may show, which only the few answered need.
    names, asked = name_fields(), normalize(query)  # a name's meaning holds where the query spells it (``Field.name``)
    similar = {(h.resource_type, h.record_id): h for h in meaning if (h.resource_type, h.field) not in names
               or calibration.spelt_alike(asked, embedded.get(h.row_id, ""))}
    keyword = {(h.resource_type, h.record_id): h.score for h in found}
    ids: dict[str, list[int]] = {}
    for key in [*keyword, *(k for k in similar if k not in keyword)]:
        ids.setdefault(key[0], []).append(key[1])
    loaded = {}
    for name, record_ids in ids.items():
        v = by_type[name]
        records = v.resource.adapter.candidates(owner_id, record_ids, shown_names(v))
        loaded.update({(name, obj.pk): obj for obj in records})
    candidates, rows, meant, words = [], {}, {}, set()
    for name, record_ids in ids.items():
        v = by_type[name]
        adapter, weight = v.resource.adapter, v.resource.declaration.rank_weight
        # Status and recency rank only where the caller may read them: the order of hits must not tell
        # what their fields do not (SPEC R-5).
        by_status, by_time = "/status" in v.leaves, "/updated_at" in v.leaves
        for record_id in record_ids:
            row = loaded.get((name, record_id))
            if row is None or not adapter.is_current(row):
                continue  # SPEC R-6: gone, deleted or no longer current since it was indexed
            ref, close = f"{name}:{record_id}", similar.get((name, record_id))
            if (name, record_id) in keyword:
                words.add(ref)
            if close is not None:
                meant[ref] = (close.field, embedded.get(close.row_id))
            candidate = Candidate(
                ref=ref, resource_type=name, record_id=record_id, lexical=keyword.get((name, record_id), 0.0),
                similarity=close.similarity if close is not None else None,
                status_boost=adapter.status_boost(row) if by_status else 0.0,
                changed_at=adapter.recency(row) if by_time else None, type_weight=weight,
            )
            candidates.append(candidate)
            rows[ref] = (v, row)
    confirm = _Confirmation(rows, terms, words, meant)
    # Keyword scores and similarities are relative to the best *confirmed* candidate of each (SPEC R-8):
    # the first one confirmed in that order. Only then are the others confirmed, in rank order, as the
    # answer needs them.
    best = next((c for c in sorted(candidates, key=lambda c: (-c.lexical, c.resource_type, c.record_id))
                 if c.ref in words and confirm(c.ref) is not None), None)
    closest = next((c for c in sorted(candidates, key=lambda c: (-(c.similarity or 0), c.resource_type,
                                                                 c.record_id))
                    if c.similarity is not None and confirm(c.ref) is not None), None)
    if best is None and closest is None:
        return
    for candidate in rank(candidates, now=clock.now(), top=best.lexical if best else 0.0,
                          top_similarity=closest.similarity if closest else 0.0):
        proof = confirm(candidate.ref)
        if proof is not None:
            yield Found(candidate, rows[candidate.ref][0], *proof)


# SPEC R-5 (home)
def search(access: Access, request: SearchRequest) -> dict:
    backend = _backend()
    if request.resource is not None:
        targets = [require(access, request.resource, "search", pointer="/resource")]
    else:
        targets = [v for v in views(access) if "search" in v.operations]
        if not targets:
            raise LayerError("operation_not_permitted", "this run may not search any resource type")
    if not query_terms(request.query):
        raise LayerError("invalid_value", "the query has nothing to search for", pointer="/query")
    by_type = {v.type: v for v in targets}
    scopes = search_scopes(access, targets, backend)
    answer: dict[str, Any] = {"query": request.query, "hits": [], "truncated": False}
    if not scopes:
        return answer
    budget = RESULT_MAX_BYTES - documents.size(answer)
    used = 0
    matches = ranked(backend, owner_id=access.user_id, query=request.query, pool=CANDIDATE_POOL,
                     targets=[Target(by_type[scope.resource_type], scope) for scope in scopes])
    for found in _answerable(matches):
        if len(answer["hits"]) == request.top_k:
            answer["truncated"] = True
            break
        item = _hit(found.view, found.doc, found.candidate, found.snippet)
        cost = documents.size(item) + (1 if answer["hits"] else 0)
        if used + cost > budget:
            answer["truncated"] = True
            break
        answer["hits"].append(item)
        used += cost
    return answer


def _answerable(matches: Iterator[Found]) -> Iterator[Found]:
    """``matches``, with the backend's failures as the layer's ``search_unavailable``."""
    try:
        yield from matches
    except KeyError as exc:  # a type the projection was never told about
        raise LayerError("search_unavailable", f"the search projection does not index {exc}") from None
    except DatabaseError as exc:
        log.error("search backend failed: %s", exc)
        raise LayerError("search_unavailable", "the search backend could not answer this query") from None
