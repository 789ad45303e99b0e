"""JSON Schemas of the tool contract (SPEC M-2). Published as they are in the manifest (M-12)."""

from __future__ import annotations

from typing import Any

from apps.memory.models import Category
from apps.memory.models.facts import LABEL_MAX, VALUE_MAX
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
