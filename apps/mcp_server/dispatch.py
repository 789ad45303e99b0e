"""Running one admitted tool call or resource read (sync; uses the ORM).

Also SPEC M-2, M-8, M-9. Design notes: docs/design.md.
"""

from __future__ import annotations

import logging
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
from apps.mcp_server.admission import ToolCall
from apps.mcp_server.errors import ToolError
from apps.mcp_server.guard import FailureGuard
from apps.mcp_server.tools.answer import Answer
from apps.oauth.bearer import BearerGrant

logger = logging.getLogger(__name__)

_UNAVAILABLE_MESSAGE = "the memory service could not answer just now; try again in a moment"


def call_tool(*, grant: BearerGrant, call: ToolCall) -> dict[str, Any]:
    """The structured content of an admitted call that succeeded; raises ``ToolError`` otherwise.

    A call admission refused after repeated failures does not run and is not counted again (SPEC M-9).
    """
    if call.refused is not None and call.refused.code == REPEATED_FAILURE:
        raise call.refused
    guard = FailureGuard()
    try:
        if call.refused is not None:  # its arguments failed the input schema: a failure of the call
            raise call.refused
        answer = _run(call.spec.handler, grant, call.arguments, read_only=call.spec.read_only)
    except ToolError as error:
        # A server-side outage is not the assistant's failure: it does not count (docs/mcp.md).
        if error.code != UNAVAILABLE:
            guard.failed(call.guard_key)
        _record(grant, call.spec.name, None)
        raise
    if call.failures:  # a success clears the count; with none counted there is nothing to clear
        guard.succeeded(call.guard_key)
    _record(grant, answer.event or call.spec.name, answer)
    return answer.payload


def read_resource(*, grant: BearerGrant, uri: str) -> dict[str, Any]:
    try:
        answer = _run(catalog.read_resource, grant, uri, read_only=True)
    except ToolError:
        _record(grant, "", None)
        raise
    _record(grant, answer.event, answer)
    return answer.payload


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
