"""Strict parsing of requests (SPEC R-3).

Design notes: docs/design.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from apps.retrieval.layer import pointers
from apps.retrieval.layer.errors import LayerError
from apps.retrieval.layer.registry import registry
from apps.retrieval.layer.values import expect_string, parse_filter_value

BODY_MAX = 65_536  # bytes of one request body
QUERY_MAX = 200  # characters
TOP_K_DEFAULT, TOP_K_MAX = 10, 50
CURSOR_MAX = 4_096
_REF = re.compile(r"([a-z][a-z0-9_]{0,31}):([1-9][0-9]{0,18})")  # whole string only (fullmatch)


class _Object(dict):
    """A parsed JSON object that remembers keys it saw more than once."""

    duplicates: tuple[str, ...] = ()


def _pairs(pairs):
    obj, dupes = _Object(), []
    for key, value in pairs:
        if key in obj:
            dupes.append(key)
        obj[key] = value
    obj.duplicates = tuple(dupes)
    return obj


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


def _first_duplicate(value, path: str = "") -> str | None:
    if isinstance(value, _Object):
        if value.duplicates:
            return pointers.child(path, value.duplicates[0])
        items: Iterable[tuple[Any, Any]] = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        found = _first_duplicate(item, pointers.child(path, key))
        if found is not None:
            return found
    return None


# SPEC R-3 (home)
def loads(raw: bytes | str):
    """Parse a request body; refuse malformed JSON and duplicate keys (with their pointer)."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8")
    if len(raw) > BODY_MAX:
        raise LayerError("invalid_value", f"the request body is larger than {BODY_MAX} bytes", pointer="")
    try:
        text = raw.decode("utf-8")
        value = json.loads(text, object_pairs_hook=_pairs, parse_constant=_no_constant)
        duplicate = _first_duplicate(value)
    except (UnicodeDecodeError, ValueError) as exc:
        raise LayerError("malformed_json", f"the body is not JSON: {exc}", pointer="") from None
    except RecursionError:  # nesting deeper than the parser's stack: refused, not a server error
        raise LayerError("malformed_json", "the body is nested too deeply", pointer="") from None
    if duplicate is not None:
        raise LayerError("duplicate_key", "this key appears more than once in its object", pointer=duplicate)
    return value


def expect_object(value, pointer: str, *, required=(), optional=(), unknown: str = "unknown_key") -> dict:
    """``value`` as an object with exactly the allowed keys, none of them ``null``."""
    if not isinstance(value, dict):
        raise LayerError("invalid_type", "expected a JSON object", pointer=pointer)
    allowed = (*required, *optional)
    for key in value:
        if key not in allowed:
            raise LayerError(unknown, f"unknown key {key!r}; allowed: {', '.join(allowed) or 'none'}",
                             pointer=pointers.child(pointer, key))
    for key, item in value.items():
        if item is None:
            raise LayerError("null_not_allowed", "null is not a value; leave the key out instead",
                             pointer=pointers.child(pointer, key))
    for key in required:
        if key not in value:
            raise LayerError("missing_key", f"{key!r} is required", pointer=pointers.child(pointer, key))
    return value


def parse_ref(value, pointer: str) -> tuple[str, int]:
    if not isinstance(value, str):
        raise LayerError("invalid_type", "expected a ref string '<type>:<id>'", pointer=pointer)
    match = _REF.fullmatch(value)  # "$" would let a trailing line break through
    if not match:
        raise LayerError("invalid_ref", f"{value!r} is not a ref '<type>:<id>'", pointer=pointer)
    return match.group(1), int(match.group(2))


def _resource(value, pointer: str) -> str:
    name = expect_string(value, pointer, max_length=32)
    if registry.get(name) is None:
        raise LayerError("unknown_resource", f"there is no resource type {name!r}", pointer=pointer)
    return name


def _cursor(body: dict) -> str | None:
    if "cursor" not in body:
        return None
    return expect_string(body["cursor"], "/cursor", max_length=CURSOR_MAX)


@dataclass(frozen=True)
class ListRequest:
    resource: str | None  # None: the catalog, list()
    filters: dict = field(default_factory=dict)  # name → parsed value
    raw_filters: dict = field(default_factory=dict)  # name → value as sent (for the cursor binding)
    cursor: str | None = None


@dataclass(frozen=True)
class SearchRequest:
    query: str
    resource: str | None = None
    top_k: int = TOP_K_DEFAULT


@dataclass(frozen=True)
class ReadRequest:
    ref: str
    resource: str
    record_id: int
    cursor: str | None = None


def parse_list(body) -> ListRequest:
    body = expect_object(body, "", optional=("resource", "filters", "cursor"))
    if "resource" not in body:
        if len(body):
            raise LayerError("missing_key", "filters and cursor need a resource", pointer="/resource")
        return ListRequest(resource=None)
    resource = _resource(body["resource"], "/resource")
    declaration = registry.get(resource).declaration  # type: ignore[union-attr]  # _resource() checked it
    raw = expect_object(body.get("filters", {}), "/filters", optional=tuple(declaration.filters_by_name),
                        unknown="unknown_filter")
    parsed = {}
    for name, value in raw.items():
        flt = declaration.filters_by_name[name]
        parsed[name] = parse_filter_value(flt.type, value, pointer=pointers.child("/filters", name),
                                          choices=flt.choices)
    return ListRequest(resource=resource, filters=parsed, raw_filters=dict(raw), cursor=_cursor(body))


def parse_search(body) -> SearchRequest:
    body = expect_object(body, "", required=("query",), optional=("resource", "top_k"))
    query = expect_string(body["query"], "/query", max_length=QUERY_MAX)
    if not query.strip():
        raise LayerError("invalid_value", "the query has nothing to search for", pointer="/query")
    resource = _resource(body["resource"], "/resource") if "resource" in body else None
    top_k = body.get("top_k", TOP_K_DEFAULT)
    if isinstance(top_k, bool) or not isinstance(top_k, int):
        raise LayerError("invalid_type", "expected an integer", pointer="/top_k")
    if not 1 <= top_k <= TOP_K_MAX:
        raise LayerError("invalid_value", f"expected 1 to {TOP_K_MAX}", pointer="/top_k")
    return SearchRequest(query=query, resource=resource, top_k=top_k)


def parse_read(body) -> ReadRequest:
    body = expect_object(body, "", required=("ref",), optional=("cursor",))
    resource, record_id = parse_ref(body["ref"], "/ref")
    if registry.get(resource) is None:
        raise LayerError("unknown_resource", f"there is no resource type {resource!r}", pointer="/ref")
    return ReadRequest(ref=body["ref"], resource=resource, record_id=record_id, cursor=_cursor(body))
