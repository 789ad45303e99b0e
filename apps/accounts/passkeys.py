"""Passkeys (SPEC AD-3): django-otp-webauthn's ceremonies, with the product's public origin as relying party.

The relying party is the host of ``PUBLIC_BASE_URL`` and the only origin accepted is ``PUBLIC_BASE_URL`` itself,
read when a ceremony runs. Browsers refuse an IP address as relying party, so passkeys need a host name
(``http://localhost:8787`` locally, not ``127.0.0.1``); ``passkeys_available`` says whether they work here.
"""

from __future__ import annotations

from ipaddress import ip_address
from urllib.parse import urlsplit

from django.conf import settings
from django_otp_webauthn.helpers import WebAuthnHelper


def relying_party_id() -> str:
    return (urlsplit(settings.PUBLIC_BASE_URL).hostname or "").lower()


def passkeys_available() -> bool:
    host = relying_party_id()
    try:
        ip_address(host)
    except ValueError:
        return bool(host)
    return False


class PasskeyHelper(WebAuthnHelper):
    """``OTP_WEBAUTHN_HELPER_CLASS``: the relying party and origin follow ``PUBLIC_BASE_URL``."""

    def get_relying_party_domain(self) -> str:
        return relying_party_id()

    def get_allowed_origins(self) -> list[str]:
        return [settings.PUBLIC_BASE_URL.rstrip("/")]
