"""The record of what each assistant was sent (SPEC D-8, M-11)."""

from __future__ import annotations

from collections.abc import Iterable

from apps.common import clock
from apps.common.statements import insert
from apps.consent.models import AccessEvent, Connection


def access_event_record(*, connection: Connection, tool: str, facts: Iterable[tuple[int, int]] = (),
                        refs: Iterable[str] = ()) -> None:
    """Record that ``facts`` (id, version) and memory records (``refs``) reached the connection through ``tool``.

    ``AccessEvent.facts`` holds ``[id, version]`` pairs, then one ``"<type>:<id>"`` per record (SPEC R-11).
    """
    entries: list[list[int] | str] = [[fid, version] for fid, version in facts]
    entries += [str(ref) for ref in dict.fromkeys(refs)]
    insert(AccessEvent, {"connection": connection.pk, "tool": tool, "facts": entries, "created_at": clock.now()})
