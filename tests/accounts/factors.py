"""Second factors for tests (SPEC AD-3): codes computed with django-otp's own TOTP, and a staff login that gave one.

``verified_login(client, user)`` is how every test that opens the admin logs its staff in: the person has an
authenticator app (added here if missing) and the session is marked as having given it, as the second-factor
page does after a right code. ``admin_client`` (tests/conftest.py) uses it.
"""

from __future__ import annotations

import time

from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice


def authenticator(user) -> TOTPDevice:
    """The person's authenticator app, added if they have none."""
    device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
    return device or TOTPDevice.objects.create(user=user, name="Authenticator app", confirmed=True)


def code_for(key_hex_or_device, *, steps: int = 0) -> str:
    """The code an authenticator app shows now (or ``steps`` time steps from now) for a device or a hex key."""
    key = key_hex_or_device.bin_key if isinstance(key_hex_or_device, TOTPDevice) else bytes.fromhex(key_hex_or_device)
    totp = TOTP(key)
    totp.time = time.time() + 30 * steps
    return f"{totp.token():06d}"


def verified_login(client, user):
    """Log ``user`` in on ``client`` with a second factor given (the admin opens for staff)."""
    device = authenticator(user)
    client.force_login(user)
    session = client.session
    session[DEVICE_ID_SESSION_KEY] = device.persistent_id
    session.save()
    return client
