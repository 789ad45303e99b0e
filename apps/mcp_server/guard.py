"""The repeated-failure guard (SPEC M-9).

The same tool, called by one connection with the same canonicalized
arguments, that failed ``FAILURE_LIMIT`` times in a row is refused with
``repeated_failure`` without running. Different arguments have their own
count; a success with the same arguments clears it. A call reads the count
once (one cache command when nothing failed); a success clears only a count
it saw, so a failure another worker counts meanwhile — a concurrent call —
is kept.

The counts live in Django's cache (Redis in production), so every web worker
sees the same count; never in process memory. A count is forgotten after
``QUIET_PERIOD`` without a new failure. Refused calls do not extend it: a
client blocked on one call is let through again at most an hour after its
last real failure.
"""

from __future__ import annotations

import functools
import hashlib
import logging
from typing import Any

from django.conf import settings
from django.core.cache import BaseCache, caches

from apps.common.cache import CACHE_ERRORS
from apps.mcp_server.tools.context import canonical_json

logger = logging.getLogger(__name__)

FAILURE_LIMIT = 3
QUIET_PERIOD = 60 * 60  # seconds
_PREFIX = "mcp:failures"


_shared: tuple[object, BaseCache] | None = None


def shared_cache() -> BaseCache:
    """The default cache as one object per process (and per ``CACHES`` setting).

    Django keeps cache objects per asyncio context, so under ASGI every request
    got a ``RedisCache`` of its own, and with it a new connection pool: a new
    TCP connection to Redis on every MCP call (docs/performance.md). The
    counts are single Redis commands on a thread-safe client, so one object
    serves every request and thread of the process; a changed ``CACHES``
    (tests' ``override_settings``) gets a new one.
    """
    global _shared
    configured = settings.CACHES
    current = _shared
    if current is None or current[0] is not configured:
        current = _shared = (configured, caches.create_connection("default"))
    return current[1]


def _cache_down(default):
    """Serve the call when the shared cache (Redis) is unreachable: the guard fails open.

    Reads keep working while Redis is down; what degrades is only the
    repeated-failure count, which resumes when Redis is back (docs/reliability.md).
    """

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
