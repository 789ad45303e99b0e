"""Where /mcp runs its database work (the sync ORM) from its async code.

Under ASGI (uvicorn, production) Django serves every request inside a
``ThreadSensitiveContext`` of its own, so a request's thread-sensitive work
runs on a thread created for that request. Django's database connections
belong to threads: each /mcp request therefore opened a new PostgreSQL
connection (a backend process, authentication, Django's connection setup)
and ``CONN_MAX_AGE`` could never keep one. That was the largest cost of a
call (docs/performance.md: about 8 ms of PostgreSQL CPU per request).

So under ASGI /mcp runs its units of database work on the event loop's
default executor: a few long-lived threads whose connections persist, as a
WSGI worker's do. Each unit begins as Django begins a request
(``close_old_connections``: ``CONN_MAX_AGE``, broken connections, and the
health check of ``conn_health_checks`` before its first query), so the
settings keep their meaning. Nothing is cached: every unit reads the
database afresh (SPEC C-6, C-7). The threads — and with them their
connections — end with the event loop (``asyncio.run`` shuts the default
executor down).

Under WSGI (``runserver``, Django's test client) each async view gets an
event loop of its own; there the work stays thread-sensitive, on the
request's own thread, exactly as before.
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

    Under ASGI the unit runs in a copy of the caller's context, and nothing it
    sets is copied back (``sync_to_async`` copies every context variable back
    after each call, which costs more than the hop itself and is not needed
    here: a unit returns its result and changes no context).
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
    """Skip ``conn_health_checks``' round trip for a connection that just answered on this thread.

    A call runs two units, often on the same thread within a millisecond;
    checking before each would add a round trip to every unit. A connection
    idle for longer than the grace period — or one that failed — is checked
    before use as Django checks it at the start of a request; one that broke
    within the grace period fails its unit (``unavailable``) and is replaced
    by the next unit's ``close_old_connections``.
    """
    seen = getattr(_answered, "connections", {})
    now = time.monotonic()
    for db in connections.all(initialized_only=True):
        at = seen.get(db.alias)
        if at is not None and db.connection is not None and at[0] is db.connection and now - at[1] < HEALTH_CHECK_GRACE:
            db.health_check_done = True


def _note_answers() -> None:
    now = time.monotonic()
    _answered.connections = {
        db.alias: (db.connection, now)
        for db in connections.all(initialized_only=True)
        if db.connection is not None and not db.errors_occurred
    }
