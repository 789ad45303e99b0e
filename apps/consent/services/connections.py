"""Connections: created by consent, narrowed or revoked by the user (SPEC D-3, C-5, C-7)."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from django.db import transaction
from oauth2_provider.models import get_access_token_model, get_grant_model, get_refresh_token_model

from apps.common import clock
from apps.common.errors import CodedError
from apps.consent import scopes as scope_rules
from apps.consent.models import Connection, FactShare
from apps.memory.models import Category

if TYPE_CHECKING:
    from oauth2_provider.models import Application

    from apps.accounts.models import User

LAST_USED_RESOLUTION = timedelta(minutes=1)


class ConsentError(CodedError):
    """A request to grant or change access that the rules refuse."""

    def __init__(self, code: str, message: str, *, fact_ids: tuple[int, ...] = ()):
        super().__init__(code, message)
        self.fact_ids = fact_ids  # the facts the refusal is about, where it is about facts


def _check(scopes: set[str], categories: set[str]) -> None:
    errors = scope_rules.scope_errors(scopes)
    if errors:
        raise ConsentError("invalid_scope", "; ".join(errors))
    closed = sorted(code for code in categories if not Category.is_shareable(code))
    if closed:
        raise ConsentError("category_not_allowed", f"categories that cannot be shared: {', '.join(closed)}")


@transaction.atomic
def connection_authorize(*, user: User, application: Application, scopes: set[str], categories: set[str]) -> Connection:
    """Create the connection, or replace its scopes and categories (SPEC A-7).

    The only way back for a revoked connection (SPEC C-5); it starts with nothing shared (C-3).
    """
    _check(scopes, categories)
    now = clock.now()
    connection, created = Connection.objects.select_for_update().get_or_create(
        user=user,
        application=application,
        defaults={"created_at": now, "consented_at": now,
                  "scopes": scope_rules.ordered(scopes), "categories": _ordered_categories(categories)},
    )
    if not created:
        connection.scopes = scope_rules.ordered(scopes)
        connection.categories = _ordered_categories(categories)
        connection.consented_at = now
        if connection.revoked_at is not None:
            connection.revoked_at = None
            connection.created_at = now
        connection.save(update_fields=["scopes", "categories", "consented_at", "revoked_at", "created_at"])
    return connection


def _ordered_categories(categories: set[str]) -> list[str]:
    return [code for code in Category.values if code in categories]


# SPEC C-5 (home)
@transaction.atomic
def connection_narrow(*, connection: Connection, scopes: set[str] | None = None,
                      categories: set[str] | None = None) -> Connection:
    """Remove scopes or categories. Never adds (SPEC C-5); effective on the next request (C-6)."""
    locked = Connection.objects.select_for_update().get(pk=connection.pk)
    if locked.revoked_at is not None:
        raise ConsentError("revoked", "this assistant's access was revoked")
    new_scopes = set(locked.scopes) if scopes is None else set(scopes)
    new_categories = set(locked.categories) if categories is None else set(categories)
    if not new_scopes <= set(locked.scopes) or not new_categories <= set(locked.categories):
        raise ConsentError("widening_refused", "access can only be narrowed here; the assistant must ask again")
    if scope_rules.PROFILE_READ not in new_scopes:
        new_scopes.discard(scope_rules.CONTEXT_SEARCH)  # search without read is never granted
    locked.scopes = scope_rules.ordered(new_scopes)
    locked.categories = _ordered_categories(new_categories)
    locked.save(update_fields=["scopes", "categories"])
    return locked


# SPEC C-7 (home)
@transaction.atomic
def connection_revoke(*, connection: Connection) -> Connection:
    """Stop all access at once: every token dies, shares are dropped (SPEC C-7).

    Refresh tokens are marked revoked and redeemed codes kept, so a replay is still recognised (A-3, C-5).
    """
    locked = Connection.objects.select_for_update().get(pk=connection.pk)
    now = clock.now()
    if locked.revoked_at is None:
        locked.revoked_at = now
        locked.save(update_fields=["revoked_at"])
    lookup = {"user_id": locked.user_id, "application_id": locked.application_id}
    get_refresh_token_model().objects.filter(revoked__isnull=True, **lookup).update(revoked=now)
    get_access_token_model().objects.filter(**lookup).delete()
    get_grant_model().objects.filter(redeemed_at__isnull=True, **lookup).delete()
    FactShare.objects.filter(connection=locked).delete()
    return locked


def connection_live_locked(*, user: User, application: Application) -> bool:
    """Whether the connection is live (not revoked, account active), its row locked until the transaction ends.

    Token issuing takes this lock first, as ``connection_revoke`` does, so neither outlives a revocation (SPEC C-7).
    """
    live = Connection.objects.select_for_update().filter(
        user=user, application=application, revoked_at__isnull=True
    ).exists()
    # The account is read apart: locking a join of the two rows deadlocked racing refreshes of one family.
    return live and type(user).objects.filter(pk=user.pk, is_active=True).exists()


def connection_touch(*, connection: Connection) -> None:
    """Record use, at most once a minute, so a busy assistant costs no write per call."""
    now = clock.now()
    Connection.objects.filter(pk=connection.pk).exclude(last_used_at__gt=now - LAST_USED_RESOLUTION).update(
        last_used_at=now
    )
