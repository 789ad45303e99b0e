"""A form sent twice — a double click on a slow network — is acted on once.

Design notes: docs/design.md.
"""

from __future__ import annotations

import uuid

from django.core.cache import cache

from apps.common.cache import CACHE_ERRORS

TTL = 60 * 60  # seconds a sent form is remembered


def new() -> str:
    return uuid.uuid4().hex


def _key(request, submission: str) -> str:
    return f"submission:{request.user.pk}:{submission}"


def claim(request, submission: str) -> tuple[bool, str]:
    """``(True, "")`` for the first request with ``submission``; else ``(False, where the first one led)``.

    Where it led is ``""`` while the first request is still being answered.
    """
    if not submission:
        return True, ""
    try:
        if cache.add(_key(request, submission), "", TTL):
            return True, ""
        return False, cache.get(_key(request, submission)) or ""
    except CACHE_ERRORS:
        return True, ""


def settle(request, submission: str, *, led_to: str | None) -> None:
    """Record where the claimed request led; ``None``: it was refused, so the same form may be sent again."""
    if not submission:
        return
    try:
        if led_to is None:
            cache.delete(_key(request, submission))
        else:
            cache.set(_key(request, submission), led_to, TTL)
    except CACHE_ERRORS:
        pass
