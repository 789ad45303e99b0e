"""The person's own data as one JSON document: facts, shares, proposals, access history, staff access.

Also SPEC A-4, C-8, AD-2. Design notes: docs/design.md.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db.models import Prefetch, QuerySet

from apps.common import clock
from apps.common.destinations import registered_destinations
from apps.common.replicas import pinned_tolerating_lag
from apps.consent.models import AccessEvent, Connection, FactShare, Proposal
from apps.consent.selectors.access import retained_access_events
from apps.consent.selectors.notices import notice_settings
from apps.memory.models import Fact
from apps.staff.models import AccessRecord
from apps.staff.selectors import records_for

if TYPE_CHECKING:
    from apps.accounts.models import User

FORMAT = "lifeos-memory-export"
FORMAT_VERSION = 1

FACT_FIELDS = ("id", "category", "label", "value", "evidence", "certainty", "sensitive", "status", "version")
HISTORY_CHUNK = 500  # events per fetch from the server-side cursor
PROPOSAL_FIELDS = ("id", "op", "category", "label", "value", "evidence", "target_fact_id", "target_version")


def _time(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def _fact(fact: Fact) -> dict[str, Any]:
    return {**{name: getattr(fact, name) for name in FACT_FIELDS},
            "created_at": _time(fact.created_at), "updated_at": _time(fact.updated_at)}


def _proposal(proposal: Proposal, now: datetime) -> dict[str, Any]:
    # The status as of now: a pending proposal past its expiry is expired before any sweep records it (SPEC J-2).
    return {**{name: getattr(proposal, name) for name in PROPOSAL_FIELDS}, "status": proposal.status_at(now),
            "created_at": _time(proposal.created_at), "expires_at": _time(proposal.expires_at),
            "decided_at": _time(proposal.decided_at)}


def _connection(connection: Connection, now: datetime, history: dict[int, list[dict[str, Any]]]) -> dict[str, Any]:
    application = connection.application
    return {
        "id": connection.pk,
        "name": application.name,
        "name_verified": False,  # self-declared by the assistant (SPEC A-7)
        "redirect_hosts": registered_destinations(application.redirect_uris),
        "scopes": list(connection.scopes),
        "categories": list(connection.categories),
        "connected_since": _time(connection.created_at),
        "last_consent": _time(connection.consented_at),
        "last_used": _time(connection.last_used_at),
        "revoked_at": _time(connection.revoked_at),
        "shares": [
            {"fact_id": share.fact_id, "fact_version": share.fact_version, "shared_at": _time(share.shared_at)}
            for share in connection.shares.all()
        ],
        "proposals": [_proposal(p, now) for p in connection.proposals.all()],
        "access_history": history.get(connection.pk, []),
    }


def _staff_access(record: AccessRecord) -> dict[str, Any]:
    """One reveal of, or staff change to, the person's data (SPEC AD-2); ``staff`` empty: an operator's command."""
    return {"at": _time(record.at), "staff": record.staff_name, "action": record.action,
            "records": list(record.records), "reason": record.reason, "ticket": record.ticket,
            "revealed_until": _time(record.until)}


def history_statement(events: QuerySet[AccessEvent], *, user: User
                      ) -> QuerySet[AccessEvent, tuple[int, datetime, str, list[Any]]]:
    """The person's retained events, a connection's oldest first: only the columns the download shows."""
    return (events.filter(connection__user=user).order_by("connection_id", "created_at", "id")
            .values_list("connection_id", "created_at", "tool", "facts"))


def history_for(*, user: User, using: str | None = None) -> dict[int, list[dict[str, Any]]]:
    """The retained access history of each of the person's connections, oldest first: connection id → events.

    One statement read in chunks (a server-side cursor on PostgreSQL), rows as tuples rather than model
    instances: a person with 2,000 events of 50 facts each is 100,000 pairs, so the loop below is the cost.
    """
    history: dict[int, list[dict[str, Any]]] = {}
    current: int | None = None
    events: list[dict[str, Any]] = []
    rows = history_statement(retained_access_events(using=using), user=user).iterator(chunk_size=HISTORY_CHUNK)
    for connection_id, created_at, tool, entries in rows:
        if connection_id != current:
            current, events = connection_id, history.setdefault(connection_id, [])
        events.append({
            "at": created_at.isoformat(), "tool": tool,
            # ``[id, version]`` pairs, then memory records as ``"<type>:<id>"`` strings (access_event_record).
            "facts": [{"fact_id": entry[0], "version": entry[1]} for entry in entries
                      if entry.__class__ is list and len(entry) == 2],
            "records": [entry for entry in entries if entry.__class__ is str],
        })
    return history


def export_for(*, user: User) -> dict[str, Any]:
    """Everything the product keeps about the person's memory, its sharing, their e-mail choices and staff access,
    in seven queries.

    The access history is read where it tolerates lag (SPEC O-4), everything else from the primary."""
    return pinned_tolerating_lag(lambda history_database: _export(user, history_database))


def _export(user: User, history_database: str) -> dict[str, Any]:
    connections = (
        Connection.objects.filter(user=user)
        .select_related("application")
        .prefetch_related(
            Prefetch("shares", FactShare.objects.order_by("fact_id")),
            Prefetch("proposals", Proposal.objects.order_by("created_at", "id")),
        )
        .order_by("created_at", "id")
    )
    now = clock.now()
    history = history_for(user=user, using=history_database)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "exported_at": _time(now),
        "user": {"username": user.get_username()},
        "facts": [_fact(fact) for fact in Fact.objects.filter(owner=user).order_by("id")],
        "assistants": [_connection(connection, now, history) for connection in connections],
        "notices": _notices(user),
        "staff_access": [_staff_access(record) for record in records_for(person=user).order_by("at", "id")],
        # SPEC P-10: suggestions the person brought from other assistants (no assistant of ours made them).
        "imported_suggestions": [_proposal(p, now) for p in Proposal.objects.filter(
            owner=user, source=Proposal.Source.IMPORT).order_by("created_at", "id")],
    }


def _notices(user: User) -> dict[str, Any]:
    """The person's e-mail choices (SPEC W-7): the address and what is sent to it."""
    chosen = notice_settings(user=user)
    return {"email": user.email, "digest": chosen.digest, "expiry_notice": chosen.expiry_notice,
            "language": chosen.language}
