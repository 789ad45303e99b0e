"""The unified resource access layer: list / search / read over declared resource types (SPEC R-1 … R-12).

Design notes: docs/design.md.
"""

from __future__ import annotations

from apps.retrieval.layer.access import Access, Grant, GrantInvalid, TypeGrant, external_grant
from apps.retrieval.layer.errors import LayerError

OPERATIONS = ("list", "search", "read")


# SPEC R-2 (home)
def handle(access: Access, operation: str, body) -> dict:
    """Parse ``body`` (a dict from ``parsing.loads``) strictly and run ``operation`` for ``access``."""
    from apps.retrieval.layer import operations, parsing, searching

    if operation == "list":
        return operations.list_records(access, parsing.parse_list(body))
    if operation == "search":
        return searching.search(access, parsing.parse_search(body))
    if operation == "read":
        return operations.read(access, parsing.parse_read(body))
    raise ValueError(f"unknown operation {operation!r}")


__all__ = ["OPERATIONS", "Access", "Grant", "GrantInvalid", "LayerError", "TypeGrant", "external_grant", "handle"]
