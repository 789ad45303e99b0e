"""Opaque, HMAC-signed cursors (SPEC R-10).

Design notes: docs/design.md.
"""

from __future__ import annotations

import hashlib
import json

from django.core import signing

from apps.common import clock
from apps.retrieval.layer.access import Access, TypeView, field_fingerprint
from apps.retrieval.layer.errors import LayerError

SALT = "apps.retrieval.layer.cursor.v1"
LIFETIME_SECONDS = 6 * 3600


def filters_fingerprint(raw_filters: dict) -> str:
    canonical = json.dumps(raw_filters, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


def _binding(access: Access, view: TypeView, operation: str, ref: str | None, filters: str | None) -> dict:
    return {"u": access.user_id, "c": access.caller, "a": access.audience, "t": view.type, "o": operation,
            "r": ref, "f": filters}


# SPEC R-10 (home)
def issue(access: Access, view: TypeView, operation: str, *, ref: str | None = None,
          filters: str | None = None, **position) -> str:
    payload = _binding(access, view, operation, ref, filters)
    payload.update(fs=sorted(view.leaves), fp=view.fingerprint, iat=int(clock.now().timestamp()), **position)
    return signing.dumps(payload, salt=SALT, compress=True)


def open_cursor(token: str, access: Access, view: TypeView, operation: str, *, ref: str | None = None,
                filters: str | None = None) -> tuple[dict, frozenset[str]]:
    """The cursor's payload and the fields withdrawn since it was issued.

    Refused when tampered, another's, for another request, expired, or issued for fewer fields than now readable.
    """
    try:
        payload = signing.loads(token, salt=SALT)
    except signing.BadSignature:
        raise LayerError("cursor_invalid", "this cursor was not issued by this service or was altered",
                         pointer="/cursor") from None
    if not isinstance(payload, dict) or not {"u", "c", "a", "t", "o", "r", "f", "fs", "fp", "iat"} <= set(payload):
        raise LayerError("cursor_invalid", "this cursor is not a cursor of this layer", pointer="/cursor")
    if (payload["u"], payload["c"], payload["a"]) != (access.user_id, access.caller, access.audience):
        raise LayerError("cursor_invalid", "this cursor was issued to another caller", pointer="/cursor")
    expected = _binding(access, view, operation, ref, filters)
    for key, what in (("t", "resource type"), ("o", "operation"), ("r", "ref"), ("f", "filters")):
        if payload[key] != expected[key]:
            raise LayerError("cursor_mismatch", f"this cursor belongs to another {what}", pointer="/cursor")
    if clock.now().timestamp() - payload["iat"] > LIFETIME_SECONDS:
        raise LayerError("cursor_expired", "this cursor has expired; start again", pointer="/cursor")
    issued = frozenset(payload["fs"])
    if field_fingerprint(issued) != payload["fp"]:
        raise LayerError("cursor_invalid", "this cursor is not a cursor of this layer", pointer="/cursor")
    if not view.leaves <= issued:
        raise LayerError("fields_changed", "the readable fields grew since this cursor was issued; start again",
                         pointer="/cursor")
    return payload, issued - view.leaves
