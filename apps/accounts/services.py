"""Writes about a person's second factors (SPEC AD-3): add an authenticator app, issue recovery codes, verify, reset.

Each code is checked by django-otp's device (``verify_token``: TOTP with its one-step tolerance and no reuse of a
code, recovery codes once each); a wrong one is counted per account and per address (``throttle``, SPEC A-11).
"""

from __future__ import annotations

import re
from binascii import unhexlify
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import transaction
from django_otp.models import Device
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice
from django_otp.util import random_hex
from django_otp_webauthn.models import WebAuthnCredential

from apps.accounts import throttle
from apps.accounts.models import RecoveryCode, RecoveryCodes, SecondFactorFailure, recovery_code_new, recovery_digest
from apps.staff.services import staff_access_record

if TYPE_CHECKING:
    from apps.accounts.models import User

RECOVERY_COUNT = 10
TOTP_CODE = re.compile(r"^\d{6}$")


class SecondFactorError(Exception):
    """A refused second factor; ``code`` is ``wrong_code``, ``locked`` or ``already``."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def totp_key_new() -> str:
    """A new authenticator key (20 random bytes, hex): kept in the session until its first code confirms it."""
    return str(random_hex(20))


def totp_config_url(*, user: User, key: str) -> str:
    """The ``otpauth://`` URL an authenticator app reads from the QR code."""
    return str(TOTPDevice(user=user, key=key).config_url)


def _totp_step(key: str, code: str) -> int | None:
    """The time step ``code`` belongs to for ``key`` (tolerating one step either way), or ``None``."""
    if not TOTP_CODE.match(code):
        return None
    # The wall clock, as django-otp's own check at login reads it (TOTPDevice.verify_token).
    totp = TOTP(unhexlify(key.encode()))
    return int(totp.t()) if totp.verify(int(code), tolerance=1) else None


@transaction.atomic
def totp_device_add(*, user: User, key: str, code: str, name: str) -> TOTPDevice:
    """Add the person's authenticator app once its first code proves it holds ``key``; one app per person."""
    if TOTPDevice.objects.filter(user=user, confirmed=True).exists():
        raise SecondFactorError("already")
    step = _totp_step(key, code.strip())
    if step is None:
        raise SecondFactorError("wrong_code")
    # The code that confirmed the app cannot also be the code that logs in next (last_t).
    return TOTPDevice.objects.create(user=user, key=key, name=name[:64], confirmed=True, last_t=step)


@transaction.atomic
def totp_device_remove(*, user: User) -> int:
    """Remove the person's authenticator app (the caller has checked that the session gave a second factor).

    Without a passkey left, the recovery codes go too: they lead back to a factor the person no longer has.
    """
    removed = int(TOTPDevice.objects.filter(user=user).delete()[0])
    if not WebAuthnCredential.objects.filter(user=user).exists():
        RecoveryCodes.objects.filter(user=user).delete()
    return removed


@transaction.atomic
def recovery_codes_issue(*, user: User, name: str) -> list[str]:
    """Replace the person's recovery codes with ``RECOVERY_COUNT`` new ones: shown once, kept only as digests."""
    RecoveryCodes.objects.filter(user=user).delete()
    device = RecoveryCodes.objects.create(user=user, name=name[:64], confirmed=True)
    codes = [recovery_code_new() for _ in range(RECOVERY_COUNT)]
    RecoveryCode.objects.bulk_create([RecoveryCode(device=device, digest=recovery_digest(code)) for code in codes])
    return codes


def _device_for_code(user: User, code: str) -> Device | None:
    """Six digits are the authenticator app's; anything else is tried as a recovery code."""
    model: type[Device] = TOTPDevice if TOTP_CODE.match(code) else RecoveryCodes
    return model.objects.select_for_update().filter(user=user, confirmed=True).first()


def second_factor_verify(*, user: User, code: str, address: str | None) -> Device:
    """The device that accepts ``code`` for ``user``, or ``SecondFactorError`` (``locked`` or ``wrong_code``).

    Not one transaction on purpose: a refusal must leave its failure counted (SPEC A-11).
    """
    if throttle.second_factor_locked(user=user, address=address):
        raise SecondFactorError("locked")
    code = code.strip()
    with transaction.atomic():
        device = _device_for_code(user, code) if code else None
        accepted = device is not None and bool(device.verify_token(code))
    if not accepted or device is None:
        with transaction.atomic():
            throttle.second_factor_failed(user=user, address=address)
        raise SecondFactorError("wrong_code")
    with transaction.atomic():
        throttle.second_factor_succeeded(user=user)
    return device


@dataclass(frozen=True)
class FactorsRemoved:
    authenticator_apps: int
    passkeys: int
    recovery_codes: int


@transaction.atomic
def second_factor_reset(*, user: User, operator: User | None, reason: str, ticket: str = "") -> FactorsRemoved:
    """Remove every second factor of ``user`` (an operator's command, for a lost factor): next login enrols anew.

    ``operator`` (the staff account running it, if any), ``reason`` and ``ticket`` are recorded with it.
    """
    if not reason.strip():
        raise SecondFactorError("reason_required")
    removed = FactorsRemoved(
        authenticator_apps=TOTPDevice.objects.filter(user=user).delete()[0],
        passkeys=WebAuthnCredential.objects.filter(user=user).delete()[0],
        recovery_codes=RecoveryCodes.objects.filter(user=user).count(),
    )
    RecoveryCodes.objects.filter(user=user).delete()
    SecondFactorFailure.objects.filter(user=user).delete()
    # SPEC AD-2: a change to the person's account by staff or an operator, shown to them on their page.
    staff_access_record(staff=operator, person=user, action="factor_reset", reason=reason, ticket=ticket)
    return removed
