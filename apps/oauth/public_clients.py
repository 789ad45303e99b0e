"""A public client keeps no secret: none is hashed on its registration (issue: registration cost).

django-oauth-toolkit gives every new application a generated secret and hashes it on save
(``ClientSecretField``, ``hash_client_secret``): a full password hash, about a third of a second of CPU here.
A public client (``token_endpoint_auth_method: none``, SPEC A-1) never presents a secret, so registering one
(Dynamic Client Registration, a Client ID Metadata Document seen for the first time, or staff in the admin)
paid that for nothing, and an address within its registration limit could keep a core busy. A new public
application is stored with no secret and ``hash_client_secret`` off instead; the validator refuses a client
authenticating with a secret when none is stored (``AssistantOAuth2Validator.authenticate_client``), so the
empty value matches nothing. A confidential client's secret is hashed as before (SPEC A-1, A-4).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models.signals import pre_save
from django.dispatch import receiver

PUBLIC = "public"


@receiver(pre_save, sender=settings.OAUTH2_PROVIDER_APPLICATION_MODEL, dispatch_uid="oauth-public-client-no-secret")
def public_client_without_secret(sender: Any, instance: Any, raw: bool = False, **kwargs: Any) -> None:
    """Before the toolkit's field hashes it: a new public application keeps no secret at all."""
    if raw or not instance._state.adding or instance.client_type != PUBLIC:
        return
    instance.client_secret = ""
    instance.hash_client_secret = False
