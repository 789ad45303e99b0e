"""An operator resets a lost second factor with a documented command, which is recorded (SPEC AD-3).

The last superuser who lost their phone is not locked out for good: ``reset_second_factor`` removes the
account's factors, and the next login asks for a new one before the admin opens.
"""

from __future__ import annotations

import logging
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django_otp.plugins.otp_totp.models import TOTPDevice

from apps.accounts.models import RecoveryCodes
from apps.accounts.services import recovery_codes_issue
from apps.staff.selectors import records_for
from tests.accounts.factors import authenticator
from tests.accounts.test_second_factor import add_app_through_the_page, password_login

pytestmark = pytest.mark.django_db


@pytest.fixture
def last_superuser(django_user_model):
    root = django_user_model.objects.create_superuser("root", "root@example.com", "root-password")
    authenticator(root)
    recovery_codes_issue(user=root, name="Recovery codes")
    return root


def reset(**options):
    out = StringIO()
    call_command("reset_second_factor", stdout=out, **options)
    return out.getvalue()


# SPEC AD-3: the phone is lost: the password alone opens nothing; the command, then a new factor, opens the admin.
def test_the_last_superuser_gets_back_in_through_the_command(last_superuser, caplog):
    client = Client()
    password_login(client, "root", "root-password", path="/admin/login/", next_path="/admin/")
    assert client.get("/admin/").url.startswith("/accounts/second-factor/")

    with caplog.at_level(logging.WARNING, logger="apps.accounts"):
        said = reset(username="root", reason="Lost phone, identity checked by video call", ticket="SUP-42")
    assert "1 authenticator app(s)" in said and "1 set(s) of recovery codes" in said
    assert not TOTPDevice.objects.exists() and not RecoveryCodes.objects.exists()
    assert "Lost phone, identity checked by video call" in caplog.text  # logged, with its reason
    # SPEC AD-2: and recorded for the person, who sees it on their page and in their export.
    [record] = records_for(person=last_superuser)
    assert (record.action, record.staff, record.reason, record.ticket) == (
        "factor_reset", None, "Lost phone, identity checked by video call", "SUP-42")

    # This very session owed the old factor; now it is sent to add a new one, then the admin opens.
    assert client.get("/admin/").url.startswith("/me/security/?next=")
    add_app_through_the_page(client)
    assert client.get("/admin/").status_code == 200


# SPEC AD-3: the command says why, about someone who exists.
def test_the_command_needs_a_reason_and_an_account(last_superuser):
    with pytest.raises(CommandError):
        reset(username="root", reason="   ")
    with pytest.raises(CommandError):
        reset(username="nobody", reason="lost phone")
    with pytest.raises(CommandError):
        call_command("reset_second_factor", "--username", "root")  # --reason is required
    with pytest.raises(CommandError):
        reset(username="root", reason="lost phone", by="nobody")
    assert TOTPDevice.objects.filter(user=last_superuser).exists()
