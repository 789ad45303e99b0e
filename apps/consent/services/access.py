"""The record of what each assistant was sent (SPEC D-8, M-11)."""

from __future__ import annotations

from collections.abc import Iterable

from apps.common import clock
from apps.common.statements import insert
from apps.consent.models import AccessEvent, Connection


def access_event_record(*, connection: Connection, tool: str, facts: Iterable[tuple[int, int]] = (),
                        refs: Iterable[str] = ()) -> None:
    """Record that ``facts`` (id, version) and memory records (``refs``) reached the connection through ``tool``.

    ``AccessEvent.facts`` holds ``[id, version]`` pairs for facts, then one
    ``"<type>:<id>"`` string per memory record the answer carried (the MCP
    ``memory_*`` tools, SPEC R-11); readers tell them apart by shape. One
    INSERT compiled once: /mcp records on every call that carries something.
    """
    entries: list[list[int] | str] = [[fid, version] for fid, version in facts]
    entries += [str(ref) for ref in dict.fromkeys(refs)]
    insert(AccessEvent, {"connection": connection.pk, "tool": tool, "facts": entries, "created_at": clock.now()})
