"""JSON Schemas of the tool contract (SPEC M-2). Published as they are in the manifest (M-12)."""

from __future__ import annotations

from typing import Any

from apps.memory.models import Category
from apps.memory.models.facts import EVIDENCE_MAX, LABEL_MAX, VALUE_MAX
from apps.mcp_server.profile import PAGE_MAX_FACTS

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

SEARCH_QUERY_MAX = 200
SEARCH_OFFSET_MAX = 10_000
SEARCH_LIMIT_MAX = 10

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
