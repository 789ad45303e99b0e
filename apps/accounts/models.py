"""People, and the second factors they sign in with (SPEC AD-3).

The factors are django-otp devices: the authenticator app is django-otp's ``TOTPDevice``, a passkey
django-otp-webauthn's ``WebAuthnCredential``, and recovery codes the ``RecoveryCodes`` device below, which keeps
each code only as its SHA-256 digest (django-otp's own static tokens are stored as typed). docs/accounts.md.
"""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _
from django_otp.models import Device, ThrottlingMixin, TimestampMixin


class User(AbstractUser):
    """The data owner. Custom from the first migration so it can grow."""

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"


RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read off paper without doubt
RECOVERY_LENGTH = 10  # 10 characters of 31: about 50 bits each


def recovery_normal(code: str) -> str:
    """A code as typed, in its stored form: lower case, without spaces or dashes."""
    return "".join(code.split()).replace("-", "").lower()


def recovery_digest(code: str) -> str:
    return hashlib.sha256(recovery_normal(code).encode()).hexdigest()


def recovery_code_new() -> str:
    raw = "".join(secrets.choice(RECOVERY_ALPHABET) for _ in range(RECOVERY_LENGTH))
    return f"{raw[:5]}-{raw[5:]}"


class RecoveryCodes(TimestampMixin, ThrottlingMixin, Device):
    """A person's recovery codes: each works once, and only its digest is kept (SPEC A-4)."""

    class Meta(Device.Meta):
        verbose_name = _("recovery codes")
        verbose_name_plural = _("recovery codes")

    def get_throttle_factor(self) -> int:
        return getattr(settings, "OTP_STATIC_THROTTLE_FACTOR", 1)

    def verify_token(self, token: str) -> bool:
        allowed, _details = self.verify_is_allowed()
        if not allowed:
            return False
        used = self.codes.filter(digest=recovery_digest(str(token))).delete()[0]
        if used:
            self.throttle_reset(commit=False)
            self.set_last_used_timestamp(commit=False)
            self.save()
            return True
        self.throttle_increment()
        return False


class RecoveryCode(models.Model):
    device = models.ForeignKey(RecoveryCodes, related_name="codes", on_delete=models.CASCADE)
    digest = models.CharField(max_length=64, db_index=True)

    class Meta:
        verbose_name = _("recovery code")

    def __str__(self) -> str:
        return f"recovery code {self.pk}"  # never the digest


class SecondFactorFailure(models.Model):
    """One wrong second factor (SPEC A-11): counted per account and per address, like a wrong password."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    ip_address = models.GenericIPAddressField(null=True, blank=True)
    at = models.DateTimeField()

    class Meta:
        verbose_name = _("second-factor failure")
        indexes = [
            models.Index(fields=["user", "at"], name="second_factor_user_at"),
            models.Index(fields=["ip_address", "at"], name="second_factor_address_at"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.ip_address or '-'} {self.at:%Y-%m-%d %H:%M}"
