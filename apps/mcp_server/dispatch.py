"""Running one tool call or resource read for an authenticated grant (sync; uses the ORM).

Also SPEC M-2, M-8, M-9. Design notes: docs/design.md.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

from django.conf import settings
from django.db import DatabaseError, transaction

from apps.common import clock
from apps.common.errors import REPEATED_FAILURE, UNAVAILABLE
from apps.common.replicas import read_tolerating_lag
from apps.consent.services import access_event_record, connection_touch
from apps.consent.services.connections import LAST_USED_RESOLUTION
from apps.mcp_server import catalog
from apps.mcp_server.admission import Deferred
from apps.mcp_server.arguments import canonical_arguments, integral_numbers, validate_arguments
from apps.mcp_server.catalog import ToolSpec
from apps.mcp_server.errors import NotAdmitted, ToolError
from apps.mcp_server.guard import FAILURE_LIMIT, FailureGuard
from apps.mcp_server.tools.answer import Answer
from apps.oauth.bearer import BearerGrant

logger = logging.getLogger(__name__)

_UNAVAILABLE_MESSAGE = "the memory service could not answer just now; try again in a moment"


def call_tool(*, caller: BearerGrant | Deferred, spec: ToolSpec, arguments: dict[str, Any]) -> dict[str, Any]:
    """The structured content of a successful call; raises ``ToolError`` or ``NotAdmitted`` otherwise."""
    arguments = integral_numbers(arguments)
    grant = _admitted(caller, lambda scopes: spec.scopes.missing(scopes, arguments))
    guard = FailureGuard()
    key = guard.key(connection_id=grant.connection.pk, tool=spec.name,
                    arguments=canonical_arguments(spec.input_schema, arguments))
    failures = guard.failures(key)
    if failures >= FAILURE_LIMIT:
        raise ToolError(
            REPEATED_FAILURE,
            f"{spec.name} failed {FAILURE_LIMIT} times in a row with these arguments and was not run again; "
            "change the arguments (for example re-read get_user_context) instead of retrying",
        )
    try:
        validate_arguments(spec.input_schema, arguments)
        answer = _run(spec.handler, grant, arguments, read_only=spec.read_only)
    except ToolError as error:
        # A server-side outage is not the assistant's failure: it does not count (docs/mcp.md).
        if error.code != UNAVAILABLE:
            guard.failed(key)
        _record(grant, spec.name, None)
        raise
    if failures:  # a success clears the count; with none counted there is nothing to clear
        guard.succeeded(key)
    _record(grant, answer.event or spec.name, answer)
    return answer.payload


def read_resource(*, caller: BearerGrant | Deferred, uri: str) -> dict[str, Any]:
    grant = _admitted(caller, lambda scopes: catalog.RESOURCE_SCOPES.missing(scopes, {}))
    try:
        answer = _run(catalog.read_resource, grant, uri, read_only=True)
    except ToolError:
        _record(grant, "", None)
        raise
    _record(grant, answer.event, answer)
    return answer.payload


def _admitted(caller: BearerGrant | Deferred, missing: Callable[[frozenset[str]], list[str]]) -> BearerGrant:
    """The caller's grant, admitting a deferred call first, with every scope the call needs.

    The view already refused a call its scopes do not allow (SPEC A-8): this is the backstop.
    """
    grant = caller.admit() if isinstance(caller, Deferred) else caller
    if grant is None:
        raise NotAdmitted()
    if lacking := missing(grant.scopes):
        raise NotAdmitted(lacking)
    return grant


def _run(handler, grant, argument, *, read_only: bool = False) -> Answer:
    # SPEC O-4: the assistant path reads the primary, unless REPLICA_MAX_LAG_SECONDS lets a read-only call
    # read a replica at most that far behind. The token and the connection (revocation, scopes, categories)
    # were read from the primary before this point, and the access record is written there after it.
    bound = settings.REPLICA_MAX_LAG_SECONDS
    try:
        if read_only and bound is not None:
            return read_tolerating_lag(lambda: handler(grant, argument), max_lag=bound)
        return handler(grant, argument)
    except DatabaseError:
        logger.exception("database error while serving an MCP call")
        raise ToolError(UNAVAILABLE, _UNAVAILABLE_MESSAGE) from None


# SPEC M-11 (home)
def _record(grant, event: str, answer: Answer | None) -> None:
    """What was sent (SPEC M-11) and that the connection was used (D-3).

    Nothing is sent unrecorded: if the record cannot be written, the call fails as ``unavailable``.
    """
    carried = answer.sent if answer is not None else ()
    refs = answer.refs if answer is not None else ()
    touch = _touch_due(grant.connection)
    try:
        with transaction.atomic() if touch else nullcontext():
            if carried or refs:
                access_event_record(connection=grant.connection, tool=event, facts=carried, refs=refs)
            if touch:
                connection_touch(connection=grant.connection)
    except DatabaseError:
        logger.exception("could not record an MCP access")
        if carried or refs:
            raise ToolError(UNAVAILABLE, _UNAVAILABLE_MESSAGE) from None


def _touch_due(connection) -> bool:
    """Whether ``connection_touch`` would change anything, judged from the row read at admission.

    When it would not, the access record is one statement, without a transaction around it.
    """
    last_used = connection.last_used_at
    return last_used is None or last_used <= clock.now() - LAST_USED_RESOLUTION
