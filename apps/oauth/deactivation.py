"""Deactivating an account ends every token it has; reactivating it revives none (SPEC A-11).

Design notes: docs/design.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from apps.oauth.services import user_tokens_revoke

if TYPE_CHECKING:
    from apps.accounts.models import User

_DEACTIVATING = "_lifeos_deactivating"


@receiver(pre_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="oauth-deactivation-seen")
def _seen_deactivating(
    sender: type[User], instance: User, raw: bool = False, update_fields: Iterable[str] | None = None, **kwargs: Any,
) -> None:
    """Note whether this save turns an active account inactive (one query, only when saving an inactive one)."""
    if raw or instance.pk is None or instance.is_active:
        return
    if update_fields is not None and "is_active" not in update_fields:
        return
    setattr(instance, _DEACTIVATING, sender._default_manager.filter(pk=instance.pk, is_active=True).exists())


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="oauth-deactivation-revoke")
def _revoke_on_deactivation(sender: type[User], instance: User, raw: bool = False, **kwargs: Any) -> None:
    if raw or not getattr(instance, _DEACTIVATING, False):
        return
    setattr(instance, _DEACTIVATING, False)
    # All or nothing; inside the save's own transaction where there is one (the admin's), so a
    # deactivation that rolls back revokes nothing either.
    with transaction.atomic():
        user_tokens_revoke(user=instance)
