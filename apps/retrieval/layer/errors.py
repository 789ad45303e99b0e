"""Errors of the resource access layer: values with stable codes (SPEC R-3, R-4, R-10, R-12).

Design notes: docs/design.md.
"""

from __future__ import annotations

from apps.common.errors import CodedError

# code → HTTP status the internal API answers with. One table, one home.
STATUS = {
    # the request itself (SPEC R-3)
    "unsupported_media_type": 415,
    "malformed_json": 400,
    "duplicate_key": 400,
    "unknown_key": 400,
    "missing_key": 400,
    "null_not_allowed": 400,
    "invalid_type": 400,
    "invalid_value": 400,
    "invalid_timestamp": 400,
    "unknown_resource": 400,
    "unknown_filter": 400,
    "invalid_ref": 400,
    # permission (SPEC)
    "run_missing": 403,
    "run_ended": 403,
    "run_mismatch": 403,
    "policy_unavailable": 403,
    "resource_not_permitted": 403,
    "operation_not_permitted": 403,
    "filter_not_permitted": 403,
    # cursors and paging (SPEC R-10)
    "cursor_invalid": 400,
    "cursor_mismatch": 400,
    "cursor_expired": 400,
    "fields_changed": 409,
    "source_changed": 409,
    # the records
    "not_found": 404,
    "body_missing": 503,  # SPEC R-12: a missing transcript object is an error, never an empty text
    "body_corrupt": 503,
    "storage_unavailable": 503,  # the object store is unreachable: an outage, not a missing body
    "search_unavailable": 503,
}


class LayerError(CodedError):
    """A refusal with a code from ``STATUS``; its field is the JSON Pointer of the offending part of the request."""

    FIELD_KEY = "pointer"

    def __init__(self, code: str, message: str, *, pointer: str | None = None) -> None:
        if code not in STATUS:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(code, message, pointer)

    @property
    def pointer(self) -> str | None:
        return self.field

    @property
    def http_status(self) -> int:
        return STATUS[self.code]
