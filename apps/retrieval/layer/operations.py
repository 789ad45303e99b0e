"""Two of the three operations (SPEC R-2): ``list`` and ``read`` (``search`` is in ``searching``).

Design notes: docs/design.md.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from apps.retrieval.layer import cursors, documents, pointers
from apps.retrieval.layer.access import Access, TypeView, require, views
from apps.retrieval.layer.errors import LayerError
from apps.retrieval.layer.parsing import ListRequest, ReadRequest
from apps.retrieval.layer.values import parse_timestamp, render

LIST_PAGE_ITEMS = 20
CURSOR_ALLOWANCE = 1_024  # bytes kept free for ``next_cursor`` while a page is packed


# --- list() ------------------------------------------------------------------------

def catalog(access: Access) -> dict:
    """The types this caller can read, with what it may do and see of each (SPEC R-2)."""
    entries = []
    for v in views(access):
        declaration = v.resource.declaration
        fields = [
            {"path": f.path, "type": f.type, **({"choices": list(f.choices)} if f.choices else {})}
            for f in declaration.fields
            if v.readable(f.path)
        ]
        filters = [
            {"name": flt.name, "type": flt.type, "field": flt.field,
             **({"choices": list(flt.choices)} if flt.choices else {})}
            for flt in declaration.filters
            if v.readable(flt.field)
        ]
        entries.append({
            "type": v.type,
            "description": declaration.description,
            "operations": sorted(v.operations),
            "fields": fields,
            "filters": filters,
        })
    return {"resources": entries}


def page_bytes(access: Access) -> int:
    """The byte limit of one answer for this caller (SPEC R-9; smaller for MCP, M-6)."""
    return access.page_bytes or documents.PAGE_BYTES


def _envelope_fits(page: dict, limit: int) -> bool:
    return documents.size(page) <= limit


def list_records(access: Access, request: ListRequest) -> dict:
    """One page of one type's current records, newest first, each as a preview (SPEC R-2)."""
    if request.resource is None:
        return catalog(access)
    v = require(access, request.resource, "list", pointer="/resource")
    resource, declaration = v.resource, v.resource.declaration
    for name in request.filters:
        flt = declaration.filters_by_name[name]
        if not v.readable(flt.field):
            # SPEC R-5: filtering on a field the caller may not read would reveal it.
            raise LayerError("filter_not_permitted", f"{name} filters on {flt.field}, which this run may not read",
                             pointer=pointers.child("/filters", name))
    adapter = resource.adapter
    qs = adapter.current(adapter.records(access.user_id))
    for name, value in request.filters.items():
        qs = qs.filter(**{declaration.filters_by_name[name].lookup: value})
    # Order by the declared time only when the caller may read it: positions in
    # a cursor then never carry a value the caller could not see.
    order = declaration.order if declaration.order in v.leaves else None
    column = adapter.order_field(order) if order else "pk"
    qs = qs.order_by(f"-{column}", "-pk")
    filters_fp = cursors.filters_fingerprint(request.raw_filters)
    withheld: frozenset[str] = frozenset()
    if request.cursor is not None:
        state, withheld = cursors.open_cursor(request.cursor, access, v, "list", filters=filters_fp)
        after_value, after_pk = state.get("after", (None, None))
        if state.get("order") != order or not isinstance(after_pk, int):
            raise LayerError("cursor_mismatch", "this cursor belongs to another ordering", pointer="/cursor")
        if order:
            moment = parse_timestamp(after_value, pointer="/cursor")
            qs = qs.filter(Q(**{f"{column}__lt": moment}) | Q(**{column: moment, "pk__lt": after_pk}))
        else:
            qs = qs.filter(pk__lt=after_pk)
    rows = list(adapter.with_related(qs)[: LIST_PAGE_ITEMS + 1])
    names = v.listed_top_level()
    page: dict[str, Any] = {
        "resource": v.type, "order": f"{order} desc" if order else "id desc", "items": [], "next_cursor": None
    }
    if withheld:
        page["withheld"] = sorted(withheld)
    limit = page_bytes(access)
    budget = limit - documents.size(page) - CURSOR_ALLOWANCE
    used = 0
    packed: list[tuple[Any, dict[str, Any]]] = []
    for row in rows[:LIST_PAGE_ITEMS]:
        ref = f"{v.type}:{row.pk}"
        data, cut = documents.project(declaration, adapter.document(row, names), v.leaves, preview=True)
        item: dict[str, Any] = {"ref": ref, "data": data}
        if cut:
            item["truncated"] = cut
        cost = documents.size(item) + (1 if packed else 0)
        if used + cost > budget:
            if packed:
                break  # the next page starts with it
            # SPEC: a record whose preview alone overflows a page is listed by its ref; read gives it.
            item = documents.minimal(ref)
            cost = documents.size(item)
        packed.append((row, item))
        used += cost
    more = len(packed) < len(rows)
    while True:
        page["items"] = [item for _, item in packed]
        page["next_cursor"] = None
        if more and packed:
            last = packed[-1][0]
            anchor = render("timestamp", getattr(last, column)) if order else None
            page["next_cursor"] = cursors.issue(access, v, "list", filters=filters_fp, order=order,
                                                after=[anchor, last.pk])
        if _envelope_fits(page, limit):
            return page
        # The cursor came out longer than allowed for: the last record moves to the next page, or,
        # alone on the page, comes as its ref. The page still advances past at least one record.
        if len(packed) > 1:
            packed.pop()
            more = True
            continue
        row, item = packed[0]
        smallest = documents.minimal(item["ref"])
        if item == smallest:  # never with pages of 4 KiB or more (``Access.page_bytes``)
            raise LayerError("invalid_value", "this page cannot hold one record's ref; ask for a larger page")
        packed[0] = (row, smallest)


# --- read() --------------------------------------------------------------------------

def _load(access: Access, v: TypeView, record_id: int):
    adapter = v.resource.adapter
    instance = adapter.load(access.user_id, record_id)
    # Another user's record, a deleted one and one that never existed look the same.
    if instance is None or not adapter.is_current(instance):
        raise LayerError("not_found", f"{v.type}:{record_id} does not exist or is no longer current",
                         pointer="/ref")
    return instance


def read(access: Access, request: ReadRequest) -> dict:
    """A record whole when it fits in one page; otherwise fragments and cursors (SPEC R-9, R-10)."""
    v = require(access, request.resource, "read", pointer="/ref")
    declaration, adapter = v.resource.declaration, v.resource.adapter
    instance = _load(access, v, request.record_id)
    version = adapter.source_version(instance)
    ref = f"{v.type}:{instance.pk}"
    start: tuple[int, ...] = ()
    offset = 0
    withheld: frozenset[str] = frozenset()
    if request.cursor is not None:
        state, withheld = cursors.open_cursor(request.cursor, access, v, "read", ref=ref)
        if state.get("sv") != version:
            raise LayerError("source_changed", f"{ref} changed since the previous page; read it again from the start",
                             pointer="/cursor")
        position = state.get("pos")
        if not (isinstance(position, list) and len(position) == 2 and isinstance(position[0], list)
                and isinstance(position[1], int)):
            raise LayerError("cursor_invalid", "this cursor holds no read position", pointer="/cursor")
        start, offset = tuple(position[0]), position[1]
    doc = adapter.document(instance, v.readable_top_level())
    limit = page_bytes(access)
    # A record that certainly overflows a page is never projected or measured whole: each
    # page then costs what the page holds, however long the record (a 5 MB transcript).
    if request.cursor is None and not documents.exceeds(declaration, doc, v.leaves, limit):
        data, _ = documents.project(declaration, doc, v.leaves)
        whole = {"ref": ref, "type": v.type, "complete": True, "data": data, "next_cursor": None}
        if documents.size(whole) <= limit:
            return whole
    page = {"ref": ref, "type": v.type, "complete": False, "fragments": [], "next_cursor": None}
    if withheld:
        page["withheld"] = sorted(withheld)
    budget = limit - documents.size(page) - CURSOR_ALLOWANCE
    while True:
        stream = documents.units(declaration, doc, v.leaves, start)
        packed = documents.fragment_page(stream, start=start, offset=offset, budget=budget)
        page["fragments"] = []
        page["complete"] = packed.next_position is None
        page["next_cursor"] = None
        if packed.next_position is not None:
            tokens, at = packed.next_position
            page["next_cursor"] = cursors.issue(access, v, "read", ref=ref, sv=version, pos=[list(tokens), at])
        # The page's size without encoding its fragments again: compact JSON of a list is its
        # items' bytes and the commas between them, which the packing counted.
        total = documents.size(page) + packed.used
        page["fragments"] = packed.fragments
        if total <= limit:
            return page
        budget -= total - limit  # the cursor came out longer than allowed for
