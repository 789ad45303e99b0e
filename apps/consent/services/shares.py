"""Which facts a connection may see (SPEC D-4, C-1, C-3)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.db import transaction

from apps.common import clock
from apps.consent.models import Connection, FactShare
from apps.consent.selectors.visibility import shareable_facts
from apps.consent.services.connections import ConsentError


# SPEC C-3 (home)
@transaction.atomic
def shares_set(*, connection: Connection, fact_ids: set[int], seen: dict[int, int] | None = None) -> dict[int, int]:
    """Make exactly ``fact_ids`` shared with the connection, each at its current version; return id → version.

    Refused as a whole for a fact not shareable (SPEC C-1) or changed since ``seen`` (``changed``, C-2).
    """
    locked = _locked(connection)
    versions = dict(shareable_facts(connection=locked).filter(id__in=fact_ids).values_list("id", "version"))
    _refuse(fact_ids, versions, seen)
    FactShare.objects.filter(connection=locked).exclude(fact_id__in=versions).delete()
    _share_at(locked, versions)
    return versions


@transaction.atomic
def shares_apply(*, connection: Connection, ticked: dict[int, int | None], unticked: set[int]) -> dict[int, int]:
    """Share ``ticked`` (fact id → version shown) and unshare ``unticked``; others stay (SPEC W-6).

    Refused as a whole for a fact not shareable or not shown at its current version (SPEC C-2).
    """
    locked = _locked(connection)
    versions = dict(shareable_facts(connection=locked).filter(id__in=ticked).values_list("id", "version"))
    _refuse(ticked, versions, {fid: seen for fid, seen in ticked.items() if fid in versions})
    FactShare.objects.filter(connection=locked, fact_id__in=set(unticked) - set(ticked)).delete()
    _share_at(locked, versions)
    return versions


def _locked(connection: Connection) -> Connection:
    locked = Connection.objects.select_for_update().get(pk=connection.pk)
    if locked.revoked_at is not None:
        raise ConsentError("revoked", "this assistant's access was revoked")
    return locked


def _refuse(wanted: Iterable[int], versions: dict[int, int], seen: Mapping[int, int | None] | None) -> None:
    refused = sorted(set(wanted) - set(versions))
    if refused:
        raise ConsentError("not_shareable", f"facts that cannot be shared with this assistant: {refused}",
                           fact_ids=tuple(refused))
    if seen is not None:
        unseen = tuple(sorted(fid for fid, version in versions.items() if seen.get(fid) != version))
        if unseen:
            raise ConsentError("changed", f"facts that changed since they were shown: {list(unseen)}",
                               fact_ids=unseen)


def _share_at(locked: Connection, versions: dict[int, int]) -> None:
    """Each fact of ``versions`` shared at that version, whether or not it was shared before."""
    current = dict(FactShare.objects.filter(connection=locked, fact_id__in=versions)
                   .values_list("fact_id", "fact_version"))
    now = clock.now()
    stale = [fid for fid, version in versions.items() if fid in current and current[fid] != version]
    for fid in stale:
        FactShare.objects.filter(connection=locked, fact_id=fid).update(fact_version=versions[fid], shared_at=now)
    FactShare.objects.bulk_create(
        FactShare(connection=locked, fact_id=fid, fact_version=version, shared_at=now)
        for fid, version in versions.items()
        if fid not in current
    )
