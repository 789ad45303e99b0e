"""Where /mcp runs its database work (the sync ORM) from its async code.

Also SPEC C-6, C-7. Design notes: docs/performance.md (How the hot paths are built).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.db import close_old_connections, connections
from django.http import HttpRequest

T = TypeVar("T")


def served_by_asgi(request: HttpRequest) -> bool:
    return isinstance(request, ASGIRequest)


async def run(asgi: bool, function: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``function(*args, **kwargs)`` off the event loop: a long-lived thread under ASGI, else the request's.

    Under ASGI nothing the unit sets in its context is copied back: that copy costs more than the hop.
    """
    if not asgi:
        return await sync_to_async(function, thread_sensitive=True)(*args, **kwargs)
    call = functools.partial(contextvars.copy_context().run, _unit, function, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(None, call)


def _unit(function: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    close_old_connections()
    _trust_recent_answers()
    try:
        return function(*args, **kwargs)
    finally:
        _note_answers()


# A connection that answered on this thread within this many seconds is not health-checked again
# (as a pooler keeps a released server connection "without running sanity-check queries").
HEALTH_CHECK_GRACE = 5.0
_answered = threading.local()


def _trust_recent_answers() -> None:
    """Skip ``conn_health_checks``' round trip for a connection that answered on this thread just now.

    One idle longer, or one that failed, is checked before use as Django checks it at a request's start.
    """
    seen = getattr(_answered, "connections", {})
    now = time.monotonic()
    for db in connections.all(initialized_only=True):
        at = seen.get(db.alias)
        if at is not None and db.connection is not None and at[0] is db.connection and now - at[1] < HEALTH_CHECK_GRACE:
            db.health_check_done = True  # type: ignore[attr-defined]  # Django's own flag, not in the stubs


def _note_answers() -> None:
    now = time.monotonic()
    _answered.connections = {
        db.alias: (db.connection, now)
        for db in connections.all(initialized_only=True)
        if db.connection is not None and not db.errors_occurred
    }
