"""Typed values of declared fields and filters, parsed strictly (SPEC R-1, R-3)."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

from apps.common.text import unstorable_text_reason
from apps.retrieval.layer.errors import LayerError

# Field types a declaration may use. ``text`` is a string that can be long:
# lists show a preview of it and reads may split it into fragments.
FIELD_TYPES = frozenset(
    {"string", "text", "integer", "boolean", "timestamp", "date", "ref", "enum", "array", "object", "json"}
)
CONTAINER_TYPES = frozenset({"array", "object"})
TEXT_TYPES = frozenset({"string", "text"})
# Filter value types.
FILTER_TYPES = frozenset({"string", "enum", "timestamp", "date", "integer", "boolean"})

# RFC 3339 date-time: an explicit offset is required, a naive time is ambiguous.
_TIMESTAMP = re.compile(
    r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?(?:Z|[+-]\d{2}:\d{2})$"
)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_timestamp(value, *, pointer: str) -> datetime:
    if not isinstance(value, str):
        raise LayerError("invalid_type", "expected an RFC 3339 timestamp string", pointer=pointer)
    if not _TIMESTAMP.match(value):
        raise LayerError(
            "invalid_timestamp",
            f"{value!r} is not an RFC 3339 timestamp with an offset (e.g. 2026-06-01T09:00:00Z)",
            pointer=pointer,
        )
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise LayerError("invalid_timestamp", f"{value!r} is not a real point in time", pointer=pointer) from None
    try:
        # Databases compare instants in UTC. 0001-01-01T00:00:00+01:00 is well formed, but its instant lies
        # before year 1 (9999-12-31T23:59:59-01:00 after 9999): Python cannot represent it in UTC, and
        # SQLite's adapter would overflow converting it. Converting here refuses it on every database.
        return moment.astimezone(UTC)
    except OverflowError:
        raise LayerError("invalid_timestamp", f"{value!r} lies outside years 1 to 9999 once converted to UTC",
                         pointer=pointer) from None


def parse_date(value, *, pointer: str) -> date:
    if not isinstance(value, str):
        raise LayerError("invalid_type", "expected a date string YYYY-MM-DD", pointer=pointer)
    if not _DATE.match(value):
        raise LayerError("invalid_timestamp", f"{value!r} is not a date YYYY-MM-DD", pointer=pointer)
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise LayerError("invalid_timestamp", f"{value!r} is not a real date", pointer=pointer) from None


def expect_string(value, pointer: str, *, max_length: int, min_length: int = 1) -> str:
    """``value`` as a string of ``min_length`` to ``max_length`` characters that a database can store."""
    if not isinstance(value, str):
        raise LayerError("invalid_type", "expected a string", pointer=pointer)
    if not min_length <= len(value) <= max_length:
        raise LayerError("invalid_value", f"expected {min_length} to {max_length} characters", pointer=pointer)
    reason = unstorable_text_reason(value)
    if reason is not None:
        # Refused for what it is, on both databases alike, rather than as a database error later.
        raise LayerError("invalid_value", f"this string {reason}", pointer=pointer)
    return value


def parse_filter_value(kind: str, value, *, pointer: str, choices: tuple[str, ...] = (), max_length: int = 200):
    """``value`` as the Python value of a filter of type ``kind``, or a precise refusal."""
    if value is None:
        raise LayerError("null_not_allowed", "null is not a value; leave the filter out instead", pointer=pointer)
    if kind == "timestamp":
        return parse_timestamp(value, pointer=pointer)
    if kind == "date":
        return parse_date(value, pointer=pointer)
    if kind == "boolean":
        if not isinstance(value, bool):
            raise LayerError("invalid_type", "expected true or false", pointer=pointer)
        return value
    if kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise LayerError("invalid_type", "expected an integer", pointer=pointer)
        return value
    if kind == "enum":
        if not isinstance(value, str):
            raise LayerError("invalid_type", "expected a string", pointer=pointer)
        if value not in choices:
            raise LayerError("invalid_value", f"expected one of {', '.join(choices)}", pointer=pointer)
        return value
    return expect_string(value, pointer, max_length=max_length)


def render(kind: str, value):
    """A stored Python value as the JSON value of a field of type ``kind``."""
    if value is None:
        return None
    if kind == "timestamp":
        return value.isoformat().replace("+00:00", "Z")
    if kind == "date":
        return value.isoformat()
    return value
