"""Reads that decide what an assistant may see (SPEC C-1, C-8) — one home for the rule."""

from __future__ import annotations

from django.db.models import F, QuerySet

from apps.consent.models import AccessEvent, Connection, FactShare
from apps.memory.models import Category, Certainty, Fact, FactStatus


def connection_categories(connection: Connection) -> list[str]:
    """The connection's categories that may be shared at all (SPEC D-2)."""
    return [code for code in connection.categories if Category.is_shareable(code)]


def visible_facts(*, connection: Connection) -> QuerySet[Fact]:
    """Facts this connection may see right now, in a stable order (SPEC C-1).

    All must hold: same owner; active; category granted and shareable; not
    sensitive; confirmed; shared with this connection at the fact's current
    version (an edit since sharing hides it, SPEC C-2).
    """
    if connection.revoked_at is not None:
        return Fact.objects.none()
    return Fact.objects.filter(
        owner_id=connection.user_id,
        status=FactStatus.ACTIVE,
        category__in=connection_categories(connection),
        sensitive=False,
        certainty=Certainty.CONFIRMED,
        shares__connection=connection,
        shares__fact_version=F("version"),
    ).order_by("id")


def shareable_facts(*, connection: Connection) -> QuerySet[Fact]:
    """Facts the user could share with this connection (the sharing form's choices)."""
    return Fact.objects.filter(
        owner_id=connection.user_id,
        status=FactStatus.ACTIVE,
        category__in=connection_categories(connection),
        sensitive=False,
        certainty=Certainty.CONFIRMED,
    ).order_by("category", "id")


def shares_for(*, connection: Connection) -> dict[int, int]:
    """fact id → version it was shared at, for this connection."""
    return dict(FactShare.objects.filter(connection=connection).values_list("fact_id", "fact_version"))


def connections_for(*, user) -> QuerySet[Connection]:
    return Connection.objects.filter(user=user).select_related("application").order_by("revoked_at", "-created_at")


def access_history(*, connection: Connection, limit: int = 100) -> QuerySet[AccessEvent]:
    return AccessEvent.objects.filter(connection=connection).order_by("-created_at", "-id")[:limit]
