"""Reads about a person's second factors (SPEC AD-3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django_otp import user_has_device
from django_otp.plugins.otp_totp.models import TOTPDevice
from django_otp_webauthn.models import WebAuthnCredential

from apps.accounts.models import RecoveryCode

if TYPE_CHECKING:
    from apps.accounts.models import User


@dataclass(frozen=True)
class Factors:
    """What a person signs in with besides the password, as their security page shows it."""

    authenticator_app: TOTPDevice | None
    passkeys: list[WebAuthnCredential]
    recovery_codes_left: int

    @property
    def any_primary(self) -> bool:
        """An authenticator app or a passkey: recovery codes alone are only the way back to one."""
        return self.authenticator_app is not None or bool(self.passkeys)


def factors_of(*, user: User) -> Factors:
    return Factors(
        authenticator_app=TOTPDevice.objects.filter(user=user, confirmed=True).first(),
        passkeys=list(WebAuthnCredential.objects.filter(user=user, confirmed=True).order_by("created_at", "pk")),
        recovery_codes_left=RecoveryCode.objects.filter(device__user=user, device__confirmed=True).count(),
    )


def has_second_factor(*, user: User) -> bool:
    """Whether ``user`` has any confirmed second factor (each device model is asked in turn)."""
    return bool(user_has_device(user, confirmed=True))
