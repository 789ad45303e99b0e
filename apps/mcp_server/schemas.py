"""JSON Schemas of the tool contract (SPEC M-2). Published as they are in the manifest (M-12)."""

from __future__ import annotations

from typing import Any

from apps.consent.selectors.profile import PAGE_MAX_FACTS
from apps.memory.models import Category
from apps.memory.models.facts import EVIDENCE_MAX, LABEL_MAX, VALUE_MAX
from apps.retrieval import selectors as _search
from apps.retrieval.layer import parsing as _layer_parsing
from apps.retrieval.layer.audiences import EXTERNAL as _EXTERNAL
from apps.retrieval.layer.audiences import EXTERNALLY_PUBLISHABLE as _PUBLISHABLE
from apps.retrieval.layer.registry import registry as _registry

VERSION_PATTERN = "^[0-9a-f]{64}$"
OFFSET_MAX = 100_000  # far above any profile; bounds the argument, not the data

NO_ARGUMENTS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}

VERSION = {
    "type": "string",
    "pattern": VERSION_PATTERN,
    "description": "The 64-hex version of the visible fact set, as returned by get_user_context.",
}

FACT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "pattern": "^[0-9]+$"},
        "category": {"type": "string", "enum": list(Category.shareable())},
        "label": {"type": "string", "maxLength": LABEL_MAX},
        "value": {"type": "string", "maxLength": VALUE_MAX},
        "updated_at": {"type": "string", "format": "date-time"},
    },
    "required": ["id", "category", "label", "value", "updated_at"],
    "additionalProperties": False,
}

_NULLABLE_STRING = {"type": ["string", "null"]}

_PAGE_PROPERTIES: dict[str, Any] = {
    "facts": {"type": "array", "items": FACT, "maxItems": PAGE_MAX_FACTS},
    "version": VERSION,
    "updated_at": {**_NULLABLE_STRING, "description": "When the most recently changed visible fact changed."},
    "offset": {"type": "integer", "minimum": 0},
    "has_more": {"type": "boolean"},
    "next_offset": {"type": ["integer", "null"], "minimum": 0},
    "next_uri": {**_NULLABLE_STRING, "description": "The page resource holding the next facts."},
}

SUMMARY: dict[str, Any] = {
    "type": "object",
    "properties": {
        "fact_count": {"type": "integer", "minimum": 0},
        "categories": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "category": {"type": "string", "enum": list(Category.shareable())},
                    "count": {"type": "integer", "minimum": 1},
                },
                "required": ["category", "count"],
                "additionalProperties": False,
            },
        },
        "text": {"type": "string"},
    },
    "required": ["fact_count", "categories", "text"],
    "additionalProperties": False,
}

OVERVIEW: dict[str, Any] = {
    "type": "object",
    "properties": {"summary": SUMMARY, **_PAGE_PROPERTIES},
    "required": ["summary", *_PAGE_PROPERTIES],
    "additionalProperties": False,
}

PAGE: dict[str, Any] = {
    "type": "object",
    "properties": _PAGE_PROPERTIES,
    "required": list(_PAGE_PROPERTIES),
    "additionalProperties": False,
}

PAGE_ARGUMENTS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "offset": {
            "type": "integer",
            "minimum": 0,
            "maximum": OFFSET_MAX,
            "description": "next_offset from the previous page or overview.",
        },
        "version": VERSION,
    },
    "required": ["offset", "version"],
    "additionalProperties": False,
}


# --- search_user_context (SPEC M-2, S-1, S-2) -------------------------------------------------

SEARCH_QUERY_MAX = _search.QUERY_MAX
SEARCH_OFFSET_MAX = _search.OFFSET_MAX
SEARCH_LIMIT_MAX = _search.LIMIT_MAX

SEARCH_ARGUMENTS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1, "maxLength": SEARCH_QUERY_MAX,
                  "description": "Words or part of a word to find in the label or value of shared facts."},
        "offset": {"type": "integer", "minimum": 0, "maximum": SEARCH_OFFSET_MAX, "default": 0,
                   "description": "next_offset from the previous search page."},
        "limit": {"type": "integer", "minimum": 1, "maximum": SEARCH_LIMIT_MAX, "default": SEARCH_LIMIT_MAX},
    },
    "required": ["query"],
    "additionalProperties": False,
}

SEARCH: dict[str, Any] = {
    "type": "object",
    "properties": {
        "facts": {"type": "array", "items": FACT, "maxItems": SEARCH_LIMIT_MAX},
        "version": VERSION,
        "offset": {"type": "integer", "minimum": 0},
        "next_offset": {"type": ["integer", "null"], "minimum": 0},
        "has_more": {"type": "boolean"},
        "window_exhausted": {"type": "boolean"},
        "message": {"type": "string"},
    },
    "required": ["facts", "version", "offset", "next_offset", "has_more", "window_exhausted", "message"],
    "additionalProperties": False,
}

# --- propose_memory (SPEC M-2, P-1, P-2, P-4) -------------------------------------------------

_ONE_LINE = "^[^\\r\\n]*$"

PROPOSE_ARGUMENTS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "op": {"type": "string", "enum": ["add", "update", "archive"]},
        # All eight codes: one the connection does not have is refused as category_not_allowed.
        "category": {"type": "string", "enum": list(Category.values)},
        "label": {"type": "string", "maxLength": LABEL_MAX, "pattern": _ONE_LINE,
                  "description": "A short name for the fact, one line."},
        "value": {"type": "string", "maxLength": VALUE_MAX},
        "evidence": {"type": "string", "maxLength": EVIDENCE_MAX, "pattern": _ONE_LINE,
                     "description": "Why you believe it, one line; the user sees it, you never get it back."},
        "target_fact_id": {"type": ["string", "integer"], "pattern": "^[0-9]{1,18}$", "minimum": 1,
                           "description": "For update and archive: the id of a fact you were given."},
    },
    "required": ["op"],
    "additionalProperties": False,
}

PROPOSAL: dict[str, Any] = {
    "type": "object",
    "properties": {"id": {"type": "string"}, "status": {"type": "string", "enum": ["pending"]}},
    "required": ["id", "status"],
    "additionalProperties": False,
}

# --- memory_list / memory_search / memory_read (SPEC R-2, R-11) -------------------------------
#
# Generated from the resource declarations (apps/retrieval/layer/resources/): only the types that
# may ever be published (R-11), only the fields and filters their declarations open to the
# ``external`` audience. The retrieval layer parses every request again, strictly (R-3).

MEMORY_QUERY_MAX = _layer_parsing.QUERY_MAX
MEMORY_TOP_K_DEFAULT = _layer_parsing.TOP_K_DEFAULT
MEMORY_TOP_K_MAX = _layer_parsing.TOP_K_MAX
MEMORY_CURSOR_MAX = _layer_parsing.CURSOR_MAX
# ``<type>:<id>``; any type name is accepted so that a type no assistant may read is not_found,
# exactly like a record that does not exist (no oracle).
MEMORY_REF_PATTERN = "^[a-z][a-z0-9_]{0,31}:[1-9][0-9]{0,18}$"


def _published():
    """The types an assistant may ever read, each with the leaves its declaration opens externally."""
    found = []
    for resource in _registry.all():
        declaration = resource.declaration
        if resource.type in _PUBLISHABLE and declaration.readable_leaves(_EXTERNAL):
            found.append(resource)
    return found


_PUBLISHED = _published()
MEMORY_TYPES = [resource.type for resource in _PUBLISHED]

_FILTER_VALUE: dict[str, dict[str, Any]] = {
    "timestamp": {"type": "string", "format": "date-time"},
    "date": {"type": "string", "format": "date"},
    "string": {"type": "string", "minLength": 1, "maxLength": 200},
    "integer": {"type": "integer"},
    "boolean": {"type": "boolean"},
}


def _memory_filters() -> dict[str, Any]:
    """Every filter of a published type whose field is externally readable, merged by name."""
    merged: dict[str, dict[str, Any]] = {}
    for resource in _PUBLISHED:
        declaration = resource.declaration
        readable = declaration.readable_leaves(_EXTERNAL)
        for flt in declaration.filters:
            if not any(leaf == flt.field or leaf.startswith(flt.field + "/") for leaf in readable):
                continue  # SPEC R-5: filtering on a field an assistant may not read would reveal it
            entry = merged.setdefault(flt.name, {"kind": flt.type, "choices": [], "types": []})
            entry["types"].append(resource.type)
            entry["choices"] += [choice for choice in flt.choices if choice not in entry["choices"]]
            if entry["kind"] != flt.type:
                raise ValueError(f"filter {flt.name!r} has different types on different resources")
    schemas: dict[str, Any] = {}
    for name, entry in sorted(merged.items()):
        value = {"type": "string", "enum": entry["choices"]} if entry["kind"] == "enum" else dict(
            _FILTER_VALUE[entry["kind"]])
        value["description"] = f"For {', '.join(entry['types'])}."
        schemas[name] = value
    return schemas


MEMORY_LIST_ARGUMENTS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "resource": {"type": "string", "enum": MEMORY_TYPES,
                     "description": "The type to list. Leave it out to learn which types you may read."},
        "filters": {
            "type": "object",
            "properties": _memory_filters(),
            "additionalProperties": False,
            "description": "Only with resource; each filter applies to the types it names. "
                           "Times are RFC 3339 with an offset, e.g. 2026-06-01T09:00:00Z.",
        },
        "cursor": {"type": "string", "minLength": 1, "maxLength": MEMORY_CURSOR_MAX,
                   "description": "next_cursor from the previous page, with the same resource and filters."},
    },
    "additionalProperties": False,
}

MEMORY_SEARCH_ARGUMENTS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1, "maxLength": MEMORY_QUERY_MAX,
                  "description": "Words or part of a word (Chinese or English)."},
        "resource": {"type": "string", "enum": MEMORY_TYPES, "description": "Search only this type."},
        "top_k": {"type": "integer", "minimum": 1, "maximum": MEMORY_TOP_K_MAX, "default": MEMORY_TOP_K_DEFAULT},
    },
    "required": ["query"],
    "additionalProperties": False,
}

MEMORY_READ_ARGUMENTS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ref": {"type": "string", "pattern": MEMORY_REF_PATTERN,
                "description": "A ref '<type>:<id>' from memory_list or memory_search."},
        "cursor": {"type": "string", "minLength": 1, "maxLength": MEMORY_CURSOR_MAX,
                   "description": "next_cursor from the previous page of the same ref."},
    },
    "required": ["ref"],
    "additionalProperties": False,
}


def _nullable(kind: str | list[str]) -> list[str]:
    return [*([kind] if isinstance(kind, str) else kind), "null"]


def _field_schema(declaration, path: str, readable) -> dict[str, Any]:
    """The JSON Schema of one declared field as the layer renders it (values may be null)."""
    field = declaration.by_path[path]
    children = [child for child in declaration.children.get(path, ())
                if any(leaf == child or leaf.startswith(child + "/") for leaf in readable)]
    if field.type == "array":
        items = _field_schema(declaration, children[0], readable) if children else {}
        return {"type": _nullable("array"), "items": items}
    if field.type == "object":
        return {
            "type": _nullable("object"),
            "properties": {child.rsplit("/", 1)[1]: _field_schema(declaration, child, readable) for child in children},
            "additionalProperties": False,
        }
    if field.type == "json":
        return {}
    if field.type in ("integer", "boolean"):
        return {"type": _nullable(field.type)}
    return {"type": _nullable("string")}


def _memory_data() -> dict[str, Any]:
    """A record's ``data``: the union of the externally readable top-level fields of every published type."""
    properties: dict[str, Any] = {}
    for resource in _PUBLISHED:
        declaration = resource.declaration
        readable = declaration.readable_leaves(_EXTERNAL)
        for path in declaration.children[""]:
            if not any(leaf == path or leaf.startswith(path + "/") for leaf in readable):
                continue
            schema = _field_schema(declaration, path, readable)
            name = path[1:]
            properties[name] = schema if properties.get(name, schema) == schema else {}
    return {"type": "object", "properties": dict(sorted(properties.items())), "additionalProperties": False}


MEMORY_DATA = _memory_data()
_CURSOR_OUT = {"type": ["string", "null"]}
_MEMORY_TYPE = {"type": "string", "enum": MEMORY_TYPES}
_REF_OUT = {"type": "string", "pattern": MEMORY_REF_PATTERN}
_PATHS = {"type": "array", "items": {"type": "string"}}

_CATALOG_ENTRY: dict[str, Any] = {
    "type": "object",
    "properties": {
        "type": _MEMORY_TYPE,
        "description": {"type": "string"},
        "operations": {"type": "array", "items": {"type": "string", "enum": ["list", "read", "search"]}},
        "fields": {"type": "array", "items": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "type": {"type": "string"}, "choices": _PATHS},
            "required": ["path", "type"],
            "additionalProperties": False,
        }},
        "filters": {"type": "array", "items": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "type": {"type": "string"}, "field": {"type": "string"},
                           "choices": _PATHS},
            "required": ["name", "type", "field"],
            "additionalProperties": False,
        }},
    },
    "required": ["type", "description", "operations", "fields", "filters"],
    "additionalProperties": False,
}

# memory_list answers either the catalog (no resource) or one page of one type.
MEMORY_LIST: dict[str, Any] = {
    "type": "object",
    "properties": {
        "resources": {"type": "array", "items": _CATALOG_ENTRY,
                      "description": "Without resource: the types you may read, their fields and filters."},
        "resource": _MEMORY_TYPE,
        "order": {"type": "string"},
        "items": {"type": "array", "items": {
            "type": "object",
            "properties": {"ref": _REF_OUT, "data": MEMORY_DATA,
                           "truncated": {**_PATHS, "description": "Fields shown as a preview: read the ref."}},
            "required": ["ref", "data"],
            "additionalProperties": False,
        }},
        "next_cursor": {**_CURSOR_OUT, "description": "Pass it back as cursor for the next page; null at the end."},
        "withheld": {**_PATHS, "description": "Fields no longer readable since the first page."},
    },
    "additionalProperties": False,
}

MEMORY_SEARCH: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string"},
        "hits": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "ref": _REF_OUT,
                "type": _MEMORY_TYPE,
                "score": {"type": "number"},
                "title": {"type": "string"},
                "status": {"type": ["string", "null"]},
                "updated_at": {"type": ["string", "null"]},
                "snippet": {"type": "object", "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
                            "required": ["path", "text"], "additionalProperties": False},
            },
            "required": ["ref", "type", "score", "snippet"],
            "additionalProperties": False,
        }},
        "truncated": {"type": "boolean", "description": "More matched than fit: narrow the query or lower top_k."},
    },
    "required": ["query", "hits", "truncated"],
    "additionalProperties": False,
}

_FRAGMENT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "JSON Pointer of the value or string this piece belongs to."},
        "value": {"description": "The value at path ([] or {} opens a container)."},
        "start": {"type": "integer", "minimum": 0},
        "end": {"type": "integer", "minimum": 0},
        "length": {"type": "integer", "minimum": 0},
        "text": {"type": "string", "description": "Characters [start, end) of the string at path."},
        "json": {"type": "boolean", "description": "text is the compact JSON of an opaque value."},
    },
    "required": ["path"],
    "additionalProperties": False,
}

MEMORY_READ: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ref": _REF_OUT,
        "type": _MEMORY_TYPE,
        "complete": {"type": "boolean"},
        "data": MEMORY_DATA,
        "fragments": {"type": "array", "items": _FRAGMENT,
                      "description": "A record too long for one answer, in document order; apply them in order."},
        "next_cursor": _CURSOR_OUT,
        "withheld": _PATHS,
    },
    "required": ["ref", "type", "complete", "next_cursor"],
    "additionalProperties": False,
}
