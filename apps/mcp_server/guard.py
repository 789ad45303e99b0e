"""The repeated-failure guard (SPEC M-9).

Design notes: docs/design.md.
"""

from __future__ import annotations

import functools
import hashlib
import logging
from typing import Any

from django.conf import settings
from django.core.cache import BaseCache, caches

from apps.common.cache import CACHE_ERRORS
from apps.common.canonical import canonical_json

logger = logging.getLogger(__name__)

FAILURE_LIMIT = 3
QUIET_PERIOD = 60 * 60  # seconds
_PREFIX = "mcp:failures"


_shared: tuple[object, BaseCache] | None = None


def shared_cache() -> BaseCache:
    """The default cache as one object per process (and per ``CACHES`` setting), not one per request.

    Why: docs/performance.md (a new Redis connection on every call otherwise).
    """
    global _shared
    configured = settings.CACHES
    current = _shared
    if current is None or current[0] is not configured:
        current = _shared = (configured, caches.create_connection("default"))
    return current[1]


def _cache_down(default):
    """Serve the call when Redis is unreachable: the guard fails open (docs/reliability.md)."""

    def wrap(method):
        @functools.wraps(method)
        def guarded(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except CACHE_ERRORS as exc:
                logger.warning("repeated-failure guard skipped: cache unavailable (%s)", type(exc).__name__)
                return default

        return guarded

    return wrap


# SPEC M-9 (home)
class FailureGuard:
    def __init__(self, cache: BaseCache | None = None):
        self.cache = cache if cache is not None else shared_cache()

    @staticmethod
    def key(*, connection_id: int, tool: str, arguments: dict[str, Any]) -> str:
        # JSON may carry lone surrogates (\ud800), which have no UTF-8 form: keep them, distinctly, rather
        # than fail the call before its arguments are even validated.
        digest = hashlib.sha256(canonical_json(arguments).encode("utf-8", "surrogatepass")).hexdigest()
        return f"{_PREFIX}:{connection_id}:{tool}:{digest}"

    @_cache_down(0)
    def failures(self, key: str) -> int:
        """How many times in a row this call has failed (0 when none is counted)."""
        return self.cache.get(key) or 0

    def blocked(self, key: str) -> bool:
        return self.failures(key) >= FAILURE_LIMIT

    @_cache_down(0)
    def failed(self, key: str) -> int:
        """Count one more failure in a row; returns the count."""
        if self.cache.add(key, 1, QUIET_PERIOD):
            return 1
        try:
            count = self.cache.incr(key)  # atomic in Redis: concurrent workers never lose a failure
        except ValueError:  # the count expired between add() and incr()
            self.cache.set(key, 1, QUIET_PERIOD)
            return 1
        self.cache.touch(key, QUIET_PERIOD)
        return count

    @_cache_down(None)
    def succeeded(self, key: str) -> None:
        self.cache.delete(key)
