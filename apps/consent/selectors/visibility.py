"""Reads that decide what an assistant may see (SPEC C-1, C-8) — one home for the rule."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.db.models import Count, F, QuerySet

from apps.consent.models import Connection, FactShare
from apps.memory.models import Category, Fact
from apps.memory.models.facts import shareable_lookups

if TYPE_CHECKING:
    from oauth2_provider.models import Application

    from apps.accounts.models import User


def connection_scopes(*, user: User, application: Application) -> frozenset[str] | None:
    """The scopes the person's live connection with this assistant holds now; ``None`` without one."""
    scopes = Connection.objects.filter(user=user, application=application, revoked_at__isnull=True).values_list(
        "scopes", flat=True).first()
    return None if scopes is None else frozenset(scopes)


def connection_categories(connection: Connection) -> list[str]:
    """The connection's categories that may be shared at all (SPEC D-2)."""
    return [code for code in connection.categories if Category.is_shareable(code)]


def visible_facts(*, connection: Connection) -> QuerySet[Fact]:
    """Facts this connection may see right now, in a stable order (SPEC C-1, C-2).

    Same owner, active, category granted and shareable, not sensitive, confirmed, shared at its current version."""
    if connection.revoked_at is not None:
        return Fact.objects.none()
    return visible_query(connection.user_id, connection_categories(connection), connection.pk)


# SPEC C-1 (home)
def visible_query(owner_id: int, categories: list[str], connection_id: int) -> QuerySet[Fact]:
    """``visible_facts`` from plain values: the rule as the statements compiled from it take it."""
    return Fact.objects.shareable(
        owner_id=owner_id,
        category__in=categories,
        shares__connection_id=connection_id,
        shares__fact_version=F("version"),
    ).order_by("id")


def visible_counts(*, connections: Sequence[Connection]) -> dict[int, int]:
    """connection id → ``visible_facts(connection).count()``, for many connections in one query.

    The rule of ``visible_query`` read from the shares' side (docs/design.md)."""
    live = {c.pk: set(connection_categories(c)) for c in connections if c.revoked_at is None}
    owners = {c.user_id for c in connections}
    if len(owners) > 1:
        raise ValueError("visible_counts reads one person's connections")
    # The owner as a constant rather than a join to the connection: one table fewer for the planner.
    rows = (
        FactShare.objects.filter(
            **shareable_lookups("fact__"), connection_id__in=live, fact__owner_id__in=owners,
            fact_version=F("fact__version"),
        )
        .values_list("connection_id", "fact__category").annotate(n=Count("id")).order_by()
    ) if live else []
    counts = dict.fromkeys(live, 0)
    for connection_id, category, n in rows:
        if category in live[connection_id]:
            counts[connection_id] += n
    return counts


def offered_lookups(connection: Connection) -> dict[str, object]:
    """What a fact must be to be offered to this connection: the person's, shareable, in a granted category."""
    return {**shareable_lookups(), "owner_id": connection.user_id, "category__in": connection_categories(connection)}


def shareable_facts(*, connection: Connection) -> QuerySet[Fact]:
    """Facts the user could share with this connection (the sharing form's choices)."""
    return Fact.objects.filter(**offered_lookups(connection)).order_by("category", "id")


def shares_for(*, connection: Connection) -> dict[int, int]:
    """fact id → version it was shared at, for this connection."""
    return dict(FactShare.objects.filter(connection=connection).values_list("fact_id", "fact_version"))


def connections_for(*, user: User) -> QuerySet[Connection]:
    return Connection.objects.filter(user=user).select_related("application").order_by("revoked_at", "-created_at")
